"""Counts a filing states in its sentences, read once at ingest as facts of the thing they count.

'As of January 31, 2025, we operated 312 stores in 28 states, compared with 298 stores a year earlier' holds two
facts: 312 stores at 2025-01-31 and 298 stores a year before. Each is stored with what it counts (the words after
the number, :mod:`agent.finance.counted`), its date in the filer's calendar, how the sentence qualifies it
('approximately') and where it is printed; the answer step chooses among them and never reads the sentence again.

Read from prose only (table rows are typed tables), and only counts of a state: a number after an event verb
('we opened 25 stores') counts a change, and a number that is an amount, a share or a date counts nothing.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from datetime import date

from agent.finance.counted import EMPLOY_RE, counted_key, counted_words, is_event
from agent.finance.fiscal_calendar import instant_norm
from agent.finance.numbers import figure_qualifier
from agent.finance.periods import find_periods
from agent.schemas import Chunk, CountFact, Page

# A number written as digits (thousands grouped by commas) or as a word; not part of a word, an amount, a decimal
# or a date ('$312', '3.5', '10-K', '12/31').
_NUMBER_RE = re.compile(
    r"(?<![\w$€£¥.,/-])(?:\d{1,3}(?:,\d{3})+|\d+)(?![\w%]|[.,/-]\d)"
    r"|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty)\b",
    re.IGNORECASE,
)
_NUMBER_WORDS = {w: i + 1 for i, w in enumerate(
    ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"])}
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(“\"])|\n\s*\n")
MIN_SENTENCE_WORDS = 6  # shorter lines are headings ('Note 9 Employee Costs'), which state no count
VERB_WINDOW = 4  # words before a number searched for the verb that makes it an event
# 'compared with 298 stores a year earlier', 'from 298 in the prior year': the count is a year before the date.
_YEAR_BEFORE_RE = re.compile(r"^[^.;,\d]{0,12}?\b(?:a\s+year\s+(?:earlier|ago|before)|(?:in\s+|at\s+)?the\s+prior\s+"
                             r"year|(?:at\s+)?(?:the\s+end\s+of\s+)?(?:the\s+)?previous\s+year|last\s+year)\b",
                             re.IGNORECASE)
# The counted words as the subject of 'be' and a complement (after an aside between commas): the count is of
# those the complement holds of ('were union represented'), a part of the thing; 'were employed by' is all of it.
_SUBJECT_PREDICATE_RE = re.compile(r"^\s*(?:,[^,]{0,120},\s*)?(?:were|was|are|is)\s+(?:(?:also|then)\s+)?"
                                   r"(?P<word>[A-Za-z-]+)", re.IGNORECASE)
# The counted words bounded by a threshold ('1,215 customers with ARR of more than $100,000', 'clients that
# generated over $1 million'): a count of a part of the thing, never of all of it.
_THRESHOLD_RE = re.compile(
    r"^\s*(?:with|having|whose|generating|paying|spending|contributing|that\s+\w+|who\s+\w+)\b[^.;,]{0,40}?"
    r"\b(?:more\s+than|over|above|at\s+least|exceeding|greater\s+than|in\s+excess\s+of)\b",
    re.IGNORECASE,
)
MAX_YEAR = 2100
MIN_YEAR = 1900


def _value(text: str) -> float | None:
    low = text.lower()
    if low in _NUMBER_WORDS:
        return float(_NUMBER_WORDS[low])
    digits = text.replace(",", "")
    if len(digits) == 4 and MIN_YEAR <= int(digits) < MAX_YEAR and "," not in text:
        return None  # a year, not a count
    return float(digits)


def _sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text[start:end]``."""
    out = []
    at = start
    for m in _SENTENCE_END_RE.finditer(text, start, end):
        out.append((at, m.start()))
        at = m.end()
    out.append((at, end))
    return [(a, b) for a, b in out if b > a]


def _date_of(sentence: str, at: int, fy_end_month: int) -> tuple[str, str]:
    """(ISO date, fiscal label) the number at offset ``at`` of ``sentence`` is dated by: the nearest dated period
    before it (after it when none is before), else the nearest period of any kind; ('', '') for none."""
    mentions = find_periods(sentence, fy_end_month)
    dated = [m for m in mentions if m.date]
    before = [m for m in dated if m.end <= at]
    chosen = before[-1] if before else next((m for m in dated if m.start >= at), None)
    if chosen is not None:
        return chosen.date, instant_norm(date.fromisoformat(chosen.date), fy_end_month)
    if mentions:
        earlier = [m for m in mentions if m.end <= at]
        return "", (earlier[-1] if earlier else mentions[0]).norm
    return "", ""


def _year_before(iso: str) -> str:
    d = date.fromisoformat(iso)
    return (d.replace(year=d.year - 1) if not (d.month == 2 and d.day == 29) else d.replace(year=d.year - 1, day=28)
            ).isoformat()


def read_counts(text: str, pages: Sequence[Page], chunks: Sequence[Chunk], fy_end_month: int,
                period_end: str = "") -> list[CountFact]:
    """The counts stated in the prose of a document (``text``: its pages joined), with their dates: a sentence's
    own, else ``period_end`` (the filing's, for a sentence in the present that states none)."""
    fy_end_month = fy_end_month or 12
    starts = [p.char_start for p in pages]
    flat = text.replace("\n", " ")  # a line break inside a sentence is a space; offsets stay
    out: list[CountFact] = []
    for chunk in chunks:
        if chunk.is_table:
            continue
        for s_start, s_end in _sentences(text, chunk.char_start, chunk.char_end):
            sentence = flat[s_start:s_end]
            if len(sentence.split()) < MIN_SENTENCE_WORDS:
                continue
            for m in _NUMBER_RE.finditer(sentence):
                fact = _count(sentence, m, fy_end_month, period_end)
                if fact is None:
                    continue
                at = s_start + m.start()
                page = pages[max(0, bisect.bisect_right(starts, at) - 1)]
                out.append(fact.model_copy(update={
                    "page": page.page, "span_start": at - page.char_start, "span_end": at - page.char_start +
                    len(m.group()), "quote": " ".join(sentence.split()), "chunk_id": chunk.chunk_id,
                }))
    return out


def _count(sentence: str, m: re.Match[str], fy_end_month: int, period_end: str) -> CountFact | None:
    value = _value(m.group())
    if value is None:
        return None
    words = counted_words(sentence, m.end())
    if not words or not sentence[m.end():].lstrip()[:1].islower():
        return None  # a heading's or a name's capitalised words count nothing the reader can tell
    before = re.findall(r"[A-Za-z]+", sentence[: m.start()])[-VERB_WINDOW:]
    if is_event(before):
        return None
    as_of, period = _date_of(sentence, m.start(), fy_end_month)
    dated_by = "sentence"
    if not as_of and not period:
        if not period_end:
            return None
        as_of, period, dated_by = period_end, instant_norm(date.fromisoformat(period_end), fy_end_month), "filing"
    after = sentence[m.end():]
    predicate = _SUBJECT_PREDICATE_RE.match(after[len(" ".join(words)) + 1:])
    if _THRESHOLD_RE.match(after[len(" ".join(words)) + 1:]):
        return None  # the customers above a threshold are no count of the company's customers
    if predicate is not None and not EMPLOY_RE.match(predicate.group("word")):
        return None  # '50,000 employees, which constitute 32% of our workforce, were union represented': those of them
    if _YEAR_BEFORE_RE.match(after[len(" ".join(words)) + 1:]):
        if not as_of:
            return None
        as_of = _year_before(as_of)
        period = instant_norm(date.fromisoformat(as_of), fy_end_month)
    return CountFact(
        value=value, text=m.group(), bound=figure_qualifier(sentence, m.start(), m.end()), counted=" ".join(words),
        key=counted_key(words, employed=any(EMPLOY_RE.match(w) for w in before) or predicate is not None), as_of=as_of, dated_by=dated_by, period=period, page=0, span_start=0, span_end=0,
        quote="",
    )
