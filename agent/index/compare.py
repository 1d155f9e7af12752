"""Compare two search backends over the same store (``finrag index check``): the same chunk ids per document,
and the same top-10 for a seeded sample of queries, path by path, within a tolerance.

Queries are drawn from the index itself: a sampled chunk's opening words (for BM25) and its stored vector
(for dense), so the check needs no model and covers every document. Each query runs over every document
and inside the sampled chunk's own document (filtered search).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
from pydantic import BaseModel, Field

from agent.index.milvus import MilvusBackend
from agent.index.protocol import IndexStore, SearchBackend
from agent.index.tokenize import tokenize

CHECK_TOP_K = 10  # what a reader sees; the deeper candidate lists are fused from these paths
CHECK_QUERIES = 50  # sampled queries: enough to see a systematic difference, seconds to run
CHECK_TOLERANCE = 0.9  # mean top-10 overlap each path must reach: HNSW is approximate, ties may order differently
QUERY_WORDS = 12  # opening words of a sampled chunk used as its BM25 query: a phrase a user might search


class DocumentDifference(BaseModel):
    """A document whose chunk ids differ between the store and the mirror."""

    doc_id: str
    name: str
    missing: int = Field(description="chunks in the store that the mirror lacks")
    extra: int = Field(description="chunks in the mirror that the store lacks")


class PathAgreement(BaseModel):
    """Top-10 overlap of one search path between the two backends over the sampled queries."""

    path: str
    queries: int
    mean_overlap: float
    min_overlap: float
    identical: int = Field(description="queries whose top-10 ids came back in the same order")


class BackendComparison(BaseModel):
    """What ``finrag index check`` reports."""

    reference: str
    candidate: str
    documents: int
    chunks: int
    differences: list[DocumentDifference] = Field(default_factory=list)
    unmirrored: list[str] = Field(default_factory=list, description="stored documents the mirror has not marked")
    paths: list[PathAgreement] = Field(default_factory=list)
    tolerance: float = CHECK_TOLERANCE

    @property
    def ok(self) -> bool:
        """Same chunk ids everywhere and every path within the tolerance."""
        return (not self.differences and not self.unmirrored
                and all(p.mean_overlap >= self.tolerance for p in self.paths))


def compare_chunk_ids(
    store: IndexStore, mirror: MilvusBackend, progress: Callable[[int, int], None] | None = None
) -> tuple[list[DocumentDifference], list[str], int]:
    """Per document, the chunk ids in the store against those in the mirror; also the stored documents the
    mirror has not marked complete, and the number of stored chunks."""
    names = store.document_names()
    marked = mirror.mirrored()
    differences: list[DocumentDifference] = []
    total = 0
    for done, doc_id in enumerate(sorted(names, key=names.__getitem__), start=1):
        stored = {c.chunk_id for c in store.chunks([doc_id])}
        total += len(stored)
        held = mirror.chunk_ids(doc_id, upto=len(stored))
        if stored != held:
            differences.append(DocumentDifference(doc_id=doc_id, name=names[doc_id], missing=len(stored - held),
                                                  extra=len(held - stored)))
        if progress is not None:
            progress(done, len(names))
    return differences, sorted(names[d] for d in names if d not in marked), total


def compare_backends(
    store: IndexStore,
    reference: SearchBackend,
    candidate: MilvusBackend,
    queries: int = CHECK_QUERIES,
    seed: int = 13,
    tolerance: float = CHECK_TOLERANCE,
    progress: Callable[[str, int, int], None] | None = None,
) -> BackendComparison:
    """Chunk ids and top-10 agreement of ``candidate`` against ``reference`` on a seeded query sample."""
    differences, unmirrored, n_chunks = compare_chunk_ids(
        store, candidate, None if progress is None else (lambda done, total: progress("ids", done, total)))
    names = store.document_names()
    sample = _sample_chunks(store, list(names), queries, seed)
    overlaps: dict[str, list[tuple[float, bool]]] = {}
    for done, (doc_id, chunk_id, text) in enumerate(sample, start=1):
        terms = tokenize(" ".join(text.split()[:QUERY_WORDS]))
        vector = store.embeddings_for([chunk_id])[0]
        for scope_name, scope in (("all", None), ("document", [doc_id])):
            for path in ("bm25", "dense", "hybrid"):
                ours = _top_ids(reference, path, terms, vector, scope)
                theirs = _top_ids(candidate, path, terms, vector, scope)
                overlap = len(set(ours) & set(theirs)) / max(len(ours), len(theirs), 1)
                overlaps.setdefault(f"{path} ({scope_name})", []).append((overlap, ours == theirs))
        if progress is not None:
            progress("queries", done, len(sample))
    paths = [
        PathAgreement(path=path, queries=len(values), mean_overlap=round(sum(v for v, _ in values) / len(values), 4),
                      min_overlap=round(min(v for v, _ in values), 4), identical=sum(1 for _, same in values if same))
        for path, values in overlaps.items()
    ]
    return BackendComparison(reference=reference.name, candidate=candidate.name, documents=len(names),
                             chunks=n_chunks, differences=differences, unmirrored=unmirrored, paths=paths,
                             tolerance=tolerance)


def _top_ids(
    backend: SearchBackend, path: str, terms: list[str], vector: np.ndarray, scope: list[str] | None
) -> list[str]:
    if path == "bm25":
        return [c.chunk_id for c, _ in backend.bm25(terms, scope, CHECK_TOP_K)]
    if path == "dense":
        return [c.chunk_id for c, _ in backend.dense(vector, scope, CHECK_TOP_K)]
    return [r.chunk.chunk_id for r in backend.hybrid(terms, vector, scope, CHECK_TOP_K)]


def _sample_chunks(store: IndexStore, doc_ids: list[str], n: int, seed: int) -> list[tuple[str, str, str]]:
    """``n`` chunks spread over the documents (round-robin over a seeded shuffle): (doc_id, chunk_id, text)."""
    rng = random.Random(seed)
    order = sorted(doc_ids)
    rng.shuffle(order)
    pools: list[list[tuple[str, str, str]]] = []
    for doc_id in order[:n]:
        chunks = [c for c in store.chunks([doc_id]) if len(tokenize(c.text)) >= 3]
        rng.shuffle(chunks)
        pools.append([(doc_id, c.chunk_id, c.text) for c in chunks])
    sample: list[tuple[str, str, str]] = []
    while len(sample) < n and any(pools):
        for pool in pools:
            if pool and len(sample) < n:
                sample.append(pool.pop())
    return sample
