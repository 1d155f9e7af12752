"""``finrag eval memory``: memory-bank look-up time and memory as the bank grows."""

from __future__ import annotations

import argparse
from pathlib import Path

from agent.config import Settings
from cli.common import report


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "memory",
        help="benchmark memory-bank look-ups at 5k and 100k entries (fresh process per look-up)",
        description="Fill a throwaway memory bank with verified entries (some crowded into one company and "
        "period) and time look-ups, each in a fresh process as `finrag ask` runs them.",
        epilog="example: finrag eval memory --sizes 5000:5000,100000:5000",
    )
    p.add_argument("--sizes", default="5000:5000,100000:5000",
                   help="comma-separated ENTRIES:SAME_PERIOD pairs (default 5000:5000,100000:5000)")
    p.add_argument("--runs", type=int, default=2, help="fresh-process look-ups per size")
    p.add_argument("--out", type=Path, default=None, help="write memory.json and memory.md here")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from evals.memory_bench import render, run_memory_bench

    pairs = [tuple(int(x) for x in item.split(":")) for item in args.sizes.split(",") if item]
    results = [run_memory_bench(total, same, runs=args.runs) for total, same in pairs]
    report(results, render, args.out, "memory", args.json)
    return 0
