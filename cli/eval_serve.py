"""``finrag eval serve``: latency and throughput of ``finrag serve`` under concurrent asks."""

from __future__ import annotations

import argparse
from pathlib import Path

from agent.config import Settings
from cli.common import report


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "serve",
        help="benchmark the web server: N concurrent asks, latency median/p95/max and answers per second",
        description="Start `finrag serve` over a throwaway data directory holding the sample filing (or use the "
        "server at --url), post N questions at once to /api/ask, each on its own thread, and report latency, "
        "the burst's wall time and failures. Run it against an older revision's server with --url to compare.",
        epilog="example: finrag eval serve --concurrency 20 --rounds 3",
    )
    p.add_argument("--concurrency", type=int, default=20, help="questions posted at once (default 20)")
    p.add_argument("--rounds", type=int, default=3, help="bursts to measure (default 3)")
    p.add_argument("--url", default=None, help="a running server to measure instead (e.g. http://127.0.0.1:8765)")
    p.add_argument("--out", type=Path, default=None, help="write serve.json and serve.md here")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from evals.serve_bench import render, run_serve_bench

    if args.concurrency < 1 or args.rounds < 1:
        print("finrag: --concurrency and --rounds must be at least 1")
        return 2
    results = run_serve_bench(args.concurrency, args.rounds, args.url)
    report(results, render, args.out, "serve", args.json)
    return 0
