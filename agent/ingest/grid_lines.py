"""A grid table's rows written as lines of text (HTML, Markdown): its cells joined with
:data:`~agent.ingest.grid.CELL_SEPARATOR`, the '$', ')' and '%' cells EDGAR splits off a figure joined to it again,
a caption every header cell starts with split off as a line of its own; and each line led by a mark of the columns
of the grid its cells span, which the text loses when it drops the empty cells. Parsing reads the marks into
:attr:`agent.schemas.Page.grid` and removes them before anything else reads the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agent.ingest.grid import CELL_SEPARATOR, PREFIX_CELLS, SUFFIX_CELLS, GridPlace

PlacedCell = tuple[str, int, int]  # a grid table cell's text and the columns it spans (first, one past the last)
SPANNING_CAPTION_MIN_WORDS = 2  # 'year ended' is a caption; one shared word ('total') may be a column's own
SPANNING_CAPTION_MAX_WORDS = 12  # a longer shared run is a sentence-like title: split off, it would read as prose
_DATE_PART_RE = re.compile(r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?|\d{1,2}|[,.]", re.IGNORECASE)
_PERIOD_WORD_RE = re.compile(r"fiscal|years?|fy|ended|ending|as|of|at", re.IGNORECASE)
# A caption ending in a word that needs the next one ('for the' of 'for the years ended ...') says nothing alone.
_OPEN_WORD_RE = re.compile(r"the|a|an|for|of|by|in|on|at|as|to|and|or|from", re.IGNORECASE)
_SPAN_UNIT_RE = re.compile(r"weeks?|months?|quarters?|years?", re.IGNORECASE)
_FOOTNOTE_MARK_RE = re.compile(r"\(\s*(?:\d{1,2}|[a-z])\s*\)")
# A grid table's line (HTML, Markdown) starts with '⟪4:1-2,3-5⟫': the table it is a row of (a number no other grid
# table of its page has, so two tables printed one after the other stay two) and the columns of its grid each cell written spans
# (empty cells are not written).
GRID_OPEN, GRID_SHUT = "\u27ea", "\u27eb"
GRID_MARK_RE = re.compile(f"^{GRID_OPEN}([0-9]+):([0-9,-]*){GRID_SHUT}", re.MULTILINE)


def spanned_cells(row: list[tuple[str, int]]) -> Iterator[PlacedCell]:
    """An HTML row's cells written (those with text), each with the columns its colspan covers."""
    at = 0
    for text, span in row:
        if text:
            yield text, at, at + max(span, 1)
        at += max(span, 1)


def grid_lines(rows: list[list[str]], header: int | None) -> list[list[PlacedCell]]:
    """A grid table's rows as lines of cells, empty cells dropped, each cell with its column; the ``header``
    row's caption shared by every cell split off as a line of its own (see :func:`spanning_caption`)."""
    out: list[list[PlacedCell]] = []
    for i, row in enumerate(rows):
        cells = [(c, j, j + 1) for j, c in enumerate(row) if c]
        caption, names = spanning_caption([c for c, _, _ in cells]) if i == header else ("", [])
        if names:
            cells = [(name, a, b) for name, (_, a, b) in zip(names, cells, strict=True)]
        line = merged_symbol_cells(cells)
        out.extend([[(caption, 0, len(row))], line] if caption else [line])
    return out


def merged_symbol_cells(cells: list[PlacedCell]) -> list[PlacedCell]:
    """Rejoin '$', '(' and ')' or '%' cells that EDGAR tables split off their number; the cell keeps the
    number's columns."""
    out: list[PlacedCell] = []
    prefix = ""
    for text, a, b in cells:
        if text in PREFIX_CELLS:
            prefix += text
            continue
        if text in SUFFIX_CELLS and out:
            out[-1] = (out[-1][0] + text, *out[-1][1:])
            continue
        out.append((prefix + text, a, b))
        prefix = ""
    if prefix and cells:
        out.append((prefix, *cells[-1][1:]))
    return out


def cell_texts(cells: list[PlacedCell]) -> list[str]:
    """The cells' texts, in order."""
    return [text for text, _, _ in cells]


def marked_line(cells: list[PlacedCell], table: int) -> str:
    """A grid line's cells joined, led by the mark of its ``table`` (a number no other grid table of its page has) and
    of the columns each cell spans, when there are several cells."""
    line = CELL_SEPARATOR.join(cell_texts(cells))
    if len(cells) < 2 or not line:
        return line
    return f"{GRID_OPEN}{table}:{','.join(f'{a}-{b}' for _, a, b in cells)}{GRID_SHUT}{line}"


def grid_places(mark: str) -> list[GridPlace]:
    """The columns each cell spans, read back from a line's mark ('1-2,3-5')."""
    return [(int(a), int(b)) for a, _, b in (cell.partition("-") for cell in mark.split(",") if cell)]


def spanning_caption(cells: list[str]) -> tuple[str, list[str]]:
    """A header row whose cells all start with the same words ('payments due by period total | payments due by
    period 2007 | ...') is a spanning header flattened into each column: its caption once, then the columns'
    own names ('total | 2007 | ...'), so the period columns read as periods."""
    # '( 1 )' in a header cell refers to a note: no figure, and no part of the column's name.
    words = [_FOOTNOTE_MARK_RE.sub(" ", c).split() for c in cells]
    if len(words) < 2 or not all(words):
        return "", cells
    n = 0
    while all(len(w) > n + 1 and w[n] == words[0][n] for w in words):
        n += 1
    bare = all(len(w) == n + 1 for w in words)  # each column is the shared words and one more ('2012')
    # A date is never cut ('dec . | 31 2014'); 'as of', 'fiscal year' stay with a bare year ('fiscal year | 2018')
    # but head named columns ('payments due by fiscal year | total | 2020').
    while n and (_DATE_PART_RE.fullmatch(words[0][n - 1]) or (bare and _PERIOD_WORD_RE.fullmatch(words[0][n - 1]))):
        n -= 1
    if (not SPANNING_CAPTION_MIN_WORDS <= n <= SPANNING_CAPTION_MAX_WORDS or _OPEN_WORD_RE.fullmatch(words[0][n - 1])
            or (_SPAN_UNIT_RE.fullmatch(words[0][n - 1]) and words[0][n].lower() in ("ended", "ending"))):
        # a duration is never cut from its end ('12 Weeks | Ended 3/25/2023' would date a year-long column)
        return "", [" ".join(w) for w in words]
    return " ".join(words[0][:n]), [" ".join(w[n:]) for w in words]
