"""A grid table's header read column by column.

A Markdown table keeps its grid: every row has a cell under every column, empty or not. Its header is often
printed over several rows, a caption spanning the columns it heads ('Fiscal years ended July 31,' over '2019 |
2018 | Change', over 'Amount | % of revenue | Amount | % of revenue | ($) | (%)'). Written out line by line with
the empty cells dropped, those rows lose which column each name sat over, and the table's values end up with no
periods. Here the header rows are folded into one row of column names while the grid still says where each name
sits: a row of captions that groups the columns evenly ('2019 | | 2018 | |') heads each group, never over a
column the row below names as a period; a caption alone in its row heads the whole table, as a line; a caption that
names a period without its year ('Years ended September 30,') or states the scale stays a line of its own, which
the table reader takes as it takes such a line in any filing. A 'Note' column holds note references, not
figures: it is dropped.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from agent.finance.numbers import header_scale, units_only
from agent.finance.periods import find_periods
from agent.schemas import TextRun

# Cells and list items joined on one line in HTML and Markdown tables.
CELL_SEPARATOR = " | "
# Table cells that only carry a symbol of the neighbouring number (EDGAR splits "$", ")" and "%" off).
PREFIX_CELLS = frozenset({"$", "(", "($", "$(", "US$", "€", "£"})
SUFFIX_CELLS = frozenset({")", "%", ")%", "%)", "pts", "bps"})
# A nil marker of a value cell: a data row prints it where a figure is absent ('—%': no change to show).
NIL_CELL_RE = re.compile(r"^(?:[—–-]{1,3}|n/?a|nm|n\.m\.?)%?$", re.IGNORECASE)
# What may stand around a figure's digits in its cell ('$ (1,234.5)', '+3.6%', 'US$12', '€ 1.2', '(0.5)x').
_FIGURE_RE = re.compile(r"^[+−–-]?\s*\(?\s*(?:[A-Z]{0,3}\$|[€£¥])?\s*\(?[+−–-]?\d[\d,]*(?:\.\d+)?\s*\)?\s*[%x]?\s*\)?%?$")
_YEAR_CELL_RE = re.compile(r"^(?:FY\s*'?|fiscal\s+)?(?:19|20)\d{2}$", re.IGNORECASE)
# A year with a footnote digit glued on by extraction ('20181' for '2018 (1)'): only in a row of years.
_GLUED_YEAR_RE = re.compile(r"^((?:19|20)\d{2})\d$")
# A note mark a header cell ends with: '2018 (4)', 'April 27, 2019 (1)', 'FY 2019 `', '2019*'.
_HEADER_MARK_RE = re.compile(r"\s*(?:\(\s*(?:\d{1,2}|[a-z])\s*\)|[*†‡`´]+)$")
_GLUED_DATE_RE = re.compile(r",(?=(?:19|20)\d{2}\b)")  # 'August 31,2019': a space lost after the day's comma
_PERCENT_CELL_RE = re.compile(r"^\(?\s*%\s*\)?$")
_MONTH_WORD = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
_GLUED_DAY_RE = re.compile(rf"\b({_MONTH_WORD})(\d{{1,2}}\b)", re.IGNORECASE)  # 'December31,': the space lost
NOTE_COLUMN_RE = re.compile(r"^(?:notes?|note\s*\(s\)|note\s+ref(?:erence)?\.?|ref\.?)$", re.IGNORECASE)
# A caption that heads period columns without naming one of them ('Years Ended September 30,', 'December 31,',
# 'Fiscal Year End', 'As of'): read with the years below it, as a line of its own.
_PERIOD_CAPTION_RE = re.compile(
    rf"\b(?:ended|ending|as\s+(?:of|at)|year[\s-]*end)\b|^(?:for\s+the\s+)?fiscal\b"
    rf"|^{_MONTH_WORD}\.?\s+\d{{1,2}},?$|^\d{{1,2}}\s+{_MONTH_WORD},?$",
    re.IGNORECASE,
)

# A run alone on its header line heads every column when its centre is this close to the middle of the columns
# (as a share of their width): a caption centred over them all ('SECOND QUARTER'), not one column's name.
CENTRED_SHARE = 0.1
# A header run ends this close to its column's figures (a share of the page's width): right-aligned over them.
ALIGNED_SHARE = 0.004
# Where a word of a run ends, estimated by its share of the run's characters, is this close to where it is printed.
SPLIT_SHARE = 0.012
# Lines above a PDF table's first values read as its header: a header of seven named columns wraps each name over
# two or three lines, and a cell's words at different heights print as lines of their own.
PLACED_HEADER_MAX_LINES = 40
# Sub-heading lines ('Net Revenue', 'Operating Profit') looked past between a period header and a table's first
# values: a segment table names its first metric there; more plain lines than this are prose or a new title.
SUBHEADINGS_MAX = 2
CORNER_MAX_LINES = 3  # a header's corner cell wrapped over its own lines ('Three Months Ended June' / '30, 2025')
OVERLAP_SHARE = 0.25  # of the narrower of a run and a column's extent: less is a sliver, not a column it heads
# A caption naming a span of a year without the year ('SECOND QUARTER', 'Six Months', 'Year to Date'): over a
# group of columns it heads that group, as a year does.
SPAN_CAPTION_RE = re.compile(
    r"\b(?:(?:first|second|third|fourth)[\s-]+quarter|(?:three|six|nine|twelve|thirteen|twenty[\s-]six|"
    r"thirty[\s-]nine|fifty[\s-]two|\d{1,2})[\s-]+(?:months?|weeks?)|year[\s-]+to[\s-]+date|(?:first|second)\s+half"
    r"|q[1-4]|[1-4]q)\b",
    re.IGNORECASE,
)


def clean_header_cell(cell: str) -> str:
    """A header cell without the note mark after it ('2018 (4)' -> '2018') and with a glued date spaced
    ('August 31,2019' -> 'August 31, 2019')."""
    text = _GLUED_DAY_RE.sub(r"\1 \2", _GLUED_DATE_RE.sub(", ", cell.strip()))
    while (stripped := _HEADER_MARK_RE.sub("", text)) != text and stripped:
        text = stripped
    return text


def is_figure(cell: str) -> bool:
    """A value cell: a number with only its sign, currency and unit around it, or a nil marker ('—')."""
    text = cell.strip()
    if not text:
        return False
    if NIL_CELL_RE.match(text):
        return True
    return bool(_FIGURE_RE.match(text)) and not _YEAR_CELL_RE.match(text) and not _only_units(text)


def _is_period(cell: str) -> bool:
    return bool(cell) and bool(find_periods(clean_header_cell(cell)))


def _is_line(cell: str) -> bool:
    """A header cell that is a line of its own: a period caption without a year, or a scale statement."""
    text = clean_header_cell(cell)
    if not text or find_periods(text) or _only_units(text):
        return False
    return bool(_PERIOD_CAPTION_RE.search(text)) or header_scale(text) != 1.0 or text.startswith("(")


def _only_units(cell: str) -> bool:
    """A cell that states units and nothing else ('$', '%', '(%)', "$'000", '€m')."""
    return bool(cell) and (units_only(cell) or bool(_PERCENT_CELL_RE.match(cell)))


def _unit_name(cell: str) -> str:
    """A header cell that only states units (:func:`_only_units`), as a column name's suffix: '%' -> '(%)'; a
    currency sign or scale -> '' (the table's currency and scale are read from its caption and figures)."""
    return "(%)" if "%" in cell else ""


def _is_data(row: list[str]) -> bool:
    """A row of figures: the first below a table's header."""
    values = [c for c in row[1:] if c]
    if not row[0] and values and all(_YEAR_CELL_RE.match(c) or _GLUED_YEAR_RE.match(c) for c in values):
        return False  # '| | 2015 | 2016 | 20181 |': a row of years heads the columns
    return any(is_figure(c) for c in row[1:])


def _unglue_years(cells: list[str]) -> list[str]:
    """'2017 | 20181 | 2019' -> '2017 | 2018 | 2019': in a row of years, a fifth digit is a note mark."""
    if not any(_YEAR_CELL_RE.match(c) for c in cells):
        return cells
    return [m.group(1) if (m := _GLUED_YEAR_RE.match(c)) else c for c in cells]


def _cleaned(row: list[str]) -> list[str]:
    """A header row's cells cleaned of note marks, unless the marks were all that told two cells apart
    ('2008 trading assets (1) | 2008 trading assets (2)')."""
    cells = _unglue_years([clean_header_cell(c) for c in row[1:]])
    distinct = [c for c in cells if c]
    if len(set(distinct)) < len({c for c in row[1:] if c}):
        return row
    return [row[0], *cells]


def _spans(row: list[str], lines: set[int], below: list[str] | None) -> list[str]:
    """Each value column's caption from one header row (``lines``: the columns whose cell is a line of its own,
    which heads no column here). A row of group captions ('2019 | | 2018 | | Change |') heads each caption's
    own column and the empty ones right of it when the groups tile the columns to the table's edge, each as wide
    as the others (the last may be wider), and no caption runs over a column the row ``below`` names as a
    period. A row that does not ('| | % of total | | % of total' over 'Amount | revenues | Amount |
    revenues': a name wrapped over two lines) heads only its own cells, as does the last header row."""
    width = len(row)
    own = ["" if j in lines else c for j, c in enumerate(row)]
    starts = [j for j in range(1, width) if row[j]]
    if below is None or not starts:
        return own
    ends = [*starts[1:], width]
    spans = [b - a for a, b in zip(starts, ends, strict=True)]
    if len(spans) > 2 and spans[-1] < spans[0] and not _heads_group(row[starts[-1]]):
        # '2023 | | 2022 | | Percent' over 'Amount | % | Amount | % | Increase': a last caption that is no period
        # heads its own column after the groups of periods
        starts, ends, spans = starts[:-1], ends[:-1], spans[:-1]
    if len(set(spans[:-1])) > 1 or spans[-1] < spans[0] or max(spans) < 2:
        return own
    out = [row[0], *[""] * (width - 1)]
    for a, b in zip(starts, ends, strict=True):
        if a in lines:
            continue
        if _is_period(row[a]) and any(_is_period(below[k]) for k in range(a + 1, b)):
            return own  # a period never heads another period ('2019 | | 2018' over '2019 | 2018 | ...')
        out[a:b] = [row[a]] * (b - a)
    out[ends[-1]:] = own[ends[-1]:]
    return out


def fold_header(rows: list[list[str]], keep_notes: bool = False) -> tuple[list[list[str]], int | None]:
    """A grid table's rows (first cell the row label) with its header rows folded into one row of column
    names. Lines of their own (period captions, scale, titles) come out as one-cell rows above it, the cells
    of rows below the last row of names (a scale line, the body's first sub-heading) as one-cell rows below
    it, the body as it is, less a 'Note' column (unless ``keep_notes``). When the header cannot be read column by
    column (a column that holds figures would have no name, or two columns one name), the rows come back as they
    were, their header cells only cleaned of note marks. Also the folded row's index (None when nothing was
    folded)."""
    width = max((len(r) for r in rows), default=0)
    grid = [[c.strip() for c in r] + [""] * (width - len(r)) for r in rows]
    first_data = next((i for i, r in enumerate(grid) if _is_data(r)), None)
    if first_data is None or width < 3:
        return grid, None
    cleaned = [_cleaned(r) if i < first_data else r for i, r in enumerate(grid)]
    head, body = cleaned[:first_data], cleaned[first_data:]
    last_name = max((i for i, r in enumerate(head) if any(c and not _is_line(c) for c in r[1:])), default=-1)
    if last_name < 0:
        return cleaned, None
    above: list[list[str]] = []
    name_rows: list[tuple[list[str], set[int]]] = []
    stubs: list[str] = []
    for row in head[: last_name + 1]:
        if not any(row[1:]):
            if row[0]:
                above.append([row[0]])  # a title or a caption printed in the label column
            continue
        lines = {j for j in range(1, width) if row[j] and _is_line(row[j])}
        cells = [j for j in range(1, width) if row[j]]
        repeated = len(cells) == width - 1 and len({row[j] for j in cells}) == 1 and not _only_units(row[cells[0]])
        if width > 2 and (len(cells) == 1 or repeated):
            # One caption over all the columns ('Consolidated' over '2019 | 2018', 'As of February 28, 2019' over
            # 'As reported | Adjustments | ...'; one cell printed centred, or an HTML cell spanning them all): a
            # title or period line.
            lines.update(cells)
        above.extend([text] for text in dict.fromkeys(row[j] for j in sorted(lines)))
        if row[0]:
            stubs.append(row[0])
        if len(lines) < sum(bool(c) for c in row[1:]):
            # '$ | $ | %' under the years: units, read as the column's ('2019 (%)'); a currency sign adds nothing,
            # a scale every unit cell states ('$M | $M') is the table's, a line of its own above the header
            scales = {c for c in row[1:] if c and _only_units(c) and header_scale(c) != 1.0}
            above.extend([[scales.pop()]] if len(scales) == 1 else [])
            row = [row[0], *(_unit_name(c) if _only_units(c) else c for c in row[1:])]
            name_rows.append((row, lines))
    names = [""] * width
    for k, (row, lines) in enumerate(name_rows):
        spanned = _spans(row, lines, name_rows[k + 1][0] if k + 1 < len(name_rows) else None)
        names = [f"{a} {b}".strip() for a, b in zip(names, spanned, strict=True)]
    filled = [j for j in range(1, width) if any(is_figure(r[j]) for r in body)]
    named = [names[j] for j in range(1, width) if names[j]]
    if any(not names[j] for j in filled) or len(set(named)) != len(named):
        return cleaned, None
    above.extend([stub] for stub in stubs[:-1])
    keep = [0, *(j for j in range(1, width) if keep_notes or not NOTE_COLUMN_RE.match(names[j]))]
    header = [stubs[-1] if stubs else "", *(names[j] for j in keep[1:])]
    below = [[cell] for r in head[last_name + 1:] for cell in r if cell]  # sub-headings, a scale line
    return [*above, header, *below, *([r[j] for j in keep] for r in body)], len(above)


def spanned_grid(rows: list[list[tuple[str, int]]]) -> list[list[str]]:
    """An HTML table's rows of (text, colspan) as a grid of the columns its figures sit in. A symbol cell
    EDGAR splits off a figure ('$', ')', '%') joins it; columns that hold no figure's cell in any row (the
    symbols', the spacers') go; a caption spanning columns is over each that stays."""
    width = max((sum(max(span, 1) for _, span in row) for row in rows), default=0)
    texts: list[list[str]] = []
    starts: list[list[tuple[str, int, int]]] = []
    for row in rows:
        cells = [""] * width
        placed: list[tuple[str, int, int]] = []
        at = 0
        for text, span in row:
            span = max(span, 1)
            if text:
                cells[at] = text
                placed.append((text, at, at + span))
            at += span
        texts.append(_joined_symbols(cells))
        starts.append(placed)
    kept = [0, *(j for j in range(1, width) if any(is_figure(r[j]) for r in texts))]
    out: list[list[str]] = []
    for row, placed in zip(texts, starts, strict=True):
        compact = [""] * len(kept)
        if any(is_figure(c) for c in row[1:]):
            compact = [row[j] for j in kept]  # a row of figures: each under its column
        else:
            for text, start, end in placed:
                # a header cell or label: over every kept column of its span (the label column for a label)
                for k, j in enumerate(kept):
                    if start <= j < end and not compact[k] and (j > 0 or start == 0):
                        compact[k] = text
        out.append(compact)
    return out


def _joined_symbols(cells: list[str]) -> list[str]:
    """A row's symbol cells joined to the figure beside them ('$' | '1,234' | ')' -> '$1,234)')."""
    out = list(cells)
    for j, cell in enumerate(out):
        if cell in PREFIX_CELLS:
            k = next((k for k in range(j + 1, len(out)) if out[k]), None)
            if k is not None and out[k] not in PREFIX_CELLS | SUFFIX_CELLS:
                out[k], out[j] = cell + out[k], ""
        elif cell in SUFFIX_CELLS:
            k = next((k for k in range(j - 1, 0, -1) if out[k]), None)
            if k is not None:
                out[k], out[j] = out[k] + cell, ""
    return out


def placed_columns(runs: Sequence[list[TextRun] | None], first: int, body: Sequence[int]
                   ) -> tuple[list[str], str, range, list[tuple[float, float]]] | None:
    """A PDF table's column names read from where its header's words stand (:func:`placed_header`), the caption
    lines folded out above them, the header's lines (indices into the page's ``runs``, a list per line) and the
    value columns' extents. The body is the lines ``body`` (the first values on line ``first``); the header is the
    lines above the first values (past a sub-heading or two) whose words all stand right of the row labels and are
    no figures (a row of a table above) nor only a scale ('(In millions)' centred over the columns). None when the
    header does not name each value column."""
    rows = [line for k in body if k < len(runs) and (line := runs[k])]
    labels = [run.x1 for line in rows for run in line[:1] if not is_figure(run.text)]
    if not labels or first > len(runs):
        return None
    edge, k = max(labels), first - 1
    while k >= 0 and first - k <= SUBHEADINGS_MAX and runs[k] and all(r.x1 <= edge for r in runs[k] or ()):
        k -= 1  # a sub-heading over the first values ('Home Improvement' / '  U.S. | 2,400,100 | ...')
    bottom = k + 1
    # a header line's first run may reach past the labels' edge: its corner ('Fiscal 2024' beside 'Q1 | Q2')
    while k >= 0 and bottom - k <= PLACED_HEADER_MAX_LINES and (line := runs[k]) and any(r.x0 >= edge for r in line) \
            and not any(r.x0 < edge < r.x1 and j > 0 or r.x0 >= edge and is_figure(r.text) for j, r in enumerate(line)) \
            and not all(header_scale(r.text) != 1.0 for r in line if r.x0 >= edge):
        k -= 1
    found = placed_header([line or [] for line in runs[k + 1:bottom]], rows) if k + 1 < bottom else None
    if found is None:
        return None
    # the header's corner printed on lines of its own above the names ('Three Months Ended June' / '30, 2025' over
    # 'Commercial Banking | ... | Total'), starting where the row labels do: the period every column is of
    top = k + 1
    while top > 0 and bottom - top < PLACED_HEADER_MAX_LINES and top > k + 1 - CORNER_MAX_LINES \
            and (line := runs[top - 1]) and all(r.x0 < edge and not is_figure(r.text) for r in line) \
            and all(header_scale(r.text) == 1.0 for r in line):
        top -= 1
    corner = " ".join(r.text for line in runs[top:k + 1] for r in line or ())
    # its last words may be the names' first line's ('Year Ended December 31,' over '2023 | Consumer | Business')
    if top <= k and find_periods(dated := " ".join([corner, *found[1]])):
        return found[0], dated, range(top, bottom), found[2]
    return found[0], " ".join(found[1]), range(k + 1, bottom), found[2]


GridPlace = tuple[int, int]  # the columns of a table's grid a cell spans: the first, and one past the last


def grid_placed(header: Sequence[GridPlace], cells: Sequence[GridPlace]) -> list[int]:
    """The value column each figure of a grid table's row stands under: the header cell whose columns hold the
    figure's first column ('Diluted earnings per share | 1.12 | | 0.98 |' under 'Amount | Percent to Sales |
    Amount | Percent to Sales': 0, 2); [] when a figure stands under no header cell, or two under one."""
    return _in_order([next((k for k, (a, b) in enumerate(header) if a <= first < b), -1) for first, _ in cells])


def _in_order(at: list[int]) -> list[int]:
    """Columns found for a row's figures, left to right, each its own; [] when one has none (-1) or two share one."""
    return at if at and -1 not in at and all(a < b for a, b in itertools.pairwise(at)) else []


def placed_cells(line: list[TextRun], columns: list[tuple[float, float]]) -> list[int]:
    """The value column each figure of a row's line stands in ('Diluted earnings per share | $2.41 | | $2.25 | |
    7.1%': 0, 2, 4); [] when a figure stands in none or two stand in one."""
    return _in_order([_column_of(run, columns) for run in _joined_runs(line) if is_figure(run.text)])


def placed_header(header: list[list[TextRun]], body: list[list[TextRun]]
                  ) -> tuple[list[str], list[str], list[tuple[float, float]]] | None:
    """A PDF table's header read column by column from where its words are printed: the value columns are where
    the body's figures stand (runs of rows that overlap are one column), each header run heads the columns it
    is printed over (:func:`_line_spans`: a year centred over 'Amount | Percent to Sales' heads both; a caption
    centred alone on its line heads them all; a run left of the figures is the stub), lines that each name single
    columns are one header row, and the rows are folded as a grid's are (:func:`fold_header`). Also the lines
    folded out above the names (a caption over every column, 'SECOND QUARTER'; a period caption without its
    year), and the columns' extents. None when the figures do not stand in clear columns or the header does not
    name each of them."""
    # rows with a label: a lone '(1)' under a table is a footnote's mark, not a figure of a column
    rows = [joined for r in body if (joined := _joined_runs(r)) and not is_figure(joined[0].text)]
    values = [[r for r in row if is_figure(r.text)] for row in rows]
    columns = _figure_columns([v for v in values if v])
    if columns is None or len(columns) < 2:
        return None
    labels = [r.x1 for row, vals in zip(rows, values, strict=True) for r in row if r not in vals and r.x1 < columns[0][0]]
    left = (max(labels) + columns[0][0]) / 2 if labels else columns[0][0]
    edges = [left, *((a[1] + b[0]) / 2 for a, b in itertools.pairwise(columns)), 1.0]
    area = (columns[0][0], max([columns[-1][1], *(r.x1 for line in header for r in line)]))
    grid: list[list[str]] = []
    banded = False  # the last grid row is a band of lines that each name single columns
    for line in header:
        stub, spans = _line_spans(_right_aligned(_joined_runs(line), columns), columns, edges, area)
        cells = [stub, *[""] * len(columns)]
        for run, over in spans:
            for k in over:
                cells[k + 1] = f"{cells[k + 1]} {run.text}".strip()
        single = all(len(over) == 1 for _, over in spans)
        if single and banded and not stub:
            # one header row printed over several lines ('Percent to' / 'Sales' beside 'Amount'): one cell a column;
            # its first line may print the corner too ('Fiscal 2024' beside 'Rigid' over 'Packaging')
            grid[-1] = [f"{a} {b}".strip() for a, b in zip(grid[-1], cells, strict=True)]
        else:
            grid.append(cells)
        banded = single
    head = len(grid)
    for row, vals in zip(rows, values, strict=True):
        if not vals:
            continue
        cells = [" ".join(r.text for r in row if r not in vals), *[""] * len(columns)]
        for run in vals:
            cells[_column_of(run, columns) + 1] = run.text
        grid.append(cells)
    # a 'Note' column stays a column here, where its note numbers stand; the table reader drops both
    folded, at = fold_header(grid, keep_notes=True)
    if at is not None and len(folded[at]) == len(columns) + 1:
        # a corner naming a period ('Fiscal 2024' over segment or quarter names, 'SECOND QUARTER' over '2025 Amount')
        # dates the columns as a caption does
        stub = folded[at][0].strip()
        corner = [stub] if find_periods(stub) or SPAN_CAPTION_RE.fullmatch(stub) else []  # 'SECOND QUARTER' too
        return folded[at][1:], [r[0] for r in folded[:at]] + corner, columns
    # The grid's fold keeps a duration caption ('Three Months Ended' over two dates) as a line of its own; where
    # the words stacked over each column name it apart from the others, they are its name.
    over_all = [r for r in grid[:head] if r[1] and len(set(r[1:])) == 1]
    names = [" ".join(r[j] for r in grid[:head] if r not in over_all and r[j]) for j in range(1, len(columns) + 1)]
    if all(names) and len(set(names)) == len(names):
        return names, [r[1] for r in over_all], columns
    return None


def _line_spans(line: list[TextRun], columns: list[tuple[float, float]], edges: list[float],
                area: tuple[float, float]) -> tuple[str, list[tuple[TextRun, list[int]]]]:
    """A header line's stub (its words left of the figures) and each other run with the columns it heads: those
    it is printed over; every column for a run alone on its line, wider than any column and centred over them all
    ('SECOND QUARTER'); and a period's group widened as :func:`_period_groups` says."""
    stub = " ".join(r.text for r in line if r.x1 <= edges[0])
    inside = [r for r in line if r.x1 > edges[0]]
    spans: list[tuple[TextRun, list[int]]] = []
    widest = max(b - a for a, b in columns)
    for run in inside:
        # a column a run reaches into by a sliver is not one it heads (a name right-aligned over left-aligned figures)
        over = [k for k in range(len(columns)) if min(run.x1, edges[k + 1]) - max(run.x0, edges[k])
                >= OVERLAP_SHARE * min(run.x1 - run.x0, edges[k + 1] - edges[k])]
        centre, middle = (run.x0 + run.x1) / 2, (area[0] + area[1]) / 2
        home = next((k for k in range(len(columns)) if edges[k] <= centre < edges[k + 1]), None)
        if len(over) > 1 and home is not None and run.x1 - run.x0 < edges[home + 1] - edges[home]:
            over = [home]  # narrower than the column its middle stands in: that column's name, wrapped or aligned
        # a line of a column's name stacked over several lines ends where its figures end (right-aligned as they are),
        # however wide: it is that column's, not a caption centred over them all
        aligned = home is not None and abs(run.x1 - columns[home][1]) <= ALIGNED_SHARE
        if aligned and over:
            over = [home]  # reaching into the column before it by its width alone ('Three Months Ended April')
        if over and len(inside) == 1 and run.x1 - run.x0 > widest and not aligned \
                and abs(centre - middle) <= CENTRED_SHARE * (area[1] - area[0]):
            over = list(range(len(columns)))
        spans.append((run, over))
    return stub, _period_groups(spans, columns)


def _right_aligned(line: list[TextRun], columns: list[tuple[float, float]]) -> list[TextRun]:
    """A header line's runs with names right-aligned over neighbouring columns, printed too close to be runs of their
    own ('Solutions Eliminations Consolidated' ending where the last column's figures end), split at each word that
    ends where a column's figures end (its place estimated by its share of the run's characters). A line whose last
    word ends where the last column's figures do is right-aligned throughout: a run of it may end inside a column
    ('Q2 | 2025 Q2 | 2024 YTD 2025 YTD 2024' over four columns) and is split the same way."""
    ends = [b for _, b in columns]
    out: list[TextRun] = []
    line_aligned = bool(line) and abs(line[-1].x1 - ends[-1]) <= ALIGNED_SHARE
    for run in line:
        width, text = run.x1 - run.x0, run.text
        aligned = not is_figure(text) and (line_aligned or any(abs(run.x1 - end) <= ALIGNED_SHARE for end in ends))
        cuts = [at for at in (m.start() for m in re.finditer(" ", text)) if aligned and any(
            abs(run.x0 + width * at / len(text) - end) <= SPLIT_SHARE and end < run.x1 - SPLIT_SHARE for end in ends)]
        bounds = [-1, *cuts, len(text)]
        out.extend(TextRun(text=text[a + 1:b], x0=run.x0 + width * (a + 1) / len(text), x1=run.x0 + width * b / len(text))
                   if cuts else run for a, b in itertools.pairwise(bounds))
    return out


def _column_of(run: TextRun, columns: list[tuple[float, float]]) -> int:
    """The value column a figure's run stands in (its extent overlaps the run), -1 for none."""
    return next((k for k, (a, b) in enumerate(columns) if run.x1 >= a and run.x0 <= b), -1)


def _joined_runs(row: list[TextRun]) -> list[TextRun]:
    """A row's runs with a symbol run printed apart from its figure ('$' at a cell's left edge, a ')' or '%' after
    it) joined to that figure."""
    out: list[TextRun] = []
    for run in row:
        if out and (out[-1].text in PREFIX_CELLS or run.text in SUFFIX_CELLS):
            out[-1] = TextRun(text=f"{out[-1].text}{run.text}", x0=out[-1].x0, x1=run.x1)
        else:
            out.append(run)
    return out


def _figure_columns(rows: list[list[TextRun]]) -> list[tuple[float, float]] | None:
    """The horizontal extents of a table's value columns: figures of different rows that overlap stand in one
    column. None when a row has two figures in one column (the figures stand in no clear columns)."""
    runs = sorted((r.x0, r.x1) for row in rows for r in row)
    columns: list[tuple[float, float]] = []
    for x0, x1 in runs:
        if columns and x0 <= columns[-1][1]:
            columns[-1] = (columns[-1][0], max(columns[-1][1], x1))
        else:
            columns.append((x0, x1))
    for row in rows:
        hit = [next(k for k, (a, b) in enumerate(columns) if r.x0 >= a and r.x1 <= b) for r in row]
        if len(set(hit)) != len(hit):
            return None
    return columns


def _period_groups(spans: list[tuple[TextRun, list[int]]], columns: list[tuple[float, float]]
                   ) -> list[tuple[TextRun, list[int]]]:
    """A header row's runs with the columns each heads: those it is printed over, and -- when the row's periods
    then head groups of unequal width ('2023' centred over the middle of 'Amount | % | Change') -- the columns
    next to a period's group that are nearer its centre than any other run's, if that makes the groups equal."""
    placed = [(run, list(over)) for run, over in spans if over]
    taken = {k for _, over in placed for k in over}
    periods = [(run, over) for run, over in placed if _heads_group(run.text)]
    if len(periods) < 2 or len({len(over) for _, over in periods}) == 1 and len(taken) == len(columns):
        return placed
    extended = [(run, list(over)) for run, over in placed]
    for k in (k for k in range(len(columns)) if k not in taken):
        centre = (columns[k][0] + columns[k][1]) / 2
        run, over = min(extended, key=lambda p: abs((p[0].x0 + p[0].x1) / 2 - centre))
        if _heads_group(run.text) and (k == min(over) - 1 or k == max(over) + 1):
            over.append(k)
    groups = [sorted(over) for run, over in extended if _heads_group(run.text)]
    if len({len(g) for g in groups}) == 1:
        return [(run, sorted(over)) for run, over in extended]
    return placed


def _heads_group(text: str) -> bool:
    """A header run that heads a group of columns: a period ('2023') or a span without its year ('Six Months')."""
    return _is_period(text) or bool(SPAN_CAPTION_RE.search(text))
