"""finrag domain core: configuration, schemas, ingestion, store, cards, retrieval stages, memory bank, answering.

The core never imports ``graphs``, ``evals`` or ``cli``.
"""
