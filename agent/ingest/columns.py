"""The periods a table's header names: the period patterns of header text, the period columns read from a
header's lines, and column names dated by the caption printed over them ('SECOND QUARTER' over '2023 Amount',
'Three Months Ended June 30,' over '2025'). Read by the table finder for every format; a PDF's header read from
where its words stand (:mod:`agent.ingest.grid`) is named here too."""

from __future__ import annotations

import re

from agent.finance.column_periods import column_periods
from agent.ingest.grid import SPAN_CAPTION_RE

MONTH_RE = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)(?:\s?\.)?"  # 'dec . 28': a tokenizer's space
)
YEAR = r"(?:19|20)\d{2}"
PERIOD_RE = re.compile(
    rf"(?P<date>\b{MONTH_RE}\s+\d{{1,2}},?\s+{YEAR}\b)"
    rf"|(?P<quarter>\b(?:Q[1-4]|[1-4]Q|H[12]|[12]H)\s*(?:FY\s*)?'?\s*(?:{YEAR}|\d{{2}})\b)"
    rf"|(?P<ordq>\b(?:first|second|third|fourth)[\s-]+quarter(?:[\s-]+(?:of\s+)?(?:fiscal\s+)?{YEAR}\b)?)"
    rf"|(?P<fiscal>\b(?:fiscal(?:\s+year)?|FY)\s*'?\s*(?:{YEAR}|\d{{2}})\b|(?<![\w-])F[0-3]\d\b|\b{YEAR}\s?/\s?\d{{2}}(?:\d{{2}})?\b)"
    rf"|(?P<monthyear>\b{MONTH_RE}\s+{YEAR}\b)"
    rf"|(?P<monthday>\b{MONTH_RE}\s+\d{{1,2}}\b,?)"
    r"|(?P<numdate>(?<![\d/])\d{1,2}/(?:\d{1,2}/)?(?:\d{4}|\d{2})(?![\d/]))"
    rf"|(?P<year>\b{YEAR}\b)",
    re.IGNORECASE,
)
DURATION_RE = re.compile(
    r"\b(?:(?:three|six|nine|twelve|thirteen|fourteen|twenty[- ]six|thirty[- ]nine|fifty[- ]two|fifty[- ]three|\d{1,2})"
    r"[\s-]+(?:months?|weeks?)|quarters?|(?:fiscal\s+)?years?)\s+ended\b",
    re.IGNORECASE,
)
SUB_ANNUAL_RE = re.compile(r"months?|weeks?|quarter", re.IGNORECASE)


def detect_columns(header_text: str, expected: int | None = None) -> list[str]:
    """Period labels of a table's value columns, in order, from its header text.

    ``'(Millions) 2018 2017 2016'`` -> ``['2018', '2017', '2016']``;
    ``'Three Months Ended Six Months Ended June 30, 2023 June 30, 2022 ...'`` -> labels with their duration.
    ``expected`` is the number of period cells in the header row when known; periods mentioned earlier in the
    header (a stray date in a caption) are then dropped.
    """
    mentions: list[tuple[str, str]] = []
    for m in PERIOD_RE.finditer(header_text):
        kind = m.lastgroup or ""
        mentions.append((kind, re.sub(r"\s+", " ", m.group(0)).strip().rstrip(",")))
    dated = {text.lower()[: text.lower().index("quarter")] for kind, text in mentions
             if kind == "ordq" and re.search(YEAR, text)}
    # 'First-Quarter 2023 Results' over a 'First-Quarter' column: the caption repeated without its year is
    # the same column, not a second one.
    mentions = [(kind, text) for kind, text in mentions
                if not (kind == "ordq" and not re.search(YEAR, text)
                        and text.lower()[: text.lower().index("quarter")] in dated)]
    if any(kind == "monthday" for kind, _ in mentions):
        # A date glued to the next column's year ('January 29, 2023' in 'January 29, 2023 2022') is a
        # month-day and a year of two different header lines.
        split: list[tuple[str, str]] = []
        for kind, text in mentions:
            if kind == "date":
                day, year = text.rsplit(" ", 1)
                day = day.rstrip(",")
                split.extend([("monthday", day), ("year", year)])
            else:
                split.append((kind, text))
        mentions = split
    month_days = [text for kind, text in mentions if kind == "monthday"]
    years = [text for kind, text in mentions if kind == "year"]
    n = expected or len(years)
    columns: list[str]
    if n and len(month_days) >= n and len(years) >= n and len(mentions) == len(month_days) + len(years):
        # 'January 28, ... January 29, ... 2023 2022': the k-th month-day goes with the k-th year.
        columns = [f"{md}, {y}" for md, y in zip(month_days[-n:], years[-n:], strict=True)]
    else:
        columns = [text for kind, text in mentions if kind != "monthday"]
        if years and any(kind == "date" for kind, _ in mentions):
            # 'Years ended December 31, 2022 2021 2020': the columns are the years.
            columns = [re.search(YEAR, c).group(0) if kind in {"date", "year"} else c  # type: ignore[union-attr]
                       for kind, c in mentions if kind != "monthday"]
    if expected and len(columns) > expected:
        columns = columns[-expected:]
    durations = [re.sub(r"\s+", " ", d.group(0)) for d in DURATION_RE.finditer(header_text)]
    if durations and columns:
        sub_annual = any(SUB_ANNUAL_RE.search(d) for d in durations)
        if (len(durations) > 1 or sub_annual) and len(columns) % len(durations) == 0:
            per = len(columns) // len(durations)
            # 'Three months ended March 31, | 2025 | 2024': a quarter is named by its closing day, so the day
            # stays with each year column (without it the column would read as a whole fiscal year).
            days = [""] * len(durations)
            if len(month_days) == len(durations):
                days = month_days
            elif month_days and len(set(month_days)) == 1:
                days = [month_days[0]] * len(durations)
            columns = [
                f"{durations[i // per]} {days[i // per]}, {col}" if days[i // per] and re.fullmatch(YEAR, col)
                else f"{durations[i // per]} {col}"
                for i, col in enumerate(columns)
            ]
    return columns


def reads_more(columns: list[str], names: list[str]) -> bool:
    """Whether a PDF header's column names read from where its words stand say more than the columns its text
    gave: the text gave no column per value, or two alike ('2023 | 2022 | 2023 | 2022' under two spans), or every
    period the text gave is the names' too (or narrowed within its year) and the names date more columns or narrow
    one. A complete reading of the text is never replaced by another period ('Three Months Ended June 30, 2023'
    stays, whatever '2023' alone reads)."""
    if len(columns) != len(names) or len(set(columns)) != len(columns):
        return True
    text, placed = column_periods(columns), column_periods(names)
    # a placed period may narrow the text's within its year ('SECOND QUARTER' over '2025 | 2024': '2024' alone read
    # as the fiscal year is its second quarter)
    narrowed = [bool(t and p != t and p.startswith(t)) for t, p in zip(text, placed, strict=True)]
    return all(not t or t == p or n for t, p, n in zip(text, placed, narrowed, strict=True)) and (
        sum(map(bool, placed)) > sum(map(bool, text)) or any(narrowed))


def covers(columns: list[str], names: list[str]) -> bool:
    """Whether the columns read from the header lines already say what a line of names says: one distinct
    column per name, each printing its name ('Three Months Ended June 30, 2023' for '2023'; not '2017' for
    '2017/18', nor '2019' for '2019 United States')."""
    if len(columns) != len(names) or len(set(columns)) != len(columns):
        return False
    return all(name.lower() in column.lower() for column, name in zip(columns, names, strict=True))


def dated_names(names: list[str], caption: str) -> list[str]:
    """Column names whose period is a bare year, dated by the one day and duration the caption over them
    prints ('September 30,' over '2019 Amount' -> 'September 30, 2019 Amount'; 'Three Months Ended June 30,'
    over '2025' -> 'Three Months Ended June 30, 2025'), or by the one span of a year it names without a day
    ('SECOND QUARTER' over '2023 Amount' -> 'SECOND QUARTER 2023 Amount'); a span without its year by the one year the
    caption names ('Fiscal 2024' over 'First Quarter' -> 'First Quarter Fiscal 2024'). As they are when the caption prints
    no such day or span, or several, or heads whole years ('Years ended December 31,': the columns are the
    fiscal years)."""
    days = {re.sub(r"\s+", " ", m.group(0)).rstrip(",") for m in PERIOD_RE.finditer(caption)
            if m.lastgroup == "monthday"}
    durations = {re.sub(r"\s+", " ", d.group(0)) for d in DURATION_RE.finditer(caption)}
    # a span with its year ('Reports Second Quarter 2023 Results' in a headline) names no group's span
    spans = [m.group(0) for m in SPAN_CAPTION_RE.finditer(caption)
             if not re.match(rf"\s*(?:of\s+)?(?:fiscal\s+)?{YEAR}\b", caption[m.end():], re.IGNORECASE)]
    if not days and not durations and len({re.sub(r"[\s-]+", " ", s).lower() for s in spans}) == 1:
        return [f"{spans[0]} {name}" if [m.lastgroup for m in PERIOD_RE.finditer(name)] == ["year"] else name
                for name in names]
    years = [m.group(0) for m in PERIOD_RE.finditer(caption) if m.lastgroup in ("year", "fiscal")]
    if not days and not durations and not spans and len(years) == 1:
        # 'Fiscal 2024' over 'First Quarter | ... | Fourth Quarter': the one year the caption names is each span's
        return [f"{name} {years[0]}" if SPAN_CAPTION_RE.fullmatch(name.strip()) else name for name in names]
    if len(days) != 1 or len(durations) > 1:
        return names
    day = days.pop()
    duration = durations.pop() if durations else ""
    if duration and not SUB_ANNUAL_RE.search(duration):
        return names  # 'Years ended December 31,' over '2023': the columns are the fiscal years
    prefix = f"{duration} {day}" if duration else day
    out = []
    for name in names:
        mentions = list(PERIOD_RE.finditer(name))
        if not (len(mentions) == 1 and mentions[0].lastgroup == "year"):
            out.append(name)
            continue
        head = name[: mentions[0].start()]
        # 'Three Months Ended 2024' already says its duration: only the day is added, never the duration twice
        dated = day if duration and duration.lower() in head.lower() else prefix
        out.append(f"{head}{dated}, {name[mentions[0].start():]}")
    return out
