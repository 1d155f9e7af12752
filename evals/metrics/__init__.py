"""finrag: evals/metrics — the one scoring library that benchmarks, answer evaluation and LangSmith import.

- :mod:`evals.metrics.retrieval`: nDCG / MAP / MRR / Precision / Recall @k, FinSage normalised recall,
  ``evaluate_run``, chunk-to-page rankings.
- :mod:`evals.metrics.answers`: numeric-tolerant ``numeric_match``, ``is_refusal``, ``exact_match``.
- :mod:`evals.metrics.text`: normalisation, ``token_f1``, ``rouge_l``, sentence splitting.
- :mod:`evals.metrics.ems`: EMS long-answer evaluation (extract, match, score; EMS-Recall/Precision/F1).
"""
