"""``finrag eval structure``: table structure scored against the filers' own inline-XBRL tags."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from agent.config import Settings
from agent.errors import FinragError
from cli.common import report
from cli.eval_xbrl import filings_or_fixtures


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "structure",
        help="benchmark table structure: tagged table figures recovered from the filing printed to PDF",
        description="Print each inline-XBRL HTML filing to PDF with headless Chromium, read the PDF like any "
        "filing, and count the figures the filer tagged inside its tables that the typed tables recover: the "
        "figure, with its period, and with its part (none for the company as a whole). Readers: finrag with the "
        "layout's word positions (layout), finrag from the page text alone (text), pdfplumber's table finder "
        "(pdfplumber, when installed: pip install pdfplumber).",
        epilog="default filings: tests/fixtures/edgar/*.htm.gz of a source checkout; or pass files. Needs "
        "Chromium (Debian: apt-get install chromium). example: finrag eval structure aapl-20250329.htm "
        "--readers layout,text --out runs/structure",
    )
    p.add_argument("files", nargs="*", type=Path, metavar="FILE", help="inline-XBRL .htm filings")
    p.add_argument("--readers", default="layout,text,pdfplumber",
                   help="comma-separated readers to compare (default: layout,text,pdfplumber)")
    p.add_argument("--out", type=Path, default=None, help="write structure.json and structure.md here")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from evals.structure_bench import READERS, render, run_structure_bench

    readers = [r.strip() for r in args.readers.split(",") if r.strip()]
    unknown = [r for r in readers if r not in READERS]
    if unknown or not readers:
        raise FinragError(f"--readers: unknown reader {unknown[0] if unknown else '(none)'!r}; "
                          f"choose from {', '.join(READERS)}")
    with tempfile.TemporaryDirectory() as tmp:
        results = [score for f in filings_or_fixtures(args.files, Path(tmp)) for score in run_structure_bench(f, readers)]
    report(results, render, args.out, "structure", args.json)
    return 0
