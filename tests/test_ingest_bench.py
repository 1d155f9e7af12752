"""The ingestion benchmark measures a real ingest in a fresh process."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.errors import FinragError
from evals.ingest_bench import bench_file, resolve_docs, to_markdown


def test_bench_file_measures_the_sample(sample_path: Path) -> None:
    row = bench_file(sample_path)
    assert row.status == "ingested", row.error
    assert row.pages == 8 and row.chunks > 0 and row.tables >= 4
    assert set(row.stage_seconds) == {"parse", "sections", "chunks", "cards", "counts", "embed", "store"}
    assert row.seconds >= sum(row.stage_seconds.values()) * 0.9
    assert row.pages_per_second == pytest.approx(row.pages / row.seconds, rel=0.01)
    assert row.peak_rss_mb > 100  # the embedding model alone is larger than this
    assert row.index_mb > 0
    table = to_markdown([row])
    assert "| NORTHWIND_2024_10K | 8 |" in table
    assert row.embedding.split()[0] in {"bfloat16", "float32"} and row.embedding in table


def test_resolve_docs_names_missing_filings(tmp_path: Path) -> None:
    with pytest.raises(FinragError, match="NOPE_2020_10K.pdf"):
        resolve_docs(tmp_path, ["NOPE_2020_10K"])
