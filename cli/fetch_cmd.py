"""``finrag fetch``: download a company's filings from SEC EDGAR into the data directory, then ingest them."""

from __future__ import annotations

import argparse
import sys
from datetime import date

from agent.config import Settings
from cli.common import one_line

FIRST_EDGAR_YEAR = 1993  # EDGAR's first electronic filings


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "fetch",
        help="download a company's filings from SEC EDGAR and ingest them",
        description="Find a company's filings on EDGAR by ticker or CIK, download them into the data directory "
        "(FINRAG_HOME/filings) and ingest them. EDGAR requires a User-Agent naming you: set "
        "FINRAG_SEC_USER_AGENT='Your Name you@example.com'. At most 10 requests a second; a run that stops "
        "resumes where it left off, and files already downloaded are not fetched again. Inline-XBRL filings "
        "(10-K and 10-Q since 2019) are read with their tagged facts.",
        epilog="examples:\n  finrag fetch AAPL --form 10-Q --year 2025\n"
        "  finrag fetch 320193 --form 10-K --limit 3\n"
        "  finrag fetch MSFT --form earnings --year 2024     (8-K item 2.02 press releases, EX-99)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("company", metavar="TICKER_OR_CIK", help="a ticker (AAPL) or a CIK (320193)")
    p.add_argument("--form", default="10-K", choices=["10-K", "10-Q", "8-K", "earnings"],
                   help="10-K, 10-Q, 8-K, or earnings (the press-release exhibits of results 8-Ks); default 10-K")
    p.add_argument("--year", type=int, help="only filings whose report period falls in this year")
    p.add_argument("--limit", type=int, default=0, help="at most this many filings, newest first (0: all found)")
    p.add_argument("--no-ingest", action="store_true", help="download only")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings, transport: object = None) -> int:
    from cli.ingest_cmd import ingest_files
    from tools.edgar import (
        FILINGS_DIR,
        EdgarClient,
        EdgarError,
        FetchedFile,
        fetch_filings,
        ingest_overrides,
        urllib_transport,
    )

    if args.limit < 0:
        print("finrag: --limit must be 0 (all) or more", file=sys.stderr)
        return 2
    if args.year is not None and not FIRST_EDGAR_YEAR <= args.year <= date.today().year + 1:
        print(f"finrag: --year {args.year} has no filings on EDGAR; give a year from {FIRST_EDGAR_YEAR} to "
              f"{date.today().year + 1}", file=sys.stderr)
        return 2

    def saved(f: FetchedFile) -> None:
        state = "downloaded" if f.fresh else "have      "
        print(f"{state} {f.form} {f.report_date or f.filing_date}  {one_line(f.path.name)}", file=sys.stderr)

    try:
        client = EdgarClient(settings.sec_user_agent, transport=transport or urllib_transport)  # type: ignore[arg-type]
        got = fetch_filings(client, args.company, args.form, settings.home / FILINGS_DIR, args.year,
                            args.limit or None, on_file=saved)
    except EdgarError as exc:
        print(f"finrag: {exc}", file=sys.stderr)
        return 2
    if not got.filings:
        when = f" for {args.year}" if args.year else ""
        print(f"finrag: EDGAR lists no {args.form} filing of {got.name}{when}", file=sys.stderr)
        return 1
    print(f"{got.name} (CIK {got.cik}): {got.filings} {args.form} filing(s), {len(got.files)} file(s)",
          file=sys.stderr)
    if not got.files:
        print(f"finrag: the {args.form} filings found hold no document to download", file=sys.stderr)
        return 1
    if args.no_ingest:
        print(f"{len(got.files)} file(s) in {settings.home / FILINGS_DIR / got.cik}")
        return 0
    said = {f.path: ingest_overrides(f, args.form) for f in got.files}
    return ingest_files([f.path for f in got.files], settings, show=not args.no_progress, per_file=said)
