"""A table's typed record, built once at ingest: its columns as periods (end date, duration, fiscal label), its
rows with the sub-heading they sit under and whether they total, the block period of rows under a period line,
its kind (primary statement, segment table, per-share table, note, MD&A schedule) and where it sits.

The reader and the gate read these fields instead of rebuilding them from a chunk's linearised text; the text
stays for search and quotes. The rules for sub-headings and totals live here, once: the reader reads evidence
that has no record (a memory note, a tool's table) with the same functions.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from agent.finance.column_periods import (
    column_periods,
    is_duration_label,
    is_span_label,
    names_several_periods,
    single_period,
)
from agent.finance.fiscal_calendar import period_close
from agent.finance.lexicon import find_metrics, names_count
from agent.finance.numbers import (
    MONEY_UNITS,
    decimals_of,
    find_numbers,
    header_scale,
    is_year,
    stated_currency,
    stated_measure,
    units_only,
)
from agent.finance.periods import (
    find_periods,
    names_to_date,
    normalise_period,
    parse_date,
    to_date,
    without_periods,
)
from agent.ingest.figures import subunit, typed_row
from agent.ingest.linearise import labelled_columns
from agent.ingest.row_roles import row_roles
from agent.ingest.tables import TableBlock, TableRow
from agent.schemas import (
    ColumnKind,
    LineBox,
    Section,
    TableCell,
    TableColumn,
    TableKind,
    TableLine,
    TableRecord,
)

SUBHEADING_MAX_WORDS = 6  # a table's sub-heading line ('Operating Profit/(Loss)'); longer lines are prose
# One step of indentation, as a share of the page's width: 0.006 is 3.7 pt on a letter page, above the jitter of
# one column's labels (3M's 'Net sales' at 0.092, 'Operating income' at 0.093) and below a typeset indent (~10 pt).
INDENT_STEP = 0.006
MAX_INDENT_LEVELS = 4  # more distinct indentations than this are centred or ragged labels, not an outline
_WORD_RE = re.compile(r"[a-z]+")
_CONNECTIVES = frozenset({"and", "of", "the", "for", "in", "to", "from"})  # 'Total cost of revenue' names cost, revenue
TOTAL_ROW_RE = re.compile(r"^\s*total\b", re.IGNORECASE)  # a row label that sums the rows above it
_PERIOD_HEADING_RE = re.compile(r"\b(?:years?|months?|weeks?|quarters?|periods?)\s+ended\b|\bas\s+(?:of|at)\b", re.I)
_POINT_CAPTION_RE = re.compile(r"^\s*(?:as\s+(?:of|at)|at)\b", re.IGNORECASE)
CHANGE_LABEL_RE = re.compile(r"\bchange\b|\bvariance\b|\bvs\.?\b|\bversus\b|\bincrease\b|\bdecrease\b|^%", re.I)
# A footnote mark printed after a value ('1,234 (1)', '56*'): never a second figure of the cell.
PERCENT_LABEL_RE = re.compile(r"%|\bper\s*cent\b|\bpercent(?:age)?\b", re.IGNORECASE)  # 'Change (%)', '% of sales'
_NOTE_MARK_RE = re.compile(r"\(\s*(?:\d{1,2}(?:\s*,\s*\d{1,2})*|[a-z])\s*\)|\*+")  # '(1)', '(1,2)', '(a)', '*'
_SUB_PERIOD_MONTHS = {"Q": 3, "H": 6, "M": 9}
_YEAR_RE = re.compile(r"\b(?:19|20)\d{2}\b")

# A primary statement by its title or section path, then (for a table whose title was lost) by rows only it has.
STATEMENT_TITLES: dict[str, re.Pattern[str]] = {
    "balance": re.compile(r"balance\s+sheets?|financial\s+position|financial\s+condition\b(?!.*discussion)", re.I),
    "cashflow": re.compile(r"cash\s+flows?\b", re.I),
    "income": re.compile(
        r"statements?\s+of\s+(?:consolidated\s+)?(?:operations|income|earnings)|income\s+statements?"
        r"|statements?\s+of\s+comprehensive\s+income|profit\s+and\s+loss",
        re.I,
    ),
}
STATEMENT_ROWS: dict[str, re.Pattern[str]] = {
    "cashflow": re.compile(
        r"^.*(?:net\s+cash\s+(?:provided|used|from)|operating\s+activities|investing\s+activities).*\|", re.I | re.M
    ),
    "balance": re.compile(
        r"^\s*total\s+(?:assets|liabilities|current\s+assets|current\s+liabilities)\b.*\|", re.I | re.M
    ),
    "income": re.compile(
        r"^\s*(?:gross\s+profit|operating\s+income|income\s+before\s+income\s+taxes|"
        r"(?:diluted\s+)?earnings\s+per\s+share)\b.*\|",
        re.I | re.M,
    ),
}
MDNA_RE = re.compile(r"management.s\s+discussion|item\s+7\b|md&a|results\s+of\s+operations|overview", re.I)
_PER_SHARE_TITLE_RE = re.compile(r"\bper\s+(?:common\s+)?share\b|\bearnings\s+per\b", re.IGNORECASE)


def same_label(a: str, b: str) -> bool:
    """Two labels that say the same words ('Other intangible assets' and 'Other intangible assets:')."""
    return a.lower().strip(" :") == b.lower().strip(" :")


def names_period(text: str) -> bool:
    """A line that names a period or heads period columns ('December 31, 2019', 'For the Years Ended')."""
    return bool(find_periods(text)) or bool(_PERIOD_HEADING_RE.search(text))


def sub_heading(piece: str, after_rows: bool) -> str:
    """The sub-heading a label-only line of a table sets for the rows below it, or ''. Above a table's first row
    only a line ending in ':' is one ('Revenue:'); the lines there are its section path and title otherwise. A
    period line ('For the Years Ended December 31,') heads columns and a scale line ('(in thousands)') states
    units: neither is a sub-heading."""
    line = piece.strip().splitlines()[-1].strip() if piece.strip() else ""
    if not line or names_period(line) or header_scale(line) != 1.0 or line.startswith("(") or units_only(line):
        return ""
    if not after_rows and not line.endswith(":"):
        return ""
    return line.rstrip(":").strip()


def statement_of(*texts: str, rows: str = "") -> str:
    """'balance' | 'cashflow' | 'income' | '': the primary statement the texts (section path, title) name, else
    the one whose rows only it prints (``rows``: linearised rows)."""
    for text in texts:
        for kind, rx in STATEMENT_TITLES.items():
            if rx.search(text):
                return kind
    if "|" in rows:
        for kind, rx in STATEMENT_ROWS.items():
            if rx.search(rows):
                return kind
    return ""


# -------------------------------------------------------------------------------------------------------
# Columns
# -------------------------------------------------------------------------------------------------------
def _months(period: str, label: str, caption: str) -> int:
    """A column's duration in months: 3, 6 or 9 for a quarter, half or nine months, 12 for a year, 0 for a
    point in time ('December 31, 2019' under 'As of', or a bare date with no duration words)."""
    if not period:
        return 0
    sub = period[6:7]
    if sub in _SUB_PERIOD_MONTHS:
        return _SUB_PERIOD_MONTHS[sub]
    if is_duration_label(label) or is_duration_label(caption) or re.search(r"\byears?\s+ended\b", caption, re.I):
        return 12
    if _POINT_CAPTION_RE.search(caption) or parse_date(label) is not None:
        return 0
    return 12


def _column_kind(label: str, period: str) -> ColumnKind:
    if is_span_label(label):
        return "span"
    if CHANGE_LABEL_RE.search(label):
        return "change"
    return "period" if period else "name"


def _period_text(label: str) -> str:
    """A column's name as its period is read from: a '%' after a year is the column's unit ('2019 % of
    total'), not the year's; a name of two periods or more ('2019 and 2018', '% Change 2019 vs 2018') is none
    of them."""
    if names_several_periods(label):
        return ""
    return label.replace("%", " percent")


def _year_to_date(label: str, fy_end_month: int, filing_period: str) -> str:
    """A 'Year to Date 2023' column of a quarter's filing: the fiscal year's months to the quarter's end, read in
    the filing's own period ('FY2023H1' in a second quarter's release, 'FY2023' in a fourth's); '' when the
    filing reports no quarter or the name prints no one year."""
    years = _YEAR_RE.findall(label)
    if len(years) != 1 or not names_to_date(label) or not re.search(r"Q[1-4]$", filing_period):
        return ""
    year = column_periods([years[0]], fy_end_month)[0]
    quarter = filing_period[-2:]
    # the filing's quarter, in the column's year: a prior year's column is to the same quarter's end
    return to_date(year, f"{year}{quarter}") if year else ""


def _quarter_ends(labels: Sequence[str], fy_end_month: int, filing_period: str) -> list[str]:
    """In a quarter's filing of a filer whose year ends in a known month, dates of one other month in different
    years ('July 29, 2023 | July 30, 2022' in a February filer's second quarter) are the quarter's end and the prior
    year's, not year ends; their fiscal quarters. Empty otherwise (see :func:`column_periods`)."""
    dates = [parse_date(label) if label and not is_duration_label(label) else None for label in labels]
    points = [d for d in dates if d is not None]
    if not re.search(r"Q[1-4]$", filing_period) or not 1 <= fy_end_month <= 24 or len(points) < 2:
        return []
    months = {period_close(d)[1] for d in points}
    if len(months) != 1 or months.pop() == (fy_end_month - 1) % 12 + 1:
        return []
    return [normalise_period(label, fy_end_month) if d is not None else "" for label, d in zip(labels, dates,
                                                                                                strict=True)]


def typed_columns(table: TableBlock, fy_end_month: int, filing_period: str = "") -> list[TableColumn]:
    """The table's value columns, each with its kind and, for a period, its fiscal label, end date and months
    (a 'Year to Date' column's from ``filing_period``, the quarter the filing reports). A change or span column
    is no period's value, whatever years its name prints."""
    texts = [_period_text(label) for label in table.columns]
    # a year to date is never its whole year ('YTD 2025' of a second quarter's release is the half): read in the
    # filing's quarter, or of no period the filing says
    periods = [_year_to_date(label, fy_end_month, filing_period) if names_to_date(label) else period
               for label, period in zip(table.columns, _quarter_ends(texts, fy_end_month, filing_period)
                                        or column_periods(texts, fy_end_month), strict=True)]
    caption = table.period_caption
    columns: list[TableColumn] = []
    for label, period in zip(table.columns, periods, strict=True):
        kind = _column_kind(label, period)
        columns.append(TableColumn(
            label=label,
            kind=kind,
            period="" if kind in {"change", "span"} else period,
            end_date=parse_date(label),
            months=_months(period, label, caption),
            unit="%" if PERCENT_LABEL_RE.search(label) else "",
        ))
    return _with_parts(columns)


def _with_parts(columns: list[TableColumn]) -> list[TableColumn]:
    """Period columns of one period and unit that name something more ('Q1 2025 U.S. | Q1 2025 Ex-U.S. | Q1 2025
    Total'): each names a part of that period's figure, what its label prints beside the period."""
    by_period: dict[tuple[str, str], list[int]] = {}
    for i, column in enumerate(columns):
        if column.kind == "period":
            by_period.setdefault((column.period, column.unit), []).append(i)
    for group in by_period.values():
        parts = [without_periods(columns[i].label).strip(" ,:-") for i in group]
        if len(group) >= 2 and all(parts) and len(set(parts)) == len(parts):
            for i, part in zip(group, parts, strict=True):
                columns[i] = columns[i].model_copy(update={"part": part})
    return columns


# -------------------------------------------------------------------------------------------------------
# Rows
# -------------------------------------------------------------------------------------------------------
def _cell(text: str, column: int) -> TableCell:
    numbers = find_numbers(text, include_years=True)
    notes = [m.group(0) for m in _NOTE_MARK_RE.finditer(text) if numbers and m.start() >= numbers[0].end]
    return TableCell(text=text, column=column, notes=notes)


ROUNDING = 0.5  # a printed figure is within half its last printed digit of the figure it rounds
MIN_TOTALLED_ROWS = 2  # a block's unlabelled line totals two rows or more (one row under a heading is its figure)


class _Outline:
    """The sub-heading a table's next row sits under: the last one, until a total (or a row repeating it) closes
    its block. Where the filing says how far each label is indented (a PDF's layout, an HTML table's CSS), that says
    more: a sub-heading holds the rows printed at its own indentation or further right, a row printed further left
    leaves its block, and so does a row back at its indentation once its block was indented ('Operating expenses'
    / '  Cost of sales' / 'Operating income').
    A row of figures is never a parent by indentation: rows indented under one are a bridge as often as parts."""

    def __init__(self, indents: Sequence[float | None]) -> None:
        placed = [x for x in indents if x is not None]
        # Indentation is read only when every row is placed and the labels sit at a few clear steps.
        self.indented = len(placed) == len(indents) and 2 <= len(_levels(placed)) <= MAX_INDENT_LEVELS
        self.indents = indents
        self.open: list[tuple[float, str, bool]] = []  # (indent, sub-heading, rows indented under it), outermost first
        self.heading = ""

    def parent(self, k: int, total: bool = False) -> str:
        """The sub-heading the ``k``-th row sits under (a ``total`` back at a sub-heading's level totals it)."""
        if not self.indented:
            return self.heading
        x = self.indents[k] or 0.0
        kept: list[tuple[float, str, bool]] = []
        for at, label, deeper in self.open:
            if x < at - INDENT_STEP or abs(x - at) < INDENT_STEP and deeper:
                if total and x >= at - INDENT_STEP:
                    kept.append((at, label, deeper))  # 'Equities' / '  ...' / 'Total Equities'
                break  # the row is out of this block, and so out of every block inside it
            kept.append((at, label, deeper or x >= at + INDENT_STEP))
        self.open = kept
        return kept[-1][1] if kept else ""

    def add(self, k: int, label: str) -> None:
        """The ``k``-th row is a sub-heading (``label`` '' when it heads nothing: a units line, a sentence)."""
        self.heading = label
        if self.indented:
            x = self.indents[k] or 0.0
            self.open = [o for o in self.open if o[0] < x - INDENT_STEP]  # it follows one at its own level
            if label:
                self.open.append((x, label, False))

    def close(self, parent: str) -> None:
        """A total closes the block of ``parent``: the rows after it are no parts of it."""
        self.heading = ""
        at = next((i for i, o in enumerate(self.open) if o[1] == parent), len(self.open))
        self.open = self.open[:at]


def _levels(indents: Sequence[float]) -> list[float]:
    """The distinct indentations of a table's labels, those within one step of each other taken as one."""
    levels: list[float] = []
    for x in sorted(indents):
        if not levels or x - levels[-1] >= INDENT_STEP:
            levels.append(x)
    return levels


def _lines(table: TableBlock, offset: int, fy_end_month: int, block: str, named: bool,
           boxes: Sequence[LineBox | None] = (), indents: Sequence[float | None] = ()) -> list[TableLine]:
    """The body rows typed: cells under their columns, each row's sub-heading (closed by a total or a row repeating
    it; on a PDF also by indentation, see :class:`_Outline`), and the period of a block of rows under a period line
    when the columns are ``named``. ``boxes`` gives where each row's first line is printed (a PDF's), else None;
    ``indents`` how far each row's label is indented (a PDF's or an HTML table's), else None."""
    boxes = list(boxes) if len(boxes) == len(table.rows) else [None] * len(table.rows)
    outline = _Outline(list(indents) if len(indents) == len(table.rows) else [None] * len(table.rows))
    if table.continues_under:  # a table continued from the page before: its first rows are under the open heading
        outline.heading = sub_heading(table.continues_under, after_rows=True)
        if outline.indented:
            outline.open = [(min(x for x in outline.indents if x is not None), outline.heading, False)]
    out: list[TableLine] = []
    under: dict[str, int] = {}  # rows of figures under each open sub-heading
    for k, (row, box) in enumerate(zip(table.rows, boxes, strict=True)):
        if _footnote_only(row, len(table.columns)):
            # 'Weighted average number of shares used in earnings per share (shares, millions) (1)': the footnote
            # mark the text split off its label is no figure
            row = row.model_copy(update={"label": f"{row.label} {row.cells[0]}".strip(), "cells": []})
        label = row.label
        if not row.cells and " | " in label and find_numbers(label.split(" | ", 1)[1]):
            # a row of figures the cell parser could not split
            out.append(_line(row, offset, box, parent=outline.parent(k)))
            continue
        if not row.cells:
            head = label.split(" | ", 1)[0]  # 'Deferred tax assets | S$ Mil | S$ Mil': units printed per column
            # a long line stating what its rows count or their unit heads them too: numbers of shares ('Weighted
            # average number of shares used in earnings per share'), amounts in cents ('... (cents per share)')
            short = ((len(head.split()) <= SUBHEADING_MAX_WORDS or names_count(head) or subunit(head))
                     and not find_numbers(_NOTE_MARK_RE.sub(" ", head)))
            outline.parent(k)
            outline.add(k, sub_heading(head, after_rows=True) if short else "")
            if named:
                block = single_period(label, fy_end_month, alone=True) or block  # 'As at 31 December 2018'
            out.append(_line(row, offset, box, heading=True))
            continue
        parent = outline.parent(k, total=bool(TOTAL_ROW_RE.match(label)))
        if not label.strip() and under.get(parent, 0) >= MIN_TOTALLED_ROWS and find_metrics(f"Total {parent}"):
            # a line of figures with no label after the rows of a block is the total of the metric its sub-heading
            # names ('Revenues' / 'Casino' / 'Rooms' / ... / '3,942,207': total revenues), as a statement prints it;
            # a heading whose total names no metric ('Amounts falling due within one year') leaves the line unnamed
            label = f"Total {parent}"
        under[parent] = under.get(parent, 0) + 1
        # A row repeating its sub-heading totals its block (indented back to the heading's level, it is not under it).
        repeats = any(p and same_label(label, p) for p in (parent, outline.heading))
        period = block if block and not single_period(label, fy_end_month, alone=True) else ""
        total = bool(TOTAL_ROW_RE.match(label)) or repeats
        # A total closes its block; it is of that block only when it names nothing wider ('Total liabilities' after
        # a 'Current liabilities:' block is no current liability).
        own = "" if repeats or total and not _totals_block(label, parent) else parent
        out.append(_line(row, offset, box, parent=own, total=total, period=period,
                         columns=labelled_columns(table, row), label=label))
        if total:
            outline.close(parent)
    return out


def _footnote_only(row: TableRow, width: int) -> bool:
    """A row of a table of several columns whose one cell is a footnote mark of single digits or a letter ('(1)',
    '(1,2)', '(a)'): the mark of its label, split off as a cell. '(45)' is a negative figure."""
    if len(row.cells) != 1 or width < 2:
        return False
    mark = row.cells[0].strip()
    return bool(_NOTE_MARK_RE.fullmatch(mark)) and all(len(d) == 1 for d in re.findall(r"\d+", mark))


def _totals_block(label: str, heading: str) -> bool:
    """Whether a total row is the total of the block under ``heading``: it names no other thing ('Total') or names
    every word of the heading ('Total current liabilities' under 'Current liabilities'), not a wider whole."""
    own = _words(label) - {"total"}
    return not own or _words(heading) <= own


def _words(text: str) -> set[str]:
    """A label's words, crudely singular ('liabilities' and 'liability' differ; 'expenses' is 'expense')."""
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in _WORD_RE.findall(text.lower())} - _CONNECTIVES


def _line(row: TableRow, offset: int, box: LineBox | None, *, parent: str = "", total: bool = False,
          heading: bool = False, period: str = "", columns: Sequence[int] = (), label: str = "") -> TableLine:
    return TableLine(
        label=label or row.label,
        parent=parent,
        total=total,
        heading=heading,
        period=period,
        cells=[_cell(text, k) for text, k in zip(row.cells, columns, strict=True)],
        char_start=offset + row.char_start,
        char_end=offset + row.char_end,
        box=box.rounded() if box is not None else [],
    )


# -------------------------------------------------------------------------------------------------------
# The record
# -------------------------------------------------------------------------------------------------------
def table_currency(table: TableBlock) -> str:
    """The currency the table's figures are in: the one its header states ('(RMB in millions)', 'HK$'000', '$'),
    else the one most of its figures are written in; '' for none (a row label naming a currency says nothing of
    the figures)."""
    pieces = [table.scale_label, table.stub, *table.caption.split("|"), *(r.label for r in table.rows if not r.cells)]
    stated = stated_currency(" | ".join(pieces))
    if stated:
        return stated
    written = Counter(n.unit for r in table.rows for c in r.cells for n in find_numbers(c) if n.unit in MONEY_UNITS)
    return written.most_common(1)[0][0] if written else ""


def _kind(section: Section, statement: str, title: str, part: str) -> TableKind:
    if part:
        return "segment"
    if _PER_SHARE_TITLE_RE.search(title):
        return "per_share"
    if section.kind == "statement" or statement and section.kind not in {"note", "mdna"}:
        return "statement"
    if section.kind == "note":
        return "note"
    if section.kind == "mdna" or MDNA_RE.search(" > ".join([section.title, *section.path])):
        return "mdna"
    return "schedule"


def _bare_year(cell: TableCell) -> bool:
    """A cell that starts with a year printed bare ('2039', '2027 or indefinite')."""
    return bool(cell.figures) and is_year(cell.figures[0].text)


def _years_as_years(rows: list[TableLine], columns: Sequence[TableColumn]) -> list[TableLine]:
    """A named column whose every figure is a year printed bare ('Last Fiscal Year of Expiration | 2039',
    'Maturity | 2029') holds years, not amounts: neither the table's scale nor its currency is theirs."""
    filled = [c for r in rows for c in r.cells if c.figures and 0 <= c.column < len(columns)]
    named = Counter(c.column for c in filled if columns[c.column].kind == "name")
    # two years at least: one bare '2014' under 'Amount' may be an amount written without its comma
    years = {j for j, n in named.items() if n >= 2 and all(_bare_year(c) for c in filled if c.column == j)}
    if not years:
        return rows
    plain = {"unit": "", "scale": 1.0}
    return [r.model_copy(update={"cells": [c.model_copy(update={"figures": [f.model_copy(update=plain)
                                                                           for f in c.figures]})
                                           if c.column in years else c for c in r.cells]}) for r in rows]


def _sums_to(parts: Sequence[TableLine], total: TableLine, columns: Sequence[TableColumn]) -> bool:
    """The figures of ``parts`` add up to ``total``'s in every period column where the total prints one (to the
    rounding of the printed figures), and in one column at least."""
    checked = 0
    for cell in total.cells:
        if not (0 <= cell.column < len(columns) and columns[cell.column].period and len(cell.figures) == 1):
            continue
        figures = [c.figures[0] for r in parts for c in r.cells if c.column == cell.column and len(c.figures) == 1]
        if len(figures) != len(parts) or any(f.unit == "%" for f in (*figures, cell.figures[0])):
            return False
        places = max(decimals_of(f.text) for f in (*figures, cell.figures[0]))
        if abs(sum(f.value for f in figures) - cell.figures[0].value) > len(parts) * ROUNDING * 10.0 ** -places:
            return False
        checked += 1
    return checked > 0


def summed_parents(rows: list[TableLine], columns: Sequence[TableColumn]) -> list[TableLine]:
    """Rows printed under no sub-heading right above a 'Total <X>' row whose figures they add up to are parts of
    X: 'Residential' / 'Commercial' / 'Industrial' over 'Total electric operating revenues' are electric operating
    revenues by class. The sum is checked, so a bridge ('Net income' / 'Less: ...') or a list of unrelated lines
    stays as printed."""
    out = list(rows)
    for i, row in enumerate(rows):
        whole = TOTAL_ROW_RE.sub("", row.label).strip(" :")
        if not (row.total and TOTAL_ROW_RE.match(row.label) and not row.parent and find_metrics(whole)):
            continue
        k = i
        while k > 0 and rows[k - 1].cells and not (rows[k - 1].total or rows[k - 1].heading or rows[k - 1].parent):
            k -= 1
        block = rows[k:i]
        if len(block) >= MIN_TOTALLED_ROWS and _sums_to(block, row, columns):
            name = whole[:1].upper() + whole[1:]
            out[k:i] = [r.model_copy(update={"parent": name}) for r in block]
    return out


def _measured(row: TableLine, measure: str) -> TableLine:
    """``row`` with its plain figures in the table's unit of ``measure`` (none: unchanged)."""
    if not measure:
        return row
    cells = [c.model_copy(update={"figures": [f.model_copy(update={"unit": measure}) if not f.unit else f
                                              for f in c.figures]}) for c in row.cells]
    return row.model_copy(update={"cells": cells})


def table_record(
    table: TableBlock, *, table_id: str, page: int, offset: int, section: Section, part: str = "",
    other_parts: Sequence[str] = (),
    fy_end_month: int = 0, box: LineBox | None = None, row_boxes: Sequence[LineBox | None] = (),
    row_indents: Sequence[float | None] = (), filing_period: str = "", filing_currency: str = "",
) -> TableRecord:
    """The typed record of a table found at ``offset`` (its page's start) in the document text; ``box`` is where
    it is printed on its page, ``row_boxes`` where each of its rows starts (PDF filings; else none) and
    ``row_indents`` how far each row's label is indented (PDF and HTML filings); ``filing_period`` is the period
    the filing reports (a 'Year to Date' column's span is read from it); ``filing_currency`` the one most of the
    filing's tables state, which a table stating none is in."""
    columns = typed_columns(table, fy_end_month, filing_period)
    header = " | ".join(p for p in (table.title, table.period_caption) if p)
    # Rows of a table whose columns are names are of the one period their header names ('As at 31 December 2019').
    block = "" if any(c.period for c in columns) else single_period(header, fy_end_month)
    rows = _lines(table, offset, fy_end_month, block, named=not any(c.period for c in columns), boxes=row_boxes,
                  indents=row_indents)
    body = "\n".join(" | ".join([r.label, *(c.text for c in r.cells)]) for r in rows if r.cells)
    # A scale printed among the rows ('(RMB in millions, unless specified)' under the column header) is the table's.
    scale = table.scale if table.scale != 1.0 else header_scale(
        " ".join([table.title, table.caption, *(r.label for r in table.rows if not r.cells)]))
    statement = statement_of(" > ".join(section.path), table.title, rows=body)
    # a table in a unit of measure ('Retail electric sales (GWh)') counts it: its plain figures are no money
    measure = stated_measure(" ".join([table.title, table.caption]))
    currency = "" if measure else table_currency(table) or filing_currency
    rows = _years_as_years([_measured(typed_row(r, columns, scale, currency), measure) for r in rows], columns)
    rows = row_roles(summed_parents(rows, columns), table.title, section.path)
    return TableRecord(
        table_id=table_id,
        page=page,
        box=box.rounded() if box is not None else [],
        title=table.title,
        section_path=list(section.path),
        kind=_kind(section, statement, table.title, part),
        statement=statement,
        part=part,
        other_parts=list(other_parts) if part else [],
        period_caption=table.period_caption,
        scale=scale,
        scale_label=table.scale_label,
        currency=currency,
        columns=columns,
        rows=rows,
        n_rows=len(rows),
        char_start=offset + table.char_start,
        char_end=offset + table.char_end,
    )
