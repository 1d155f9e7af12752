"""``finrag eval bm25``: corpus-wide BM25 engines at scale (finrag's postings vs bm25s's sparse matrix)."""

from __future__ import annotations

import argparse
from pathlib import Path

from agent.config import Settings
from cli.common import report


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "bm25",
        help="benchmark BM25 engines at 10k-1M chunks: build time and memory, query p50/p95, same top 10",
        description="Build both BM25 engines over a synthetic corpus made from the sample filing's chunks "
        "(perturbed copies) and time the same queries; rankings are compared with finrag's.",
        epilog="example: finrag eval bm25 --sizes 100000,1000000",
    )
    p.add_argument("--sizes", default="10000,100000", help="comma-separated corpus sizes in chunks")
    p.add_argument("--out", type=Path, default=None, help="write bm25.json and bm25.md here")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from evals.bm25_bench import render, run_bm25_bench

    rows = run_bm25_bench([int(s) for s in args.sizes.split(",") if s])
    report(rows, render, args.out, "bm25", args.json)
    return 0
