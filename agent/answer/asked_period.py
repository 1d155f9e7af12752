"""The period a sub-query asks, named in the terms of the filing that answers it: a date the question writes, in
the filer's fiscal calendar ('the three months ended July 29, 2023' is the second quarter of a year ending in
January); a year to date, as the months to the end of the quarter the filing reports (FY2024H1 on a second
quarter's 10-Q). Both read the filings of the evidence and the plan's periods, never the question's words."""

from __future__ import annotations

from collections.abc import Sequence

from agent.answer.reading import Evidence, EvidenceReader
from agent.answer.words import _about
from agent.entities.names import name_key
from agent.finance.fiscal_calendar import dated_norm
from agent.finance.periods import CALENDAR_FY_END, period_year, shift_period, to_date
from agent.query.plan import SubQuery


def in_filer_calendar(sub_query: SubQuery, reader: EvidenceReader) -> SubQuery:
    """``sub_query`` with the period its plan has as written as a date ('the three months ended July 29, 2023')
    named in the fiscal calendar of the filer whose evidence answers it: that quarter is the second of a year ending
    in January, not the third. Periods named by label ('Q3 2023') are the question's own and stay as asked."""
    calendars = {ev.fy_end_month for ev in reader.evidence if ev.fy_end_month and ev.source == "filing"
                 and (not sub_query.company or _about(ev, sub_query.company))}
    dated = sub_query.intent.temporal_scope.dated
    if len(calendars) != 1 or calendars == {CALENDAR_FY_END} or dated is None:
        return sub_query
    if dated.norm != sub_query.period:
        return sub_query  # the lookup is of another period than the one written as a date
    own = dated_norm(dated.date, dated.months, calendars.pop(), dated.to_date)
    if own == sub_query.period:
        return sub_query
    intent = sub_query.intent.model_copy(deep=True)
    intent.temporal_scope.periods = [own if p == sub_query.period else p for p in intent.temporal_scope.periods]
    return sub_query.model_copy(update={"period": own, "intent": intent})


def to_date_resolved(sub_query: SubQuery, evidence: Sequence[Evidence]) -> SubQuery:
    """A year-to-date question's period in the filing read: 'YTD 2023' over a second quarter's filing is its
    half (FY2023H1), over a year's filing the year. As it is when the filings read report different quarters of
    the year, or none of it."""
    scope = sub_query.intent.temporal_scope
    if not scope.to_date or len(scope.periods) != 1:
        return sub_query
    company = name_key(sub_query.company or sub_query.intent.company)
    asked = scope.periods[0]
    # a quarter's filing compares its year to date with the year before's, to the same quarter's end
    found = {resolved for ev in evidence if ev.filing_period and (not company or name_key(ev.company) == company)
             for filed in (ev.filing_period, shift_period(ev.filing_period, -1))
             if period_year(filed) == period_year(asked) and (resolved := to_date(asked, filed))}
    if len(found) != 1:
        return sub_query
    period = found.pop()
    intent = sub_query.intent.model_copy(update={"temporal_scope": scope.model_copy(update={"periods": [period]})})
    return sub_query.model_copy(update={"period": period, "intent": intent})
