"""What reading inline-XBRL facts costs at ingest: facts read per second, and a filing's whole ingest with its
facts against the same filing ingested as text only (``read_xbrl`` off, the pipeline before facts were read)."""

from __future__ import annotations

import dataclasses
import statistics
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

from agent.config import Settings
from agent.ingest.parsing import load_pages
from agent.ingest.pipeline import open_ingestor
from agent.ingest.xbrl import read_facts

# Ingests per variant; the median is reported (the first ingest of a process also loads the embedding model,
# so a warm-up ingest runs before any is timed).
REPEATS = 3


class XbrlBenchResult(BaseModel):
    """One filing: facts read and how long they and the whole ingest took."""

    filing: str
    size_kb: int
    pages: int
    facts: int
    located: int
    read_s: float
    facts_per_s: float
    ingest_with_facts_s: float
    ingest_text_only_s: float
    overhead_pct: float


def _ingest_seconds(path: Path, settings: Settings) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        home = dataclasses.replace(settings, home=Path(tmp))
        started = time.perf_counter()
        with open_ingestor(home) as ingestor:
            report = ingestor.ingest_file(path)
        if report.status != "ingested":
            raise RuntimeError(f"{path.name}: {report.error or report.status}")
        return time.perf_counter() - started


def run_xbrl_bench(path: Path, repeats: int = REPEATS) -> XbrlBenchResult:
    """Measure one inline-XBRL HTML filing."""
    settings = Settings.from_env()
    parsed = load_pages(path, settings)
    data = path.read_bytes()
    reads = []
    for _ in range(repeats):
        started = time.perf_counter()
        facts = read_facts(str(path), data, parsed.fact_spans, pages=[p.text for p in parsed.pages])
        reads.append(time.perf_counter() - started)
    text_only = dataclasses.replace(settings, read_xbrl=False)
    _ingest_seconds(path, text_only)  # warm-up: the embedding model loads once per process
    with_facts = statistics.median(_ingest_seconds(path, settings) for _ in range(repeats))
    without = statistics.median(_ingest_seconds(path, text_only) for _ in range(repeats))
    read_s = statistics.median(reads)
    return XbrlBenchResult(
        filing=path.name, size_kb=round(len(data) / 1024), pages=len(parsed.pages), facts=len(facts.facts),
        located=sum(f.page is not None for f in facts.facts), read_s=round(read_s, 3),
        facts_per_s=round(len(facts.facts) / read_s) if read_s else 0.0,
        ingest_with_facts_s=round(with_facts, 2), ingest_text_only_s=round(without, 2),
        overhead_pct=round(100 * (with_facts - without) / without, 1) if without else 0.0,
    )


def render(results: list[XbrlBenchResult]) -> str:
    """A Markdown table of the results."""
    lines = ["| filing | KB | pages | facts | located | read (s) | facts/s | ingest with facts (s) | "
             "text only (s) | overhead |", "|---|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r.filing} | {r.size_kb} | {r.pages} | {r.facts} | {r.located} | {r.read_s:.2f} | "
              f"{r.facts_per_s:.0f} | {r.ingest_with_facts_s:.2f} | {r.ingest_text_only_s:.2f} | "
              f"{r.overhead_pct:+.0f}% |" for r in results]
    return "\n".join(lines)
