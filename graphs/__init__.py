"""finrag: graphs."""
