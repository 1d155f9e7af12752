"""``finrag eval cold``: CPU and wall time of cold ``ask``, ``search`` and ``retrieve`` processes."""

from __future__ import annotations

import argparse
from pathlib import Path

from agent.config import Settings
from cli.common import report


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "cold",
        help="benchmark cold commands: CPU and wall seconds of fresh `finrag ask/search/retrieve` processes",
        description="Ingest the sample filing into a throwaway data directory, then run each command in fresh "
        "processes and report median and worst CPU (user + system) and wall time.",
        epilog="example: finrag eval cold --runs 5 --commands ask",
    )
    p.add_argument("--runs", type=int, default=5, help="measured runs per command (default 5)")
    p.add_argument("--commands", default="ask,search,retrieve", help="comma-separated: ask, search, retrieve")
    p.add_argument("--out", type=Path, default=None, help="write cold.json and cold.md here")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from evals.cold_start import COMMANDS, render, run_cold_bench

    commands = [c for c in args.commands.split(",") if c]
    unknown = sorted(set(commands) - set(COMMANDS))
    if unknown:
        print(f"finrag: unknown command(s) {', '.join(unknown)}; choose from {', '.join(COMMANDS)}")
        return 2
    results = run_cold_bench(args.runs, commands)
    report(results, render, args.out, "cold", args.json)
    return 0
