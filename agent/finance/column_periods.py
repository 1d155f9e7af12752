"""The periods a table's column and row labels name ('Three Months Ended July 29, 2023', 'Fiscal 2024', 'As at 31
December 2018'), and the labels that name no one period: spans of years ('2021 -22', '2025 and thereafter'),
maturity and ageing buckets ('1-3 years', '61-90 days past due') and comparisons ('2019 vs 2018'). The words of a
period themselves are read by :mod:`agent.finance.periods`."""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.finance.fiscal_calendar import period_close, same_calendar
from agent.finance.periods import (
    CALENDAR_FY_END,
    find_periods,
    infer_fy_end_month,
    normalise_period,
    parse_date,
)

# A column of several years or an open end ('2009 - 2010', '2021 -22', '2025 and thereafter') is no one period, nor
# is a maturity or ageing bucket counted from the balance sheet date ('Less than 1 year', '1-3 years', 'More than 5
# years', '1-90 days past due').
_SPAN_LABEL_RE = re.compile(
    r"\b(?:19|20)\d{2}\s*[-–]\s*\d{2,4}\b|\bthereafter\b|\bbeyond\b|\band\s+(?:later|after)\b|"
    r"\b(?:less|more)\s+than\s+(?:one|two|three|five|\d{1,2})\s+years?\b|\b\d{1,3}\s*[-–]\s*\d{1,3}\s+[a-z]{3,4}s\b|"
    r"\byears\s*\d{1,2}\s*[-–]\s*\d{1,2}\b|\b(?:within|after|over)\s+(?:one|\d{1,2})\s+years?\b",
    re.IGNORECASE,
)
_DURATION_HEADER_RE = re.compile(r"\bmonths?\b|\bweeks?\b|\bquarters?\b", re.IGNORECASE)


def is_span_label(label: str) -> bool:
    """'2009 - 2010', '2021 -22', '2025 and thereafter', '1-3 years': a column or row of several years, no one
    period."""
    return _SPAN_LABEL_RE.search(label) is not None


def without_spans(label: str) -> str:
    """``label`` with its spans of years blanked ('1-3 years' -> ' ', an open-ended bucket too: '>360 days'): what
    is left says whether it prints a figure."""
    words = _SPAN_LABEL_RE.sub(" ", label).split(" ")
    for i, word in enumerate(words):
        if is_bucket(word) and word[:1] in OPEN_ENDS:
            words[i] = ""
            if i + 1 < len(words) and words[i + 1].isalpha():
                words[i + 1] = ""  # its unit: '>360 days'
    return " ".join(words)


OPEN_ENDS = "<>≤≥"  # an open-ended bucket's sign ('>360', '<30')


def is_bucket(text: str) -> bool:
    """Whether ``text`` is a bucket's span of numbers ('1–90', '91-180', '>360'), never two years ('2018-2019')."""
    low, _, high = text.strip().lstrip(OPEN_ENDS).replace("–", "-").partition("-")
    if not low.isdigit() or (high and not high.isdigit()):
        return False
    return not high or not (len(low) == 4 and len(high) in {2, 4})


def is_duration_label(label: str) -> bool:
    """'Three Months Ended ...', '52 weeks', 'Fourth quarter': a label naming a span of months, not a date."""
    return _DURATION_HEADER_RE.search(label) is not None


def column_periods(labels: Sequence[str], fy_end_month: int = 0) -> list[str]:
    """Normalised periods of a table's column labels ('' where a label is no period), in a fiscal year ending in
    ``fy_end_month`` (the filer's, when known).

    A half or nine-month column says when the fiscal year starts ('Six Months Ended July 29, 2023': early
    February), so its 'Three Months Ended July 29, 2023' is the second quarter, not the third. Point-in-time
    columns of one month in different years ('May 31, 2020', 'May 26, 2019') are fiscal year ends, so that month
    ends the fiscal year: both are whole fiscal years (FY2020, FY2019), not quarters.
    """
    dated = [(label, parse_date(label)) for label in labels]
    points = [d for label, d in dated if d is not None and not is_duration_label(label)]
    # The table's own labels decide first; the filer's calendar only where they say nothing of it.
    own = same_calendar(infer_fy_end_month(" | ".join(labels), 0), fy_end_month)
    if not own and len(points) >= 2 and len({d.year for d in points}) == len(points):
        months = {period_close(d)[1] for d in points}
        own = months.pop() if len(months) == 1 else 0
    fy_end = own or fy_end_month or CALENDAR_FY_END
    return [normalise_period(label, fy_end) if label and not is_span_label(label) else "" for label in labels]


_PERIOD_FILLER = frozenset({"as", "at", "of", "for", "the", "year", "years", "ended", "ending", "fiscal", "period"})


def names_several_periods(label: str) -> bool:
    """A column name that prints two periods or more ('2019 and 2018', '% Change 2019 vs 2018'): a comparison
    or a span, whose figures are none of those periods'."""
    return len({m.norm for m in find_periods(label)}) > 1


def single_period(text: str, fy_end_month: int, alone: bool = False) -> str:
    """The one period ``text`` names (normalised; '' when it names none or several); ``alone``: the text is
    nothing but that period ('As at 31 December 2018'), not a title that also names one ('Fiscal 2019 results')."""
    mentions = find_periods(text)
    if len({m.norm for m in mentions}) != 1:
        return ""
    if alone:
        rest = text[: mentions[0].start] + " " + text[mentions[-1].end :]
        if any(w not in _PERIOD_FILLER for w in re.findall(r"[a-z]+", rest.lower())):
            return ""
    return column_periods([mentions[0].surface], fy_end_month)[0]
