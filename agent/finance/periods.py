"""Find and normalise fiscal periods: "fiscal 2018", "FY18", "three months ended June 30, 2023", "1H22".

Normalised periods are strings of one grammar (:data:`NORM_RE`):

- ``FY2018``   a fiscal year
- ``FY2023Q2`` a fiscal quarter
- ``FY2022H1`` a fiscal half
- ``FY2023M9`` the first nine months (year to date at the third quarter)

A point in time ("as of December 31, 2022") normalises to the fiscal year or quarter it closes and keeps its
ISO date in :attr:`PeriodMention.date`. Dates map to fiscal periods through the fiscal year-end month: with a
December year end, "three months ended June 30, 2023" is ``FY2023Q2``; with a May year end (stated in the text
as "fiscal year ended May 31" or passed in), "three months ended August 31, 2019" is ``FY2020Q1``. Periods of
52/53-week calendars that close in a month's first week ("January 1, 2022") belong to the previous month.
A fiscal year is named for the calendar year in which it ends unless the text names it ("fiscal 2023").
Relative expressions ("last year", "latest quarter") are resolved by the intent extractor, not here.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import NamedTuple

from pydantic import BaseModel, Field

from agent.finance.fiscal_calendar import (
    MONTHS_PER_QUARTER,
    SNAP_DAY,
    duration_norm,
    fiscal_quarter_of,
    instant_norm,
    norm_for_months,
    period_close,
    same_calendar,
)

NORM_RE = re.compile(r"^FY(?P<year>\d{4})(?P<sub>Q[1-4]|H[12]|M9)?$")
TWO_DIGIT_PIVOT = 70  # "FY18" is 2018 and "FY98" is 1998: filings in scope start in the 1990s
BARE_YEAR_MIN, BARE_YEAR_MAX = 1990, 2099  # a bare number outside this range is not read as a fiscal year
QUARTERS_PER_YEAR, HALVES_PER_YEAR = 4, 2
MONTHS_TO_DATE = (6, 9)  # the spans of months an analyst writes as '6M' or '9M': a half and nine months to date
EARLY_YEAR_MIN = 1900  # ... unless a temporal word introduces it ('in 1987', 'during fiscal 1988')
_EARLY_YEAR_CUE = re.compile(
    r"(?:\b(?:in|during|for|since|fiscal|year|ended|through|from|between)|\b(?:year|end|close|beginning|start)\s+of"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?(?:\s+of)?)\s+$",
    re.IGNORECASE,
)

_QUARTERS_OF: dict[str, frozenset[int]] = {
    "": frozenset({1, 2, 3, 4}),
    "Q1": frozenset({1}),
    "Q2": frozenset({2}),
    "Q3": frozenset({3}),
    "Q4": frozenset({4}),
    "H1": frozenset({1, 2}),
    "H2": frozenset({3, 4}),
    "M9": frozenset({1, 2, 3}),
}
_KIND_OF: dict[str, str] = {"": "year", "Q": "quarter", "H": "half", "M": "nine_months"}


class PeriodMention(BaseModel):
    """A period found in text: normalised form, character offsets, the words as written."""

    norm: str = Field(description="FY2018 | FY2023Q2 | FY2022H1 | FY2023M9")
    start: int
    end: int
    surface: str
    kind: str = Field(default="year", description="year | quarter | half | nine_months | point")
    date: str = Field(default="", description="ISO date of a period end or point in time, when written")
    months: int = Field(default=0, description="how many months a period written as a date spans; 0 for a point "
                        "in time or a period named by label")
    to_date: bool = Field(default=False, description="a year to date closed by the date: its months are those of "
                          "the fiscal year to the end of the quarter the date closes, in whichever calendar")


# ---------------------------------------------------------------------------------------------------------
# Patterns
# ---------------------------------------------------------------------------------------------------------
_MONTH_NUM: dict[str, int] = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}
# A month's name or its abbreviation, whole: 'Dec.' is one, 'decreased' and 'Marketing' are none (callers end it
# with a word boundary or a lookahead).
MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|"
    r"Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)(?:\s?\.)?"  # 'dec . 28': a tokenizer's space before the dot
)
_Y4 = r"(?:19|20)\d{2}"
_DATE = (
    rf"\b(?:{MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\s?,?\s+{_Y4}|\d{{1,2}}\s+{MONTH},?\s+{_Y4}"
    rf"|{_Y4}-\d{{2}}-\d{{2}}|\d{{1,2}}/\d{{1,2}}/{_Y4}|(?<![\d/])\d{{1,2}}/\d{{1,2}}/\d{{2}}(?![\d/])"
    rf"|\d{{1,2}}-{MONTH}-(?:{_Y4}|\d{{2}})\b)"
)
_MORE_YEARS = rf"(?P<more>(?:\s*,?\s*(?:and\s+|&\s+)?{_Y4}\b(?!\s*%))*)"
_DATE_PARTS = [
    re.compile(rf"(?P<mon>{MONTH})\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s?,?\s+(?P<year>{_Y4})", re.I),
    re.compile(rf"(?P<day>\d{{1,2}})\s+(?P<mon>{MONTH}),?\s+(?P<year>{_Y4})", re.I),
    re.compile(rf"(?P<year>{_Y4})-(?P<mnum>\d{{2}})-(?P<day>\d{{2}})"),
    re.compile(rf"(?P<mnum>\d{{1,2}})/(?P<day>\d{{1,2}})/(?P<year>{_Y4})"),
    # '12/28/12', '31-dec-2016': numeric and day-month-year dates with a two-digit year (performance tables)
    re.compile(r"(?<![\d/])(?P<mnum>\d{1,2})/(?P<day>\d{1,2})/(?P<year>\d{2})(?![\d/])"),
    re.compile(rf"(?P<day>\d{{1,2}})-(?P<mon>{MONTH})-(?P<year>{_Y4}|\d{{2}})\b", re.I),
]
# '12/09' alone (a column header of a performance graph): the month-end of that month and year.
_MONTH_WORD_RE = re.compile(MONTH, re.IGNORECASE)
_MONTH_TAIL_RE = re.compile(rf"\b{MONTH}(?:\s+(?P<day>\d{{1,2}}))?\s*$", re.IGNORECASE)
_SPLIT_YEAR_LABEL = re.compile(r"((?:19|20)\d{2})\s*/\s*((?:19|20)?\d{2})")  # a fiscal year over two calendars
_MONTH_YEAR_LABEL = re.compile(r"(?P<mnum>\d{1,2})/(?P<year>\d{2}|(?:19|20)\d{2})")
_DURATION_WORDS: dict[str, int] = {
    "three": 3, "six": 6, "nine": 9, "twelve": 12, "thirteen": 3, "twenty six": 6, "thirty nine": 9,
    "fifty two": 12, "fifty three": 12, "3": 3, "6": 6, "9": 9, "12": 12, "13": 3, "14": 3, "26": 6, "27": 6,
    "39": 9, "40": 9, "52": 12, "53": 12,
}
# Weeks written as words in a 52/53-week calendar's headers ('twelve weeks ended', 'fifty-two weeks ended').
_WEEK_WORDS: dict[str, int] = {
    "twelve": 12, "thirteen": 13, "twenty six": 26, "thirty nine": 39, "fifty two": 52, "fifty three": 53,
}
# The months a run of weeks closes in a 52/53-week calendar: a quarter is 12 to 17 weeks (a 12-12-12-16 year
# too), a half 24 to 28, nine months 36 to 41, a year 52 or 53.
_WEEK_SPANS: tuple[tuple[int, int, int], ...] = ((12, 17, 3), (24, 28, 6), (36, 41, 9), (52, 53, 12))


def _duration_months(dur: str, unit: str) -> int:
    """Months of a duration as a header writes it ('six' months, '26' weeks -> 6); 0 for a span no calendar uses."""
    if unit.lower().startswith("week"):
        return weeks_months(dur)
    months = _DURATION_WORDS.get(re.sub(r"[\s-]+", " ", dur.lower()), 0)
    return int(dur) if dur.isdigit() and months == 0 else months


def weeks_months(dur: str) -> int:
    """Months of a duration in weeks ('12' -> 3, '26' -> 6, 'fifty-two' -> 12); 0 for a span no calendar uses."""
    weeks = int(dur) if dur.isdigit() else _WEEK_WORDS.get(re.sub(r"[\s-]+", " ", dur.lower()), 0)
    return next((months for lo, hi, months in _WEEK_SPANS if lo <= weeks <= hi), 0)


_DUR = (
    r"(?:three|six|nine|twelve|thirteen|twenty[\s-]six|thirty[\s-]nine|fifty[\s-]two|fifty[\s-]three"
    r"|\d{1,2})"
)
_ORD_Q: dict[str, int] = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4
}
# A year after FY/fiscal: four digits, or two digits after FY or an apostrophe.
_FY_YEAR = (
    rf"(?:(?:FY|F/Y)\s*['’]?(?P<y2>\d{{2}})\b"
    rf"|(?:FY\s*|fiscal\s+(?:year\s+)?|calendar\s+(?:year\s+)?)?['’]?(?P<y>{_Y4}))"
)

# What joins a span to the day it closes: 'ended', and as British filings and analysts write it, 'to' or 'through'
# ('the six months to 30 June 2025', 'the quarter through June 30, 2025').
_CLOSED_BY = r"(?:ended|ending|then\s+ended|to|through|thru)"
# The day a span closes, or only its month ('the quarter ended June 2025'): then the month's last day.
_CLOSING = rf"(?:{_DATE}|\b{MONTH},?\s+{_Y4}\b)"
_P_DURATION = re.compile(
    rf"\b(?P<dur>{_DUR})(?:\s+and\s+(?P<dur2>{_DUR}))?[\s-]+(?P<unit>months?|weeks?)\s+(?:period\s+)?"
    rf"{_CLOSED_BY}\s+(?:on\s+)?(?P<date>{_CLOSING}){_MORE_YEARS}",
    re.I,
)
_P_YEAR_ENDED = re.compile(
    rf"\b(?:fiscal\s+)?(?P<unit>years?|quarters?)\s+{_CLOSED_BY}\s+(?:on\s+)?(?P<date>{_CLOSING}){_MORE_YEARS}",
    re.I,
)
# A quarter named by the month it closes, as US companies on other calendars are asked about: 'the June 2025
# quarter', 'the March quarter of 2025'.
_P_MONTH_QUARTER = re.compile(
    rf"\b(?P<mon>{MONTH})[\s-]+(?:(?P<y>{_Y4})[\s-]+quarter\b|quarter\s+(?:of\s+)?(?:fiscal\s+)?(?P<y2>{_Y4})\b)",
    re.I,
)
# A year to date closed by a day or a month: 'YTD June 2025', 'year-to-date through June 30, 2025', 'June 2025 YTD'.
_TO_DATE = r"(?:year[\s-]+to[\s-]+date|ytd)"
_P_TO_DATE_CLOSED = re.compile(
    rf"\b{_TO_DATE}\s+(?:{_CLOSED_BY}\s+)?(?P<date>{_CLOSING})|(?P<date2>{_CLOSING})\s+{_TO_DATE}\b", re.I)
_P_POINT = re.compile(rf"(?P<date>{_DATE}){_MORE_YEARS}", re.I)
# "as of December 31, 2022" keeps its "as of" in the mention.
_POINT_PREFIX = re.compile(r"\b(?:as\s+of|as\s+at|at)\s+$", re.I)
_P_QUARTER = [
    re.compile(
        rf"\bQ(?P<q>[1-4])\s*(?:['’]|of\s+|,\s*)?\s*(?:FY|fiscal\s+(?:year\s+)?)?\s*['’]?"
        rf"(?P<y>{_Y4}|\d{{2}})\b",
        re.I,
    ),
    re.compile(rf"\b(?:FY|fiscal\s+(?:year\s+)?)\s*['’]?(?P<y>{_Y4}|\d{{2}})\s*[-\s]?Q(?P<q>[1-4])\b", re.I),
    re.compile(rf"\b(?P<y>{_Y4})\s*[-\s]?Q(?P<q>[1-4])\b", re.I),
    re.compile(
        rf"\b(?P<ord>first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+(?:fiscal\s+)?(?:quarters?|three\s+months)\s+"
        rf"(?:of\s+|in\s+)?(?:the\s+)?{_FY_YEAR}",
        re.I,
    ),
    # the year before the quarter: 'the fiscal 2019 second quarter', '2024 fourth-quarter revenue'
    re.compile(
        rf"{_FY_YEAR}[\s-]+(?P<ord>first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+(?:fiscal\s+)?quarters?\b",
        re.I,
    ),
]
_P_HALF = [
    # 'the first six months of 2024' is its first half, as 'the first nine months' is its nine months
    # 'Six Months 2025' over a release's columns: the six months from the year's start, its first half
    re.compile(rf"\b(?:(?P<ord>first|second|1st|2nd)\s+(?:half|six\s+months)|six\s+months)\s+(?:of\s+)?(?:the\s+)?"
               rf"{_FY_YEAR}", re.I),
    re.compile(
        rf"\bH(?P<h>[12])\s*(?:['’]|of\s+|,\s*)?\s*(?:FY|fiscal\s+)?\s*['’]?(?P<y>{_Y4}|\d{{2}})\b", re.I
    ),
    re.compile(rf"\b(?:FY|fiscal\s+(?:year\s+)?)\s*['’]?(?P<y>{_Y4}|\d{{2}})\s*[-\s]?H(?P<h>[12])\b", re.I),
]
# An analyst's count before its span, then the year: '3Q24' (a quarter), '1H25' (a half), '9M25' (nine months to date),
# '6M FY25' (six months, the first half). Not after a currency sign or a figure ('$9M 2020' is an amount), and
# '3M' is no span ('3M 2018' is a company and a year).
_P_COUNTED_SPAN = re.compile(
    rf"(?<![$€£.,\d])\b(?P<n>[1-9])(?P<span>[QHM])\s*(?:FY)?\s*['’]?(?P<y>{_Y4}|\d{{2}})\b", re.I
)
_P_NINE = re.compile(rf"\b(?:first\s+)?nine\s+months\s+(?:of\s+)?(?:the\s+)?{_FY_YEAR}", re.I)
_P_FY = [
    # 'FY24', 'F/Y 2024'; 'YE24', 'FYE 2024', an analyst's (fiscal) year-end; the prefix makes it a year even before
    # a '%' ('FY24 %')
    re.compile(r"\b(?:F/?Y|F?YE)\s*['’]?(?P<y>(?:19|20)\d{2}|\d{2})\b", re.I),
    re.compile(
        rf"\b(?:fiscal|calendar)\s+(?:years?\s+)?(?:of\s+)?['’]?(?P<y>{_Y4}|(?<=['’])\d{{2}})\b{_MORE_YEARS}",
        re.I,
    ),
    re.compile(rf"\bCY\s*(?P<y>{_Y4})\b"),
    # 'F19', 'F18': a fiscal year as Australian and British reports head their columns (upper case, no dash:
    # 'F-16' is an aircraft, 'Form F-1' a form)
    re.compile(r"(?<![\w-])F(?P<y>[0-3]\d)\b(?![-.]\d)"),
]
# A fiscal year written by the two calendar years it spans, '2017/18', '2018/2019', '2018-19': the year it ends
# in. The second year must follow the first ('2017-19' is a range; a dash with four digits, '2018-2019', too).
_P_SPLIT_YEAR = re.compile(
    r"(?<![\w$.,/\-])(?P<y1>(?:19|20)\d{2})(?:\s?/\s?(?P<y2>(?:19|20)?\d{2})|-(?P<y3>\d{2}))(?![\w%/-]|[.,]\d)"
)
# A bare year: not inside a larger number, an ISO date, a percentage or an amount.
_P_BARE_YEAR = re.compile(r"(?<![\w$.,/\-])(?P<y>(?:19|20)\d{2})(?![\w%]|[.,]\d|\s*%|-\d|/\d)")
# Words before a year that make it a name or a maturity, not a reporting period.
_BARE_YEAR_BEFORE = re.compile(
    r"(?:\bdue|\bmatur\w*|\bnotes?|\bact\s+of|\bsection|\brule|\bplan|\bfund|\bform|\bpage|\bno\.?|\bseries|"
    r"\bexpir\w*|\bclass|\btranche|\bstandard|\basu|\bbonds?|\bdebentures?|\bsfas|\bversion|\bstreet|\bsuite|"
    r"\bvintage|\bpercent|\$)\s*$",
    re.I,
)
_BARE_YEAR_AFTER = re.compile(
    r"^\s*(?:notes?\b|senior\b|bonds?\b|debentures?\b|plan\b|act\b|term\s+loan)", re.I
)


def _counted_span(n: int, span: str) -> tuple[str, str]:
    """The fiscal label's suffix and kind of ``n`` spans of one letter ('3', 'Q': the third quarter; '9', 'M': the
    nine months to date); ('', '') for a count the span cannot have ('5Q', '2M')."""
    if span == "Q" and n <= QUARTERS_PER_YEAR:
        return f"Q{n}", "quarter"
    if span == "H" and n <= HALVES_PER_YEAR:
        return f"H{n}", "half"
    suffix = _TO_DATE_SUFFIX.get(n // MONTHS_PER_QUARTER, "") if span == "M" and n in MONTHS_TO_DATE else ""
    return (suffix, _KIND_OF[suffix[0]]) if suffix else ("", "")


def _lower_twin(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """The same pattern in lower case without IGNORECASE, run on lower-cased text (several times faster)."""
    text = pattern.pattern.lower().replace("(?p<", "(?P<").replace("(?p=", "(?P=")
    return re.compile(text, pattern.flags & ~re.IGNORECASE)


_LC_DURATION, _LC_YEAR_ENDED, _LC_POINT, _LC_NINE, _LC_COUNTED_SPAN = (
    _lower_twin(p) for p in (_P_DURATION, _P_YEAR_ENDED, _P_POINT, _P_NINE, _P_COUNTED_SPAN)
)
_LC_QUARTER = [_lower_twin(p) for p in _P_QUARTER]
_LC_HALF = [_lower_twin(p) for p in _P_HALF]
_LC_FY = [_lower_twin(p) for p in _P_FY]
# Substrings one of which must occur (lower-cased) before each pattern is run, in pattern order.
_Q_DIGIT = ("q1", "q2", "q3", "q4")
_QUARTER_TRIGGERS = (_Q_DIGIT, _Q_DIGIT, _Q_DIGIT, ("quarter", "three months"), ("quarter",))
_HALF_TRIGGERS = (("half", "six months"), ("h1", "h2"), ("h1", "h2"))
_FY_TRIGGERS = (("fy", "f/y", "ye1", "ye2", "ye 1", "ye 2"), ("fiscal", "calendar"), ("cy1", "cy2", "cy 1", "cy 2"), ("f0", "f1", "f2", "f3"))
_CLOSED_BY_CUES = ("ended", "ending", " to ", "through", "thru")  # one must occur for a span closed by a day
_FY_END_HINT = re.compile(
    rf"\b(?:fiscal\s+)?years?\s+(?:ended|ending)\s+(?P<mon>{MONTH})\s+(?P<day>\d{{1,2}})", re.I
)


# 'six months ended July 29, 2023', '26 weeks ended', 'nine months ending': a year-to-date column and its end.
_YEAR_TO_DATE_RE = re.compile(
    r"\b(?P<dur>six|nine|twenty[\s-]six|thirty[\s-]nine|6|9|2[4-8]|3[6-9]|4[01])\s+(?P<unit>months?|weeks?)\s+"
    r"(?:ended|ending)\b",
    re.I,
)
# 'Year to Date 2023', 'YTD', 'year-to-date': the months of a fiscal year to the end of the quarter a filing reports
# (a release's or a 10-Q's column, a question's period); the filing says which quarter.
TO_DATE_RE = re.compile(rf"\b{_TO_DATE}\b", re.IGNORECASE)
_TO_DATE_SUFFIX = {1: "Q1", 2: "H1", 3: "M9", 4: ""}  # the fiscal label's suffix for the months to a quarter's end
_YEAR_TO_DATE_CUE = "ended"  # cheap test before the pattern: most texts name no duration at all
YEAR_TO_DATE_DATE_CHARS = 40  # the column's end date follows its duration words ('six months ended July 29, 2023')


# ---------------------------------------------------------------------------------------------------------
# Date and fiscal arithmetic
# ---------------------------------------------------------------------------------------------------------
def month_of(name: str) -> int:
    """The number of a month written by its name or abbreviation ('September', 'Sept.', 'sep' -> 9)."""
    return _MONTH_NUM[name.strip(".").lower()[:3]]


def names_to_date(text: str) -> bool:
    """Whether ``text`` names a year to date ('YTD', 'year-to-date'): the months of a fiscal year to a quarter's end."""
    return TO_DATE_RE.search(text) is not None


def is_month(word: str) -> bool:
    """'december', 'Sept.', 'jan' name a month."""
    return _MONTH_WORD_RE.fullmatch(word.strip()) is not None


def ends_in_month(text: str) -> bool:
    """``text`` ends in a month's name ('as of December '): a number after it is the day of a date, not a figure.
    A word that only starts like a month ('decreased', 'Marketing') is none."""
    m = _MONTH_TAIL_RE.search(text)
    return m is not None and m.group("day") is None


def ends_in_month_day(text: str) -> bool:
    """``text`` ends in a month and a day ('November 27'): a date whose year follows after a comma."""
    m = _MONTH_TAIL_RE.search(text)
    return m is not None and m.group("day") is not None


def _year(text: str) -> int:
    y = int(text)
    if y < 100:
        y += 2000 if y < TWO_DIGIT_PIVOT else 1900
    return y


def parse_date(text: str) -> date | None:
    """The first date written in ``text`` ('December 31, 2022', '31 Dec 2022', '2022-12-31', '12/31/2022',
    '30/9/2022')."""
    for pat in _DATE_PARTS:
        m = pat.search(text)
        if m is None:
            continue
        gd = m.groupdict()
        month = month_of(gd["mon"]) if gd.get("mon") else int(gd["mnum"])
        day = int(gd["day"])
        if gd.get("mnum") and month > 12 >= day:
            month, day = day, month  # '30/9/2019': written day first, as outside the US
        try:
            return date(_year(gd["year"]), month, day)
        except ValueError:
            return None
    return None


_MONTH_YEAR_RE = re.compile(rf"(?P<mon>{MONTH}),?\s+(?P<year>{_Y4})", re.I)


def closing_date(text: str) -> date | None:
    """The day a span written as closing on ``text`` ends: its date, or the last day of a month written alone
    ('June 2025' -> 2025-06-30)."""
    day = parse_date(text)
    if day is not None:
        return day
    m = _MONTH_YEAR_RE.search(text)
    return _month_end(int(m.group("year")), month_of(m.group("mon"))) if m else None


def _month_end(year: int, month: int) -> date:
    """The last day of a month."""
    return date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)


# 'Fiscal 2025 ends on January 31, 2026', 'fiscal 2024 consisted of 52 weeks ended February 1, 2025', 'the year
# ended February 1, 2025 ("fiscal 2024")': the filer's name of a fiscal year beside the date it ends.
_FISCAL_NAMED_RE = re.compile(
    rf"\bfiscal\s+(?:year\s+)?(?P<named>(?:19|20)\d\d)\b[^.;]{{0,60}}?\b(?:ends?|ended|ending)\s+(?:on\s+)?"
    rf"(?P<mon>{MONTH})\s+(?P<day>\d{{1,2}}),?\s+(?P<year>(?:19|20)\d\d)"
    rf"|(?P<mon2>{MONTH})\s+(?P<day2>\d{{1,2}}),?\s+(?P<year2>(?:19|20)\d\d)\s*\(\s*[“\"']?fiscal\s+(?:year\s+)?"
    rf"(?P<named2>(?:19|20)\d\d)",
    re.IGNORECASE,
)
FISCAL_NAMING_CHARS = 20_000  # the cover and the first pages say how the filer names its years, if anywhere


def fiscal_naming(text: str, fy_end_month: int) -> int:
    """``fy_end_month`` as the filer names its years: a year the text names by the calendar year it began ('fiscal
    2024 ended February 1, 2025') ends in a month of the next year, ``fy_end_month + 12``; else unchanged."""
    if not 1 <= fy_end_month <= 12:
        return fy_end_month
    for m in _FISCAL_NAMED_RE.finditer(text[:FISCAL_NAMING_CHARS]):
        mon, day, year, named = (m.group("mon"), m.group("day"), m.group("year"), m.group("named")) if m.group(
            "named") else (m.group("mon2"), m.group("day2"), m.group("year2"), m.group("named2"))
        try:
            ended = date(int(year), month_of(mon), int(day))
        except ValueError:
            continue
        dated = fiscal_quarter_of(ended, fy_end_month)[0]
        if period_close(ended)[1] == fy_end_month and int(named) == dated - 1:
            return fy_end_month + 12
    return fy_end_month


def quarter_naming(text: str, fy_end_month: int, period_end: str) -> int:
    """``fy_end_month`` as the filer names its years, read from the quarter a filing reports: the first fiscal
    quarter its text names ('Third Quarter Fiscal 2024') is the one ending on ``period_end`` (ISO), which says the
    month its years end in when no other text did (``fy_end_month`` 0: the third quarter ending in October ends a
    year in January), and whether it names them by the calendar year they began ('fiscal 2024' for the year ending in
    January 2025: ``fy_end_month + 12``). A quarter that cannot be the filing's own leaves ``fy_end_month`` as it is."""
    if not 0 <= fy_end_month <= 12 or not period_end:
        return fy_end_month
    end = date.fromisoformat(period_end)
    mention = next((m for m in find_periods(text[:FISCAL_NAMING_CHARS])
                    if m.kind == "quarter" and "fiscal" in m.surface.lower()), None)  # the filer's own words
    if mention is None:
        return fy_end_month
    quarter, named = int(mention.norm[-1]), period_year(mention.norm)
    month = (period_close(end)[1] + 3 * (4 - quarter) - 1) % 12 + 1  # the month a year of such quarters ends in
    if fy_end_month not in {0, month}:
        return fy_end_month
    dated_year, dated_quarter = fiscal_quarter_of(end, month)
    if dated_quarter != quarter or named not in {dated_year, dated_year - 1}:
        return fy_end_month
    return month + 12 if named == dated_year - 1 else month


# ---------------------------------------------------------------------------------------------------------
# Finding periods
# ---------------------------------------------------------------------------------------------------------
class _Cand(NamedTuple):
    """An expression found by one pattern (internal: a tuple, built thousands of times per filing)."""

    start: int
    end: int
    priority: int  # lower wins among equally long candidates
    mentions: list[PeriodMention]


def _more_years(m: re.Match[str], text: str) -> list[tuple[int, int, int]]:
    """(year, start, end) of each extra year in a trailing list such as ', 2017 and 2016'."""
    if not m.group("more"):
        return []
    base = m.start("more")
    return [(int(y.group(0)), base + y.start(), base + y.end()) for y in re.finditer(_Y4, m.group("more"))]


def _mention(text: str, norm: str, start: int, end: int, kind: str, day: date | None = None,
             months: int = 0, to_date: bool = False) -> PeriodMention:
    # Built from regex groups of known types: construct without re-validating (this runs for every chunk).
    return PeriodMention.model_construct(
        norm=norm, start=start, end=end, surface=text[start:end], kind=kind,
        date=day.isoformat() if day else "", months=months if day else 0, to_date=to_date,
    )


def _same_day(d: date, year: int) -> date | None:
    try:
        return d.replace(year=year)
    except ValueError:  # 29 February in a non-leap year
        return d.replace(year=year, day=28)


def _fy_year(m: re.Match[str]) -> int:
    gd = m.groupdict()
    return _year(gd.get("y") or gd.get("y2") or "0")


def _candidates(text: str, fy_end_month: int) -> list[_Cand]:
    out: list[_Cand] = []

    def add(m: re.Match[str], priority: int, mentions: list[PeriodMention]) -> None:
        if mentions:
            out.append(_Cand(m.start(), m.end(), priority, mentions))

    low = text.lower()
    # Lower-case twins of the patterns run on lower-cased text when offsets are preserved (almost always).
    fast = len(low) == len(text)
    scan = low if fast else text
    p_duration, p_year_ended, p_point, p_nine, p_counted = (
        (_LC_DURATION, _LC_YEAR_ENDED, _LC_POINT, _LC_NINE, _LC_COUNTED_SPAN)
        if fast
        else (_P_DURATION, _P_YEAR_ENDED, _P_POINT, _P_NINE, _P_COUNTED_SPAN)
    )
    p_quarter, p_half, p_fy = (_LC_QUARTER, _LC_HALF, _LC_FY) if fast else (_P_QUARTER, _P_HALF, _P_FY)
    # Cheap substring checks skip patterns that cannot match (most chunks name few periods).
    has_ended = any(word in low for word in _CLOSED_BY_CUES)
    for m in (p_duration.finditer(scan) if has_ended else ()):
        d = closing_date(m.group("date"))
        if d is None:
            continue
        mentions: list[PeriodMention] = []
        durations = [m.group("dur")] + ([m.group("dur2")] if m.group("dur2") else [])
        for dur in durations:
            months = _duration_months(dur, m.group("unit"))
            if not months:
                continue
            norm, kind = norm_for_months(d, months, fy_end_month)
            mentions.append(_mention(text, norm, m.start(), m.end("date"), kind, d, months))
            for year, ys, ye in _more_years(m, text):
                d2 = _same_day(d, year)
                n2, k2 = norm_for_months(d2, months, fy_end_month)
                mentions.append(_mention(text, n2, ys, ye, k2, d2, months))
        add(m, 0, mentions)

    for m in (p_year_ended.finditer(scan) if has_ended else ()):
        d = closing_date(m.group("date"))
        if d is None:
            continue
        months = 12 if m.group("unit").lower().startswith("year") else 3
        norm, kind = norm_for_months(d, months, fy_end_month)
        mentions = [_mention(text, norm, m.start(), m.end("date"), kind, d, months)]
        for year, ys, ye in _more_years(m, text):
            d2 = _same_day(d, year)
            n2, k2 = norm_for_months(d2, months, fy_end_month)
            mentions.append(_mention(text, n2, ys, ye, k2, d2, months))
        add(m, 0, mentions)

    for m in p_point.finditer(scan):
        d = parse_date(m.group("date"))
        if d is None:
            continue
        prefix = _POINT_PREFIX.search(text, max(0, m.start() - 8), m.start())
        start = prefix.start() if prefix else m.start()
        mentions = [_mention(text, instant_norm(d, fy_end_month), start, m.end("date"), "point", d)]
        for year, ys, ye in _more_years(m, text):
            d2 = _same_day(d, year)
            mentions.append(_mention(text, instant_norm(d2, fy_end_month), ys, ye, "point", d2))
        out.append(_Cand(start, m.end(), 2, mentions))

    for m in (_P_MONTH_QUARTER.finditer(text) if "quarter" in low else ()):
        d = _month_end(int(m.group("y") or m.group("y2")), month_of(m.group("mon")))
        norm, kind = norm_for_months(d, MONTHS_PER_QUARTER, fy_end_month)
        add(m, 0, [_mention(text, norm, m.start(), m.end(), kind, d, MONTHS_PER_QUARTER)])

    for m in (_P_TO_DATE_CLOSED.finditer(text) if "ytd" in low or "to date" in low or "to-date" in low else ()):
        d = closing_date(m.group("date") or m.group("date2"))
        if d is not None:  # the fiscal year's months to the quarter the day closes
            quarter = fiscal_quarter_of(d, fy_end_month)[1]
            norm, kind = norm_for_months(d, MONTHS_PER_QUARTER * quarter, fy_end_month)
            add(m, 0, [_mention(text, norm, m.start(), m.end(), kind, d, MONTHS_PER_QUARTER * quarter, True)])

    for pat, cues in zip(p_quarter, _QUARTER_TRIGGERS, strict=True):
        if not any(c in low for c in cues):
            continue
        for m in pat.finditer(scan):
            q = int(m.group("q")) if m.groupdict().get("q") else _ORD_Q[m.group("ord").lower()]
            add(m, 1, [_mention(text, f"FY{_fy_year(m)}Q{q}", m.start(), m.end(), "quarter")])

    for pat, cues in zip(p_half, _HALF_TRIGGERS, strict=True):
        if not any(c in low for c in cues):
            continue
        for m in pat.finditer(scan):
            if m.groupdict().get("h"):
                h = int(m.group("h"))
            else:
                h = 2 if (m.group("ord") or "first").lower() in ("second", "2nd") else 1
            add(m, 1, [_mention(text, f"FY{_fy_year(m)}H{h}", m.start(), m.end(), "half")])

    for m in p_counted.finditer(scan):
        label, kind = _counted_span(int(m.group("n")), m.group("span").upper())
        if label:
            add(m, 1, [_mention(text, f"FY{_fy_year(m)}{label}", m.start(), m.end(), kind)])

    for m in p_nine.finditer(scan) if "nine months" in low else ():
        add(m, 1, [_mention(text, f"FY{_fy_year(m)}M9", m.start(), m.end(), "nine_months")])

    for pat, cues in zip(p_fy, _FY_TRIGGERS, strict=True):
        if not any(c in low for c in cues):
            continue
        for m in pat.finditer(scan):
            mentions = [_mention(text, f"FY{_year(m.group('y'))}", m.start(), m.end("y"), "year")]
            if "more" in m.groupdict():
                for year, ys, ye in _more_years(m, text):
                    mentions.append(_mention(text, f"FY{year}", ys, ye, "year"))
            add(m, 1, mentions)

    for m in (_P_SPLIT_YEAR.finditer(text) if "/" in text or "-" in text else ()):
        first, second = int(m.group("y1")), int(m.group("y2") or m.group("y3"))
        if second % 100 == (first + 1) % 100:
            add(m, 1, [_mention(text, f"FY{first + 1}", m.start(), m.end(), "year")])

    for m in _P_BARE_YEAR.finditer(text):
        year = int(m.group("y"))
        early = EARLY_YEAR_MIN <= year < BARE_YEAR_MIN and _EARLY_YEAR_CUE.search(text[max(0, m.start() - 20):m.start()])
        if not (BARE_YEAR_MIN <= year <= BARE_YEAR_MAX or early):
            continue
        if _BARE_YEAR_BEFORE.search(text[max(0, m.start() - 16):m.start()]):
            continue
        if _BARE_YEAR_AFTER.match(text[m.end():m.end() + 16]):
            continue
        add(m, 3, [_mention(text, f"FY{year}", m.start(), m.end(), "year")])
    return out


def _year_to_date_end_month(text: str) -> int | None:
    """The fiscal year-end month a year-to-date column implies: 'six months ended July 29, 2023' began the year
    in early February, so the year before ended in January. None when the text has no half or nine-month
    column, or its columns disagree."""
    months: set[int] = set()
    for m in _YEAR_TO_DATE_RE.finditer(text):
        span = _duration_months(m.group("dur"), m.group("unit"))
        ended = parse_date(text[m.end() : m.end() + YEAR_TO_DATE_DATE_CHARS])
        if span in (6, 9) and ended is not None:
            months.add((period_close(ended)[1] - span - 1) % 12 + 1)
    return months.pop() if len(months) == 1 else None


def infer_fy_end_month(text: str, default: int = 12) -> int:
    """The fiscal year-end month a text states ("fiscal year ended May 31" -> 5) or its year-to-date columns
    imply ("six months ended July 29" -> 1), else ``default``."""
    m = _FY_END_HINT.search(text)
    if m is None:
        implied = _year_to_date_end_month(text) if _YEAR_TO_DATE_CUE in text.lower() else None
        return implied or default
    month, day = month_of(m.group("mon")), int(m.group("day"))
    if day <= SNAP_DAY:
        month = 12 if month == 1 else month - 1
    return month


# A quarter or half named apart from its year ('fourth-quarter revenue in 2024', 'Q2 sales for 2023').
_LONE_PART_RE = re.compile(
    r"\b(?:(?P<qord>first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+(?:fiscal[\s-]+)?quarter|Q(?P<q>[1-4])"
    r"|(?P<hord>first|second|1st|2nd)[\s-]+half|H(?P<h>[12]))\b",
    re.IGNORECASE,
)
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}


def with_lone_part(text: str, mentions: list[PeriodMention]) -> list[PeriodMention]:
    """``mentions`` with each year made the quarter or half ``text`` names apart from it: 'fourth-quarter revenue
    in 2024' asks FY2024Q4, never the year; 'first-quarter sales in 2024 against 2023' two first quarters. Only
    when every mention is a year and one such part stands outside them; otherwise ``mentions`` as they are."""
    parts = [m for m in _LONE_PART_RE.finditer(text)
             if not any(p.start <= m.start() < p.end for p in mentions)]
    if not mentions or any(m.kind != "year" for m in mentions) or len(parts) != 1:
        return mentions
    part = parts[0]
    if part.group("qord") or part.group("q"):
        label, kind = f"Q{part.group('q') or _ORDINALS[part.group('qord').lower()]}", "quarter"
    else:
        label, kind = f"H{part.group('h') or _ORDINALS[part.group('hord').lower()]}", "half"
    return [year.model_copy(update={"norm": f"{year.norm}{label}", "kind": kind}) for year in mentions]


# What joins two periods of one kind: 'Q4 2019 and 2018', 'the first half of 2024 versus 2023', 'the second
# quarter of 2024 compared with 2023'.
_PERIOD_JOIN_RE = re.compile(
    r"\s*(?:,|and|or|&|vs\.?|versus|against|to|compared?\s+(?:with|to)|as\s+compared\s+(?:with|to))?"
    r"(?:\s*(?:,|and|or|with|to))?\s*",
    re.IGNORECASE,
)
_PART_KINDS = frozenset({"quarter", "half", "nine_months"})


def with_shared_part(text: str, mentions: list[PeriodMention]) -> list[PeriodMention]:
    """``mentions`` with each bare year written right after a quarter, half or nine months, joined to it only by
    'and', 'or', 'versus' or 'compared with', made the same part of its own year: 'Q4 2019 and 2018' asks two
    fourth quarters, 'the first half of 2024 versus 2023' two first halves."""
    out = list(mentions)
    for i in range(1, len(out)):
        prev, year = out[i - 1], out[i]
        if (prev.kind in _PART_KINDS and year.kind == "year" and re.fullmatch(r"(?:19|20)\d\d", year.surface)
                and _PERIOD_JOIN_RE.fullmatch(text[prev.end : year.start])):
            part = re.sub(r"^FY\d{4}", "", prev.norm)
            out[i] = year.model_copy(update={"norm": f"{year.norm}{part}", "kind": prev.kind})
    return out


def find_periods(text: str, default_fy_end_month: int = 12) -> list[PeriodMention]:
    """Every fiscal period written in ``text``, normalised, in order of appearance.

    The fiscal year-end month is taken from the text when it says so ("years ended May 31"), else
    ``default_fy_end_month``. Overlapping expressions resolve to the longest ("three months ended June 30,
    2023" is one quarter, not a quarter and a date and a year).

    >>> [p.norm for p in find_periods("three months ended June 30, 2023 and 2022")]
    ['FY2023Q2', 'FY2022Q2']
    """
    if not text:
        return []
    if not 1 <= default_fy_end_month <= 24:
        raise ValueError(f"fiscal year-end month must be 1-24, got {default_fy_end_month}")
    fy_end_month = same_calendar(infer_fy_end_month(text, default_fy_end_month), default_fy_end_month)
    cands = _candidates(text, fy_end_month)
    cands.sort(key=lambda c: (-(c.end - c.start), c.priority, c.start))
    taken: list[tuple[int, int]] = []
    found: list[PeriodMention] = []
    for c in cands:
        if any(c.start < e and s < c.end for s, e in taken):
            continue
        taken.append((c.start, c.end))
        found.extend(c.mentions)
    found.sort(key=lambda p: (p.start, p.end))
    return found


# ---------------------------------------------------------------------------------------------------------
# Working with normalised periods
# ---------------------------------------------------------------------------------------------------------
# 'year end' / 'fiscal year ended' right after or before a period: words of the period, not of what it dates
_YEAR_END_AFTER_RE = re.compile(r"[\s,]*(?:fiscal\s+)?year[\s-]*end(?:ed|ing)?\b", re.IGNORECASE)
_YEAR_END_BEFORE_RE = re.compile(r"\b(?:fiscal\s+)?year[\s-]*end(?:ed|ing)?[\s,]*$", re.IGNORECASE)


def without_periods(text: str) -> str:
    """``text`` with every period it names blanked out (offsets of the rest unchanged but for the spans), so
    what is left says what the text is about ('net revenue in 2008' -> 'net revenue in  '). A 'year end', 'year
    ended' beside a period is part of it ('in 2019 year end', 'for year ended 2019'), as is a year to date ('YTD')."""
    for p in reversed(find_periods(text)):
        start, end = p.start, p.end
        after = _YEAR_END_AFTER_RE.match(text, end)
        before = _YEAR_END_BEFORE_RE.search(text, 0, start)
        end = after.end() if after else end
        start = before.start() if before else start
        text = text[:start] + " " + text[end:]
    return TO_DATE_RE.sub(" ", text)  # 'year to date' names the months of a period, no thing


# A duration shorter than a year ('three months ended', '13 weeks ended', 'quarter ended', 'year to date').
_SUB_ANNUAL_DURATION_RE = re.compile(
    r"\b(?:(?P<n>three|six|nine|3|6|9)[\s-]+months?|(?P<w>\d{1,2}|twelve|thirteen|twenty[\s-]six|thirty[\s-]nine)"
    r"[\s-]+weeks?|quarters?)\s+ended\b|\byear[\s-]+to[\s-]+date\b",
    re.IGNORECASE,
)
DURATION_MONTHS = {**dict.fromkeys(("three", "3"), 3), **dict.fromkeys(("six", "6"), 6), **dict.fromkeys(("nine", "9"), 9)}


def _sub_annual_months(duration: re.Match[str]) -> int:
    """Months of a sub-annual duration match (a quarter when it names none); 0 when the weeks make a year."""
    if duration.group("n"):
        return DURATION_MONTHS[duration.group("n").lower()]
    if duration.group("w"):
        months = weeks_months(duration.group("w"))
        return months if months < 12 else 0
    return 3


_QUARTER_OF_LABEL = {"H1": 2, "M9": 3, "": 4}  # the fiscal quarter a half, nine months or a year runs to


def to_date_of(norm: str, months: int) -> str:
    """The fiscal period of ``months`` that ends where ``norm`` ends (FY2025Q2 and 6 -> FY2025H1; FY2025H1 and 3 ->
    FY2025Q2; FY2025M9 and 3 -> FY2025Q3); '' when no fiscal label names it (six months to a third quarter's end)."""
    year, sub = _parts(norm) or (0, "?")
    quarter = int(sub[1]) if sub.startswith("Q") else _QUARTER_OF_LABEL.get(sub, 0)
    if not quarter or months not in {3, 3 * quarter}:
        return ""
    return f"FY{year}Q{quarter}" if months == 3 else {2: f"FY{year}H1", 3: f"FY{year}M9", 4: f"FY{year}"}[quarter]


def normalise_period(text: str, default_fy_end_month: int = 12) -> str:
    """One period, normalised ('fiscal 2018' -> 'FY2018', '2023Q2' -> 'FY2023Q2'); '' if none is found."""
    s = (text or "").strip()
    if not s:
        return ""
    up = s.upper().replace(" ", "")
    if NORM_RE.match(up):
        return up
    if re.fullmatch(r"(?:19|20)\d{2}", s):
        return f"FY{s}"
    m = re.fullmatch(r"((?:19|20)\d{2})\s*-?\s*Q([1-4])", s, re.I)
    if m:
        return f"FY{m.group(1)}Q{m.group(2)}"
    m = _SPLIT_YEAR_LABEL.fullmatch(s)
    if m and _year(m.group(2)) == int(m.group(1)) + 1:
        return f"FY{_year(m.group(2))}"  # '2018/2019', '2018/19': the fiscal year that ends in the second
    found = find_periods(s, default_fy_end_month)
    if found:
        duration = _SUB_ANNUAL_DURATION_RE.search(s)
        months = _sub_annual_months(duration) if duration else 0
        if granularity(found[0].norm) == "year" and months:
            # '12 Weeks Ended 3/25/2023' is the quarter that date closes; 'Three months ended 2025' lost its
            # day: some quarter of 2025, never the fiscal year.
            closing = parse_date(s)
            if closing is None:
                return ""
            return duration_norm(closing, months, default_fy_end_month)
        return found[0].norm
    m = _MONTH_YEAR_LABEL.fullmatch(s)
    if m and 1 <= int(m.group("mnum")) <= 12:
        month, year = int(m.group("mnum")), _year(m.group("year"))
        return instant_norm(_month_end(year, month), default_fy_end_month)
    return ""


def _parts(norm: str) -> tuple[int, str] | None:
    m = NORM_RE.match(norm or "")
    return (int(m.group("year")), m.group("sub") or "") if m else None


def period_year(norm: str) -> int | None:
    """The fiscal year of a normalised period ('FY2023Q2' -> 2023); None when not a normalised period."""
    p = _parts(norm)
    return p[0] if p else None


def granularity(norm: str) -> str:
    """'year' | 'quarter' | 'half' | 'nine_months' for a normalised period; '' when not one."""
    p = _parts(norm)
    return _KIND_OF[p[1][:1]] if p else ""


def quarters_of(norm: str) -> frozenset[int]:
    """The fiscal quarters a normalised period covers (FY2022H1 -> {1, 2}); empty when not a period."""
    p = _parts(norm)
    return _QUARTERS_OF[p[1]] if p else frozenset()


def periods_overlap(a: str, b: str) -> bool:
    """True when two normalised periods share time (FY2023 and FY2023Q2 do; FY2023Q1 and FY2023Q2 do not)."""
    pa, pb = _parts(a), _parts(b)
    if pa is None or pb is None or pa[0] != pb[0]:
        return False
    return bool(_QUARTERS_OF[pa[1]] & _QUARTERS_OF[pb[1]])


def shift_period(norm: str, years: int = 0, quarters: int = 0) -> str:
    """The same kind of period ``years`` (and, for quarters, ``quarters``) later; negative for earlier.

    >>> shift_period("FY2023Q2", -1), shift_period("FY2023Q1", quarters=-1)
    ('FY2022Q2', 'FY2022Q4')
    """
    p = _parts(norm)
    if p is None:
        raise ValueError(f"not a normalised period: {norm!r}")
    year, sub = p
    if quarters:
        if not sub.startswith("Q"):
            raise ValueError(f"quarter shift needs a quarter, got {norm!r}")
        index = year * 4 + int(sub[1]) - 1 + quarters
        return f"FY{index // 4 + years}Q{index % 4 + 1}"
    return f"FY{year + years}{sub}"


def expand_range(first: str, last: str) -> list[str]:
    """Every fiscal year (or quarter) from ``first`` to ``last`` inclusive: FY2018..FY2020 -> three years."""
    pa, pb = _parts(first), _parts(last)
    if pa is None or pb is None:
        return [p for p in (first, last) if p]
    if sort_key(first) > sort_key(last):
        first, last, pa, pb = last, first, pb, pa
    if pa[1] == "" and pb[1] == "":
        return [f"FY{y}" for y in range(pa[0], pb[0] + 1)]
    if pa[1].startswith("Q") and pb[1].startswith("Q"):
        out, cur = [], first
        while sort_key(cur) <= sort_key(last) and len(out) < 4 * 50:
            out.append(cur)
            cur = shift_period(cur, quarters=1)
        return out
    return [first, last]


def sort_key(norm: str) -> tuple[int, int, int]:
    """Chronological key: by year, then the last quarter covered, longer spans first; unknown sorts first."""
    p = _parts(norm)
    if p is None:
        return (0, 0, 0)
    qs = _QUARTERS_OF[p[1]]
    return (p[0], max(qs), -len(qs))


CALENDAR_FY_END = 12  # calendar fiscal years unless the columns or the filer say otherwise


def to_date(year_label: str, filing_period: str) -> str:
    """The year to date of fiscal year ``year_label`` ('FY2023') in a filing reporting ``filing_period``: the half
    of a second quarter's filing ('FY2023H1'), the nine months of a third's, the year of a fourth's or a year's
    filing; '' when the filing reports a quarter of another year or no period."""
    year = period_year(year_label)
    m = re.fullmatch(r"FY(\d{4})(?:Q([1-4]))?", filing_period)
    if year is None or m is None or int(m.group(1)) != year or granularity(year_label) != "year":
        return ""
    return f"FY{year}{_TO_DATE_SUFFIX[int(m.group(2) or 4)]}"
