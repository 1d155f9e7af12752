"""``finrag eval xbrl``: facts read per second, and ingest time with and without a filing's inline-XBRL facts."""

from __future__ import annotations

import argparse
import gzip
import tempfile
from pathlib import Path

from agent.config import Settings
from agent.errors import FinragError
from cli.common import report

# The repository's test filings (Apple's 10-Q, IBM's 10-K main document), used when no file is given.
FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "edgar"


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "xbrl",
        help="benchmark inline-XBRL facts: facts read per second, ingest time with facts vs text only",
        description="Read each inline-XBRL HTML filing's facts (median of 3) and ingest it into throwaway data "
        "directories with its facts and as text only (read_xbrl off), the median of 3 each.",
        epilog="default filings: tests/fixtures/edgar/*.htm.gz of a source checkout; or pass files. "
        "example: finrag eval xbrl aapl-20250329.htm --out runs/xbrl",
    )
    p.add_argument("files", nargs="*", type=Path, metavar="FILE", help="inline-XBRL .htm filings")
    p.add_argument("--out", type=Path, default=None, help="write xbrl.json and xbrl.md here")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run)


def filings_or_fixtures(files: list[Path], tmp: Path) -> list[Path]:
    """The inline-XBRL filings given, or the repository's test filings unpacked into ``tmp``; one clear error for
    a file that is not there or an installation without test filings."""
    files = list(files)
    if not files:
        packed = sorted(FIXTURES.glob("*.htm.gz"))
        if not packed:
            raise FinragError("no filing given, and no test filings in this installation: pass .htm files")
        for gz in packed:
            files.append(tmp / gz.name.removesuffix(".gz"))
            files[-1].write_bytes(gzip.decompress(gz.read_bytes()))
    missing = [f for f in files if not f.is_file()]
    if missing:
        raise FinragError(f"{missing[0]}: no such file")
    return files


def run(args: argparse.Namespace, settings: Settings) -> int:
    from evals.xbrl_bench import render, run_xbrl_bench

    with tempfile.TemporaryDirectory() as tmp:
        results = [run_xbrl_bench(f) for f in filings_or_fixtures(args.files, Path(tmp))]
    report(results, render, args.out, "xbrl", args.json)
    return 0
