"""Candidate search over stored chunks: BM25, dense cosine, and their reciprocal-rank fusion.

BM25 (:class:`FinBM25`, Okapi with Lucene's idf) uses :func:`agent.index.tokenize.tokenize`, a finance-aware tokenizer.

Searching inside chosen documents (the usual case after document routing) uses per-document caches: the
chunk list, a BM25 index and the embedding matrix (a numpy dot product is exact and fast at filing size).
Searching everything uses the store's FAISS index.
"""

from __future__ import annotations

import contextlib
import logging
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from rank_bm25 import BM25Okapi

from agent.errors import FinragError, NotFoundError, StoreError
from agent.index.fusion import reciprocal_rank_fusion
from agent.schemas import Chunk, SearchHit

if TYPE_CHECKING:
    from agent.index.embeddings import Embedder
    from agent.index.protocol import IndexStore
from agent.index.tokenize import tokenize

# ---------------------------------------------------------------------------------------------------------
# metadata filtering
# ---------------------------------------------------------------------------------------------------------
_FORM_NORMALISE_RE = re.compile(r"[\s\-_]")


def _norm_form(form: str) -> str:
    """'10-K', '10K', '10 k' -> '10K'."""
    return _FORM_NORMALISE_RE.sub("", form).upper()


def _norm_company(name: str) -> str:
    """Lower-case words without punctuation or legal suffixes, to match '3M' with '3M Company'."""
    words = re.findall(r"[a-z0-9&]+", name.lower())
    return " ".join(w for w in words if w not in _COMPANY_SUFFIXES)


def _same_company(asked: str, stored: str) -> bool:
    """Whole-word containment either way after normalising ('3M' ~ '3M Company', but 'GE' !~ 'General Mills')."""
    a, b = _norm_company(asked), _norm_company(stored)
    return bool(a and b) and (f" {a} " in f" {b} " or f" {b} " in f" {a} ")


_COMPANY_SUFFIXES = frozenset({"inc", "incorporated", "corp", "corporation", "co", "company", "ltd", "plc", "llc",
                               "holdings", "group", "the", "sa", "ag", "nv"})


# ---------------------------------------------------------------------------------------------------------
# searcher
# ---------------------------------------------------------------------------------------------------------
PATH_DEPTH_MIN = 50  # each path ranks at least this many before fusion, so near-misses of one path can be lifted


DOC_CACHE_SIZE = 64  # per-document caches kept (a filing's chunks, BM25 and vectors: a few MB each)


QUERY_CACHE_SIZE = 512  # query embeddings kept: deep retrieval asks the same sub-query on several paths


SCOPE_CACHE_SIZE = 16  # BM25 indexes over multi-document scopes kept


def searchable(query: str, k: int) -> bool:
    """Whether a search can mean anything: ``k`` of at least one and a query with a word to match (an empty or
    punctuation-only query would otherwise rank chunks by nothing, and its embedding is noise). A negative
    ``k`` is a caller's bug, not an empty result."""
    if k < 1:
        raise FinragError(f"the number of hits must be at least 1 (got {k})")
    return bool(tokenize(query))


# From this many chunks a scope's BM25 runs on bm25s: below it the two are equally fast (measured at 10k chunks).
SPARSE_BM25_MIN_CHUNKS = 20_000


class FinBM25(BM25Okapi):
    """rank_bm25's Okapi BM25 with Lucene's always-positive idf and an inverted index for fast scoring.

    * idf is ``log(1 + (N - n + 0.5) / (n + 0.5))``: rank_bm25 floors negative idfs at a fraction of the
      average idf, which itself turns negative in small corpora (a term in every chunk of a short filing);
      with Lucene's idf a chunk scores above zero exactly when it shares a term with the query.
    * :meth:`get_scores` computes rank_bm25's Okapi formula from per-term postings (numpy over the chunks that
      contain the term) instead of looking every term up in every chunk's dictionary: same scores, a fraction
      of the time on filings with thousands of chunks.
    """

    def __init__(self, corpus: list[list[str]], k1: float = 1.5, b: float = 0.75) -> None:
        super().__init__(corpus, k1=k1, b=b)
        self._doc_len = np.asarray(self.doc_len, dtype=np.float64)
        rows: dict[str, list[int]] = {}
        freqs: dict[str, list[int]] = {}
        for i, frequencies in enumerate(self.doc_freqs):
            for word, freq in frequencies.items():
                rows.setdefault(word, []).append(i)
                freqs.setdefault(word, []).append(freq)
        self._postings = {
            word: (np.asarray(rows[word], dtype=np.int64), np.asarray(freqs[word], dtype=np.float64)) for word in rows
        }

    def _calc_idf(self, nd: dict[str, int]) -> None:
        n_docs = self.corpus_size
        self.idf = {word: math.log(1.0 + (n_docs - freq + 0.5) / (freq + 0.5)) for word, freq in nd.items()}
        self.average_idf = sum(self.idf.values()) / len(self.idf) if self.idf else 0.0

    def get_scores(self, query: list[str]) -> np.ndarray:
        """BM25 score of every chunk for the query tokens (repeated tokens count again, as in rank_bm25)."""
        scores = np.zeros(self.corpus_size)
        for term in query:
            posting = self._postings.get(term)
            if posting is None:
                continue
            rows, tf = posting
            norm = self.k1 * (1 - self.b + self.b * self._doc_len[rows] / self.avgdl)
            scores[rows] += self.idf[term] * (tf * (self.k1 + 1) / (tf + norm))
        return scores


class SparseBM25:
    """The same scores as :class:`FinBM25` (Okapi with Lucene's idf), computed by ``bm25s`` from a sparse
    matrix of precomputed per-term scores: at corpus scale its queries are faster and its index smaller
    (``finrag eval bm25``: at 1M chunks p50 8.8 vs 13.5 ms, 1.25 vs 1.59 GB; at 100k p95 2.1 vs 16.5 ms),
    with identical rankings. bm25s leaves out Okapi's constant ``k1 + 1`` factor; it is put back here."""

    def __init__(self, corpus: list[list[str]], k1: float = 1.5, b: float = 0.75) -> None:
        import bm25s  # imports scipy: only corpus-scale scopes pay for it

        # bm25s sets its own logger to DEBUG, which would print its progress notes into finrag's output.
        logging.getLogger("bm25s").setLevel(logging.WARNING)
        self.k1 = k1
        self._engine = bm25s.BM25(method="lucene", k1=k1, b=b)
        self._engine.index(corpus, show_progress=False)

    def get_scores(self, query: list[str]) -> np.ndarray:
        """BM25 score of every chunk for the query tokens (repeated tokens count again)."""
        known = [t for t in query if t in self._engine.vocab_dict]
        if not known:
            return np.zeros(self._engine.scores["num_docs"])
        return np.asarray(self._engine.get_scores(known), dtype=np.float64) * (self.k1 + 1)


def bm25_index(corpus: list[list[str]]) -> FinBM25 | SparseBM25:
    """The BM25 engine for a scope: NumPy postings for a filing or a few (no scipy import on the way to a
    cold answer), bm25s's sparse matrix from ``SPARSE_BM25_MIN_CHUNKS`` chunks up. Both give the same scores."""
    return SparseBM25(corpus) if len(corpus) >= SPARSE_BM25_MIN_CHUNKS else FinBM25(corpus)


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


class HybridSearcher:
    """BM25, dense and hybrid (RRF) search over a store, optionally restricted to some documents."""

    def __init__(self, store: IndexStore, embedder_factory: Callable[[], Embedder] | None = None) -> None:
        self.store = store
        if embedder_factory is None:
            from agent.index.embeddings import get_embedder

            settings = store.settings
            embedder_factory = lambda: get_embedder(settings)  # noqa: E731 - deferred: BM25 never loads a model
        self._embedder_factory = embedder_factory
        self._docs: OrderedDict[str, _DocCache] = OrderedDict()
        self._scopes: OrderedDict[tuple[int, tuple[str, ...] | None], _Scope] = OrderedDict()
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self._generation = -1  # store generation the caches were checked against

    def _sync(self) -> None:
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

    # --- public searches -------------------------------------------------------------------------------
    def bm25(self, query: str, doc_ids: Sequence[str] | None = None, k: int = 10) -> list[SearchHit]:
        """Top ``k`` chunks by BM25 (only chunks sharing a term with the query)."""
        if not searchable(query, k):
            return []
        self._sync()
        return self._hits(self._bm25_ranked(query, doc_ids, k), "bm25")

    def dense(
        self, query: str, doc_ids: Sequence[str] | None = None, k: int = 10, query_vector: np.ndarray | None = None
    ) -> list[SearchHit]:
        """Top ``k`` chunks by cosine similarity to the query embedding (pass ``query_vector`` to skip encoding)."""
        if query_vector is None and not searchable(query, k):
            return []
        self._sync()
        return self._hits(self._dense_ranked(query, doc_ids, k, query_vector), "dense")

    def hybrid(
        self,
        query: str,
        doc_ids: Sequence[str] | None = None,
        k: int = 10,
        query_vector: np.ndarray | None = None,
        weights: dict[str, float] | None = None,
    ) -> list[SearchHit]:
        """Top ``k`` chunks by reciprocal-rank fusion of BM25 and dense rankings, with per-path scores and ranks."""
        if query_vector is None and not searchable(query, k):
            return []
        self._sync()
        depth = max(k, PATH_DEPTH_MIN)
        paths = {
            "bm25": self._bm25_ranked(query, doc_ids, depth),
            "dense": self._dense_ranked(query, doc_ids, depth, query_vector),
        }
        fused = reciprocal_rank_fusion(
            {name: [c.chunk_id for c, _ in ranked] for name, ranked in paths.items()},
            k=self.store.settings.rrf_k,
            weights=weights,
        )[:k]
        by_id: dict[str, Chunk] = {}
        details: dict[str, tuple[dict[str, float], dict[str, int]]] = {}
        for name, ranked in paths.items():
            for rank, (chunk, score) in enumerate(ranked, start=1):
                by_id[chunk.chunk_id] = chunk
                scores, ranks = details.setdefault(chunk.chunk_id, ({}, {}))
                scores[name] = score
                ranks[name] = rank
        names = self.store.document_names()
        hits = []
        for chunk_id, score in fused:
            scores, ranks = details[chunk_id]
            chunk = by_id[chunk_id]
            hits.append(
                SearchHit(
                    chunk=chunk,
                    doc_name=names.get(chunk.doc_id, chunk.doc_id),
                    score=score,
                    path_scores={**scores, "rrf": score},
                    path_ranks=ranks,
                )
            )
        return hits

    def filter_documents(
        self,
        company: str | None = None,
        ticker: str | None = None,
        form: str | None = None,
        fiscal_year: int | None = None,
        name: str | None = None,
    ) -> list[str]:
        """doc_ids whose metadata match every given filter (case-insensitive; '10K' matches '10-K';
        a company matches when one name's words appear in the other's, so '3M' matches '3M Company')."""
        out = []
        for meta in self.store.list_documents():
            if name and meta.name.lower() != name.strip().lower():
                continue
            if ticker and meta.ticker.upper() != ticker.strip().upper():
                continue
            if form and _norm_form(meta.form) != _norm_form(form):
                continue
            if fiscal_year is not None and meta.fiscal_year != fiscal_year:
                continue
            if company and not _same_company(company, meta.company):
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

    # --- ranked lists ------------------------------------------------------------------------------------
    def _bm25_ranked(self, query: str, doc_ids: Sequence[str] | None, k: int) -> list[tuple[Chunk, float]]:
        terms = tokenize(query)
        scope = self._scope(doc_ids)
        if not terms or scope.bm25 is None or k <= 0:
            return []
        scores = scope.bm25.get_scores(terms)
        top = _top_k(scores, k)
        return [(scope.chunks[i], float(scores[i])) for i in top if scores[i] > 0.0]

    def _dense_ranked(
        self, query: str, doc_ids: Sequence[str] | None, k: int, query_vector: np.ndarray | None
    ) -> list[tuple[Chunk, float]]:
        if k <= 0 or (doc_ids is not None and not doc_ids):
            return []
        vector = self.encode_query(query) if query_vector is None else np.asarray(query_vector, dtype=np.float32)
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
