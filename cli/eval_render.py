"""``finrag eval render``: citation-viewer page render and span-locate time on real filings."""

from __future__ import annotations

import argparse
from pathlib import Path

from agent.config import Settings
from agent.errors import FinragError
from cli.common import report

DEFAULT_FILING = "PEPSICO_2022_10K"  # 503 pages: the longest filing in the FinanceBench set


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "render",
        help="benchmark the citation viewer: PNG render and span-locate milliseconds per page",
        description="Ingest a PDF filing into a throwaway data directory and time rendering pages spread "
        "through it and locating a quote on each, as `finrag serve` does per request.",
        epilog=f"default filing: {DEFAULT_FILING} (from DATA/financebench/docs/pdf); or pass --pdf FILE. "
        "example: finrag eval render --data ../shared/findata --samples 5",
    )
    p.add_argument("--data", type=Path, default=None, help="findata folder (default: $FINRAG_DATA_DIR)")
    p.add_argument("--pdf", type=Path, default=None, help="a PDF filing to measure instead")
    p.add_argument("--samples", type=int, default=20, help="pages measured (default 20)")
    p.add_argument("--out", type=Path, default=None, help="write render.json and render.md here")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from evals.render_bench import render, run_render_bench

    pdf = args.pdf
    if pdf is None:
        data_dir = args.data or settings.data_dir
        if data_dir is None:
            raise FinragError("no filing: pass --pdf FILE, or --data / FINRAG_DATA_DIR for the default")
        pdf = Path(data_dir) / "financebench" / "docs" / "pdf" / f"{DEFAULT_FILING}.pdf"
    if not pdf.is_file():
        raise FinragError(f"{pdf}: no such file")
    results = [run_render_bench(pdf, args.samples)]
    report(results, render, args.out, "render", args.json)
    return 0
