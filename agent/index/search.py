"""Candidate search over stored chunks: BM25, dense cosine, and their reciprocal-rank fusion.

:class:`HybridSearcher` is the one entry point: it tokenizes the query (:func:`agent.index.tokenize.tokenize`,
finance-aware), embeds it (cached), filters documents by metadata (the store is the source of truth) and asks
the configured :class:`agent.index.protocol.SearchBackend` for ranked chunks: the embedded backend by default,
Milvus with ``FINRAG_SEARCH_BACKEND=milvus``.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from agent.entities.names import same_name
from agent.errors import FinragError, StoreError
from agent.index.tokenize import tokenize
from agent.schemas import Chunk, SearchHit

if TYPE_CHECKING:
    from agent.index.embeddings import Embedder
    from agent.index.protocol import IndexStore, SearchBackend

# ---------------------------------------------------------------------------------------------------------
# metadata filtering
# ---------------------------------------------------------------------------------------------------------
_FORM_NORMALISE_RE = re.compile(r"[\s\-_]")


def _norm_form(form: str) -> str:
    """'10-K', '10K', '10 k' -> '10K'."""
    return _FORM_NORMALISE_RE.sub("", form).upper()


# ---------------------------------------------------------------------------------------------------------
# searcher
# ---------------------------------------------------------------------------------------------------------
QUERY_CACHE_SIZE = 512  # query embeddings kept: deep retrieval asks the same sub-query on several paths


def searchable(query: str, k: int) -> bool:
    """Whether a search can mean anything: ``k`` of at least one and a query with a word to match (an empty or
    punctuation-only query would otherwise rank chunks by nothing, and its embedding is noise). A negative
    ``k`` is a caller's bug, not an empty result."""
    if k < 1:
        raise FinragError(f"the number of hits must be at least 1 (got {k})")
    return bool(tokenize(query))


def open_backend(store: IndexStore) -> SearchBackend:
    """The search backend the store's settings name: ``embedded`` (default) or ``milvus``."""
    kind = store.settings.search_backend
    if kind == "embedded":
        from agent.index.embedded import EmbeddedBackend

        return EmbeddedBackend(store)
    if kind == "milvus":
        from agent.index.milvus import MilvusBackend

        return MilvusBackend(store)
    raise FinragError(f"unknown search backend '{kind}' (FINRAG_SEARCH_BACKEND): use 'embedded' or 'milvus'")


class HybridSearcher:
    """BM25, dense and hybrid (RRF) search over a store's chunks, optionally restricted to some documents."""

    def __init__(
        self,
        store: IndexStore,
        embedder_factory: Callable[[], Embedder] | None = None,
        backend: SearchBackend | None = None,
    ) -> None:
        self.store = store
        if embedder_factory is None:
            from agent.index.embeddings import get_embedder

            settings = store.settings
            embedder_factory = lambda: get_embedder(settings)  # noqa: E731 - deferred: BM25 never loads a model
        self._embedder_factory = embedder_factory
        self.backend = backend if backend is not None else open_backend(store)
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    # --- public searches -------------------------------------------------------------------------------
    def bm25(self, query: str, doc_ids: Sequence[str] | None = None, k: int = 10) -> list[SearchHit]:
        """Top ``k`` chunks by BM25 (only chunks sharing a term with the query)."""
        if not searchable(query, k):
            return []
        self.backend.sync()
        return self._hits(self.backend.bm25(tokenize(query), doc_ids, k), "bm25")

    def dense(
        self, query: str, doc_ids: Sequence[str] | None = None, k: int = 10, query_vector: np.ndarray | None = None
    ) -> list[SearchHit]:
        """Top ``k`` chunks by cosine similarity to the query embedding (pass ``query_vector`` to skip encoding)."""
        if query_vector is None and not searchable(query, k):
            return []
        if doc_ids is not None and not doc_ids:
            return []
        self.backend.sync()
        return self._hits(self.backend.dense(self._vector(query, query_vector), doc_ids, k), "dense")

    def hybrid(
        self,
        query: str,
        doc_ids: Sequence[str] | None = None,
        k: int = 10,
        query_vector: np.ndarray | None = None,
    ) -> list[SearchHit]:
        """Top ``k`` chunks by reciprocal-rank fusion of the BM25 and dense rankings."""
        if query_vector is None and not searchable(query, k):
            return []
        if doc_ids is not None and not doc_ids:
            return []
        self.backend.sync()
        ranked = self.backend.hybrid(tokenize(query), self._vector(query, query_vector), doc_ids, k)
        names = self.store.document_names()
        return [
            SearchHit(
                chunk=r.chunk,
                doc_name=names.get(r.chunk.doc_id, r.chunk.doc_id),
                score=r.score,
                path_scores=r.path_scores,
                path_ranks=r.path_ranks,
            )
            for r in ranked
        ]

    def filter_documents(
        self,
        company: str | None = None,
        ticker: str | None = None,
        form: str | None = None,
        fiscal_year: int | None = None,
        name: str | None = None,
    ) -> list[str]:
        """doc_ids whose metadata match every given filter (case-insensitive; '10K' matches '10-K';
        a company is resolved by the registry: any of its names, former names, aliases or tickers)."""
        out = []
        entity = self.store.entities().resolve(company) if company else None
        for meta in self.store.list_documents():
            if name and meta.name.lower() != name.strip().lower():
                continue
            if ticker and meta.ticker.upper() != ticker.strip().upper():
                continue
            if form and _norm_form(meta.form) != _norm_form(form):
                continue
            if fiscal_year is not None and meta.fiscal_year != fiscal_year:
                continue
            if company and not (meta.entity_id == entity.entity_id if entity else same_name(company, meta.company)):
                continue
            out.append(meta.doc_id)
        return out

    def encode_query(self, query: str) -> np.ndarray:
        """The query's unit embedding (cached per query text)."""
        with self._lock:
            cached = self._queries.get(query)
            if cached is not None:
                self._queries.move_to_end(query)
                return cached
        embedder = self._embedder_factory()
        stored = self.store.embedding_model
        if stored is not None and stored != embedder.model_name:
            raise StoreError(
                f"The index was embedded with '{stored}' but the configured model is '{embedder.model_name}'; "
                "set FINRAG_EMBEDDING_MODEL to the index's model or re-index into a new FINRAG_HOME."
            )
        vector = embedder.encode([query])[0]
        with self._lock:
            self._queries[query] = vector
            while len(self._queries) > QUERY_CACHE_SIZE:
                self._queries.popitem(last=False)
        return vector

    def _vector(self, query: str, query_vector: np.ndarray | None) -> np.ndarray:
        return self.encode_query(query) if query_vector is None else np.asarray(query_vector, dtype=np.float32)

    def _hits(self, ranked: list[tuple[Chunk, float]], path: str) -> list[SearchHit]:
        names = self.store.document_names()
        return [
            SearchHit(
                chunk=chunk,
                doc_name=names.get(chunk.doc_id, chunk.doc_id),
                score=score,
                path_scores={path: score},
                path_ranks={path: rank},
            )
            for rank, (chunk, score) in enumerate(ranked, start=1)
        ]
