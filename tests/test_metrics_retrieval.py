"""Ranking metrics against values computed by hand."""

from __future__ import annotations

import math

import pytest

from agent.schemas import Chunk, SearchHit
from evals.metrics.retrieval import (
    evaluate_run,
    map_at_k,
    mrr_at_k,
    ndcg_at_k,
    normalized_recall_at_k,
    page_key,
    precision_at_k,
    rank_pages,
    rank_pages_from_hits,
    recall_at_k,
)

# d2 (grade 2) at rank 2, d4 (grade 1) at rank 4; d9 (grade 1) never retrieved; d1 judged not relevant.
RANKED = ["d1", "d2", "d3", "d4", "d5"]
QRELS = {"d1": 0.0, "d2": 2.0, "d4": 1.0, "d9": 1.0}


def test_precision_recall_and_normalized_recall() -> None:
    assert precision_at_k(RANKED, QRELS, 5) == pytest.approx(2 / 5)
    assert recall_at_k(RANKED, QRELS, 5) == pytest.approx(2 / 3)
    assert recall_at_k(RANKED, QRELS, 2) == pytest.approx(1 / 3)
    # FinSage: hits / min(|gold|, k). At k=2 one hit over min(3, 2) = 2.
    assert normalized_recall_at_k(RANKED, QRELS, 2) == pytest.approx(1 / 2)
    assert normalized_recall_at_k(RANKED, QRELS, 5) == pytest.approx(2 / 3)
    # Precision divides by k even when fewer ids came back.
    assert precision_at_k(["d2"], QRELS, 4) == pytest.approx(1 / 4)


def test_mrr_and_map() -> None:
    assert mrr_at_k(RANKED, QRELS, 5) == pytest.approx(1 / 2)
    assert mrr_at_k(RANKED, QRELS, 1) == 0.0
    # Relevant at ranks 2 (P@2 = 1/2) and 4 (P@4 = 2/4); summed 1.0, over R = 3 relevant ids.
    assert map_at_k(RANKED, QRELS, 5) == pytest.approx(1 / 3)
    assert map_at_k(RANKED, QRELS, 3) == pytest.approx(0.5 / 3)


def test_ndcg_graded_linear_gain() -> None:
    dcg = 2 / math.log2(3) + 1 / math.log2(5)  # grade 2 at rank 2, grade 1 at rank 4
    idcg = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)  # ideal order: 2, 1, 1
    assert ndcg_at_k(RANKED, QRELS, 5) == pytest.approx(dcg / idcg)
    assert ndcg_at_k(RANKED, QRELS, 5) == pytest.approx(0.54059, abs=1e-5)
    # k = 2: DCG 2/log2(3) = 1.26186; ideal 2 + 1/log2(3) = 2.63093.
    assert ndcg_at_k(RANKED, QRELS, 2) == pytest.approx(0.47962, abs=1e-5)
    assert ndcg_at_k(["d2", "d4", "d9"], QRELS, 3) == pytest.approx(1.0)
    assert ndcg_at_k(RANKED, {"x": 1.0}, 5) == 0.0


def test_duplicates_count_once_at_their_best_rank() -> None:
    assert precision_at_k(["d2", "d2", "d4"], QRELS, 2) == pytest.approx(2 / 2)
    assert mrr_at_k(["d3", "d2", "d2"], QRELS, 3) == pytest.approx(1 / 2)


def test_bad_k_is_rejected() -> None:
    with pytest.raises(ValueError):
        ndcg_at_k(RANKED, QRELS, 0)


def test_evaluate_run_means_missing_and_unjudged() -> None:
    run = {"q1": ["a", "b"], "q3": ["z"], "extra": ["a"]}
    qrels = {"q1": {"b": 1.0}, "q2": {"c": 1.0}, "q3": {"z": 0.0}}
    scores = evaluate_run(run, qrels, k=2)
    assert scores.n_queries == 2
    assert scores.missing_run == ["q2"]
    assert scores.no_relevant == ["q3"]
    assert scores.per_query["q1"].mrr == pytest.approx(0.5)
    assert scores.per_query["q2"].mrr == 0.0
    assert scores.mean.mrr == pytest.approx(0.25)
    assert scores.mean.recall == pytest.approx(0.5)
    assert scores.mean.precision == pytest.approx(0.25)
    assert scores.as_row()["mrr@2"] == pytest.approx(0.25)


def _chunk(cid: str, page: int, page_end: int) -> Chunk:
    return Chunk(chunk_id=cid, doc_id="d", ordinal=0, section_id=0, page=page, page_end=page_end,
                 char_start=0, char_end=1, text="x")


def test_chunk_ranking_to_page_ranking() -> None:
    pages_of = {"c1": [page_key("A", 1)], "c2": [page_key("A", 2), page_key("A", 3)], "c3": [page_key("A", 1)]}
    assert rank_pages(["c3", "c2", "c1", "unknown"], pages_of) == ["A#1", "A#2", "A#3"]
    hits = [
        SearchHit(chunk=_chunk("c2", 4, 5), doc_name="3M_2018_10K", score=2.0),
        SearchHit(chunk=_chunk("c1", 5, 5), doc_name="3M_2018_10K", score=1.0),
        SearchHit(chunk=_chunk("c9", 0, 0), doc_name="OTHER", score=0.5),
    ]
    assert rank_pages_from_hits(hits) == ["3M_2018_10K#4", "3M_2018_10K#5", "OTHER#0"]
    # Page-level scoring of that ranking against a page-level gold.
    assert mrr_at_k(rank_pages_from_hits(hits), {"3M_2018_10K#5": 1.0}, 10) == pytest.approx(1 / 2)
