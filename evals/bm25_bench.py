"""Corpus-wide BM25 at scale: finrag's :class:`agent.index.bm25.FinBM25` (postings in NumPy) against
:class:`agent.index.bm25.SparseBM25` (``bm25s``'s sparse score matrix), on the same tokens, the same Okapi
formula and Lucene's idf. The measurement behind ``SPARSE_BM25_MIN_CHUNKS``.

The corpus is the sample filing's chunks tokenised by finrag's tokenizer, copied with perturbations (a few
tokens per copy are swapped for rarer ones) up to the asked size, so term statistics stay filing-like. Each
engine is timed building its index and answering the same queries; the top-10 rankings are compared.
"""

from __future__ import annotations

import random
import statistics
import time
import tracemalloc
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from agent.index.bm25 import BM25_B, BM25_K1, FinBM25, SparseBM25
from agent.index.tokenize import tokenize

SAMPLE = Path(__file__).resolve().parent.parent / "agent" / "samples" / "NORTHWIND_2024_10K.md"
QUERIES = (
    "capital expenditures 2024", "purchases of property plant and equipment", "net cash provided by operating",
    "revenue growth", "diluted earnings per share", "long-term debt maturities", "inventory turnover",
    "goodwill impairment", "effective tax rate", "dividends paid per share", "operating income segment",
    "free cash flow definition", "share repurchases", "foreign currency exchange risk", "total assets",
)  # fmt: skip
TOP_K = 10



class Bm25BenchRow(BaseModel):
    """One engine at one corpus size."""

    engine: str
    chunks: int
    build_s: float
    build_peak_mb: float
    query_ms_p50: float
    query_ms_p95: float
    same_top10: float = 1.0  # share of queries whose top 10 equals finrag's (1.0 for finrag itself)


def synthetic_corpus(n_chunks: int, seed: int = 7) -> list[list[str]]:
    """``n_chunks`` token lists made from the sample filing's paragraphs, each copy perturbed."""
    text = SAMPLE.read_text(encoding="utf-8")
    base = [tokenize(p) for p in text.split("\n\n") if len(tokenize(p)) >= 5]
    vocabulary = sorted({t for doc in base for t in doc})
    rng = random.Random(seed)
    corpus = []
    for i in range(n_chunks):
        doc = list(base[i % len(base)])
        for _ in range(3):  # three swaps: identical copies would tie every score
            doc[rng.randrange(len(doc))] = f"{rng.choice(vocabulary)}{rng.randrange(50)}"
        corpus.append(doc)
    return corpus


def _top(scores: np.ndarray, k: int) -> list[int]:
    k = min(k, len(scores))
    top = np.argpartition(-scores, k - 1)[:k]
    return [int(i) for i in sorted(top, key=lambda i: (-scores[i], i)) if scores[i] > 0]


def _timed_build(make):  # type: ignore[no-untyped-def]
    tracemalloc.start()
    started = time.perf_counter()
    engine = make()
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return engine, seconds, peak


def run_bm25_bench(sizes: list[int]) -> list[Bm25BenchRow]:
    """Both engines at each size."""
    queries = [tokenize(q) for q in QUERIES]
    rows = []
    for size in sizes:
        corpus = synthetic_corpus(size)
        ours, build, peak = _timed_build(lambda corpus=corpus: FinBM25(corpus, k1=BM25_K1, b=BM25_B))
        times, reference = [], []
        for q in queries:
            started = time.perf_counter()
            reference.append(_top(ours.get_scores(q), TOP_K))
            times.append((time.perf_counter() - started) * 1000)
        rows.append(_row("finrag FinBM25", size, build, peak, times))

        theirs, build, peak = _timed_build(lambda corpus=corpus: SparseBM25(corpus, k1=BM25_K1, b=BM25_B))
        times, same = [], 0
        for q, expected in zip(queries, reference, strict=True):
            started = time.perf_counter()
            got = _top(np.asarray(theirs.get_scores(q), dtype=np.float64), TOP_K)
            times.append((time.perf_counter() - started) * 1000)
            same += got == expected
        rows.append(_row("bm25s (lucene)", size, build, peak, times, same / len(queries)))
    return rows


def _row(engine: str, size: int, build: float, peak: float, times: list[float], same: float = 1.0) -> Bm25BenchRow:
    ordered = sorted(times)
    return Bm25BenchRow(
        engine=engine, chunks=size, build_s=round(build, 2), build_peak_mb=round(peak, 1),
        query_ms_p50=round(statistics.median(ordered), 2),
        query_ms_p95=round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2), same_top10=same,
    )


def render(rows: list[Bm25BenchRow]) -> str:
    """A Markdown table."""
    lines = ["| engine | chunks | build (s) | build peak (MB) | query p50 (ms) | query p95 (ms) | same top 10 |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {r.engine} | {r.chunks:,} | {r.build_s:.1f} | {r.build_peak_mb:.0f} | {r.query_ms_p50:.1f} | "
              f"{r.query_ms_p95:.1f} | {r.same_top10:.0%} |" for r in rows]
    return "\n".join(lines)
