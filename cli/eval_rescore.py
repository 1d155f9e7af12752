"""``finrag eval rescore``: score stored runs again with the current scorer."""

from __future__ import annotations

import argparse
from pathlib import Path

from agent.config import Settings
from cli.common import report


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "rescore",
        help="score finished runs again with the current scorer and show what moved",
        description="Read results.jsonl of each run directory written by `finrag eval answers`, score every "
        "stored answer again with the current answer matcher, and print right / wrong / refused before and "
        "after, with how many answers moved between them. Nothing is asked again.",
        epilog="example: finrag eval rescore ~/.local/share/finrag/reports/answers-tatqa-*",
    )
    p.add_argument("runs", type=Path, nargs="+", metavar="RUN_DIR", help="run directories")
    p.add_argument("--out", type=Path, default=None, help="write rescore.json and rescore.md here")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from evals.rescore import render, rescore

    report([rescore(path) for path in args.runs], render, args.out, "rescore", args.json)
    return 0
