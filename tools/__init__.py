"""finrag: tools."""
