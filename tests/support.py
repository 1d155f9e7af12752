"""Helpers shared by the graph, CLI and Studio tests."""

from __future__ import annotations

import functools
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

from agent.answer.reading import Evidence
from agent.config import Settings
from agent.finance.periods import ends_in_month_day
from agent.ingest.pipeline import open_ingestor
from agent.query.intent import extract_intent
from agent.query.plan import QueryPlan
from agent.schemas import Chunk

SAMPLE = Path(__file__).resolve().parent.parent / "agent" / "samples" / "NORTHWIND_2024_10K.md"


def ingested_typeset(folder: Path, name: str, text: str) -> Settings:
    """Settings for ``folder/home`` holding one filing typeset by a test (written as ``folder/name``)."""
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return ingested_file(folder / "home", path)


def ingested_file(home: Path, path: Path) -> Settings:
    """Settings for ``home`` holding one filing a test wrote (``path``: a PDF it printed, a text it typeset)."""
    settings = Settings.from_env(home=home)
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(path).status == "ingested"
    return settings


def printed_filing(folder: Path, name: str, pages: list[str]) -> Settings:
    """Settings for ``folder/home`` holding one filing typeset by a test and printed to PDF as ``folder/name``
    (see :func:`text_pdf`)."""
    return ingested_file(folder / "home", text_pdf(folder / name, pages))


def turn_plan(question: str) -> QueryPlan:
    """A turn's plan with no lookups of its own: the question and its reading, as the composer takes them."""
    return QueryPlan(question=question, intent=extract_intent(question))


def ask_once(settings: Settings, question: str) -> str:
    """The answer to ``question`` on a new thread of a fresh assistant over ``settings``' index."""
    from graphs.service import Assistant

    with Assistant(settings) as assistant:
        return assistant.ask(question, assistant.new_thread()).answer


def ask_thread(settings: Settings, turns: Sequence[str]) -> list[str]:
    """The answers to ``turns`` asked in order on one new thread of a fresh assistant over ``settings``' index."""
    from graphs.service import Assistant

    with Assistant(settings) as assistant:
        thread = assistant.new_thread()
        return [assistant.ask(turn, thread).answer for turn in turns]


def stated(answer: str) -> str:
    """The answer without its closest evidence and the sentences it quotes ('("... $4,407 million ...")'):
    figures shown there are evidence, not stated."""
    return re.sub(r'\("[^"]*"\)', "", answer.split("Closest evidence", 1)[0])


def ingested_sample(home: Path) -> Settings:
    """Settings for ``home`` with the sample filing ingested (one index shared by a test module)."""
    settings = Settings.from_env(home=home)
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(SAMPLE).status == "ingested"
    return settings


def text_pdf(path: Path, pages: list[str]) -> Path:
    """A text PDF (Courier, one text line per line of each page's text, table cells spaced into columns; a line's
    leading spaces indent it, as a filing indents a row under its sub-heading)."""
    placed = []
    for page in pages:
        lines = []
        for line in page.splitlines()[:70]:
            cells = [c.strip() for c in line.strip().strip("|").split("|")] if "|" in line else [line.strip()]
            row = cells[0].ljust(46)[:46] + "".join(c.rjust(12) for c in cells[1:])
            lines.append([(36 + COURIER_8PT * (len(line) - len(line.lstrip(" "))), row)])
        placed.append(lines)
    return placed_pdf(path, placed)


COURIER_8PT = 4.8  # the advance of every character of Courier at 8 pt


def placed_pdf(path: Path, pages: list[list[list[tuple[float, str]]]]) -> Path:
    """A text PDF (Courier 8 pt, a line every 10.5 pt from the top of a letter page): each line a list of (x in
    points from the left edge, text) pieces, each printed where it says -- a header's caption centred over the
    columns it heads, figures right-aligned in their column, as a filing is typeset."""
    import zlib

    from evals.hostile import write_pdf

    def escape(text: str) -> str:
        text = text.encode("latin-1", "replace").decode("latin-1")
        return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    streams = []
    for page in pages:
        ops = [f"BT /F1 8 Tf {x:.1f} {760 - 10.5 * i:.1f} Td ({escape(text)}) Tj ET"
               for i, line in enumerate(page) for x, text in line]
        streams.append(zlib.compress("\n".join(ops).encode("latin-1")))
    pdf = write_pdf(path, list(range(len(pages))), streams)
    pdf.write_bytes(pdf.read_bytes().replace(b"/BaseFont /Helvetica", b"/BaseFont /Courier"))
    return pdf


# ---------------------------------------------------------------------------------------------------------
# Evidence a test writes as the index stores it, typed by ingest
# ---------------------------------------------------------------------------------------------------------
_SCALE_CELL = re.compile(r"\((?:[A-Z]{3}\s+)?(?:in|amounts\s+in|dollars\s+in)\s[^)]*\)", re.IGNORECASE)


def _columns(listed: str) -> list[str]:
    """The labels of a 'columns: 2024, 2023' header cell (a date keeps its comma: 'May 31, 2020')."""
    labels: list[str] = []
    for piece in (p.strip() for p in listed.split(",")):
        if labels and ends_in_month_day(labels[-1]):
            labels[-1] = f"{labels[-1]}, {piece}"
        elif piece:
            labels.append(piece)
    return labels


def _named(cell: str) -> tuple[str, str]:
    """('2024', '1,234') for a '2024: 1,234' cell, ('', cell) for a bare one."""
    name, sep, value = cell.rpartition(": ")
    return (name, value) if sep and name and _FIGURE.search(value) else ("", cell)


_FIGURE = re.compile(r"\d|^\$?\s*[-\u2013\u2014]$")  # a figure, or the dash a nil prints
_YEAR = re.compile(r"(?:19|20)\d\d")


def _header_cells(cells: Sequence[str]) -> bool:
    """A table line of names or periods, no figure: a header ('citi | s&p 500', 'Segment | 2024')."""
    return len(cells) >= 2 and all(
        re.search(r"[A-Za-z]", c) or _YEAR.fullmatch(c.strip()) for c in cells[1:] if c)


def _markdown(text: str, section_path: Sequence[str]) -> str:
    """The Markdown filing page whose table ingest linearises as ``text`` does: the header line's columns (or the
    names the cells print before their figures), each row's cells under the column they name, the scale cell as the
    line above the table."""
    lines = text.splitlines()
    if section_path and lines and lines[0] == " > ".join(section_path):
        lines = lines[1:]
    out = [f"{'#' * (i + 1)} {heading}\n" for i, heading in enumerate(section_path)]
    piped = [i for i, line in enumerate(lines) if "|" in line or line.startswith("columns:")]
    first, last = (piped[0], piped[-1]) if piped else (len(lines), -1)
    columns: list[str] = []
    names: list[str] = []
    rows: list[list[str]] = []
    scale = ""
    for i, line in enumerate(lines):
        if not first <= i <= last:
            out.append(f"{line}\n")
            continue
        cells = [c.strip() for c in line.split("|")]
        scale = scale or next((c for c in cells if _SCALE_CELL.fullmatch(c)), "")
        cells = [c for c in cells if not _SCALE_CELL.fullmatch(c)]
        while len(cells) > 1 and not cells[-1]:
            cells.pop()
        listed = next((c for c in cells if c.startswith("columns:")), None)
        if listed is not None:
            out.extend(f"{c}\n" for c in cells if c and c != listed)  # the title printed above the table
            columns = _columns(listed.removeprefix("columns:"))
            continue
        if not columns and not rows and not names and _header_cells(cells):
            names = cells  # a line of names: with a corner over the labels or without ('citi | s&p 500' over dates)
            continue
        row = [cells[0]]
        for cell in cells[1:]:
            name, value = _named(cell)
            if name and name not in columns:
                columns.append(name)
            at = (columns.index(name) + 1) if name else len(row)
            row.extend([""] * (at + 1 - len(row)))
            row[at] = value
        rows.append(row)
    if rows:
        width = max([len(r) for r in rows] + [len(columns) + 1])
        if names:
            columns = names[1:] if len(names) == width else names  # a corner over the labels, or none
        header = ["", *columns] + [""] * (width - 1 - len(columns))
        table = [header, ["---"] * width, *(r + [""] * (width - len(r)) for r in rows)]
        at = len(out) - (len(lines) - 1 - last)  # after the lines above the table, before those after it
        out[at:at] = [*([f"{scale}\n"] if scale else []), "".join("| " + " | ".join(r) + " |\n" for r in table)]
    return "\n".join(out)


@functools.cache
def _typing_settings() -> Settings:
    return Settings.from_env(home=Path(tempfile.mkdtemp(prefix="finrag-typed-")))


def typed(ev: Evidence) -> Evidence:
    """``ev`` with the typed record ingest builds for the table its text shows, the text written as the index stores
    a table chunk ('Net sales | 2024: 1,234 | 2023: 1,100 | (in millions)' under 'Title | columns: 2024, 2023'). The
    table goes through ingest as a Markdown filing; each typed row must print as a line of ``ev.text`` (a fixture
    that is not what ingest writes fails here, not in the reader). Evidence without a table line, or with its record,
    is returned as is."""
    if "|" not in ev.text or ev.table is not None:
        return ev
    from agent.ingest.chunking import chunk_document
    from agent.ingest.parsing import load_pages
    from agent.ingest.structure import detect_sections

    settings = _typing_settings()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{ev.doc_name or 'FILING'}.md"
        path.write_text(_markdown(ev.text, ev.section_path), encoding="utf-8")
        parsed = load_pages(path, settings)
        chunks = chunk_document("0" * 64, parsed.pages, detect_sections(parsed.pages), settings,
                                ev.fy_end_month or 12, ev.filing_period)
    records = [c for c in chunks if c.table is not None]
    if not records and not any(_FIGURE.search(c) for line in ev.text.splitlines()
                               if "|" in line and "columns:" not in line for c in _unscaled(line)[1:]):
        return ev  # a table's title and header without a row of figures: nothing to type
    assert records, f"ingest typed no table in {ev.text!r}"
    record = records[0].table.model_copy(update={"rows": [r for c in records for r in c.table.rows]})
    assert len({c.table.table_id for c in records}) == 1, f"one table per evidence item: {ev.text!r}"
    lines = ev.text.splitlines()
    printed = [line for c in records for line in c.text.splitlines()]
    rows = []
    at = 0
    for row, chunk_line in zip(record.rows, _chunk_lines(records), strict=True):
        line = printed[chunk_line]
        found = next((i for i in range(at, len(lines)) if _unscaled(lines[i]) == _unscaled(line)), None)
        assert found is not None, f"ingest prints the row {line!r}, which {ev.text!r} does not"
        at = found + 1
        rows.append(row.model_copy(update={"chunk_line": found}))
    return ev.model_copy(update={"table": record.model_copy(update={"rows": rows})})


def _unscaled(line: str) -> list[str]:
    """A table line's label and figures as printed, without the column names before them and the scale cell ingest
    repeats on each row (a fixture may say them once, above the rows)."""
    cells = [_named(c.strip())[1] for c in line.split("|") if not _SCALE_CELL.fullmatch(c.strip())]
    return [c for c in cells if c]


def _chunk_lines(chunks: Sequence[Chunk]) -> list[int]:
    """Each typed row's line among the chunks' lines, counted over the chunks in order."""
    out, before = [], 0
    for chunk in chunks:
        out.extend(before + row.chunk_line for row in chunk.table.rows)
        before += len(chunk.text.splitlines())
    return out


def typed_evidence(**fields: object) -> Evidence:
    """Evidence as retrieval hands it over: a table chunk's text with the record ingest types for it (:func:`typed`)
    and its sentences' figures as ingest reads them."""
    return Evidence.of_text(**typed(Evidence(**fields)).model_dump())  # type: ignore[arg-type]
