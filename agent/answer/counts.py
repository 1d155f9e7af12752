"""Answers from the counts a filing states in its sentences ('312 stores as of January 31, 2025').

A count answers a question only when it counts exactly the thing asked (the same key, so 'part-time employees'
are never 'employees'), the question names no part of the company (a count of the company is no count of its
Canadian stores), and its date is the one asked: the date the question writes (within a few days: 52/53-week
years), else the fiscal period it names in the filer's calendar, else the newest count of the newest filing. Two
different counts that fit equally are no answer: the text reader then answers under the trust gate, or refuses.
"""

from __future__ import annotations

from datetime import date

from agent.answer.facts import SAME_END_DAYS, CountFiling, FactSource, asked_period
from agent.answer.records import Check, SubAnswer, qualified
from agent.query.plan import SubQuery
from agent.schemas import Citation, CountFact, NumericValue

COUNT_CONFIDENCE = 0.9  # a count read whole from one sentence, its thing and date matched: below a tag, above a guess
STATED = "A count the filing states in a sentence"  # opens the explanation of every answer read from a count


def _asks_part(sub_query: SubQuery, company: str) -> bool:
    """Whether the question narrows the count to a part of the company (a region, a segment, a kind the counted
    words do not hold): a company's count never answers it."""
    intent = sub_query.intent
    others = [e for e in intent.entities if e and company and e.lower() != company.lower()]
    return bool(others) or any(t.text.lower() not in intent.counted for t in intent.scope)


def _fits(count: CountFact, label: str, dated: date | None) -> bool:
    if dated is not None:
        return bool(count.as_of) and abs((date.fromisoformat(count.as_of) - dated).days) <= SAME_END_DAYS
    return count.period == label


def answer_from_counts(sub_query: SubQuery, source: FactSource) -> SubAnswer | None:
    """The count a filing states of exactly the thing ``sub_query`` counts, at the date it asks; None when no
    one count is that (the text reader then answers, or the answer is refused)."""
    key = sub_query.intent.counted
    if not key or not sub_query.intent.requires_numeric:
        return None
    company = sub_query.company or sub_query.intent.company
    if _asks_part(sub_query, company):
        return None
    mention = sub_query.intent.temporal_scope.dated
    dated = date.fromisoformat(mention.date) if mention is not None and mention.date else None
    label = asked_period(sub_query)
    filings = sorted(source.counts(company, key), key=lambda f: f.recency)  # the source keeps the company's only
    if not company and len({f.company for f in filings}) > 1:
        return None  # no company named, and the counts are several companies': whose is asked is the question
    if dated is None and not label:  # no date asked: the newest filing's newest count
        filings = filings[:1]
        newest = max((c.as_of for f in filings for c in f.counts), default="")
        found = [(f, c) for f in filings for c in f.counts if c.as_of == newest]
    else:
        found = [(f, c) for f in filings for c in f.counts if _fits(c, label, dated)]
    if not found or len({c.value for _, c in found}) > 1:
        return None
    filing, count = min(found, key=lambda fc: (fc[0].recency, fc[1].dated_by != "sentence", fc[1].page))
    return _answer(sub_query, filing, count, company or filing.company)


def _date_words(iso: str) -> str:
    d = date.fromisoformat(iso)
    return f"{d:%B} {d.day}, {d.year}"


def _answer(sub_query: SubQuery, filing: CountFiling, count: CountFact, company: str) -> SubAnswer:
    value = NumericValue(text=count.text, value=count.value, period=count.period, bound=count.bound)
    shown = qualified(count.text if count.text.isalpha() else f"{count.value:,.0f}", value)
    when = f"as of {_date_words(count.as_of)}" if count.as_of else f"in {count.period}"
    citation = Citation(doc=filing.doc_name, page=count.page + 1, quote=count.quote, chunk_id=count.chunk_id)
    dated = ("the sentence's own date" if count.dated_by == "sentence"
             else "the filing's period end (the sentence states no date)")
    checks = [
        Check(name="company", passed=True, detail=f"stated in {filing.company}'s filing {filing.doc_name}"),
        Check(name="period", passed=True, detail=f"{when} ({count.period}), {dated}"),
        Check(name="metric", passed=True, detail=f"counts '{count.counted}', what the question counts"),
        Check(name="scope", passed=True, detail="no part asked; the sentence counts the company's"),
        Check(name="scale", passed=True, detail="a count, as written"),
    ]
    return SubAnswer(
        sub_query_id=sub_query.id, question=sub_query.question, status="found",
        answer=f"{company}: {shown} {count.counted} {when} {citation.label()}.",
        metric=sub_query.metric or count.counted, company=company, period=count.period, value=value, display=shown,
        quote=count.quote, citation=citation, citations=[citation], confidence=COUNT_CONFIDENCE,
        named=count.counted, exact_label=True, checks=checks, period_stated=count.dated_by == "sentence",
        explanation=f"{STATED}: {count.text} {count.counted}, {when}.",
    )
