"""``finrag eval rules``: how many phrase rules (regular expressions) the readers of a question hold, per module."""

from __future__ import annotations

import argparse
from pathlib import Path

from agent.config import Settings
from cli.common import report


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "rules",
        help="count the regular expressions of agent/query, agent/answer and the word classes, per module",
        description="Counts the phrase rules of the question's readers from their source: re.compile calls, every "
        "re.* call, the alternatives of their patterns and the pattern lines, a word class interpolated into many "
        "patterns counted once where it is defined. Learned parts that replace phrase lists make these fall. "
        "Offline; needs no data directory.",
        epilog="example: finrag eval rules --out runs/rules",
    )
    p.add_argument("--agent", type=Path, default=None, help="the agent/ folder to count (default: this checkout's)")
    p.add_argument("--out", type=Path, default=None, help="write rules.json and rules.md here")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from agent.errors import FinragError
    from evals.rules_bench import AGENT, render, run_rules_bench

    agent = args.agent or AGENT
    if not (agent / "query").is_dir():
        raise FinragError(f"{agent} is no agent/ folder (it has no query/ package)")
    report(run_rules_bench(agent), render, args.out, "rules", args.json)
    return 0
