"""finrag domain core, one package per pipeline stage.

``ingest`` (files -> pages, sections, tables, chunks, Chunk Cards) writes into ``index`` (SQLite + FAISS + BM25,
search); ``query`` (rewrite with the conversation, decomposition, Query Intents) feeds ``retrieval`` (the
FinCARDS deep-retrieval stages), whose evidence ``answer`` reads (values, arithmetic in code, verification,
composition). ``finance`` (lexicon, metrics, periods, numbers, arithmetic) and ``llm`` (models, prompts, output
schemas) sit under every stage; ``config``, ``schemas``, ``errors`` and ``memory`` at the root. The layers are
import-linter contracts (pyproject.toml); the core never imports ``graphs``, ``evals`` or ``cli``.
"""
