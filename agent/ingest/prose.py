"""The figures of a chunk's sentences, read once at ingest: each with its unit, scale, sign and the period written
next to it, or its place in a "..., respectively" list, or the filing's own period while the paragraph reports on it.
Numbers that name things (Note 7, Item 7, list markers, the day of a date) and footnote marks are no figures. The
reader takes them as stored (:class:`~agent.schemas.SentenceFigures`) and never parses a sentence's figures again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.finance.basis import bases_said, without_bases
from agent.finance.numbers import find_numbers
from agent.finance.periods import (
    CALENDAR_FY_END,
    PeriodMention,
    ends_in_month,
    find_periods,
    shift_period,
    without_periods,
)
from agent.finance.wording import FALL, FALL_OR_NAME, RESPECTIVE_RE, RISE
from agent.ingest.hostile import is_instruction_like
from agent.schemas import NumericValue, SentenceFigures

_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[\"“$])")


_CLAUSE_ENDS = (".", "!", "?", ":", ";", ",")
HEADING_MAX_WORDS = 10  # a line this short, unpunctuated, before a capitalised line, titles what follows
HEADING_CAPITALISED_SHARE = 0.6  # of its words other than small ones ('of', 'and', 'the') that are capitalised
_TITLE_SMALL_WORDS = frozenset({"a", "an", "and", "as", "at", "by", "for", "in", "of", "on", "or", "the", "to", "with"})


def _is_heading(line: str, rest: list[str]) -> bool:
    """A short unpunctuated line whose next line starts a new sentence ("Business Risks" above "Risks
    associated with ..."): a title of its own, not the start of the paragraph under it."""
    words = line.split()
    if len(words) > HEADING_MAX_WORDS or line.endswith(_CLAUSE_ENDS) or not line[0].isupper():
        return False
    # Titles capitalise their words ("Business Risks"); a wrapped sentence's first line does not.
    content = [w for w in words if w[0].isalpha() and w.lower() not in _TITLE_SMALL_WORDS]
    if sum(w[0].isupper() for w in content) < HEADING_CAPITALISED_SHARE * len(content):
        return False
    following = next((r.strip() for r in rest if r.strip()), "")
    return bool(following) and "|" not in following and following[0].isupper()


def split_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of ``text``, each table row (``a | b``) being one.

    Prose wrapped over several lines is one paragraph until a blank line, a table row, a heading line or a list's
    next item ('- ', '• '), so a sentence that continues on the next line stays whole and a title never runs into
    the text below it; offsets point into ``text`` as given.
    """
    spans: list[tuple[int, int]] = []
    para_start = -1
    para_end = -1
    pos = 0

    def flush() -> None:
        if para_start < 0:
            return
        start = para_start
        for m in _SENTENCE_END_RE.finditer(text, para_start, para_end):
            if text[start : m.start()].strip():
                spans.append((start, m.start()))
            start = m.end()
        if text[start:para_end].strip():
            spans.append((start, para_end))

    lines = text.split("\n")
    for i, line in enumerate(lines):
        start, end = pos, pos + len(line)
        pos = end + 1
        stripped = line.strip()
        open_ended = para_start >= 0 and not text[para_start:para_end].rstrip().endswith(_CLAUSE_ENDS)
        if not stripped or "|" in stripped or (not open_ended and _is_heading(stripped, lines[i + 1 :])):
            flush()
            para_start = -1
            if stripped:
                lead = len(line) - len(line.lstrip())
                spans.append((start + lead, start + lead + len(stripped)))
            continue
        if para_start >= 0 and stripped[:2] in {"- ", "• ", "* ", "– ", "· ", "▪ "}:
            flush()  # a list's item is a sentence of its own, however its item before ended
            para_start = -1
        if para_start < 0:
            para_start = start + len(line) - len(line.lstrip())
        para_end = end
    flush()
    return spans


def sentence_numbers(sentence: str, offset: int, periods: Sequence[PeriodMention] = ()) -> list[NumericValue]:
    """Numbers of a sentence, each with the period written next to it (``periods``: the sentence's, a date named in
    the filer's fiscal calendar: 'as of August 2, 2025' closes the second quarter of a year ending in January).

    A number takes the first period after it when no other number comes between ('$437 million in 2024'),
    else the nearest period before it with no number between ('In 2024, capex was $437 million').
    """
    numbers = [
        n
        for n in find_numbers(sentence)
        if not _label_number(sentence, n) and not ends_in_month(sentence[: n.start])
        and not any(p.start <= n.start < p.end for p in periods)  # the day of '31 December 2019' is the date's
    ]
    # '(2018: RMB229 million)': a period written as the label of the figure after it, the prior year's comparative
    labels = [p for p in periods if _LABEL_PERIOD_RE.match(sentence, p.end)]
    out: list[NumericValue] = []
    compared: list[bool] = []  # the figure's period is one it is compared with ('(6.7%) compared with 2016')
    for i, n in enumerate(numbers):
        nxt = numbers[i + 1].start if i + 1 < len(numbers) else len(sentence)
        prev = numbers[i - 1].end if i > 0 else 0
        after = [p for p in periods if n.end <= p.start < nxt and p not in labels]
        before = [p for p in periods if prev <= p.end <= n.start]
        period = after[0].norm if after else (before[-1].norm if before else "")
        compared.append(bool(after) and bool(_COMPARED_RE.search(sentence, n.end, after[0].start)))
        if not period and (_opening_period(sentence, periods, n) or _closing_period(sentence, periods, n)):
            period = periods[0].norm
        period = period or _lead_in_period(sentence, periods, n)
        comparative = next((p for p in labels if n.end <= p.start < nxt
                            and _COMPARATIVE_RE.fullmatch(sentence, n.end, p.start)), None)
        if not period and comparative is not None:
            period = shift_period(comparative.norm, 1)  # 'US$261,518 (2018: US$283,752)': the year after 2018's
        if not after and out and out[-1].period and _YEAR_EARLIER_RE.match(sentence, n.end):
            # '3.41% for the second quarter of 2025, compared with 3.22% a year earlier': the year before the
            # figure's it is compared with, never the period written before it
            period = shift_period(out[-1].period, -1)
        n = _as_stated_change(sentence, n, prev, out[-1] if out else None, numbers[i - 1] if i else None)
        out.append(n.model_copy(update={"period": period, "start": n.start + offset, "end": n.end + offset}))
    return _respectively(sentence, _one_period_per_change(sentence, out, compared, offset), periods, offset)


# A sentence opened by the one period it reports on ('At September 30, 2024, total debt was $7,310 million and cash
# was $544 million'; 'During fiscal 2024 we repurchased 2.1 million shares for $148 million', 'In the second quarter
# of 2025, ...'), and the words after
# which a figure is another period's or a change ('up from $4 million', 'an increase of $1 million'), or a part of the
# figure before it, named by words the reader of a sentence's figure does not take for its own ('of which $13.9
# million is related to stock options', '(including $0.7 million of debt issuance costs)').
_PERIOD_LEAD = r"(?:at|as\s+(?:of|at)|on|in|during|for)\s+(?:the\s+)?"  # the words that lead into a period
_OPENING_RE = re.compile(rf"\s*{_PERIOD_LEAD}", re.IGNORECASE)
_COMPARED_RE = re.compile(
    r"\b(?:from|compared|comparison|versus|vs\.?|prior|previous|before|against|than|increase[ds]?|decrease[ds]?"
    r"|change[ds]?|up|down|grew|rose|fell|declined?|growth|including|which)\b|\(",
    re.IGNORECASE,
)


def _opening_period(sentence: str, periods: Sequence[PeriodMention], n: NumericValue) -> bool:
    """Whether a figure with no period of its own is of the one period that opens its sentence ('At September 30,
    2024, ...', 'In fiscal 2024, ...'): every figure the sentence states is, unless the words between them compare
    it with another or name a change ('..., up from $4 million')."""
    opening = _OPENING_RE.match(sentence)
    if len(periods) != 1 or opening is None or opening.end() < periods[0].start - 1:
        return False
    return periods[0].end <= n.start and not _COMPARED_RE.search(sentence, periods[0].end, n.start)


# A list's lead-in, up to its colon ('2002 compared to 2001 the fluctuations in 2002 were caused by: operating
# revenues increased $411.0 million to $1.2 billion; ...'), and the words that make a period one compared with.
_LEAD_IN_END_RE = re.compile(r":(?=\s)")
_LIST_ITEMS_RE = re.compile(r"[;•]")  # what sets a list's items apart within one sentence
_COMPARED_WITH_RE = re.compile(
    r"\b(?:compared\s+(?:to|with)|versus|vs\.?|from|than|over|against)\s+(?:the\s+)?(?:fiscal\s+(?:year\s+)?)?$",
    re.IGNORECASE,
)


def _lead_in_period(sentence: str, periods: Sequence[PeriodMention], n: NumericValue) -> str:
    """The one period a list's lead-in reports on, for a figure of the list (items set apart by semicolons or
    bullets) after its colon that names none of its own: the lead-in names it (any number of times) besides only
    periods it is compared with, and nothing after the colon names a period. '' otherwise."""
    colons = [m.start() for m in _LEAD_IN_END_RE.finditer(sentence, 0, n.start)]
    if not colons or any(p.end > colons[-1] for p in periods):  # the last colon before the figure ends the lead-in
        return ""
    if not _LIST_ITEMS_RE.search(sentence, colons[-1]):
        return ""  # a run of figures after a colon ('consisted of: ... 29.9 16.7 46.6') is a table's, flattened
    own = {p.norm for p in periods if not _COMPARED_WITH_RE.search(sentence, 0, p.start)}
    return own.pop() if len(own) == 1 else ""


# A period written as the label of the figure after it ('(2018: RMB229 million)'), and the words between a figure
# and its comparative in parentheses ('US$261,518 (2018: US$283,752)').
_LABEL_PERIOD_RE = re.compile(r"\s*:")
_COMPARATIVE_RE = re.compile(r"\s*\(\s*")


# A figure said to be of the year before the one the figure before it is of ('..., compared with 3.22% a year
# earlier', 'in the prior-year quarter', 'in the year-ago period')
_YEAR_EARLIER_RE = re.compile(
    r"[\s,]*(?:(?:a|one)\s+year\s+(?:earlier|ago|before)|(?:in|for)\s+the\s+(?:prior|previous|year[- ]ago|same)"
    r"[- ](?:(?:fiscal\s+)?year(?:\s+(?:period|quarter))?(?![\w'-])|(?:period|quarter)(?:\s+(?:a\s+year\s+ago|last\s+year))?\b))",
    re.IGNORECASE,
)


# The one period a sentence closes with ('..., or 0.41% of total loans, at June 30, 2025.').
_CLOSING_RE = re.compile(rf"\b{_PERIOD_LEAD}$", re.IGNORECASE)
_SENTENCE_TAIL = " \t\n.;:)]"  # what may follow a sentence's closing period


def _closing_period(sentence: str, periods: Sequence[PeriodMention], n: NumericValue) -> bool:
    """Whether a figure with no period of its own is of the one period that closes its sentence ('Nonaccrual loans
    were $96.8 million, or 0.41% of total loans, at June 30, 2025.'): as with an opening period, unless the words
    between them compare it with another or name a change."""
    if len(periods) != 1 or sentence[periods[0].end:].strip(_SENTENCE_TAIL):
        return False
    written = sentence[periods[0].start:periods[0].end]
    if not (_OPENING_RE.match(written) or _CLOSING_RE.search(sentence, 0, periods[0].start)):
        return False
    return n.end <= periods[0].start and not _COMPARED_RE.search(sentence, n.end, periods[0].start)


# The words right before a figure that state it as a change of what the sentence names ('decreased by $932
# million', 'increased approximately 6%', 'up $3 million', 'an increase of $5 million'): a level it moved to
# ('decreased to 35%') or from ('up from $4 million') is no change. And the words between a stated change and its
# percentage ('by $1.8 billion (6.7%)', '$1.8 billion, or 6.7%').
_CHANGE_WORDS = (rf"(?:(?P<rise>{RISE}|up)|(?P<fall>{FALL}|{FALL_OR_NAME}|down))\s+(?:(?:by|of)\s+)?"
                 r"(?:(?:approximately|about|nearly|roughly|some)\s+)?[$€£]?\s*")
_STATED_CHANGE_RE = re.compile(rf"\b{_CHANGE_WORDS}$", re.IGNORECASE)
_CHANGE_LINK_RE = re.compile(rf"[\s,]*(?:(?:and|which)\s+)?{_CHANGE_WORDS}", re.IGNORECASE)  # right after a level
_PERCENT_OF_CHANGE_RE = re.compile(r"\s*(?:\(|,(?:\s*or)?)?\s*", re.IGNORECASE)
# What joins a percentage change on one basis to the same change on another, once the bases and periods are blanked
# ('12% as reported and 10% at constant exchange rates', '4% in 2017, or 2% on an organic basis').
_ANOTHER_BASIS_RE = re.compile(r"[\s,;]*(?:(?:in|for|during)[\s,;]+)?(?:and|or)?[\s,;]*", re.IGNORECASE)
_DIGIT_RE = re.compile(r"\d")
_REACHED_RE = re.compile(r"\s*,?\s*to\s+[$€£]?\s*", re.IGNORECASE)  # 'increased $8.6 million to $16.7 million'


def _as_stated_change(
    sentence: str, n: NumericValue, prev: int, last: NumericValue | None, last_raw: NumericValue | None
) -> NumericValue:
    """``n`` typed as a change when its sentence states it as one (see :data:`_STATED_CHANGE_RE`), signed by the
    direction its verb names ('Comparable sales decreased 1.8%': -1.8%); the percentage written right after a stated
    change ('decreased by $932 million (13.4%)') is that change's, in the same direction. Any other figure is as
    read. ``prev`` is where the words before it start; ``last``/``last_raw`` the figure before it, as typed and as
    found."""
    stated = _STATED_CHANGE_RE.search(sentence[prev : n.start])
    if stated is not None:  # the sign is the verb's; the text stays as printed, so the quote still shows it
        return n.model_copy(update={"value": -abs(n.value) if stated.group("fall") else abs(n.value), "change": True})
    if (last is not None and last_raw is not None and last.change and last.unit != "%" and n.unit == "%"
            and _PERCENT_OF_CHANGE_RE.fullmatch(sentence, last_raw.end, n.start)
            and (n.text.lstrip().startswith("(") or sentence[last_raw.end : n.start].strip())):
        # '(13.4%)' after the change: its parentheses set it apart, they make it no negative
        return n.model_copy(update={"value": -abs(n.value) if last.value < 0 else abs(n.value), "change": True})
    between = sentence[last_raw.end : n.start] if last_raw is not None else ""
    own = sentence[n.end :][: next((m.start() for m in _DIGIT_RE.finditer(sentence, n.end)), len(sentence)) - n.end]
    if (last is not None and last.change and last.unit == "%" and n.unit == "%"
            and (bases_said(between) or bases_said(own))
            and _ANOTHER_BASIS_RE.fullmatch(without_periods(without_bases(between)))):
        # 'an increase of 12% as reported and 10% at constant exchange rates', 'decreased 4% in 2017, or 2% on an
        # organic basis': the same change on another basis
        return n.model_copy(update={"value": -abs(n.value) if last.value < 0 else abs(n.value), "change": True})
    return n


def _one_period_per_change(
    sentence: str, numbers: list[NumericValue], compared: Sequence[bool], offset: int
) -> list[NumericValue]:
    """A level, the change it states, that change's percentage and the level it reached ('Net revenues of $28.7
    billion increased by $1.8 billion (6.7%) in 2017', 'costs increased $8.6 million to $16.7 million in 2024') are
    of one period: those the sentence gives none take the one period the others were written with, never one they
    are compared with ('... (6.7%) compared with 2016')."""
    out = list(numbers)
    i = 0
    while i < len(out):
        j = i
        while j + 1 < len(out) and _linked(sentence[out[j].end - offset : out[j + 1].start - offset], out[j],
                                           out[j + 1]):
            j += 1
        written = {out[k].period for k in range(i, j + 1) if out[k].period and not compared[k]}
        if j > i and len(written) == 1:
            period = written.pop()
            for k in range(i, j + 1):
                out[k] = out[k] if out[k].period else out[k].model_copy(update={"period": period})
        i = j + 1
    return out


def _linked(between: str, first: NumericValue, then: NumericValue) -> bool:
    """Whether ``then`` is the change ``first`` states, its percentage, or the level the change reached (the words
    ``between`` them say so)."""
    if then.change:
        return bool(_CHANGE_LINK_RE.fullmatch(between)) or first.change and bool(
            _PERCENT_OF_CHANGE_RE.fullmatch(between))
    return first.change and bool(_REACHED_RE.fullmatch(between))


def _respectively(
    sentence: str, numbers: list[NumericValue], periods: Sequence[PeriodMention], offset: int
) -> list[NumericValue]:
    """'Rent was $66.9 million, $57.2 million and $49.0 million in 2010, 2009 and 2008, respectively': each
    listed figure takes its period in order, and a scale written once ('$5 and $4 million') applies to all.
    A clause runs back from 'respectively' to the previous one or to the last sentence stop before it (lower-case
    extractions leave several sentences in one); a clause listing as many distinct periods as figures is read."""
    out = list(numbers)
    clause_start = 0
    for m in RESPECTIVE_RE.finditer(sentence):
        if not m.group("respectively"):
            continue
        at, clause_end = m.span("respectively")
        stop = sentence.rfind(" . ", clause_start, at)
        lo = stop + 3 if stop >= 0 else clause_start
        clause_start = clause_end
        idx = [i for i, n in enumerate(out) if lo <= n.start - offset < at]
        norms = list(dict.fromkeys(p.norm for p in periods if lo <= p.start < at))
        if len(idx) < 2 or len(norms) != len(idx):
            continue
        listed = _shared_scale([out[i] for i in idx])
        for i, n, period in zip(idx, listed, norms, strict=True):
            out[i] = n.model_copy(update={"period": period})
    return out


def _shared_scale(numbers: Sequence[NumericValue]) -> list[NumericValue]:
    """'$5 and $4 million': a scale word written once after a list of figures applies to each of them."""
    last = numbers[-1]
    units = {n.unit for n in numbers} - {""}
    if last.scale == 1.0 or any(n.scale != 1.0 for n in numbers[:-1]) or len(units) > 1 or "%" in units:
        return list(numbers)  # '5% and $4 million' are two kinds of figure: nothing is shared
    return [*(n.model_copy(update={"scale": last.scale, "unit": n.unit or last.unit}) for n in numbers[:-1]), last]


FOOTNOTE_RE = re.compile(r"\(\s*\d{1,2}\s*\)")  # '( 1 )' marks a footnote, not a negative one


def _label_number(text: str, n: NumericValue) -> bool:
    """Numbers that name things ('Note 7', 'Item 7', '10-K', '3M', 'Tier 1', 'Level 3') or mark footnotes ('Other
    items(1)', '(1) Represents ...'), not values."""
    if FOOTNOTE_RE.fullmatch(n.text.strip()) and n.unit == "" and n.scale == 1.0:
        return True
    before = text[max(0, n.start - 10) : n.start]
    after = text[n.end : n.end + 2]
    if re.search(
        r"(?:\bItem|\bNotes?|\bSection|\bRule|\bPart|\bpage|\bExhibit|\bNo\.|\bForm|\bTier|\bLevel|\bStage|\bPhase)\s*$",
        before, re.I
    ):
        return True
    if after[:1].isalpha() or re.match(r"-[A-Za-z]", after):
        return True
    if (re.match(r"\s?\)", after) and "(" not in n.text and not re.search(r"\(\s*$", before)
            and n.unit == "" and n.scale == 1.0):
        return True  # '1 ) fuel , 2 ) purchased power': a list marker, not a value (never an amount: '– C$5 million)')
    return bool(re.search(r"\d[A-Za-z]", n.text)) and n.unit == "" and n.scale == 1.0


# A quarter named by its place alone ('the second quarter', 'this quarter', 'the quarter'), not another year's
_THE_QUARTER_RE = re.compile(
    r"\b(?:the|this)\s+(?:(?P<ordinal>first|second|third|fourth)\s+)?quarter\b(?!\s+(?:of|last|a\s+year|ended))",
    re.IGNORECASE,
)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}


def _names_reported_quarter(sentence: str, filing_period: str) -> bool:
    """Whether ``sentence`` names the quarter the filing reports by its place alone ('During the second quarter'
    of a second quarter's release), no other quarter and no year."""
    quarter = filing_period[-1] if filing_period[-2:-1] == "Q" else ""
    found = list(_THE_QUARTER_RE.finditer(sentence))
    return bool(quarter and found) and all(
        m.group("ordinal") is None or _ORDINALS[m.group("ordinal").lower()] == int(quarter) for m in found)


def read_sentences(text: str, fy_end_month: int, filing_period: str, rows: bool) -> list[SentenceFigures]:
    """The figures of each sentence of a chunk's ``text`` that states any, with offsets into it; ``rows``: the
    chunk's lines with bars are its table's rows (its typed record's), no sentences.

    The filing's own period (``filing_period``) holds while the paragraph's latest sentence naming a period names it
    ('Revenue for 2024 was C$2,841.6 million, up 7% from 2023. Adjusted EBITDA was C$1,102.3 million.'): an undated
    sentence after it reports on that period too. Any other period named last, a table row or a new paragraph ends
    it. A sentence that reads as an instruction (text planted in a filing) states nothing.
    """
    out: list[SentenceFigures] = []
    reported, last_end = "", 0
    for start, end in split_sentences(text):
        piece = text[start:end]
        if "\n\n" in text[last_end:start] or "|" in piece:
            reported = ""
        last_end = end
        if (rows and "|" in piece) or is_instruction_like(piece):
            continue
        periods = find_periods(piece, fy_end_month or CALENDAR_FY_END)
        figures = sentence_numbers(piece, start, periods)
        named = {p.norm for p in periods}
        if named:
            reported = filing_period if filing_period in named else ""
        elif reported:
            figures = [n if n.period else n.model_copy(update={"period": reported}) for n in figures]
        elif _names_reported_quarter(piece, filing_period):
            # 'During the second quarter we repurchased ...' in the second quarter's filing: that quarter's
            figures = [n if n.period else n.model_copy(update={"period": filing_period}) for n in figures]
        if figures:
            out.append(SentenceFigures(start=start, end=end, figures=figures))
    return out
