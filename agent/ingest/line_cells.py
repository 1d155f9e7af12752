"""The cells of a table's line of text: the trailing figures a PDF or text line prints after its label, split off
the label with their symbols ('$', ')', '%', 'pts'), and the cells a header line names periods with ('2019', '12/09',
'F19', '2018/19', '2019 53 WEEKS'). The table reader (:mod:`agent.ingest.tables`) reads lines with them."""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.finance.column_periods import is_duration_label
from agent.finance.numbers import units_only
from agent.ingest.columns import MONTH_RE
from agent.ingest.grid import NIL_CELL_RE

# A text line with this many words is prose: it ends a table (row labels are shorter).
PROSE_MIN_WORDS = 18
# The most words of a column's name in a header of years and names ('total | 2008 | 2009 - 2010 | thereafter').
COLUMN_NAME_MAX_WORDS = 4

# A figure as printed, with a footnote mark after it ('1,025,659(1)', '56*') kept in the cell.
CELL_NOTE_RE = re.compile(r"(?:\(\d{1,2}\)|\*{1,3})$")
_NUMBER_CELL_RE = re.compile(
    r"^[($]*(?:US\$|\$|€|£)?[-−–+]?[($]*(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)%?\)?%?\)?"
    rf"(?:{CELL_NOTE_RE.pattern[:-1]})?$"
)
PREFIX_TOKENS = {"$", "(", "($", "US$", "€", "£"}
SUFFIX_TOKENS = {")", "%", ")%", "%)", "pts", "bps"}  # a change in points: 'Load factor 84.5% 83.5% 1.0 pts'
_CURRENCY_PREFIX_RE = re.compile(r"^(?:US)?[$€£]")
YEAR_CELL_RE = re.compile(r"^(?:19|20)\d{2}$")
# A fiscal year heading a column the British or Australian way: 'F19', '2018/19', '2018/2019'.
_FISCAL_CELL_RE = re.compile(r"^(?:F[0-3]\d|(?:19|20)\d{2}\s?/\s?(?:(?:19|20)\d{2}|\d{2}))$")
YEAR_IN_NAME_RE = re.compile(r"\b(?:19|20)\d{2}\b")
_YEAR_RANGE_CELL_RE = re.compile(r"^(?:19|20)\d{2}\s*[-–]\s*(?:(?:19|20)\d{2}|\d{2})$")  # '2009 - 2010', '2021 -22'
MONTHS = (
    "jan", "january", "feb", "february", "mar", "march", "apr", "april", "may", "jun", "june", "jul", "july",
    "aug", "august", "sep", "sept", "september", "oct", "october", "nov", "november", "dec", "december",
)
# '12/09', '12/31/10', 'december 29 2001': a column header of dates (performance graphs), never a value.
DATE_CELL_RE = re.compile(
    rf"^(?:\d{{1,2}}/(?:\d{{1,2}}/)?(?:\d{{2}}|\d{{4}})|{MONTH_RE}\s+\d{{1,2}},?\s+(?:19|20)\d{{2}})$", re.IGNORECASE
)


def header_cells(cells: list[str]) -> list[str]:
    """A header row's cells that head value columns: a first cell stating the currency and scale ('£m | 2019 |
    2018 | Change (%)') heads the row labels."""
    return cells[1:] if cells and units_only(cells[0]) else cells


def period_cell(cell: str) -> bool:
    """A header cell naming one period: a year (with its footnote mark, or the weeks it spans), a date, a fiscal
    year the British or Australian way."""
    cell = CELL_NOTE_RE.sub("", cell)  # '2018(1)': a year heading a column, with its footnote mark
    year, _, weeks = cell.partition(" ")  # '2019 53 WEEKS': a year with the weeks or months it spans
    count, _, unit = weeks.partition(" ")
    if YEAR_CELL_RE.match(year) and count.isdigit() and is_duration_label(unit) and " " not in unit:
        return True
    return bool(YEAR_CELL_RE.match(cell) or DATE_CELL_RE.match(cell) or _FISCAL_CELL_RE.match(cell))


def names_periods(cells: Sequence[str]) -> bool:
    """A header of period columns among named ones, as maturity schedules have: 'total | 2008 | 2009 - 2010 |
    thereafter'. Two periods at least; every other cell a short name with no figure but a year."""
    periods = sum(period_cell(c) for c in cells)
    spans = sum(_YEAR_RANGE_CELL_RE.match(c) is not None for c in cells)
    return periods >= 1 and periods + spans >= 2 and periods < len(cells) and all(
        period_cell(c) or (
            re.search(r"[A-Za-z]{3}", c) is not None and len(c.split()) <= COLUMN_NAME_MAX_WORDS
            and not re.search(r"\d", YEAR_IN_NAME_RE.sub("", c))
        )
        or _YEAR_RANGE_CELL_RE.match(c) is not None
        for c in cells
    )


def _is_cell_token(token: str) -> bool:
    return bool(
        _NUMBER_CELL_RE.match(token) or NIL_CELL_RE.match(_CURRENCY_PREFIX_RE.sub("", token))  # '$—', '$-'
        or token in PREFIX_TOKENS or token in SUFFIX_TOKENS
    )


def _merge_tokens(tokens: list[str]) -> list[str]:
    """Join symbol tokens to their number: ['$', '5,363'] -> ['$5,363'], ['(17', ')'] -> ['(17)']."""
    cells: list[str] = []
    prefix = ""
    for tok in tokens:
        if tok in PREFIX_TOKENS:
            prefix += tok
        elif tok in SUFFIX_TOKENS and cells and not prefix:
            cells[-1] += f" {tok}" if tok.isalpha() else tok
        else:
            cells.append(prefix + tok)
            prefix = ""
    if prefix:
        cells.append(prefix)
    return cells


def _balanced(cell: str) -> bool:
    # '$—' (a '$' token merged with its dash) is a nil cell as much as '—'
    return cell.count("(") == cell.count(")") and any(ch.isdigit() for ch in cell) or bool(
        NIL_CELL_RE.match(_CURRENCY_PREFIX_RE.sub("", cell))
    )


# A single trailing number after these words is part of a phrase ("Page 13 of 15"), not a value cell.
_PHRASE_END_WORDS = {"of", "to", "in", "by", "and", "the", "from", "than", "at", "on", "for", "with", "per", "page"}


def _year_belongs_to_label(label: str) -> bool:
    """'due 2026', 'December 31, 2018', 'fiscal 2022': a year after these words is part of the label."""
    last = label.split(" ")[-1] if label else ""
    if not last:
        return False
    return last[0].islower() or last.endswith(",") or last.lower().rstrip(".,") in MONTHS or last.upper() in {
        "FY", "Q1", "Q2", "Q3", "Q4"
    }


def split_cells(text: str) -> tuple[str, list[str]]:
    """Split a line into its label and trailing value cells; cells are empty when the line has none."""
    tokens = text.split(" ")
    k = len(tokens)
    while k > 0 and _is_cell_token(tokens[k - 1]):
        k -= 1
    label = " ".join(tokens[:k])
    cells = _merge_tokens(tokens[k:])
    # Give back to the label what is not a value: unbalanced '(Note 4)' pieces, a year that ends a phrase.
    while cells and not _balanced(cells[0]):
        label = f"{label} {cells.pop(0)}".strip()
    # 'December 31, 2017 2016' is a header of two year columns, not a date label with one value.
    period_header = len(cells) >= 2 and all(YEAR_CELL_RE.match(c) for c in cells)
    while (
        cells and YEAR_CELL_RE.match(cells[0]) and _year_belongs_to_label(label) and len(cells) <= 2
        and not period_header
    ):
        label = f"{label} {cells.pop(0)}".strip()
    last_word = label.split(" ")[-1].lower().rstrip(".") if label else ""
    if cells and last_word in MONTHS and re.fullmatch(r"\d{1,2},?", cells[0]):
        # 'Years ended December 31': the day of a date, not a value.
        label = f"{label} {cells.pop(0)}"
    if cells and label and len(cells) == 1 and (
        len(label.split()) >= PROSE_MIN_WORDS or label.split(" ")[-1].lower() in _PHRASE_END_WORDS
    ):
        return text, []
    return label, cells
