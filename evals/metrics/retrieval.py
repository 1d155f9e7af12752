"""Ranking metrics over ranked ids and graded qrels, plus chunk-to-page ranking helpers.

Conventions (those of ``trec_eval``, so numbers compare with published tables):

- qrels map an id to a graded relevance; an id is *relevant* when its grade is > 0.
- nDCG uses linear gain ``rel / log2(rank + 1)`` (FinSage appendix C.3, trec_eval); the ideal DCG sorts all
  judged grades and truncates at k.
- AP@k divides by the number of relevant ids R (trec_eval ``map_cut``), not by min(R, k).
- Precision@k divides by k even when fewer than k ids were retrieved.
- FinSage's normalised recall divides by ``min(R, k)`` (FinSage 5, DRR evaluation) so a ranker is not
  penalised for gold it could not fit into k slots.
- A ranking that repeats an id counts it once, at its best rank.
- Queries without any relevant id are left out of the means (and listed), as trec_eval does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, Field

from agent.schemas import SearchHit

Qrels = Mapping[str, float]


def _dedupe(ranked: Iterable[str]) -> list[str]:
    """Keep each id at its first (best) rank."""
    seen: set[str] = set()
    out: list[str] = []
    for item in ranked:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")


def _n_relevant(qrels: Qrels) -> int:
    return sum(1 for grade in qrels.values() if grade > 0)


def dcg_at_k(ranked: Sequence[str], qrels: Qrels, k: int) -> float:
    """Discounted cumulative gain with linear gain: sum of rel_i / log2(i + 1) over the top k."""
    _check_k(k)
    top = _dedupe(ranked)[:k]
    return sum(max(qrels.get(item, 0.0), 0.0) / math.log2(i + 2) for i, item in enumerate(top))


def ndcg_at_k(ranked: Sequence[str], qrels: Qrels, k: int) -> float:
    """nDCG@k: DCG of the ranking over DCG of the ideal ordering of the judged grades (0 if none relevant)."""
    _check_k(k)
    ideal_grades = sorted((g for g in qrels.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal_grades))
    return dcg_at_k(ranked, qrels, k) / idcg if idcg > 0 else 0.0


def precision_at_k(ranked: Sequence[str], qrels: Qrels, k: int) -> float:
    """Relevant ids in the top k, over k."""
    _check_k(k)
    return sum(1 for item in _dedupe(ranked)[:k] if qrels.get(item, 0.0) > 0) / k


def recall_at_k(ranked: Sequence[str], qrels: Qrels, k: int) -> float:
    """Relevant ids in the top k, over all relevant ids (0 when there are none)."""
    _check_k(k)
    n_rel = _n_relevant(qrels)
    if n_rel == 0:
        return 0.0
    return sum(1 for item in _dedupe(ranked)[:k] if qrels.get(item, 0.0) > 0) / n_rel


def normalized_recall_at_k(ranked: Sequence[str], qrels: Qrels, k: int) -> float:
    """FinSage's normalised recall: correctly retrieved in the top k over min(ground-truth count, k)."""
    _check_k(k)
    n_rel = _n_relevant(qrels)
    if n_rel == 0:
        return 0.0
    hits = sum(1 for item in _dedupe(ranked)[:k] if qrels.get(item, 0.0) > 0)
    return hits / min(n_rel, k)


def map_at_k(ranked: Sequence[str], qrels: Qrels, k: int) -> float:
    """Average precision at k: mean of precision@i at each relevant rank i <= k, over R (trec_eval)."""
    _check_k(k)
    n_rel = _n_relevant(qrels)
    if n_rel == 0:
        return 0.0
    hits = 0
    total = 0.0
    for i, item in enumerate(_dedupe(ranked)[:k], start=1):
        if qrels.get(item, 0.0) > 0:
            hits += 1
            total += hits / i
    return total / n_rel


def mrr_at_k(ranked: Sequence[str], qrels: Qrels, k: int) -> float:
    """Reciprocal rank of the first relevant id within the top k (0 when none)."""
    _check_k(k)
    for i, item in enumerate(_dedupe(ranked)[:k], start=1):
        if qrels.get(item, 0.0) > 0:
            return 1.0 / i
    return 0.0


class QueryScores(BaseModel):
    """Every ranking metric at one cut-off k, for one query or averaged over queries."""

    ndcg: float = 0.0
    map: float = 0.0
    mrr: float = 0.0
    precision: float = 0.0
    recall: float = 0.0
    normalized_recall: float = Field(default=0.0, description="FinSage: hits / min(|gold|, k)")


class RetrievalScores(BaseModel):
    """Per-query and mean scores of a run against qrels at cut-off k."""

    k: int
    n_queries: int = Field(description="queries with at least one relevant id (those averaged)")
    mean: QueryScores
    per_query: dict[str, QueryScores]
    missing_run: list[str] = Field(default_factory=list, description="judged queries the run has no ranking for")
    no_relevant: list[str] = Field(default_factory=list, description="queries left out: no relevant id")

    def as_row(self) -> dict[str, float]:
        """Flat ``metric@k -> mean`` for tables and LangSmith feedback."""
        return {f"{name}@{self.k}": value for name, value in self.mean.model_dump().items()}


def score_query(ranked: Sequence[str], qrels: Qrels, k: int) -> QueryScores:
    """All metrics of one ranking at cut-off k."""
    return QueryScores(
        ndcg=ndcg_at_k(ranked, qrels, k),
        map=map_at_k(ranked, qrels, k),
        mrr=mrr_at_k(ranked, qrels, k),
        precision=precision_at_k(ranked, qrels, k),
        recall=recall_at_k(ranked, qrels, k),
        normalized_recall=normalized_recall_at_k(ranked, qrels, k),
    )


def evaluate_run(run: Mapping[str, Sequence[str]], qrels: Mapping[str, Qrels], k: int) -> RetrievalScores:
    """Score a run (query id -> ranked ids) against qrels (query id -> id -> grade) at cut-off k.

    Every judged query with a relevant id is averaged; a judged query missing from the run scores 0
    (it was asked and nothing came back). Queries in the run without qrels are ignored.
    """
    _check_k(k)
    per_query: dict[str, QueryScores] = {}
    missing: list[str] = []
    no_relevant: list[str] = []
    for qid in sorted(qrels):
        judged = qrels[qid]
        if _n_relevant(judged) == 0:
            no_relevant.append(qid)
            continue
        if qid not in run:
            missing.append(qid)
        per_query[qid] = score_query(run.get(qid, []), judged, k)
    names = list(QueryScores.model_fields)
    n = len(per_query)
    mean = QueryScores(
        **{name: (sum(getattr(s, name) for s in per_query.values()) / n if n else 0.0) for name in names}
    )
    return RetrievalScores(
        k=k, n_queries=n, mean=mean, per_query=per_query, missing_run=missing, no_relevant=no_relevant
    )


# ---------------------------------------------------------------------------------------------------------
# Chunk rankings -> page rankings (gold evidence is page-level)
# ---------------------------------------------------------------------------------------------------------
def page_key(doc: str, page: int) -> str:
    """The id of a page in page-level qrels: document name and 0-based page, e.g. ``3M_2018_10K#59``."""
    return f"{doc}#{page}"


def rank_pages(ranked_chunks: Sequence[str], pages_of: Mapping[str, Sequence[str]]) -> list[str]:
    """Turn a chunk ranking into a page ranking: a page takes the rank of its best chunk, once.

    ``pages_of`` maps a chunk id to the page keys it covers (a chunk can straddle pages; each gets the
    chunk's rank). Chunks with no known page are skipped.
    """
    pages: list[str] = []
    for chunk_id in ranked_chunks:
        pages.extend(pages_of.get(chunk_id, ()))
    return _dedupe(pages)


def rank_pages_from_hits(hits: Sequence[SearchHit]) -> list[str]:
    """Page ranking from ranked search hits, using each hit's document name and page span."""
    pages: list[str] = []
    for hit in hits:
        last = max(hit.chunk.page_end, hit.chunk.page)
        pages.extend(page_key(hit.doc_name, p) for p in range(hit.chunk.page, last + 1))
    return _dedupe(pages)
