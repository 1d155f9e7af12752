"""The evidence's figures as cells (:class:`Cell`): every figure of a table row with the words that name it (its
row label, column header, sub-heading and periods), and every dated figure of a sentence with the words before it.
The cell reader (:mod:`agent.answer.cells`) chooses among them."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from agent.answer.reading import (
    CLAUSE_BREAK_RE,
    Evidence,
    EvidenceReader,
    Segment,
)
from agent.finance.column_periods import is_span_label
from agent.finance.numbers import CURRENCIES, is_name_number, without_code_before
from agent.finance.periods import CALENDAR_FY_END, find_periods, normalise_period
from agent.finance.wording import CHANGE_RE
from agent.ingest.prose import FOOTNOTE_RE
from agent.query.content import content_words
from agent.query.scope import STOP_WORDS
from agent.schemas import NumericValue

UNDATED_YEAR_COLUMNS = 2  # a header-less row: only its first two columns are read as this year and last


PROSE_LABEL_MAX_WORDS = 12  # words before a figure in a sentence that can name it ('rental expense for ... was')


# 'rental expense for operating leases was approximately': the verb and hedge words end a sentence's subject; and
# '..., compared with' or 'versus' puts the next figure beside the last one, of the same subject
_PROSE_VERB_TAIL_RE = re.compile(
    r"(?:\s*\b(?:was|were|is|are|of|totaled|totalled|amounted|aggregated|approximately|about|"
    r"approximated|reached|to|by|and|or|had|has|have|recognized|recorded|reported|compared\s+(?:with|to)|as|"
    r"versus|vs\.?)(?![\w.])[\s,$]*)+$",
    re.IGNORECASE,
)


# What lies between a change and the level it reaches ('increased $8.6 million to $16.7 million').
_REACHED_RE = re.compile(r"\s*(?:million|billion|thousand|percent|%)?\s*,?\s*to\s*\$?\s*", re.IGNORECASE)


_PROSE_LEAD_RE = re.compile(r"^(?:(?:of|for|in|on|at|and|the)\s+)+", re.IGNORECASE)


# ---------------------------------------------------------------------------------------------------------
# Table cells for figures the lexicon does not name ('equipment rents payable', 'gallons hedged')
# ---------------------------------------------------------------------------------------------------------
class Cell(BaseModel):
    """One figure of a table row with the words that name it: the row label and its column header."""

    seg: Segment
    label: str = Field(description="the row label ('equipment rents payable', or a schedule row's year)")
    header: str
    parent: str = Field(default="", description="the sub-heading the row sits under ('Service revenue')")
    value: NumericValue
    periods: set[str] = Field(default_factory=set, description="periods the value's column or label name")
    prose: bool = Field(default=False, description="read from a sentence: the label is the words before it")
    counts: str = Field(default="", description="what a plain count in a sentence counts ('stores')")


def table_cells(reader: EvidenceReader, allowed: set[int]) -> list[Cell]:
    """Every figure of every table row in the evidence, with its row label, column header and periods.

    Both table orientations: periods as columns ('2008: 93') or in the row label ('2007 net revenue | 442.3'),
    where the columns then name the items.
    """
    out: list[Cell] = []
    for seg in reader.segments:
        if seg.kind != "row" or seg.ev not in allowed or seg.row is None:
            continue
        label, numbers = seg.label, list(seg.numbers)
        fy_end = reader.evidence[seg.ev].fy_end_month or CALENDAR_FY_END
        label_periods = named_periods(label, fy_end)
        undated = _undated_columns(reader.evidence[seg.ev], seg, label_periods)
        for i, n in enumerate(numbers):
            if undated and i < len(undated):
                n = n.model_copy(update={"period": undated[i]})
            header = n.column  # the column ingest placed the figure in
            # A figure the reading placed under a dated column has that column's period, not what its name's words
            # read as alone ('YEAR TO DATE 2023' is the half a second quarter's release reports, not fiscal 2023).
            placed = bool(n.period and n.column)
            periods = set(label_periods) | (set() if placed else named_periods(header, fy_end))
            if n.period:
                periods.add(n.period)
            out.append(Cell(seg=seg, label=label, header=header, parent=seg.parent, value=n, periods=periods))
    return out


def named_periods(text: str, fy_end_month: int = CALENDAR_FY_END) -> set[str]:
    """Periods a row label or column header names, numeric dates included ('12/09' is FY2009: a date in a
    year closes that year's fiscal period, as the filing's own year columns do). A span ('2010 - 2011',
    '2013 and thereafter') names no one period."""
    if is_span_label(text):
        return set()
    found = {p.norm for p in find_periods(text, fy_end_month)}
    if found:
        return found
    alone = normalise_period(text, fy_end_month)  # a lone '12/09' header
    return {alone} if alone else set()


def _undated_columns(ev: Evidence, seg: Segment, label_periods: set[str]) -> list[str]:
    """Periods for a row whose table has no header ('operating income | 11503 | 10815 | 688'): filings list the
    newest year first, and the newest is the filing's own year. Empty when the row states periods, its table names
    its columns, or the filing's year is unknown."""
    if label_periods or len(seg.numbers) < 2 or any(n.period for n in seg.numbers):
        return []
    if ev.table is None or ev.table.columns or ev.table.period_caption:
        return []  # the table has headers, typed or not ('three months ended dec 28 | ... | change'): no guessing
    year = ev.filing_year
    if year is None:
        return []
    return [f"FY{year - i}" for i in range(min(len(seg.numbers), UNDATED_YEAR_COLUMNS))]


# Words that end the noun a count names ('1,234 stores in 12 countries', '8,000 employees worldwide'), besides
# the stop words; a scale or 'percent' after a figure makes it no plain count.
_PROSE_JOINING = frozenset(["across", "within", "throughout", "worldwide", "globally", "during", "through", "under",
                            "over", "compared", "versus", "while", "including", "respectively", "million", "billion",
                            "thousand", "percent"])


# The words right after a figure, up to a joining word or punctuation: what a plain count counts.
_AFTER_WORDS_RE = re.compile(r"[ \t]+((?:[A-Za-z][\w-]*[ \t]+){0,2}[A-Za-z][\w-]*)")


def _counted_after(text: str, n: NumericValue) -> str:
    """What a plain count counts ('1,234 stores in 12 countries' -> 'stores'); '' for amounts, percentages
    and figures followed by no noun of their own."""
    if n.unit or n.scale != 1.0 or n.value != int(n.value) or text[max(0, n.start - 2) : n.start].strip() == "$":
        return ""
    m = _AFTER_WORDS_RE.match(text, n.end)
    if m is None:
        return ""
    words: list[str] = []
    for word in m.group(1).split():
        if word.lower() in STOP_WORDS or word.lower() in _PROSE_JOINING:
            break
        words.append(word)
    return " ".join(words)


def _paid_for(count: NumericValue, counted: str, amount: NumericValue, between: str) -> bool:
    """``amount`` is what the things ``count`` counts (its unit, or the ``counted`` noun after it) cost, in one
    clause ('repurchased 1.9 million shares of our common stock for $214 million', 'acquired 9 properties for
    $286.5 million'): its words are the count's clause, not the few words between the two."""
    return (amount.unit in CURRENCIES and count.unit not in {*CURRENCIES, "%"} and bool(count.unit or counted)
            and not CLAUSE_BREAK_RE.search(between) and " and " not in f" {between.lower()} "  # one clause
            and len(between.split()) <= PROSE_LABEL_MAX_WORDS)


def sentence_cells(reader: EvidenceReader, allowed: set[int]) -> list[Cell]:
    """Dated figures of the evidence's sentences as cells: the label is the words before the figure back to
    the previous figure, or the previous figure's label when only periods and joining words lie between
    ('$2.2 billion for 2011, $2.0 billion for 2010'). Years, days of dates and footnote marks are no figures."""
    out: list[Cell] = []
    for seg in reader.segments:
        if seg.kind != "sentence" or seg.ev not in allowed:
            continue
        text = reader.evidence[seg.ev].text
        dates = [(seg.start + p.start, seg.start + p.end) for p in find_periods(text[seg.start : seg.end])]
        label, prev_end, prev, prev_counted = "", seg.start, None, ""
        for n in seg.numbers:
            if any(a <= n.start < b for a, b in dates) or FOOTNOTE_RE.fullmatch(n.text.strip()):
                continue
            if is_name_number(text, n.start, n.end):
                continue  # the '1' of 'tier 1 capital' is part of the label, not a figure
            before = text[prev_end : n.start]
            if n.unit in CURRENCIES:
                before = without_code_before(before)  # 'RMB' of 'RMB229 million' is its unit, no word naming it
            prev_end = n.end
            own = _PROSE_VERB_TAIL_RE.sub("", " ".join(before.split()[-PROSE_LABEL_MAX_WORDS:])).strip(" ,;:$(")
            own = _PROSE_LEAD_RE.sub("", own.lstrip("-•*–· "))  # a list item's mark is no word of it
            if label and prev is not None and _paid_for(prev, prev_counted, n, before):
                # '... repurchased 1.9 million shares of our common stock for $214 million': one clause, one period
                label = f"{label} {prev.unit or prev_counted} {' '.join(before.split()).rstrip(' $')}"
                n = n if n.period else n.model_copy(update={"period": prev.period})
            elif content_words(own):
                label = own
            elif CHANGE_RE.search(label) and _REACHED_RE.fullmatch(before):
                if prev is None or not prev.change:
                    continue  # 'costs increased from $8.6 million to $16.7 million': no increase is typed
                # 'costs increased $8.6 million to $16.7 million': the increase is typed so; the level reached is
                # the costs'
                label = " ".join(CHANGE_RE.sub(" ", label).split())
            prev = n
            counted = prev_counted = _counted_after(text, n)
            own_label = f"{label} {counted}".strip()  # 'we operated 1,234 stores': the figure counts stores
            if not label or not n.period:
                continue
            out.append(Cell(seg=seg, label=own_label, header="", value=n, periods={n.period}, prose=True,
                             counts=counted))
    return out
