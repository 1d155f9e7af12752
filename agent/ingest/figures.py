"""A table row's figures typed once, at ingest: each cell's figures with the unit, scale and currency its row,
column and table state, under its column's name and period.

The reader takes these figures as they are (:mod:`agent.answer.reading`); it never re-reads a cell's text.
A row's label can say what its figures are ('Gross margin (%)' is a percentage, 'per share' is never in
millions), a column's header can ('Change (%)'), and a table's header says the scale and the currency. A dash
under a period column is a zero; a dash printed as its code point ('2014' for U+2014) is no year.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.finance.column_periods import without_spans
from agent.finance.lexicon import names_count, names_per_share
from agent.finance.numbers import currency_of, find_numbers, header_scale, nil_cell
from agent.schemas import NumericValue, TableColumn, TableLine

_DASH_CODES = frozenset(("2013", "2014"))  # a dash the text extraction printed as its code point (U+2013, U+2014)
# Rows whose figures are never "in millions": per-share amounts, percentages, ratios, days, counts.
_UNSCALED_ROW_RE = re.compile(
    r"per\s+(?:common\s+|diluted\s+|basic\s+)?share|\bEPS\b|%|\bpercent|\bratios?\b|\brates?\b|\bmargins?\b|\bdays\b|"
    r"number\s+of",
    re.IGNORECASE,
)
_DOT_LEADER_RE = re.compile(r"\s*\.{2,}[\s.$]*$|\s*\.{3,}")
# A footnote digit the extraction glued to the word before it ('Effective tax rate4 (%)', 'Order intake1'): one
# digit after four lower-case letters or more; names that carry a number keep it apart or in capitals ('Tier 1').
_GLUED_NOTE_RE = re.compile(r"\b([a-z]{4,})\d\b")
_PERCENT_SIGN_RE = re.compile(r"%|\bper\s?cent\b", re.IGNORECASE)
# 'Basic earnings per share (cents per share)', 'Dividend per share (pence)': figures in hundredths of the currency.
_CENTS_RE = re.compile(r"\b(?:cents?|pence)\b", re.IGNORECASE)
# 'Floating rate notes', 'Fixed-rate debt': an instrument named by its kind of rate, whose figures are amounts.
_INSTRUMENT_RATE_RE = re.compile(r"\b(?:floating|variable|fixed|adjustable)[\s-]+$", re.IGNORECASE)


# Two figures side by side, as a row prints its cells ('$ 4,539.9 $ 4,364.0', '1,597.4 1,590.4'): thousands grouped or
# decimals, nothing but a space or a currency sign between them (a list in a label, '$11.2, $25.0 and $20.7', has words).
_FIGURE = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+"
_CELLS_IN_LABEL_RE = re.compile(rf"(?<![\w.,])(?:{_FIGURE})\s+[$€£¥]?\s?(?:{_FIGURE})(?![\w%])")


def merged_label(label: str) -> bool:
    """A row label that prints figures side by side as cells ('Share Amounts 2022 2021 ... Net sales $ 4,539.9
    $ 4,364.0 ... Gross margin 1,597.4 ... Net earnings attributable to General Mills'): lines of a table the
    extraction ran into one, which name no one line item. A label citing amounts ('net of refunds of $11.2, $25.0
    and $20.7') is a line item."""
    return _CELLS_IN_LABEL_RE.search(label) is not None


def clean_label(label: str) -> str:
    """A row label without dot leaders, a dangling '$' or a note reference: 'Total assets.......... $',
    'Adjusted operating margin3 (%)'."""
    label = _GLUED_NOTE_RE.sub(r"\1", _DOT_LEADER_RE.sub("", label))
    return label.strip(" $:").strip()


def dash_code(cell: str) -> bool:
    """A cell holding only a dash printed as its code point ('2013', '$ 2014')."""
    return cell.strip().lstrip("$").strip() in _DASH_CODES


def _after_number(label: str, at: int) -> bool:
    """The word at ``at`` follows a number ('3.5% senior notes', 'Notes, 4 percent'): a rate naming an instrument."""
    return label[:at].rstrip().endswith(tuple("0123456789"))


def unscaled_row(label: str) -> bool:
    """A row whose figures are never 'in millions' (per-share amounts, percentages, ratios, days, counts); not
    one naming an instrument by its rate ('3.25% Senior notes due 2029', 'Floating rate notes'), nor a bucket by its
    span ('1-90 days past due' holds amounts)."""
    label = without_spans(label)
    for m in _UNSCALED_ROW_RE.finditer(label):
        word = m.group().lower()
        if word.startswith(("%", "percent")) and _after_number(label, m.start()):
            continue
        if word.startswith("rate") and _INSTRUMENT_RATE_RE.search(label[: m.start()]):
            continue
        return True
    return False


def subunit(label: str) -> str:
    """'cents' or 'pence' when a label says its figures are in hundredths of the currency ('(cents per share)',
    'Dividend (pence)'); '' otherwise."""
    m = _CENTS_RE.search(label)
    return ("pence" if m.group().lower() == "pence" else "cents") if m else ""


def states_percent(label: str) -> bool:
    """A row label that says its figures are percentages ('Gross margin (%)', '% of revenue', 'Percent
    change'); not one naming an instrument by its rate ('3.5% senior notes', 'Notes, 4 percent')."""
    return any(not _after_number(label, m.start()) for m in _PERCENT_SIGN_RE.finditer(label))


def stated_unit(n: NumericValue, unscaled: bool, currency: str, percent: bool = False,
                per_share: bool = False) -> NumericValue:
    """A table figure with the unit and scale its row states: a percentage row's plain figures are percentages
    ('Gross margin (%) | 73.2'); a per-share, percentage or ratio row is never 'in millions'; a scaled plain
    figure of a table in a ``currency`` ('USD', 'CNY') is in it, and so is a ``per_share`` amount ('€ million'
    over 'Basic earnings per share | 1.23': euros a share)."""
    if percent and n.unit == "":
        n = n.model_copy(update={"unit": "%"})
    if unscaled or n.unit in {"%", "bps", "x"}:
        n = n.model_copy(update={"scale": 1.0})
    if currency and n.unit == "" and (n.scale > 1.0 or per_share):
        n = n.model_copy(update={"unit": currency})
    return n


def typed_row(row: TableLine, columns: Sequence[TableColumn], scale: float, currency: str) -> TableLine:
    """``row`` with each cell's figures typed (offsets within the cell's text): the table's ``scale`` unless the
    row states its own, the table's ``currency`` for scaled plain figures, '%' under a percentage column or row,
    each figure under its column's name and period."""
    label = clean_label(row.label)
    own_scale = header_scale(label)
    scale = own_scale if own_scale != 1.0 else scale
    if own_scale != 1.0:
        # a row stating its own scale states its own unit: 'Available seat miles (millions)' in a table of some
        # dollar rows counts miles; 'Revenue ($ millions)' names its currency itself
        currency = currency_of(label)
    # a sub-heading that names a per-share figure ('Diluted Earnings Per Common Share' over 'Net income attributable
    # to X') makes its rows per-share amounts, unless it counts ('Weighted average number of shares used in
    # earnings per share': its rows are numbers of shares, named by the figure they serve)
    per_share = names_per_share(label) or (names_per_share(row.parent) and not names_count(row.parent))
    unscaled = unscaled_row(label) or per_share
    percent = states_percent(label)
    cents = subunit(label) or subunit(row.parent)  # the row or its sub-heading says so
    cells = []
    for cell in row.cells:
        column = columns[cell.column] if 0 <= cell.column < len(columns) else None
        body = cell.text
        for note in cell.notes:  # '1,025,659(1)': the footnote mark is no second figure
            at_note = body.rfind(note)
            body = body[:at_note] + " " * len(note) + body[at_note + len(note):]
        # A cell under its column's name is a value even when it reads like a year ('2008: 1953' millions); a
        # bare '2013' or '2014' there is a dash whose code point the text extraction printed (U+2013, U+2014).
        years = column is not None and not dash_code(cell.text)
        nil = nil_cell(body, scale) if column is not None and column.period else None
        # a column named for a price per share or a rate ('Average price paid per share') is never in millions, and
        # one named for a count ('Total number of shares purchased') is in the table's scale but no currency
        named = column.label if column is not None and not column.period else ""
        counted = names_count(named)
        unscaled_here = unscaled or (bool(named) and not counted and unscaled_row(named))
        figures = []
        for n in [nil] if nil is not None else find_numbers(body, scale, include_years=years):
            if column is not None and column.unit == "%" and n.unit == "":
                n = n.model_copy(update={"unit": "%"})  # 'Change (%) | 50.7': the header says it is a percentage
            if cents and n.unit == "":
                n = n.model_copy(update={"unit": cents, "scale": 1.0})
            n = stated_unit(n, unscaled_here, "" if counted else currency, percent, per_share and not named)
            figures.append(n.model_copy(update={"period": column.period if column else "",
                                                "column": column.label if column else ""}))
        cells.append(cell.model_copy(update={"figures": figures}))
    flat = [f for c in cells for f in c.figures]
    if not any(f.period for f in flat) and len(columns) == len(flat):
        # a row of as many figures as the table has columns, none placed: the k-th figure is under the k-th column
        periods = iter(c.period for c in columns)
        cells = [c.model_copy(update={"figures": [f.model_copy(update={"period": next(periods)}) for f in c.figures]})
                 for c in cells]
        flat = [f for c in cells for f in c.figures]
    if row.period and not any(f.period for f in flat):
        # columns that are names ('USD denominated | Non-USD denominated') under a period line: each figure is of
        # the block's period ('As at 31 December 2018')
        cells = [c.model_copy(update={"figures": [f.model_copy(update={"period": row.period}) for f in c.figures]})
                 for c in cells]
    return row.model_copy(update={"cells": cells})
