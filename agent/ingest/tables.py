"""Find statement-like tables in page text and linearise their rows with period columns and scale.

Three layouts are read: rows on one line (``Depreciation 1,488 1,544 1,474``, pdfium's usual output), one cell
per line (label, then ``$``, ``5,363``, ... each on its own line, as other PDF extractors write), and
``a | b | c`` rows (HTML and Markdown tables). A linearised row names its period and scale next to every value:
``Purchases of PP&E | 2018: (1,577) | 2017: (1,373) | (in millions)``. Values are kept exactly as written
(parentheses, ``$``, ``%``, dashes); only the whitespace inside a cell is dropped.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from agent.finance.column_periods import is_bucket, without_spans
from agent.finance.numbers import (
    SCALE_NAMES,
    find_numbers,
    header_scale,
    is_name_number,
    is_year,
    stated_currency,
)
from agent.ingest.columns import (
    DURATION_RE,
    MONTH_RE,
    PERIOD_RE,
    covers,
    dated_names,
    detect_columns,
    reads_more,
)
from agent.ingest.grid import (
    ALIGNED_SHARE,
    CELL_SEPARATOR,
    NOTE_COLUMN_RE,
    SPAN_CAPTION_RE,
    SUBHEADINGS_MAX,
    GridPlace,
    grid_placed,
    is_figure,
    placed_cells,
    placed_columns,
)
from agent.ingest.line_cells import (
    CELL_NOTE_RE,
    DATE_CELL_RE,
    MONTHS,
    PREFIX_TOKENS,
    PROSE_MIN_WORDS,
    SUFFIX_TOKENS,
    YEAR_CELL_RE,
    YEAR_IN_NAME_RE,
    header_cells,
    names_periods,
    period_cell,
    split_cells,
)
from agent.schemas import PAGE_SEPARATOR, TextRun

# A table needs at least this many rows of numbers; one line ending in a number is just a sentence.
MIN_DATA_ROWS = 2
# A sentence (ends with . ! ?) of this many words is prose even when short.
SENTENCE_MIN_WORDS = 10
# More label-only lines than this in a row end a table (sub-headings inside a table come one or two at a time).
MAX_LABEL_RUN = 5
# Lines above the first row searched for period columns and scale (split dates take one line per fragment).
HEADER_MAX_LINES = 16
# Lines above the column header searched for the table's title, and the most words a title has.
TITLE_LOOKBACK_LINES = 3
TITLE_MAX_WORDS = 14
# Lines above a table searched for a scale when its own header declares none ("as follows (in millions):").
SCALE_LOOKBACK_LINES = 2
# The most words of an introducing sentence kept as an untitled table's title (its subject comes first).
INTRODUCTION_MAX_WORDS = 24
INTRODUCTION_MAX_LINES = 3  # a wrapped introduction: the sentence ending above a table spans a few lines
SCALED_TITLE_MIN_WORDS = 2  # 'Segment revenue (in millions)' titles its table; '(Dollars in millions)' does not
INTRODUCTION_MIN_WORDS = 3  # "we have the following :" names nothing; "total purchase commitments are" does

_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+(?=[a-z(]|[A-Z])")
# 'are as follows :', 'is summarized below :', 'consisted of the following :': a sentence that introduces a table.
_INTRODUCES_RE = re.compile(
    r"\b(?:(?:are|is|were|was|consisted\s+of|include[sd]?)\s+)?(?:as\s+follows|the\s+following|(?:summarized|presented|shown|set\s+forth)\s+(?:below|in\s+the\s+"
    r"(?:following\s+)?table))\b\s*:?",
    re.IGNORECASE,
)
_SENTENCE_END_RE = re.compile(r"[.!?][\"”’)]?$")
_COMPARISON_HEADER_RE = re.compile(
    r"\b(?:19|20)\d{2}\s*(?:vs\.?|versus|v\.|compared\s+(?:to|with)|over)\s*(?:19|20)\d{2}\b", re.IGNORECASE
)
CHANGE_COLUMN_RE = re.compile(r"\bchange\b|%|\bvariance\b|\bvs\.?\b|\bincrease\b|\bdecrease\b", re.IGNORECASE)

# A company line ("3M Company and Subsidiaries", "Northwind Instruments, Inc.") is a poor table title.
_ENTITY_LINE_RE = re.compile(
    r"\b(?:inc|incorporated|corporation|corp|company|co|ltd|plc|llc|subsidiaries|group|holdings)\.?$", re.IGNORECASE
)


class TableRow(BaseModel):
    """One row: its label and its value cells (verbatim), with its span in the page text."""

    label: str = ""
    cells: list[str] = Field(default_factory=list)
    line: str = Field(default="", description="the row's source text, whitespace collapsed")
    columns: list[int] = Field(default_factory=list, description="the value column each cell stands under, where "
                               "a PDF's layout places them (a row that leaves columns blank); empty: in order")
    char_start: int = 0
    char_end: int = 0


class TableBlock(BaseModel):
    """A statement-like table found in one page's text."""

    char_start: int = Field(description="offset of the table (header included) in the page text")
    char_end: int
    title: str = ""
    caption: str = Field(default="", description="the header lines above the rows, joined")
    columns: list[str] = Field(default_factory=list, description="period labels of the value columns")
    period_caption: str = Field(default="", description="the header's period phrase, e.g. 'Years ended December 31'")
    stub: str = Field(default="", description="what the period header's first cell says the rows are "
                      "('OPERATING REVENUES | Q4 2024 | Q4 2023'); empty when it is blank, a scale or a period")
    scale: float = 1.0
    scale_label: str = Field(default="", description="e.g. '(in millions)'; empty when unscaled")
    rows: list[TableRow] = Field(default_factory=list, description="body rows; label-only rows are sub-headings")
    continues_under: str = Field(default="", description="the sub-heading a table continued from the page before "
                                 "left open there: its first rows are under it ('' for none)")

    @property
    def data_rows(self) -> list[TableRow]:
        """Rows that carry values."""
        return [r for r in self.rows if r.cells]


# -------------------------------------------------------------------------------------------------------
# Line classification
# -------------------------------------------------------------------------------------------------------
@dataclass
class _Line:
    kind: str  # blank | text | prose | cells | row | prefix | suffix
    text: str
    start: int
    end: int
    label: str = ""
    cells: list[str] = field(default_factory=list)
    table: int | None = None  # the grid table the line is a row of, where the writer marked it (Page.grid_tables)


@dataclass
class _Row:
    label: str
    cells: list[str]
    start: int
    end: int
    open_for_cells: bool = True
    is_break: bool = False
    placed: list[int] = field(default_factory=list)  # the column each cell stands in, where the layout says
    grid: bool = False  # printed as a grid's cells (HTML, Markdown: ' | ' between them), not laid out as text
    table: int | None = None  # the grid table it is a row of (see _Line.table)

    @property
    def is_header(self) -> bool:
        cells = header_cells(self.cells)
        return bool(cells) and (all(period_cell(c) for c in cells) or names_periods(cells))

    @property
    def is_data(self) -> bool:
        return bool(self.cells) and not self.is_header


def _classify(text: str, start: int, stub: bool = False) -> _Line:
    """A line of a page as the table reader sees it; ``stub``: a grid line (HTML, Markdown) whose first cell sits
    in the grid's first column, the one that labels the rows, whatever it prints ('2014 | 385,373')."""
    end = start + len(text)
    stripped = text.strip()
    if not stripped:
        return _Line("blank", text, start, end)
    if stripped in PREFIX_TOKENS:
        return _Line("prefix", stripped, start, end)
    if stripped in SUFFIX_TOKENS:
        return _Line("suffix", stripped, start, end)
    if " | " in stripped:
        parts = [p.strip() for p in stripped.split(" | ") if p.strip()]
        if len(parts) >= 2 and all(DATE_CELL_RE.match(p) for p in parts):
            return _Line("cells", stripped, start, end, cells=parts)  # '12/09 | 12/10 | ...': a date header
        heads = header_cells(parts)
        if names_periods(heads) or len(heads) >= 2 and all(period_cell(p) for p in heads):
            # '2008 | 2009 | thereafter', '£m | 2019 | 2018', '2019 53 WEEKS | 2018 52 WEEKS'
            return _Line("cells", stripped, start, end, cells=parts)
        first_label, first_cells = split_cells(parts[0])
        label = parts[0] if first_label or stub else ""
        value_parts = parts[1:] if label else parts
        cells: list[str] = []
        figures = worded = 0  # cells of one figure that is no period ('$565,609', not '2019'); cells of words
        for part in value_parts:
            part_label, part_cells = split_cells(part)
            if part_label or len(part_cells) != 1:
                cells.append(part)  # a cell of words ('2039 or indefinite'): the grid says where cells are
                worded += 1
                continue
            figures += not period_cell(part_cells[0])
            cells.extend(part_cells)
        if not cells or worded and not (label and figures):
            # words among periods or names only ('2019 | (Restated) 2018', 'Amount | % of total'): a header
            return _Line("text", stripped, start, end)
        return _Line("row" if label else "cells", stripped, start, end, label=label, cells=cells)
    label, cells = split_cells(stripped)
    if not cells:
        words = len(stripped.split())
        prose = words >= PROSE_MIN_WORDS or (words >= SENTENCE_MIN_WORDS and _SENTENCE_END_RE.search(stripped))
        return _Line("prose" if prose else "text", stripped, start, end)
    return _Line("row" if label else "cells", stripped, start, end, label=label, cells=cells)


def _lines(page_text: str, grid: Sequence[list[GridPlace] | None] = (),
           grid_tables: Sequence[int | None] = ()) -> list[_Line]:
    out: list[_Line] = []
    pos = 0
    for k, raw in enumerate(page_text.split("\n")):
        lead = len(raw) - len(raw.lstrip())
        places = grid[k] if k < len(grid) else None
        out.append(_classify(raw.strip(), pos + lead, stub=bool(places) and places[0][0] == 0))
        out[-1].table = grid_tables[k] if k < len(grid_tables) else None
        pos += len(raw) + 1
    return out


# -------------------------------------------------------------------------------------------------------
# Rows and tables
# -------------------------------------------------------------------------------------------------------
_ASIDE_LABEL_RE = re.compile(r"\([A-Za-z][^()]*\)")  # a label that is only an aside in parentheses: '(EMEA)'


def _rows(lines: list[_Line]) -> list[_Row]:
    """Assemble logical rows: wrapped labels joined, one-cell-per-line values gathered under their label."""
    rows: list[_Row] = []
    current: _Row | None = None
    prefix = ""
    for line in lines:
        if line.kind == "blank":
            continue
        if line.kind == "prose" and not (current is not None and current.is_header):
            rows.append(_Row("", [], line.start, line.end, open_for_cells=False, is_break=True))
            current, prefix = None, ""
        elif line.kind in {"text", "prose"}:  # a long line right under a table's header is its first sub-heading
            if current is not None and not current.cells and line.text[:1].islower() \
                    and CELL_SEPARATOR not in line.text:  # a grid's line of cells wraps no label
                current.label = f"{current.label} {line.text}"
                current.end = line.end
            else:
                current = _Row(line.text, [], line.start, line.end, grid=CELL_SEPARATOR in line.text, table=line.table)
                rows.append(current)
            prefix = ""
        elif line.kind == "prefix":
            prefix += line.text
        elif line.kind == "suffix":
            if current is not None and current.cells:
                current.cells[-1] += line.text
                current.end = line.end
        elif line.kind == "cells":
            cells = [prefix + line.cells[0], *line.cells[1:]]
            prefix = ""
            if current is not None and current.open_for_cells and " | " not in line.text:
                current.cells.extend(cells)
                current.end = line.end
            else:
                current = _Row("", cells, line.start, line.end, grid=CELL_SEPARATOR in line.text, table=line.table)
                rows.append(current)
            # One value per line is the one-cell-per-line layout: more values follow. A line of several values
            # is a whole row (pdfium's layout), so the next line starts a new one.
            current.open_for_cells = len(cells) == 1 and " | " not in line.text
        else:  # a labelled row
            # a label wrapped onto the row's line: its lower-case rest, or an aside alone ('Europe, Middle East and
            # Africa' over '(EMEA) | 512.3'), which names nothing by itself
            wrapped = line.label[:1].islower() or (_ASIDE_LABEL_RE.fullmatch(line.label) is not None
                                                   and header_scale(line.label) == 1.0)  # '(Millions)' heads the columns
            if current is not None and not current.cells and wrapped and " | " not in line.text:
                current.label = f"{current.label} {line.label}"
                current.cells = list(line.cells)
                current.end = line.end
            else:
                current = _Row(line.label, list(line.cells), line.start, line.end, grid=CELL_SEPARATOR in line.text,
                               table=line.table)
                rows.append(current)
            current.open_for_cells = False
            prefix = ""
    return rows


def _line_runs(row: _Row, page_text: str, runs: Sequence[list[TextRun] | None]) -> list[TextRun]:
    """The runs of a row printed on one line of a PDF page (:attr:`Page.runs`); [] for a row over several lines."""
    k = page_text.count("\n", 0, row.start)
    one_line = "\n" not in page_text[row.start:row.end].strip()
    return list(runs[k] or []) if one_line and k < len(runs) else []


def _over_values(row: _Row, current: list[_Row], page_text: str, runs: Sequence[list[TextRun] | None]) -> bool:
    """A line of words only printed where the figures of the rows above it stand: two names or more right of their
    row labels, or one ending where a column's figures end (right-aligned over them) -- a line of the next table's
    header, not a sub-heading in the label column nor one centred over the page ('LIABILITIES AND EQUITY:')."""
    if row.cells or not runs:
        return False
    above = [line for r in current if r.is_data and (line := _line_runs(r, page_text, runs))
             and not is_figure(line[0].text)]
    if not above:
        return False
    edge = max(line[0].x1 for line in above)
    ends = {run.x1 for line in above for run in line[1:] if is_figure(run.text)}
    over = [run for run in _line_runs(row, page_text, runs) if run.x0 >= edge]
    return len(over) >= 2 or len(over) == 1 and any(abs(over[0].x1 - end) <= ALIGNED_SHARE for end in ends)


def _groups(rows: list[_Row], page_text: str = "", runs: Sequence[list[TextRun] | None] = ()) -> list[list[_Row]]:
    """Split rows into candidate tables at prose, at a new header after data (in a PDF, a line of words printed
    over the figures' columns), and at long label runs."""
    groups: list[list[_Row]] = []
    current: list[_Row] = []
    for row in rows:
        if row.is_break:
            groups.append(current)
            current = []
            continue
        has_data = any(r.is_data for r in current)
        # A row of a grid table no line so far is of starts that table: the writer saw where each began and ended
        # ('EXHIBIT 99.1' above a release's first table is a line of text, not its first row; a sub-heading the
        # writer left unmarked inside a grid, 'Capital expenditures 1', is the grid's, whose header came before it).
        other_grid = row.table is not None and all(r.table != row.table for r in current)
        if (row.is_header or _names_columns(row) or other_grid
                or _over_values(row, current, page_text, runs)) and has_data:
            # The label-only lines just before a new header are that table's title, not the old table's tail.
            tail: list[_Row] = []
            while current and not current[-1].cells:
                tail.insert(0, current.pop())
            groups.append(current)
            current = tail
        elif not row.cells and has_data:
            run = 0
            for r in reversed(current):
                if r.cells:
                    break
                run += 1
            if run >= MAX_LABEL_RUN:
                # Too many plain lines for sub-headings: the table ended; they may head the next one.
                groups.append(current[:-run])
                current = current[-run:]
        current.append(row)
    groups.append(current)
    return [g for g in groups if sum(r.is_data for r in g) >= MIN_DATA_ROWS or _one_row_grid(g)
            or _one_row_placed(g, page_text, runs)]


def _one_row_grid(group: list[_Row]) -> bool:
    """A grid table of one row under a header of cells ('(Dollars in millions) | 2019 | 2018' over 'Interest
    expense | $2,082 | $2,025'): a table, though a line of text ending in a figure alone is a sentence."""
    data = [i for i, r in enumerate(group) if r.is_data]
    if len(data) != 1 or not group[data[0]].grid:
        return False
    row, above = group[data[0]], group[:data[0]]
    if len(row.cells) == 1:
        # a grid of one value column prints its header cell as a line of its own: a period, right above the row
        return bool(above) and (above[-1].is_header or period_cell(above[-1].label))
    return any(r.grid and (r.is_header or not r.cells) for r in above)


def _one_row_placed(group: list[_Row], page_text: str, runs: Sequence[list[TextRun] | None]) -> bool:
    """A PDF table of one row under a header printed over its figures: the part of a table a page break leaves
    above it, or below it under the repeated header. A table only when its header names each figure's column
    (see :func:`find_tables`)."""
    data = [i for i, r in enumerate(group) if r.is_data]
    return len(data) == 1 and len(group[data[0]].cells) >= 2 and any(
        _over_values(r, [group[data[0]]], page_text, runs) for r in group[:data[0]])


def _figure_free(name: str, dated: bool = True) -> bool:
    """Whether a column name prints no figure: digits only in its periods (when ``dated``), spans ('1-3 years') and
    names that carry a number ('Topic 606', 'Level 3')."""
    text = without_spans(name)
    if dated:
        text = PERIOD_RE.sub(" ", text)
    return not any(not is_name_number(text, m.start(), m.end()) for m in re.finditer(r"\d+", text))


def _names_columns(row: _Row) -> bool:
    """A header row of column names ('USD denominated | Non-USD denominated', a Markdown or HTML table's first
    row, a grid table's folded header '2019 Amount | 2019 % of total'): two names at least, no figures (a
    period's digits aside), no scale or period matter. After data it starts a new table."""
    names = _column_names(row)
    return len(names) >= 2 and all(re.search(r"[A-Za-z]{3}", n) and _figure_free(n) and not _is_meta_line(n)
                                   for n in names)


def title_above(lead: str) -> str:
    """The title of a table printed at a page's top and left at the foot of the page before ('Personal Lines' under
    'Segment Results' and its scale): the last plain line of ``lead`` (the text between the table before it, or the
    prose, and this one) before the page break; '' when the table does not start its page or no such line ends
    the page before."""
    before, _, after = lead.rpartition(PAGE_SEPARATOR)
    if not before or after.strip():
        return ""
    for line in reversed([ln.strip() for ln in before.splitlines() if ln.strip()][-TITLE_LOOKBACK_LINES:]):
        if _is_meta_line(line):
            continue
        return line if _plain_title(line) and not find_numbers(line) else ""
    return ""


def scale_above(lead: str) -> tuple[float, str]:
    """The scale, and its label, that a table printed at a page's top states at the foot of the page before: a scale
    line among the header lines under its title there ('(In thousands, except per share amounts)'); (1.0, '') when
    the table does not start its page or no such line ends the page before."""
    before, _, after = lead.rpartition(PAGE_SEPARATOR)
    if not before or after.strip():
        return 1.0, ""
    for line in reversed([ln.strip() for ln in before.splitlines() if ln.strip()][-TITLE_LOOKBACK_LINES:]):
        if not _is_meta_line(line):
            break
        if (scale := header_scale(line)) != 1.0:
            return scale, _scale_label(scale, line)
    return 1.0, ""


def _plain_title(text: str) -> bool:
    """A line that can title a table: a few words, no sentence (no stop or colon at its end, no verb of one)."""
    return (len(text.split()) <= TITLE_MAX_WORDS and not text.rstrip().endswith((".", ":"))
            and not _SENTENCE_VERB_RE.search(text))


def _is_meta_line(text: str) -> bool:
    """Header lines that are not a title: periods, scale, '(Unaudited)', 'Table of Contents', page numbers."""
    lowered = text.lower().strip()
    if not lowered or lowered in {"table of contents", "(unaudited)", "unaudited"}:
        return True
    words = [w.strip(".,:;") for w in lowered.split()]
    if all(w in MONTHS or w.isdigit() or not w for w in words):
        return True
    if lowered.startswith("(") and lowered.endswith(")"):
        return True
    if header_scale(text) != 1.0 and len(text.split()) <= 8:
        return True
    if DURATION_RE.search(text) or re.match(rf"^(?:as of|at)\b|^{MONTH_RE}\s+\d", lowered):
        return True
    return not any(ch.isalpha() for ch in lowered)


def _scale_label(scale: float, header_text: str) -> str:
    """'(in millions)', with the currency the scale line states ('($ in millions)' -> '(USD in millions)')."""
    if scale == 1.0:
        return ""
    name = SCALE_NAMES.get(scale, "")
    per_share = re.search(r"except\s+(?:for\s+)?(per[\s-]share[^)]*?|share[^)]*?)(?:\)|$)", header_text, re.IGNORECASE)
    suffix = f", except {per_share.group(1).strip()}" if per_share else ""
    return f"({f'{currency} ' if (currency := stated_currency(header_text)) else ''}in {name}s{suffix})"


# A finite verb of an introducing sentence ('... at March 31, 2024 and 2023 is as follows:', 'consisted of the
# following'): header matter names periods and units, it never says what they are.
_SENTENCE_VERB_RE = re.compile(r"\b(?:is|are|was|were|consist(?:s|ed)?|follows?|following)\b", re.IGNORECASE)


def _scaled_title(text: str) -> str:
    """The words of a title line that also states the table's scale ('Revenue by geographic region (in millions):'
    -> 'Revenue by geographic region'), or '' for a line that is scale or header matter only."""
    rest = " ".join(re.sub(r"\([^)]*\)", lambda m: " " if header_scale(m.group(0)) != 1.0 else m.group(0),
                           text).split()).strip(" :;,")
    if rest == text.strip(" :;,") or len(rest.split()) < SCALED_TITLE_MIN_WORDS or _is_meta_line(rest):
        return ""
    return rest


def _is_column_line(row: _Row) -> bool:
    """A line of the column header: period row, duration, date fragment, scale or other header matter; not the
    sentence introducing the table, though it names the table's dates."""
    if row.is_header:
        return True
    if row.cells or len(row.label.split()) > TITLE_MAX_WORDS or _SENTENCE_VERB_RE.search(row.label):
        return False
    return _is_meta_line(row.label) or bool(PERIOD_RE.search(row.label))


def _column_names(row: _Row, width: int = 0) -> list[str]:
    """The names a label-only row of cells gives its columns; a first cell that states the scale or is blank
    ('(in millions) | Americas | Europe') heads the row labels, not a column, unless it names a period and the
    rows have ``width`` values, one under each cell ('three months ended dec 28 2013 | ...')."""
    names = [c.strip() for c in row.label.split("|")] if not row.cells else []
    if width and len(names) == width and all(names) and PERIOD_RE.search(names[0]):
        return names
    return names[1:] if names and _is_meta_line(names[0]) else names


def _labelled_by_year(row: _Row) -> bool:
    """A row whose label is its year, printed as its first cell ('2021 | $138 | $6')."""
    return not row.label and bool(row.cells) and bool(YEAR_CELL_RE.match(row.cells[0]))


def _line_names(row: _Row, body: list[_Row], dated: bool = False) -> list[str]:
    """The names a line of column names gives the columns above rows labelled by their period ('total cost of
    shares purchased | total number of shares purchased | average price paid per share' over '2012 | 971883 |
    14087.8 | 68.99', or 'three months ended dec . 28 2013 | ... | change' over six values, when ``dated``: no
    other header line sits between it and the rows): as many names as the rows have values, and no figures but,
    when ``dated``, the dates and periods the names print. Empty when the line is no such line."""
    widths = {len(r.cells) - (1 if _labelled_by_year(r) else 0) for r in body if r.cells}
    names = _column_names(row, next(iter(widths)) if len(widths) == 1 else 0)
    if row.grid and len(widths) == 1 and len(names) == next(iter(widths)) + 1:
        # a grid's first cell heads the row labels ('Plan category'), not a column of values; it names what a span of
        # numbers under it counts ('Days past due' over '1–90 | 91–180 | >360': '1–90 days past due')
        head = names[0]
        names = [f"{n} {head.lower()}" if head and is_bucket(n) else n for n in names[1:]]
    year_rows = any(_labelled_by_year(r) for r in body)
    named = (
        len(names) >= (1 if year_rows else 2)  # one name over rows labelled by their year is their one column's
        and widths == {len(names)}
        and all(re.search(r"[A-Za-z]{3}", n) and _figure_free(n, dated) for n in names)
    )
    return names if named else []


def _stub(row: _Row) -> str:
    """The first cell of a period header line ('OPERATING REVENUES | Q4 2024 | Q4 2023'), when it says what the
    rows are rather than a scale or a period."""
    parts = [p.strip() for p in row.label.split("|")]
    first = parts[0] if len(parts) > 1 or row.is_header else ""
    return first if first and not _is_meta_line(first) and not PERIOD_RE.search(first) else ""


def _subheadings_start(group: list[_Row], first_data: int) -> int:
    """Where the body starts when sub-headings sit between a period header of plain lines and the first values
    ('12 Weeks Ended' / '3/25/2023' / '3/19/2022' / 'Net Revenue' / 'Frito-Lay North America | 5,583 | 4,839'):
    at the sub-headings, so the header above them still names the columns; else at ``first_data``."""
    k = first_data
    while (
        k > 0
        and first_data - k < SUBHEADINGS_MAX
        and not group[k - 1].cells
        and not _is_column_line(group[k - 1])
        and len(group[k - 1].label.split()) <= TITLE_MAX_WORDS
    ):
        k -= 1
    if k == first_data or k == 0:
        return first_data
    top = k
    while top > max(0, k - HEADER_MAX_LINES) and _is_column_line(group[top - 1]):
        top -= 1
    header = " ".join(group[i].label for i in range(top, k))
    return k if top < k and detect_columns(header) else first_data


def _placed_columns(group: list[_Row], first_data: int, last_data: int, page_text: str,
                    runs: Sequence[list[TextRun] | None]
                    ) -> tuple[list[str], str, range, list[tuple[float, float]]] | None:
    """A PDF table's column names read from where its header's words stand (:func:`placed_columns`)."""
    body = [page_text.count("\n", 0, r.start) for r in group[first_data:last_data + 1]
            if r.cells and "\n" not in page_text[r.start:r.end].strip()]
    return placed_columns(runs, page_text.count("\n", 0, group[first_data].start), body) if runs else None


def _build(group: list[_Row], page_text: str, lines: list[_Line],
           runs: Sequence[list[TextRun] | None] = (), grid: Sequence[list[GridPlace] | None] = ()) -> TableBlock:
    first_data = next(i for i, r in enumerate(group) if r.is_data)
    last_data = max(i for i, r in enumerate(group) if r.is_data)
    # The body starts after the last period header row; label-only rows between it and the first values are
    # sub-headings ("Cash Flows from Operating Activities") unless they are header matter ("(In millions)").
    body_start = first_data
    width = {len(r.cells) for r in group[first_data:last_data + 1] if r.is_data}
    # A header of years and names heads the body only when it names every value column; otherwise ('2019 | 2018
    # | Change' over 'Amount | % | Amount | % | $ | %') it is one line of the column header.
    headers = [i for i in range(first_data)
               if group[i].is_header and (not names_periods(header_cells(group[i].cells))
                                          or width == {len(header_cells(group[i].cells))})]
    if headers:
        body_start = headers[-1] + 1
        while body_start < first_data and _is_meta_line(group[body_start].label):
            body_start += 1
    else:
        body_start = _subheadings_start(group, body_start)
    # Column header: the run of header-like lines right above the body. Title: the nearest plain line above it.
    col_start = body_start
    while col_start > max(0, body_start - HEADER_MAX_LINES) and _is_column_line(group[col_start - 1]):
        col_start -= 1
    title, zone_start = "", col_start
    names: list[str] = []  # the columns' names, when a line above the header gives one per value
    names_period = ""  # the period printed in the first cell of the names' line, over them all
    for i in range(col_start - 1, max(-1, col_start - 1 - TITLE_LOOKBACK_LINES), -1):
        row = group[i]
        line_names = _line_names(row, group[body_start:last_data + 1], col_start == body_start) if i == col_start - 1 else []
        if line_names:
            names = line_names  # 'total cost | number of shares | average price': the columns' names
            title, zone_start = " | ".join(names), i
            corner = row.label.split("|", 1)[0].strip() if "|" in row.label else ""
            if corner and PERIOD_RE.search(corner) and corner not in names:
                names_period = corner  # 'Three Months Ended June 30, 2025 | Commercial Banking | ...'
            break
        if row.cells or len(row.label.split()) > TITLE_MAX_WORDS or _SENTENCE_VERB_RE.search(row.label):
            break  # a sentence above the table is its introduction, read whole where it wraps (see _introduction)
        if row.label.lower() == "table of contents":
            continue
        if not title or _ENTITY_LINE_RE.search(title):
            # Prefer a statement name over the company line printed above or below it.
            title, zone_start = row.label, i
        if not _ENTITY_LINE_RE.search(title):
            break
    # 'Revenue by geographic region (in millions):' is header matter by its scale, and the table's own title,
    # nearer the table than any heading above it
    scaled = next((t for r in group[col_start:body_start] if not r.cells and (t := _scaled_title(r.label))), "")
    if scaled and not names:
        title, zone_start = scaled, col_start
    if not names:
        # A names line inside the column header ('(in millions) | Americas | Europe' over 'As of December 31, 2019')
        names = next((found for r in group[col_start:body_start]
                      if (found := _line_names(r, group[body_start:last_data + 1]))), [])
    header_rows = group[zone_start:body_start]
    body = group[body_start:last_data + 1]
    start = header_rows[0].start if header_rows else body[0].start
    header_text = " ".join(re.sub(r"\s+", " ", page_text[r.start:r.end]) for r in header_rows)
    column_text = " ".join(re.sub(r"\s+", " ", page_text[r.start:r.end]) for r in group[col_start:body_start])
    period_caption = next(
        (r.label for r in group[col_start:body_start]
         if not r.cells and len(r.label.split()) <= TITLE_MAX_WORDS
         and (DURATION_RE.search(r.label) or re.match(r"^(?:as (?:of|at)|at)\b", r.label, re.IGNORECASE))),
        "",
    )
    stub = next((stub for r in reversed(group[col_start:body_start]) if (stub := _stub(r))), "")
    before = [ln for ln in lines if ln.end <= start and ln.kind != "blank"][-SCALE_LOOKBACK_LINES:]
    scale_text = header_text if header_scale(header_text) != 1.0 else " | ".join(ln.text for ln in before)
    scale = header_scale(scale_text)
    expected = sum(len(r.cells) for r in group[col_start:body_start]) or None
    # '2019 vs 2018' heads a change column: its years are no period columns of their own
    compared = _COMPARISON_HEADER_RE.sub(" change ", column_text)
    columns = (compared != column_text and detect_columns(compared, expected)) or detect_columns(column_text, expected)
    heads = header_cells(group[body_start - 1].cells) if body_start > 0 else []
    named = heads if names_periods(heads) else []
    widths = {len(r.cells) for r in body if r.cells}
    if named and not group[body_start - 1].label and widths == {len(named) - 1}:
        named = named[1:]  # '(in thousands) | July 29, 2023 | ... | % Change': the first cell heads the labels
    if named and widths == {len(named)}:
        # 'total', 'thereafter', 'Change' are columns too: the k-th value is under the k-th name; a period cell
        # keeps the duration the line above gives it ('Six Months Ended' over 'March 29, 2025 | ... | Change').
        dated = [c for c in named if PERIOD_RE.search(c)]
        if len(dated) == len(columns) and all(c in label for c, label in zip(dated, columns, strict=True)):
            labels = iter(columns)
            columns = [next(labels) if PERIOD_RE.search(c) else c for c in named]
        else:
            columns = list(named)
    year_rows = any(_labelled_by_year(r) for r in body)
    if names and len(columns) < len(names) and year_rows:
        # 'Operating Leases | Finance Leases' over '2021 | $138 | $6': each value is under its column's name, and
        # the row is labelled by its year
        body = [dataclasses.replace(r, label=r.cells[0], cells=r.cells[1:]) if _labelled_by_year(r) else r
                for r in body]
        columns = names
    elif names and len(columns) < len(names):
        # 'USD denominated | Non-USD denominated' over 'December 31, 2019': the period heads the table (or a block
        # of its rows), each value is under its column's name.
        columns = names
        period_caption = names_period or period_caption or next(
            (r.label for r in group[col_start:body_start] if not r.cells and PERIOD_RE.search(r.label)), ""
        )
    columns, names_row = _grouped_columns(columns, group[col_start:body_start], body)
    if names_row is not None:
        body = [r for r in body if r is not names_row]  # the columns' names row heads them; it is no sub-heading
    header_row, header_names, headed = _named_header(group[:first_data], body, page_text, undated=not columns)
    if header_row is not None:
        # A grid table's header, folded at parsing into one line naming each value column ('2019 Amount | 2019
        # % of total | ...'), names them more fully than the lines above it can, unless they already say it; a
        # day printed over it ('December 31,', 'Three Months Ended September 30,') is each year's.
        above = group[:group.index(header_row)]
        caption = " ".join(r.label for r in above[-HEADER_MAX_LINES:] if not r.cells and _is_column_line(r))
        # 'SECOND QUARTER | 2025 Amount | 2024 Amount': a period in the header's first cell spans the years under it
        corner = (header_row.label.split("|", 1)[0].strip() if "|" in header_row.label
                  else header_row.cells[0] if headed and not header_row.label and header_row.cells else "")
        if corner and (PERIOD_RE.search(corner) or SPAN_CAPTION_RE.fullmatch(corner)) and corner not in header_names:
            # a corner naming its year ('Fiscal 2024') dates the columns itself, whatever the lines above say (the
            # cover's 'For the fiscal year ended December 31, 2024' above a filing's first table)
            caption = corner if YEAR_IN_NAME_RE.search(corner) else f"{caption} {corner}".strip()
        columns = dated_names(columns if covers(columns, header_names) else header_names, caption)
        body = [r for r in body if r is not header_row]
        start = min(start, header_row.start)  # the header is the table's, not the prose's above it
        # label lines between the grid's header and its first figures head the rows below them: sub-headings
        # ('Income tax net operating loss carryforwards:'), never the table's title
        under = [r for r in group[group.index(header_row) + 1:body_start] if not r.cells
                 and not _is_meta_line(r.label) and CELL_SEPARATOR not in r.label]
        body = [*under, *body]
        title = "" if title in {r.label for r in under} else title
        if headed:
            stub = stub or _stub(header_row)  # its first cell heads the labels ('Revenue by country | 2019 | 2018')
        if title in {"", header_row.label}:
            # the header was read as the title, or hid it: the title is the plain line right above it ('Product
            # Revenues' over '(In millions)', 'Revenue by market platform:' captioning it), never a sentence
            # introducing the table or a heading above that
            nearest = next((r.label for r in reversed(above[-TITLE_LOOKBACK_LINES:])
                            if not r.cells and not _is_meta_line(r.label)), "").rstrip().removesuffix(":")
            title = nearest if _plain_title(nearest) else ("" if title == header_row.label else title)
    widths = {len(r.cells) for r in body if r.cells}
    placed = _placed_columns(group, first_data, last_data, page_text, runs)
    # names without a period head a table of no columns the text could read (none, or fewer than its figures: the
    # corner '2024' read as the one column of 'Oil Sands | Conventional | Total'), under the one period over them all
    # ('Q1 | Q2' under a corner 'Fiscal 2024': each a quarter of that year)
    names = dated_names(placed[0], placed[1]) if placed is not None else []
    dated = placed is not None and (any(PERIOD_RE.search(n) for n in names)
                                    or len(columns) != max(widths) and len(list(PERIOD_RE.finditer(placed[1]))) == 1)
    if placed is not None and dated and len(placed[0]) == max(widths) and reads_more(columns, names):
        # A PDF header's text alone does not say which column '2023' or 'SECOND QUARTER' heads; where it stands does.
        columns = names
        period_caption = period_caption or (placed[1] if not any(PERIOD_RE.search(n) for n in columns) else "")
        body = [r for r in body if page_text.count("\n", 0, r.start) not in placed[2]]
        above = [ln for ln in lines if ln.kind != "blank" and page_text.count("\n", 0, ln.start) < placed[2].start]
        header_zone = " ".join(ln.text for ln in lines if page_text.count("\n", 0, ln.start) in placed[2])
        if title and " ".join(title.split()) in " ".join(header_zone.split()):
            title = ""  # the header's own words read as a title (a header printed at a page's top)
        if above and placed[2].start < page_text.count("\n", 0, start):
            # a header of more lines than a table's label run: its title and scale are above its first line, below
            # any row of a table before it
            near = list(itertools.takewhile(lambda ln: ln.kind not in {"row", "cells"},
                                            reversed(above[-TITLE_LOOKBACK_LINES:])))[::-1]
            start = above[-1].end + 1
            scale = scale if scale != 1.0 else header_scale(" ".join(ln.text for ln in near))
            title = next((ln.text for ln in reversed(near) if not _is_meta_line(ln.text)
                          and header_scale(ln.text) == 1.0), title)
        elif not above:
            start = 0  # a header at the page's top: the table starts with it
    corner, *named_cells = [c.strip() for c in period_caption.split("|")]
    if named_cells == columns and PERIOD_RE.search(corner):
        period_caption = corner  # 'Three Months Ended June 30, 2025 | Commercial Banking | Total': the period
    for r in body if placed is not None and len(placed[3]) == len(columns) else ():
        # a row that leaves columns blank: each figure under the column it stands in
        line = _line_runs(r, page_text, runs)
        r.placed = placed_cells(line, placed[3]) if line and 0 < len(r.cells) < len(columns) else []
    if grid and placed is None:
        _place_grid_rows(group, body, page_text, grid, len(columns))
    columns = _without_notes(columns, body)
    return TableBlock(
        char_start=start,
        char_end=body[-1].end,
        title=title,
        caption=header_text,
        columns=columns,
        period_caption=period_caption,
        stub=stub,
        scale=scale,
        scale_label=_scale_label(scale, scale_text),
        rows=[
            TableRow(
                label=r.label,
                cells=list(r.cells),
                line=re.sub(r"\s+", " ", page_text[r.start:r.end]).strip(),
                columns=r.placed if len(r.placed) == len(r.cells) else [],
                char_start=r.start,
                char_end=r.end,
            )
            for r in body
        ],
    )


def _without_notes(columns: list[str], body: list[_Row]) -> list[str]:
    """The columns less a 'Note' column, and each row less the note number standing in it ('Revenue | 5 |
    2,841,560'): a reference, never a figure (a grid's fold drops the column with its cells; a PDF's layout keeps it
    until here, where its numbers stand). A row whose cells are not placed keeps them, unplaced."""
    notes = [j for j, name in enumerate(columns) if NOTE_COLUMN_RE.match(name.strip())]
    if not notes:
        return columns
    kept = [j for j in range(len(columns)) if j not in notes]
    for r in body:
        if len(r.placed) == len(r.cells):
            at = r.placed  # where the layout placed each figure ([] for a row of no cells)
        else:
            at = list(range(len(r.cells))) if len(r.cells) == len(columns) else []  # one under each column
        if at:
            r.cells = [c for c, j in zip(r.cells, at, strict=True) if j not in notes]
            r.placed = [kept.index(j) for j in at if j not in notes] if r.placed else []
    return [columns[j] for j in kept]


def _named_header(above: list[_Row], body: list[_Row], page_text: str,
                  undated: bool = False) -> tuple[_Row | None, list[str], bool]:
    """The line of a grid table's cells (HTML, Markdown: ' | ' between them) nearest above the first values
    (sub-headings and rows of figures the cell parser could not split between) that names each value column: as
    many names as the widest row has values (a first one more heads the row labels), no figure among them, a
    period in one at least ('2019 | 2018 | 2019 vs 2018 % Change', '2018 Amount | 2018 % to Net Sales'), or in
    none when the table is ``undated`` (no line above it names a period column: 'Citi | S&P 500 | S&P
    Financials' over rows labelled by their date, 'Fair Value Amount' over one column). Also its names, and
    whether its first cell heads the row labels; (None, [], False) when there is no such line."""
    widths = [len(r.cells) for r in body if r.cells]
    if not widths or max(widths) < (1 if undated else 2):
        return None, [], False
    width = max(widths)
    for row in reversed(above):
        if CELL_SEPARATOR not in page_text[row.start:row.end]:
            continue
        names = [CELL_NOTE_RE.sub("", n).strip() for n in
                 ([p.strip() for p in row.label.split(" | ")] if not row.cells else [row.label, *row.cells]) if n]
        if any(is_figure(n) and not is_year(n) for n in names[1:]):
            continue  # a row of values written so that it did not split into cells ('$— | $240.7'); years head columns
        headed = len(names) == width + 1
        names = names[1:] if headed else names
        # a span without its year ('Q1', 'First Quarter') is a period column the header's corner dates
        if len(names) == width and (undated or any(PERIOD_RE.search(n) or SPAN_CAPTION_RE.fullmatch(n) for n in names)):
            return row, names, headed
        break
    return None, [], False


def _grouped_columns(columns: list[str], header: list[_Row], body: list[_Row]) -> tuple[list[str], _Row | None]:
    """'2019 | 2018' over 'Amount | % | Amount | %': each period heads a group of named columns, so the k-th value
    of a row is under its period and its name ('2019 Amount', '2019 %'). Also the row that names the group's
    columns when it sits among the body rows (it then heads them). ``columns`` as they are otherwise."""
    widths = {len(r.cells) for r in body if r.cells}
    if not columns or len(widths) != 1:
        return columns, None
    width = widths.pop()
    if width <= len(columns) or width % len(columns):
        return columns, None
    per = width // len(columns)
    leading = list(itertools.takewhile(lambda r: not r.cells, body))
    for row in [*reversed(header), *leading]:
        names = [c.strip() for c in row.label.split(" | ")] if not row.cells else [row.label, *row.cells]
        names = [n for n in names if n]
        # a group's columns are named apart from its period ('Amount', '% of sales'): a line of periods only is a
        # header of its own ('Second Quarter 2025 Second Quarter 2024' split at its last year is no group's names)
        if (len(names) == width and all(names[i] == names[i % per] for i in range(width)) and len(set(names)) == per
                and not all(PERIOD_RE.search(n) for n in names)):
            return [f"{columns[i // per]} {names[i]}" for i in range(width)], row
    return columns, None


def _place_grid_rows(group: list[_Row], body: list[_Row], page_text: str, grid: Sequence[list[GridPlace] | None],
                     width: int) -> None:
    """Each figure of a grid table's row that leaves cells blank under the column it sits in, by the grid's
    columns of the nearest line above the body naming ``width`` value columns (its cells right of the labels)."""
    def values(row: _Row) -> list[GridPlace]:
        k = page_text.count("\n", 0, row.start)
        places = grid[k] if k < len(grid) and "\n" not in page_text[row.start:row.end].strip() else None
        return [p for p in places or () if p[0] > 0]

    header = next((found for r in reversed(group) if r.end <= body[0].start and len(found := values(r)) == width), [])
    for r in body if header else ():
        named = page_text[r.start:r.end].split(CELL_SEPARATOR)[1:] if not r.cells and values(r) else []
        if r.is_header or any(PERIOD_RE.search(name) for name in named):
            break  # a header inside the body heads the rows below it, in columns of its own
        if 0 < len(r.cells) < width and not r.placed and len(cells := values(r)) == len(r.cells):
            r.placed = grid_placed(header, cells)


def find_tables(page_text: str, runs: Sequence[list[TextRun] | None] = (),
                grid: Sequence[list[GridPlace] | None] = (), grid_tables: Sequence[int | None] = ()
                ) -> list[TableBlock]:
    """Statement-like tables in one page's text, in reading order, with spans relative to the page; ``runs``
    gives a PDF page's runs of words per line (:attr:`Page.runs`), which say which column a header word heads;
    ``grid`` a grid table's columns of each cell per line (:attr:`Page.grid`), ``grid_tables`` the grid table
    each line is a row of (:attr:`Page.grid_tables`)."""
    lines = _lines(page_text, grid, grid_tables)
    built = [(_build(group, page_text, lines, runs, grid), group) for group in _groups(_rows(lines), page_text, runs)]
    # a one-row table under a placed header is one only where the header names each of its figures' columns
    tables = [t for t, group in built if not _one_row_placed(group, page_text, runs) or _one_row_grid(group)
              or len(t.rows) == 1 and len(t.columns) == len(t.rows[0].cells)]
    out = [t if t.title else t.model_copy(update={"title": _introduction(lines, t.char_start)}) for t in tables]
    # The header's own first cell names the rows more closely than a heading above the table can.
    return [t.model_copy(update={"title": f"{t.title}: {t.stub}" if t.title else t.stub})
            if t.stub and t.stub.lower() not in t.title.lower() else t for t in out]


def _introduction(lines: list[_Line], start: int) -> str:
    """The sentence that introduces an untitled table ('the annual long-term debt maturities ... for the next
    five years are as follows :'), from the prose right above it, its lines joined where they wrap; the table's
    header may begin with the sentence's last line ('summarized as follows (in thousands):'). '' when that prose
    introduces nothing."""
    first = next((ln for ln in lines if ln.start >= start and ln.kind not in {"blank", "text", "prose"}), None)
    for end in dict.fromkeys([start, first.start if first is not None else start]):
        found = _introducing_sentence([ln for ln in lines if ln.end <= end], start)
        if found:
            return found
    return ""


def _introducing_sentence(above: list[_Line], start: int) -> str:
    """The words before 'as follows' (or the like) of the last sentence of the paragraph ending ``above``."""
    paragraph: list[_Line] = []
    while above and len(paragraph) < INTRODUCTION_MAX_LINES:
        line = above.pop()
        if line.kind == "blank":
            if paragraph and paragraph[0].start < start:
                break  # a blank line ends the paragraph above the table
            continue
        if line.kind not in {"prose", "text"} or " | " in line.text:
            break  # a header line of the table, not a line of the sentence
        paragraph.insert(0, line)
    if not any(ln.kind == "prose" or _SENTENCE_VERB_RE.search(ln.text) for ln in paragraph):
        return ""  # headings, not a sentence
    sentences = [s for s in _SENTENCE_SPLIT_RE.split(" ".join(ln.text for ln in paragraph)) if s.strip()]
    last = sentences[-1] if sentences else ""
    if not _INTRODUCES_RE.search(last):
        return ""
    words = _INTRODUCES_RE.split(last, maxsplit=1)[0].split()
    if len(words) < INTRODUCTION_MIN_WORDS:
        return ""
    return " ".join(words[:INTRODUCTION_MAX_WORDS]).strip(" ,:;")
