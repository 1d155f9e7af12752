"""A filer's fiscal calendar: the fiscal year and quarter a date closes, and the label of a period of some months
ending on it (FY2025Q2, FY2025H1, FY2025M9, FY2024), for a year ending in any month, named by the calendar year it
ends in or, for ``fy_end_month`` above 12, the one it began in. The reading of periods in text is
:mod:`agent.finance.periods`'s."""

from __future__ import annotations

from datetime import date

SNAP_DAY = 7  # a 52/53-week period ending on day 1-7 of a month closes the previous month
MONTHS_PER_QUARTER = 3


def period_close(d: date) -> tuple[int, int]:
    """(year, month) a period ending on ``d`` closes: day 1-7 belongs to the previous month (52/53 weeks)."""
    if d.day <= SNAP_DAY:
        return (d.year - 1, 12) if d.month == 1 else (d.year, d.month - 1)
    return d.year, d.month


def fiscal_quarter_of(d: date, fy_end_month: int = 12) -> tuple[int, int]:
    """(fiscal year, fiscal quarter) of a period ending on ``d``; the fiscal year ends in ``fy_end_month``, counted
    from January of the year that names it (13 and above: a month of the next year, see :func:`fiscal_naming`)."""
    year, month = period_close(d)
    fiscal_year = -(-(12 * year + month - fy_end_month) // 12)  # the first year whose end is not before d
    quarter = ((month - fy_end_month - 1) % 12) // 3 + 1
    return fiscal_year, quarter


def same_calendar(month: int, fy_end_month: int) -> int:
    """A year-end ``month`` a text implies, named as ``fy_end_month`` names it (13 for January when the filer names
    its years by the year they began); ``month`` itself when the two differ."""
    return fy_end_month if fy_end_month > 12 and month == fy_end_month - 12 else month


def norm_for_months(d: date, months: int, fy_end_month: int) -> tuple[str, str]:
    """The fiscal label of a period of ``months`` ending on ``d`` and its kind (year, nine_months, half, quarter)."""
    fy, q = fiscal_quarter_of(d, fy_end_month)
    if months >= 12:  # a year is named by the year it closes in, unless the filer names it by the year it began
        return f"FY{fy if fy_end_month > 12 else period_close(d)[0]}", "year"
    if months == 9 and q == 3:
        return f"FY{fy}M9", "nine_months"
    if months == 6 and q in (2, 4):
        return f"FY{fy}H{q // 2}", "half"
    return f"FY{fy}Q{q}", "quarter"


def duration_norm(end: date, months: int, fy_end_month: int = 12) -> str:
    """The fiscal label of a period of ``months`` ending on ``end`` (FY2025Q2, FY2025H1, FY2025M9, FY2024)."""
    return norm_for_months(end, months, fy_end_month)[0]


def instant_norm(d: date, fy_end_month: int = 12) -> str:
    """The fiscal label of a balance-sheet date: the quarter it closes (the year when it closes the fourth)."""
    fy, q = fiscal_quarter_of(d, fy_end_month)
    return f"FY{fy}" if q == 4 else f"FY{fy}Q{q}"


def dated_norm(day: str, months: int, fy_end_month: int = 12, to_date: bool = False) -> str:
    """The fiscal label, in the calendar of a year ending in ``fy_end_month``, of a period written as a date: the
    ISO ``day`` it ends on, and the ``months`` it spans (0: the day itself, a point in time); ``to_date``: the
    fiscal year's months to the end of the quarter the day closes, whatever the months written."""
    d = date.fromisoformat(day)
    if to_date:
        months = MONTHS_PER_QUARTER * fiscal_quarter_of(d, fy_end_month)[1]
    return duration_norm(d, months, fy_end_month) if months else instant_norm(d, fy_end_month)
