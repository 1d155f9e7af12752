"""``finrag ingest``: add filings to the index, with a progress bar and a line per file."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from agent.config import Settings
from cli.common import one_line, print_json

if TYPE_CHECKING:
    from agent.ingest.pipeline import MetadataOverrides
    from agent.schemas import IngestReport


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "ingest",
        help="ingest filings (PDF, HTML, Markdown, text) into the index",
        description="Parse filings into pages, sections, chunks and Chunk Cards, and add them to the hybrid index. "
        "Re-ingesting an unchanged file does nothing; a bad file is reported and the others go on.",
        epilog="example: finrag ingest 3M_2018_10K.pdf filings/ --company 3M --form 10-K",
    )
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders")
    p.add_argument("--company", default="", help="company name (overrides detection)")
    p.add_argument("--ticker", default="", help="ticker symbol (overrides detection)")
    p.add_argument("--form", default="", help="form type, e.g. 10-K, 10-Q, 8-K, EARNINGS")
    p.add_argument("--period", default="", help="fiscal period, e.g. 2018, FY2018, 2023Q2")
    p.add_argument("--filing-date", default="", help="filing date, YYYY-MM-DD")
    p.add_argument("--follow-links", action="store_true",
                   help="inside folders, also ingest what links pointing outside the folder lead to (off by default)")
    p.add_argument("--json", action="store_true", help="print the per-file reports as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def format_report(r: IngestReport) -> str:
    """One line per file: what happened and how big it was."""
    if r.status == "failed":
        return f"FAILED     {one_line(r.path)}: {r.error}"
    if r.status == "unchanged":
        return f"unchanged  {one_line(r.name)}: already in the index ({r.chunks} chunks)"
    return (
        f"ingested   {one_line(r.name)}: {r.pages} pages, {r.sections} sections, {r.chunks} chunks, "
        f"{r.tables} tables{f', {r.facts} XBRL facts' if r.facts else ''}, {r.seconds:.1f} s"
    )


class _FileProgress:
    """Progress inside one file: a bar per stage on a terminal; in a log, one plain line per finished stage
    (no redraws glued to other lines)."""

    UNITS = {"read": "pages", "embed": "chunks", "mirror": "copy"}
    LABELS = {"read": "read", "embed": "embedded", "mirror": "mirrored to the search backend,"}

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.tty = sys.stderr.isatty()
        self.name = ""
        self.bar = None
        self.stage = ""
        self.started = time.perf_counter()

    def start(self, name: str) -> None:
        self.close()
        self.name = name

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled or not total:
            return
        if stage != self.stage:
            self.close()
            self.stage, self.started = stage, time.perf_counter()
            if self.tty:
                from tqdm import tqdm

                self.bar = tqdm(total=total, desc=f"  {self.name[:30]}: {stage}", unit=f" {self.UNITS[stage]}",
                                leave=False, file=sys.stderr, dynamic_ncols=True)
        if self.bar is not None:
            self.bar.n = done
            self.bar.refresh()
        elif done == total and not self.tty:
            seconds = time.perf_counter() - self.started
            print(f"  {self.name}: {self.LABELS[stage]} {total} {self.UNITS[stage]} ({seconds:.1f} s)", file=sys.stderr)
            self.stage = f"{stage}:done"

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        self.bar, self.stage = None, ""


def run(args: argparse.Namespace, settings: Settings) -> int:
    from agent.ingest.files import display_path, find_files
    from agent.ingest.pipeline import MetadataOverrides

    found = find_files(args.paths, follow_links=args.follow_links)
    skipped = [f for f in found if f.skipped]
    for f in skipped:
        print(f"skipped    {one_line(display_path(f.path))}: {f.skipped}", file=sys.stderr)
    files = [f.path for f in found if not f.skipped]
    if not files:
        print("finrag: no files to ingest under the given paths", file=sys.stderr)
        return 1
    overrides = MetadataOverrides(
        company=args.company, ticker=args.ticker, form=args.form, period=args.period, filing_date=args.filing_date
    )
    left = f", {len(skipped)} skipped" if skipped else ""
    return ingest_files(files, settings, overrides, show=not (args.no_progress or args.json), as_json=args.json,
                        note=left)


def ingest_files(files: list[Path], settings: Settings, overrides: MetadataOverrides | None = None, *,
                 show: bool = True, as_json: bool = False, note: str = "",
                 per_file: dict[Path, MetadataOverrides] | None = None) -> int:
    """Ingest ``files`` with a progress bar and a line per file, then a summary; 1 when any failed. ``per_file``
    gives some files metadata of their own (what EDGAR says of a fetched filing)."""
    from tqdm import tqdm

    from agent.ingest.files import display_path
    from agent.ingest.pipeline import open_ingestor

    progress = _FileProgress(show)
    reports: list[IngestReport] = []
    with open_ingestor(settings, on_progress=progress) as ingestor:
        # Over files only on a terminal, and only when there are several; a log gets the lines below.
        bar = tqdm(files, unit="file", disable=not show or not sys.stderr.isatty() or len(files) < 2,
                   file=sys.stderr, dynamic_ncols=True)
        for path in bar:
            progress.start(one_line(display_path(path.name)))
            report = ingestor.ingest_file(path, (per_file or {}).get(path, overrides))
            progress.close()
            reports.append(report)
            if not as_json:
                bar.write(format_report(report), file=sys.stdout if report.status != "failed" else sys.stderr)
                for warning in report.warnings:
                    bar.write(f"           {one_line(warning)}", file=sys.stderr)
                if report.same_as:
                    bar.write(f"           the same filing as {', '.join(report.same_as)} (same text, or same company, "
                              f"form and period): both are indexed; `finrag docs remove NAME` keeps one",
                              file=sys.stderr)
    failed = sum(r.status == "failed" for r in reports)
    if as_json:
        print_json(reports)
    else:
        done = sum(r.status == "ingested" for r in reports)
        same = sum(r.status == "unchanged" for r in reports)
        print(f"{done} ingested, {same} unchanged, {failed} failed{note} -> {settings.index_dir}")
    return 1 if failed else 0
