"""``finrag eval hostile``: what hostile inputs cost (decompression bombs, one-line text, deep HTML)."""

from __future__ import annotations

import argparse
from pathlib import Path

from agent.config import Settings
from cli.common import report


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "hostile",
        help="benchmark hostile inputs: outcome, seconds and peak memory per file",
        description="Generate hostile files (a PDF whose one stream inflates to 2 GiB, 100 pages sharing a "
        "256 MiB stream, 200 MB of text without a line break, HTML nested 5,000 deep) and ingest each in a fresh "
        "process and data directory; real filings given with --real are measured the same way for comparison.",
        epilog="example: finrag eval hostile --real $FINRAG_DATA_DIR/financebench/docs/pdf/PEPSICO_2022_10K.pdf",
    )
    p.add_argument("--real", type=Path, nargs="*", default=[], metavar="FILE", help="real filings to measure too")
    p.add_argument("--work", type=Path, default=None, help="folder for the generated files (default: system temp)")
    p.add_argument("--out", type=Path, default=None, help="write hostile.json and hostile.md here")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from evals.hostile import render, run_hostile_bench

    results = run_hostile_bench(args.real, work=args.work)
    report(results, render, args.out, "hostile", args.json)
    return 0
