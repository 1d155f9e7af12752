"""The index: the SQLite store (source of truth) with its derived FAISS and BM25 files, the finance-aware
tokenizer, embeddings, BM25/dense/hybrid search and reciprocal-rank fusion."""
