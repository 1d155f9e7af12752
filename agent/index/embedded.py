"""The embedded search backend: BM25 and dense search in this process over the store's own files.

Searching inside chosen documents (the usual case after document routing) uses per-document caches: the
chunk list, the BM25 tokens and the embedding matrix (a numpy dot product is exact and fast at filing size);
a BM25 index is built per set of documents searched. Searching everything uses the store's FAISS index.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from agent.errors import NotFoundError
from agent.index.bm25 import FinBM25, SparseBM25, bm25_index
from agent.index.fusion import PATH_DEPTH_MIN, reciprocal_rank_fusion
from agent.index.protocol import IndexStore, Ranked
from agent.schemas import Chunk

DOC_CACHE_SIZE = 64  # per-document caches kept (a filing's chunks, BM25 and vectors: a few MB each)


SCOPE_CACHE_SIZE = 16  # BM25 indexes over multi-document scopes kept


@dataclass
class _DocCache:
    """Everything needed to search one document without touching SQLite again."""

    chunks: list[Chunk]
    position: dict[str, int]
    tokens: list[list[str]] | None = None
    matrix: np.ndarray | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class _Scope:
    """A BM25 index over a set of documents with the chunks in the same order."""

    chunks: list[Chunk]
    bm25: FinBM25 | SparseBM25 | None


class EmbeddedBackend:
    """BM25 (per searched scope, idf over that scope), dense cosine and their RRF fusion, in process."""

    name = "embedded"

    def __init__(self, store: IndexStore) -> None:
        self.store = store
        self._docs: OrderedDict[str, _DocCache] = OrderedDict()
        self._scopes: OrderedDict[tuple[int, tuple[str, ...] | None], _Scope] = OrderedDict()
        self._lock = threading.Lock()
        self._generation = -1  # store generation the caches were checked against

    def sync(self) -> None:
        """After documents were removed (here or by another process), forget what is cached about them."""
        generation = self.store.generation
        if generation == self._generation:
            return
        present = set(self.store.document_names())
        with self._lock:
            for doc_id in [d for d in self._docs if d not in present]:
                del self._docs[doc_id]
            for key in [k for k in self._scopes if k[1] is not None and not present.issuperset(k[1])]:
                del self._scopes[key]
            self._generation = generation

    def close(self) -> None:
        """Nothing to release: the store owns the files."""

    # --- ranked lists ------------------------------------------------------------------------------------
    def bm25(self, terms: list[str], doc_ids: Sequence[str] | None, k: int) -> list[tuple[Chunk, float]]:
        """Top ``k`` chunks by BM25 over the scope (only chunks sharing a term)."""
        scope = self._scope(doc_ids)
        if not terms or scope.bm25 is None or k <= 0:
            return []
        scores = scope.bm25.get_scores(terms)
        top = _top_k(scores, k)
        return [(scope.chunks[i], float(scores[i])) for i in top if scores[i] > 0.0]

    def dense(self, vector: np.ndarray, doc_ids: Sequence[str] | None, k: int) -> list[tuple[Chunk, float]]:
        """Top ``k`` chunks by cosine: FAISS over everything, exact NumPy inside chosen documents."""
        if k <= 0 or (doc_ids is not None and not doc_ids):
            return []
        vector = np.asarray(vector, dtype=np.float32)
        if doc_ids is None:
            found = []
            for chunk_id, score in self.store.dense_search(vector, k):
                with contextlib.suppress(NotFoundError):  # removed by a concurrent writer since the search
                    found.append((self._chunk(chunk_id), score))
            return found
        candidates: list[tuple[Chunk, float]] = []
        for doc_id in dict.fromkeys(doc_ids):
            cache = self._doc(doc_id)
            matrix = self._matrix(doc_id, cache)
            if not len(matrix):
                continue
            # einsum, not BLAS matmul: a threaded BLAS call costs 10x more than the work on a busy machine (measured)
            scores = np.einsum("ij,j->i", matrix, vector)
            candidates += [(cache.chunks[i], float(scores[i])) for i in _top_k(scores, k)]
        candidates.sort(key=lambda pair: -pair[1])
        return candidates[:k]

    def hybrid(self, terms: list[str], vector: np.ndarray, doc_ids: Sequence[str] | None, k: int) -> list[Ranked]:
        """Reciprocal-rank fusion of the BM25 and dense rankings, each ``max(k, PATH_DEPTH_MIN)`` deep."""
        depth = max(k, PATH_DEPTH_MIN)
        paths = {"bm25": self.bm25(terms, doc_ids, depth), "dense": self.dense(vector, doc_ids, depth)}
        fused = reciprocal_rank_fusion(
            {name: [c.chunk_id for c, _ in ranked] for name, ranked in paths.items()}, k=self.store.settings.rrf_k
        )[:k]
        by_id: dict[str, Chunk] = {}
        details: dict[str, tuple[dict[str, float], dict[str, int]]] = {}
        for name, ranked in paths.items():
            for rank, (chunk, score) in enumerate(ranked, start=1):
                by_id[chunk.chunk_id] = chunk
                scores, ranks = details.setdefault(chunk.chunk_id, ({}, {}))
                scores[name] = score
                ranks[name] = rank
        return [
            Ranked(by_id[cid], score, {**details[cid][0], "rrf": score}, details[cid][1]) for cid, score in fused
        ]

    # --- caches ------------------------------------------------------------------------------------------
    def _doc(self, doc_id: str) -> _DocCache:
        """Chunks of one document (cached; a doc_id is a content hash, so its chunks never change)."""
        with self._lock:
            cache = self._docs.get(doc_id)
            if cache is not None:
                self._docs.move_to_end(doc_id)
                return cache
        chunks = self.store.chunks([doc_id])
        if not chunks and not self.store.has_document(doc_id):
            raise NotFoundError(f"No document with id '{doc_id}'.")
        cache = _DocCache(chunks=chunks, position={c.chunk_id: i for i, c in enumerate(chunks)})
        with self._lock:
            self._docs[doc_id] = cache
            while len(self._docs) > DOC_CACHE_SIZE:
                self._docs.popitem(last=False)
        return cache

    def _tokens(self, doc_id: str, cache: _DocCache) -> list[list[str]]:
        with cache.lock:
            if cache.tokens is None:
                ids, tokens = self.store.doc_tokens(doc_id)
                by_id = dict(zip(ids, tokens, strict=True))
                cache.tokens = [by_id.get(c.chunk_id, []) for c in cache.chunks]
            return cache.tokens

    def _matrix(self, doc_id: str, cache: _DocCache) -> np.ndarray:
        with cache.lock:
            if cache.matrix is None:
                ids, matrix = self.store.doc_embeddings(doc_id)
                if ids != [c.chunk_id for c in cache.chunks]:  # align to chunk order whatever the store returned
                    row = {cid: i for i, cid in enumerate(ids)}
                    matrix = matrix[[row[c.chunk_id] for c in cache.chunks]] if ids else matrix
                cache.matrix = np.ascontiguousarray(matrix, dtype=np.float32)
            return cache.matrix

    def _chunk(self, chunk_id: str) -> Chunk:
        with self._lock:
            for cache in self._docs.values():
                position = cache.position.get(chunk_id)
                if position is not None:
                    return cache.chunks[position]
        return self.store.chunk(chunk_id)

    def _scope(self, doc_ids: Sequence[str] | None) -> _Scope:
        """A BM25 index over the requested documents (all when None), cached per document set."""
        ids = None if doc_ids is None else tuple(sorted(set(doc_ids)))
        # The whole-corpus scope changes with every ingest; a fixed set of content hashes never does.
        key = (self.store.generation if ids is None else 0, ids)
        with self._lock:
            scope = self._scopes.get(key)
            if scope is not None:
                self._scopes.move_to_end(key)
                return scope
        members = list(self.store.document_names()) if ids is None else list(ids)
        chunks: list[Chunk] = []
        tokens: list[list[str]] = []
        for doc_id in sorted(members):
            try:
                cache = self._doc(doc_id)
                doc_tokens = self._tokens(doc_id, cache)
            except NotFoundError:
                if ids is not None:
                    raise
                continue  # removed by a concurrent writer while the whole-corpus scope was being built
            chunks += cache.chunks
            tokens += doc_tokens
        # BM25Okapi divides by the average length: an all-empty corpus has nothing to score.
        scope = _Scope(chunks=chunks, bm25=bm25_index(tokens) if any(tokens) else None)
        with self._lock:
            if ids is None:  # drop whole-corpus scopes of older generations
                for stale in [k for k in self._scopes if k[1] is None]:
                    del self._scopes[stale]
            self._scopes[key] = scope
            while len(self._scopes) > SCOPE_CACHE_SIZE:
                self._scopes.popitem(last=False)
        return scope


def _top_k(scores: np.ndarray, k: int) -> list[int]:
    """Indices of the ``k`` highest scores, best first (ties by position, so results are deterministic)."""
    n = len(scores)
    if n == 0 or k <= 0:
        return []
    part = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
    return sorted(part.tolist(), key=lambda i: (-scores[i], i))
