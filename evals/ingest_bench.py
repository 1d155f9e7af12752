"""Ingestion benchmark: wall time per stage, pages per second, peak memory, chunks and index size per filing.

Each filing is ingested in its own fresh process and data directory, so peak resident memory (``ru_maxrss``)
belongs to that filing alone and includes loading the embedding model, as a user's first ingest does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from pydantic import BaseModel

from agent.config import Settings

# Three sizes that span what users ingest: an earnings release, a mid-size 10-K and a long 10-K.
DEFAULT_DOCS = ("ULTABEAUTY_2023Q4_EARNINGS", "3M_2018_10K", "PEPSICO_2022_10K")


class IngestBenchRow(BaseModel):
    """One filing's measurements."""

    doc: str
    status: str
    error: str = ""
    pages: int = 0
    chunks: int = 0
    tables: int = 0
    seconds: float = 0.0
    pages_per_second: float = 0.0
    stage_seconds: dict[str, float] = {}
    peak_rss_mb: float = 0.0
    index_mb: float = 0.0
    embedding: str = ""  # how chunks were embedded: precision, tokens read, batch size


def _dir_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def _child(path: str, home: str) -> None:
    """Runs inside the child process: ingest one file, print one JSON line."""
    import resource

    from agent.index.embeddings import get_embedder
    from agent.index.store import Store
    from agent.ingest.pipeline import Ingestor

    settings = Settings.from_env(home=Path(home))
    with Store.open(settings) as store:
        embedder = get_embedder(settings)
        report = Ingestor(settings, store, embedder).ingest_file(Path(path))
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux
    print(json.dumps({"report": report.model_dump(mode="json"), "peak_rss_mb": peak_kb / 1024,
                      "embedding": embedding_setup(settings)}))


def embedding_setup(settings: Settings) -> str:
    """How chunks are embedded under ``settings``, as a benchmark row states it."""
    from agent.index.embeddings import use_bfloat16

    device = settings.resolved_device()
    precision = "bfloat16" if use_bfloat16(settings.embedding_precision, device) else "float32"
    tokens = settings.embedding_max_tokens or "model's"
    return f"{precision} on {device}, {tokens} tokens, batch {settings.embedding_batch_size}"


def bench_file(path: Path) -> IngestBenchRow:
    """Ingest ``path`` in a fresh process and data directory and measure it."""
    with tempfile.TemporaryDirectory(prefix="finrag-ingest-bench-") as home:
        code = f"from evals.ingest_bench import _child; _child({str(path)!r}, {home!r})"
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env={**os.environ, "TOKENIZERS_PARALLELISM": "false"})
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        if proc.returncode != 0 or not lines:
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            return IngestBenchRow(doc=path.stem, status="failed", error=tail)
        data = json.loads(lines[-1])
        report = data["report"]
        return IngestBenchRow(
            doc=path.stem,
            status=report["status"],
            error=report["error"],
            pages=report["pages"],
            chunks=report["chunks"],
            tables=report["tables"],
            seconds=report["seconds"],
            pages_per_second=round(report["pages"] / report["seconds"], 2) if report["seconds"] else 0.0,
            stage_seconds=report["stage_seconds"],
            peak_rss_mb=round(data["peak_rss_mb"], 1),
            index_mb=round(_dir_mb(Path(home) / "index"), 2),
            embedding=data.get("embedding", ""),
        )


def to_markdown(rows: list[IngestBenchRow]) -> str:
    """The benchmark as a Markdown table."""
    stages = ["parse", "sections", "chunks", "cards", "counts", "embed", "store"]
    head = ("| filing | pages | chunks | tables | seconds | pages/s | " + " | ".join(stages)
            + " | peak RSS MB | index MB | embedding |")
    lines = [head, "|" + "---|" * (11 + len(stages) - 2)]
    for r in rows:
        if r.status == "failed":
            lines.append(f"| {r.doc} | failed: {r.error} |")
            continue
        stage_cells = " | ".join(f"{r.stage_seconds.get(s, 0.0):.2f}" for s in stages)
        lines.append(
            f"| {r.doc} | {r.pages} | {r.chunks} | {r.tables} | {r.seconds:.1f} | {r.pages_per_second:.1f} | "
            f"{stage_cells} | {r.peak_rss_mb:.0f} | {r.index_mb:.1f} | {r.embedding} |"
        )
    return "\n".join(lines)


def resolve_docs(data_dir: Path, names: list[str]) -> list[Path]:
    """Filing paths under ``financebench/docs/pdf`` for the given names."""
    pdf_dir = data_dir / "financebench" / "docs" / "pdf"
    paths = [pdf_dir / f"{name}.pdf" for name in names]
    missing = [p.name for p in paths if not p.exists()]
    if missing:
        from agent.errors import FinragError

        raise FinragError(f"not in {pdf_dir}: {', '.join(missing)}")
    return paths
