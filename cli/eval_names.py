"""``finrag eval names``: could sentence embeddings read names of metrics the lexicon does not list?"""

from __future__ import annotations

import argparse
from pathlib import Path

from agent.config import Settings
from cli.common import report


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "names",
        help="hold out each name of each lexicon metric and read it by its nearest embedded name: coverage and "
        "precision per similarity threshold",
        description="Measures the packaged MiniLM as a matcher of metric names on the lexicon's own names, each "
        "held out in turn: how many it would answer at each similarity threshold and how many of those right. "
        "Offline; needs no data directory.",
        epilog="example: finrag eval names --out runs/names",
    )
    p.add_argument("--out", type=Path, default=None, help="write names.json and names.md here")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from evals.names_bench import render, run_names_bench

    report(run_names_bench(settings), render, args.out, "names", args.json)
    return 0
