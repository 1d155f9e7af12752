"""finrag: evals/metrics."""
