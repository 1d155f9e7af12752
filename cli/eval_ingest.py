"""``finrag eval ingest``: ingestion speed, memory and index size on real filings."""

from __future__ import annotations

import argparse
from pathlib import Path

from agent.config import Settings
from cli.common import data_dir_of, report


def register(actions: argparse._SubParsersAction) -> None:
    from evals.ingest_bench import DEFAULT_DOCS

    p = actions.add_parser(
        "ingest",
        help="benchmark ingestion: seconds per stage, pages/s, peak memory, index size",
        description="Ingest each filing in a fresh process and data directory and measure it.",
        epilog=f"default filings: {', '.join(DEFAULT_DOCS)} (from DATA/financebench/docs/pdf); "
        "example: finrag eval ingest --data ../shared/findata --out runs/ingest",
    )
    p.add_argument("--data", type=Path, default=None, help="findata folder (default: $FINRAG_DATA_DIR)")
    p.add_argument("--docs", default=",".join(DEFAULT_DOCS), help="comma-separated filing names")
    p.add_argument("--out", type=Path, default=None, help="write ingest.json and ingest.md here")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from evals.ingest_bench import bench_file, resolve_docs, to_markdown

    data_dir = data_dir_of(args, settings)
    rows = [bench_file(path) for path in resolve_docs(data_dir, [d for d in args.docs.split(",") if d])]
    report(rows, to_markdown, args.out, "ingest", args.json)
    return 1 if any(r.status == "failed" for r in rows) else 0
