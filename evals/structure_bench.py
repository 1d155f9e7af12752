"""The table-structure benchmark (issue 58, item 4): how many of the figures a filer tagged in its tables the PDF
reader recovers as typed table cells with the right value, period and part.

Inline-XBRL filings tag every statement figure with its concept, period and dimensions, so they carry their own
ground truth. Each filing is printed to PDF by headless Chromium (as a filing is printed or saved by anyone who
reads it), the PDF is read like any other -- parsing, sections, tables, typed records -- and every figure tagged
inside an HTML ``<table>`` is looked for among the typed cells:
- figure: a typed cell prints the tagged number (as printed: '68,714', sign aside);
- period: such a cell's column (or row block) has the fact's period, in the filer's own fiscal labels;
- part: for a fact of the company as a whole (no dimension), such a cell is in a table of no segment or region
  and under no named column; for a fact of a member (a segment, a product, an equity component), in a table of a
  part, under a named column or in a row under a heading ('Americas' under 'Net sales by reportable segment') --
  the row's own words are not checked against the member, so this level is lenient for members.
Readers compared: finrag's own with the layout's word positions (``layout``), the same without them (``text``:
the header read from the page's text alone, the reader before the layout was read), and pdfplumber's table
finder (``pdfplumber``: its cell grid, folded and typed by the same header and period code) when it is installed.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from agent.config import Settings
from agent.errors import FinragError
from agent.finance.numbers import parse_number
from agent.ingest.chunking import chunk_document
from agent.ingest.parsing import ParsedDocument, load_pages
from agent.ingest.structure import detect_sections
from agent.ingest.xbrl import read_facts
from agent.schemas import PAGE_SEPARATOR, Page, TableRecord, XbrlFact

READERS = ("layout", "text", "pdfplumber")
PRINT_TIMEOUT_S = 120  # Chromium prints a 1 MB filing in ~3 s; a stuck print is an error, not a wait
_CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
# pdfplumber's finder by the words' alignment: a printed EDGAR table has almost no ruling lines for its default
# ('lines') strategy to follow, which finds no table in them.
PDFPLUMBER_SETTINGS = {"vertical_strategy": "text", "horizontal_strategy": "text"}


class StructureScore(BaseModel):
    """One filing read by one reader: tagged table figures, and how many it recovered at each level."""

    filing: str
    reader: str
    pages: int
    tables: int = Field(description="typed tables the reader found")
    tagged: int = Field(description="distinct numeric facts tagged inside the filing's tables (zeros left out)")
    figure: int = Field(description="facts whose printed number is a typed cell's")
    period: int = Field(description="... in a cell whose column or row block has the fact's period")
    part: int = Field(description="... and whose table, column or row says the fact's part (none for the company)")
    note: str = Field(default="", description="why a reader was not run")

    @property
    def rates(self) -> tuple[float, float, float]:
        """The three levels as shares of the tagged facts."""
        n = max(self.tagged, 1)
        return self.figure / n, self.period / n, self.part / n


class _Read(BaseModel):
    """One typed cell as the scoring needs it."""

    printed: float
    period: str
    whole: bool = Field(description="of the company as a whole: its table has no part and its column is no name")
    parted: bool = Field(description="its table has a part, its column is a name, or its row sits under a heading")


def print_to_pdf(html: Path, pdf: Path, timeout_s: float = PRINT_TIMEOUT_S) -> Path:
    """``html`` printed to ``pdf`` by headless Chromium; a clear error when Chromium is missing or fails."""
    binary = next((b for found in _CHROMIUM if (b := shutil.which(found))), None)
    if binary is None:
        raise FinragError("the structure benchmark prints filings with Chromium: install it (Debian: apt-get "
                          "install chromium)")
    with tempfile.TemporaryDirectory() as profile:
        cmd = [binary, "--headless", "--disable-gpu", "--no-sandbox", "--no-pdf-header-footer",
               f"--user-data-dir={profile}", f"--print-to-pdf={pdf}", html.resolve().as_uri()]
        try:
            subprocess.run(cmd, capture_output=True, timeout=timeout_s, check=False)
        except subprocess.TimeoutExpired as exc:
            raise FinragError(f"{html.name}: Chromium did not print it within {timeout_s:g} s") from exc
    if not pdf.is_file() or pdf.stat().st_size == 0:
        raise FinragError(f"{html.name}: Chromium printed no PDF")
    return pdf


def tagged_table_facts(html: Path) -> tuple[list[XbrlFact], int, str]:
    """The numeric facts tagged inside the filing's ``<table>`` elements (one per concept, period, dimensions and
    value; nil and zero figures left out: a dash proves no structure), the fiscal year-end month its cover states,
    and the period it reports ('FY2025Q2')."""
    from bs4 import BeautifulSoup

    data = html.read_bytes()
    soup = BeautifulSoup(data, "html.parser")
    in_tables = {str(tag.get("id")) for tag in soup.find_all("ix:nonfraction")
                 if tag.get("id") and tag.find_parent("table") is not None}
    facts = read_facts(str(html), data, {})
    seen: dict[tuple[str, str, str, float], XbrlFact] = {}
    for fact in facts.facts:
        if fact.fact_id in in_tables and fact.value and fact.text:
            key = (fact.concept, fact.period, repr(sorted(fact.dimensions.items())), fact.value)
            seen.setdefault(key, fact)
    focus = facts.fiscal_period.upper()
    period = f"FY{facts.fiscal_year}{focus if focus.startswith('Q') else ''}" if facts.fiscal_year else ""
    return list(seen.values()), facts.fy_end_month or 12, period


def _printed(fact: XbrlFact) -> float | None:
    found = parse_number(fact.text)
    return abs(found.value) if found is not None else None


def _records(pages: Sequence[Page], fy_end_month: int, filing_period: str) -> list[TableRecord]:
    sections = detect_sections(list(pages))
    chunks = chunk_document("0" * 64, list(pages), sections, Settings.from_env(), fy_end_month, filing_period)
    return [c.table for c in chunks if c.table is not None]


def _cells(records: Iterable[TableRecord]) -> list[_Read]:
    out: list[_Read] = []
    for record in records:
        for row in record.rows:
            for cell in row.cells:
                column = record.columns[cell.column] if 0 <= cell.column < len(record.columns) else None
                named = column is not None and column.kind == "name"
                # the figures as ingest typed them, the ones the reader reads (a dash proves no structure)
                out.extend(_Read(printed=abs(f.value), period=f.period or row.period, whole=not record.part and not named,
                                 parted=bool(record.part) or named or bool(row.parent))
                           for f in cell.figures if f.readable and f.value and any(ch.isdigit() for ch in f.text))
    return out


def _plumbed_records(pdf: Path, fy_end_month: int, filing_period: str) -> list[TableRecord]:
    """pdfplumber's tables of each page read by the same header and period code as an HTML table's grid: its
    cells as a grid (symbol cells joined to their figures, columns without figures dropped), the header folded,
    joined with ' | ' into page text that the table reader reads."""
    import pdfplumber

    from agent.ingest.grid import CELL_SEPARATOR, fold_header, spanned_grid

    pages: list[Page] = []
    offset = 0
    with pdfplumber.open(pdf) as doc:
        for i, page in enumerate(doc.pages):
            lines: list[str] = []
            for table in page.extract_tables(PDFPLUMBER_SETTINGS):
                grid = spanned_grid([[(" ".join((c or "").split()), 1) for c in row] for row in table if row])
                if not grid:
                    continue
                folded, _ = fold_header(grid)  # as an HTML table's cells: symbols joined, header folded
                lines.extend(CELL_SEPARATOR.join(c for c in row) for row in folded)
                lines.append("")
            text = "\n".join(lines)
            pages.append(Page(page=i, text=text, char_start=offset))
            offset += len(text) + len(PAGE_SEPARATOR)
    return _records(pages, fy_end_month, filing_period)


def score(facts: Sequence[XbrlFact], cells: Sequence[_Read]) -> tuple[int, int, int]:
    """How many facts a typed cell prints (figure), with the fact's period (period), and of the fact's part."""
    by_number: dict[float, list[_Read]] = {}
    for cell in cells:
        by_number.setdefault(round(cell.printed, 6), []).append(cell)
    figure = period = part = 0
    for fact in facts:
        printed = _printed(fact)
        found = by_number.get(round(printed, 6), []) if printed is not None else []
        dated = [c for c in found if c.period and c.period == fact.period]
        figure += bool(found)
        period += bool(dated)
        part += any(c.parted if fact.dimensions else c.whole for c in dated)
    return figure, period, part


def run_structure_bench(html: Path, readers: Sequence[str] = READERS) -> list[StructureScore]:
    """Print one inline-XBRL filing to PDF, read it with each reader, and score each against the filing's tags."""
    facts, fy_end_month, filing_period = tagged_table_facts(html)
    out: list[StructureScore] = []
    with tempfile.TemporaryDirectory() as tmp:
        pdf = print_to_pdf(html, Path(tmp) / f"{html.stem}.pdf")
        parsed: ParsedDocument = load_pages(pdf, Settings.from_env())
        for reader in readers:
            note = ""
            if reader == "layout":
                records = _records(parsed.pages, fy_end_month, filing_period)
            elif reader == "text":
                pages = [p.model_copy(update={"runs": []}) for p in parsed.pages]
                records = _records(pages, fy_end_month, filing_period)
            elif reader == "pdfplumber":
                try:
                    records = _plumbed_records(pdf, fy_end_month, filing_period)
                except ImportError:
                    records, note = [], "pdfplumber is not installed (pip install pdfplumber)"
            else:
                raise FinragError(f"unknown reader {reader!r}: choose from {', '.join(READERS)}")
            figure, period, part = score(facts, _cells(records)) if not note else (0, 0, 0)
            out.append(StructureScore(filing=html.name, reader=reader, pages=len(parsed.pages), tables=len(records),
                                      tagged=len(facts), figure=figure, period=period, part=part, note=note))
    return out


def render(results: list[StructureScore]) -> str:
    """A Markdown table: per filing and reader, tagged table figures recovered at each level."""
    lines = ["| filing | reader | pages | tables | tagged | figure | + period | + part |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        if r.note:
            lines.append(f"| {r.filing} | {r.reader} | {r.pages} | – | {r.tagged} | {r.note} | | |")
            continue
        f, p, q = r.rates
        lines.append(f"| {r.filing} | {r.reader} | {r.pages} | {r.tables} | {r.tagged} | {r.figure} ({f:.1%}) | "
                     f"{r.period} ({p:.1%}) | {r.part} ({q:.1%}) |")
    return "\n".join(lines)
