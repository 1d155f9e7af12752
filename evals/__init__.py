"""finrag: evals."""
