"""Answers from the filer's own inline-XBRL tags, and the cross-check of figures read from tables against them.

A tagged fact says what a figure is without reading a layout: its concept (the metric), its context (the entity,
the period with its duration, the dimensions such as a product or segment), its unit and scale. A question is
answered from facts when they hold it whole: the metric maps to a concept (:mod:`agent.finance.concepts`), the
period to a context of the same fiscal label and duration, every part the question names to a dimension member,
and no member names a part the question did not ask for. Otherwise the text reader answers, and the figure it read
is held against the filer's tags (:func:`cross_check`): the fact on its printed row, else its metric's facts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from typing import Protocol

from pydantic import BaseModel, Field

from agent.answer.companies import same_company
from agent.answer.provenance import row_label
from agent.answer.reading import Evidence
from agent.answer.records import (
    NOT_FOUND,
    Check,
    SubAnswer,
    _capital,
    _subject,
    display_value,
)
from agent.entities import EntityRegistry
from agent.finance.basis import other_than_reported
from agent.finance.concepts import CONCEPT_QUALIFIERS, STATEMENT_METRICS, concepts_for
from agent.finance.numbers import parse_number
from agent.index.store import Store
from agent.ingest.xbrl import concept_words
from agent.query.cues import metric_label
from agent.query.plan import SubQuery
from agent.query.scope import terms_for
from agent.schemas import Citation, CountFact, DocumentMeta, NumericValue, PeriodDate, XbrlFact

TAGGED = "The filer's inline-XBRL tag"  # opens the explanation of every answer read from a fact
# A tagged figure is the filer's statement of the value: as sure as an exact row of a primary statement.
FACT_CONFIDENCE = 0.95
# Two figures differ when they are further apart than this share of the larger (rounding in the last digit).
AGREEMENT_TOLERANCE = 0.005
_DURATION_WORDS = {3: "three months", 6: "six months", 9: "nine months", 12: "year"}
# A period written as a date ends within this many days of the context's end (52/53-week years end on a weekday).
SAME_END_DAYS = 7
_KIND_MONTHS = {"quarter": 3, "half": 6, "nine_months": 9, "year": 12, "point": 0}
_MEMBER_TAIL_RE = re.compile(r"\s*(?:Segment\s+)?Member$")


class FactFiling(BaseModel):
    """One inline-XBRL filing as the answer step sees it: what it is, and the facts asked for."""

    doc_name: str
    company: str = ""
    fiscal_period: str = Field(default="", description="the filing's own period: FY2025Q2, FY2024")
    recency: int = Field(default=0, description="0 for the newest filing")
    statements_elsewhere: str = ""
    facts: list[XbrlFact] = Field(default_factory=list)
    quotes: dict[str, str] = Field(default_factory=dict, description="fact id -> the printed line it sits on")
    chunks: dict[str, str] = Field(default_factory=dict, description="fact id -> chunk id that holds it")


class CountFiling(BaseModel):
    """One filing's counts of one thing, as the answer step sees them."""

    doc_name: str
    company: str = ""
    recency: int = Field(default=0, description="0 for the newest filing")
    counts: list[CountFact] = Field(default_factory=list)


class FactSource(Protocol):
    """Where the answer step gets facts (the index store, or a test's own list)."""

    def filings(self, company: str, concepts: Sequence[str], doc: str = "") -> list[FactFiling]:
        """The inline-XBRL filings of ``company`` ('' for every company; ``doc`` alone when given) with their
        facts of ``concepts``."""
        ...

    def on_page(self, doc_name: str, page: int) -> list[tuple[XbrlFact, str]]:
        """The facts printed on one 0-based page of a filing, each with the line it is printed on."""
        ...

    def statements_elsewhere(self, doc_name: str) -> str:
        """Why a filing holds no financial statements ('' when it does or does not say)."""
        ...

    def counts(self, company: str, key: str) -> list[CountFiling]:
        """Each filing of ``company`` ('' for every company) with the counts its sentences state of ``key``."""
        ...


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _stems(text: str) -> set[str]:
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in re.findall(r"[a-z0-9]+", text.lower())}


def member_words(member: str) -> str:
    """'aapl:IPhoneMember' -> 'I Phone'; 'aapl:GreaterChinaSegmentMember' -> 'Greater China'."""
    return _MEMBER_TAIL_RE.sub("", concept_words(member))


def _names_member(term: str, member: str) -> bool:
    words = member_words(member)
    return _squash(term) == _squash(words) or (bool(_stems(term)) and _stems(term) <= _stems(words))


def _holds_scope(fact: XbrlFact, terms: Sequence[str]) -> bool:
    """Every part asked is a member of the fact's context, and every member is a part asked."""
    members = list(fact.dimensions.values())
    return all(any(_names_member(t, m) for m in members) for t in terms) and all(
        any(_names_member(t, m) for t in terms) for m in members
    )


def period_words(fact: XbrlFact) -> str:
    """'three months ended 2025-03-29', 'as of 2024-09-28'."""
    if not fact.months:
        return f"as of {fact.end}"
    return f"{_DURATION_WORDS.get(fact.months, f'{fact.months} months')} ended {fact.end}"


def _kind(fact: XbrlFact) -> str:
    if fact.unit.endswith("/shares"):
        return "per_share"
    return "count" if fact.unit == "shares" else "money"


def fact_value(fact: XbrlFact) -> NumericValue:
    """The fact as a figure in the scale it is printed in, sign and unit kept."""
    scale = 10.0 ** fact.scale if fact.scale > 0 else 1.0
    unit = "USD" if fact.unit.startswith("USD") else "shares" if fact.unit == "shares" else ""
    text = f"({fact.text})" if fact.value < 0 else fact.text
    return NumericValue(text=text, value=fact.value / scale, scale=scale, unit=unit, period=fact.period)


def asked_period(sub_query: SubQuery) -> str:
    """The one period a sub-query asks, normalised ('' for none or several)."""
    periods = sub_query.intent.temporal_scope.periods
    return sub_query.period or (periods[0] if len(periods) == 1 else "")


def _in_period(fact: XbrlFact, label: str, dated: PeriodDate | None) -> bool:
    """The fact's context is the period asked: by its end date and duration when the question writes a date
    (the filer's fiscal calendar then names it), else by its fiscal label."""
    if dated is None:
        return fact.period == label
    asked, end = date.fromisoformat(dated.date), date.fromisoformat(fact.end)
    return abs((asked - end).days) <= SAME_END_DAYS and fact.months == _KIND_MONTHS.get(dated.kind, -1)


def _matching(
    filing: FactFiling, concepts: Sequence[str], period: str, terms: Sequence[str], dated: PeriodDate | None
) -> list[XbrlFact]:
    """The filing's located facts of the first of ``concepts`` it tags for the period asked and exactly
    ``terms``; the filing's own period when none is asked."""
    own = period or filing.fiscal_period
    for concept in concepts:
        found = [f for f in filing.facts if f.concept == concept and f.page is not None
                 and _in_period(f, own, dated) and _holds_scope(f, terms)]
        if not period:  # the filing's own period: its quarter, not the year to date that a 10-Q also tags
            shortest = min((f.months for f in found), default=0)
            found = [f for f in found if f.months == shortest]
        if found:
            return found
    return []


def _foreign_name(names: Sequence[str], filing: FactFiling, registry: EntityRegistry | None,
                  terms: Sequence[str]) -> bool:
    """The question names (``names``, the plan's) a company or part that is neither the filer nor a part asked for
    (a competitor)."""
    return any(
        not same_company(name, filing.company, registry) and not any(_squash(name) == _squash(t) for t in terms)
        for name in names
    )


def answer_from_facts(
    sub_query: SubQuery, source: FactSource, registry: EntityRegistry | None = None
) -> SubAnswer | None:
    """The figure the filer tagged for exactly what ``sub_query`` asks, or None when no fact holds it whole
    (the text reader then answers under the trust gate)."""
    metric = sub_query.metric
    concepts = concepts_for(metric)
    if not concepts or not sub_query.intent.requires_numeric:
        return None
    if other_than_reported(sub_query.intent.wording.basis):
        return None  # a us-gaap fact is as reported: an adjusted or constant-currency figure is no tagged one
    terms = [t.text for t in terms_for(sub_query.intent.scope, metric)]
    period = asked_period(sub_query)
    company = sub_query.company or sub_query.intent.company
    filings = sorted(source.filings(company, concepts), key=lambda f: f.recency)
    dated = sub_query.intent.temporal_scope.dated
    for filing in filings:
        if company and not same_company(company, filing.company, registry):
            continue
        if _foreign_name(sub_query.all_names, filing, registry, terms):
            return None
        found = _matching(filing, concepts, period, terms, dated)
        if not found:
            continue
        values = {round(f.value, 6) for f in found}
        if len(values) > 1:
            return None  # two figures for one question: not one fact's answer
        return _answer(sub_query, filing, _cited_fact(found, filing), terms, company or filing.company)
    return None


def _cited_fact(found: Sequence[XbrlFact], filing: FactFiling) -> XbrlFact:
    """Of facts stating one value, the one on the page most dense with plain (statement) facts."""
    dense: dict[int, int] = {}
    for f in filing.facts:
        if f.page is not None and not f.dimensions:
            dense[f.page] = dense.get(f.page, 0) + 1
    return max(found, key=lambda f: (dense.get(f.page or 0, 0), -(f.page or 0)))


def _answer(sub_query: SubQuery, filing: FactFiling, fact: XbrlFact, terms: Sequence[str], company: str) -> SubAnswer:
    kind = _kind(fact)
    value = fact_value(fact)
    shown = display_value(value, kind, sub_query.intent.scale)
    quote = filing.quotes.get(fact.fact_id, fact.text)
    # a fact printed in a table row: the page's line prints the row's label first
    citation = Citation(doc=filing.doc_name, page=(fact.page or 0) + 1, quote=quote,
                        chunk_id=filing.chunks.get(fact.fact_id, ""), row=quote.split(" | ", 1)[0] if " | " in quote
                        else "")
    when = period_words(fact)
    tag = f"{fact.concept}, {when}" + "".join(f", {a} = {m}" for a, m in fact.dimensions.items())
    checks = [
        Check(name="company", passed=True, detail=f"tagged for {filing.company} (CIK {fact.entity})"),
        Check(name="period", passed=True, detail=f"context {fact.period}: {when}"),
        Check(name="metric", passed=True, detail=f"concept {fact.concept}"),
        Check(name="scope", passed=True, detail=("members " + ", ".join(fact.dimensions.values()))
              if fact.dimensions else "no dimension: the company as a whole"),
        Check(name="scale", passed=True, detail=f"scale {fact.scale}, unit {fact.unit or 'none'}"),
    ]
    written = [m.group(0) if (m := re.search(re.escape(t), sub_query.question, re.IGNORECASE)) else t for t in terms]
    qualifier = CONCEPT_QUALIFIERS.get(fact.concept, "")
    if qualifier and qualifier not in sub_query.metric:
        written.append(qualifier)
    subject = _subject(company, sub_query.metric, fact.period, written)
    return SubAnswer(
        sub_query_id=sub_query.id, question=sub_query.question, status="found",
        answer=f"{_capital(subject)} ({when}) was {shown} {citation.label()}.",
        metric=sub_query.metric, company=company, period=fact.period, value=value, display=shown, quote=quote,
        citation=citation, citations=[citation], confidence=FACT_CONFIDENCE, named=fact.label, exact_label=True,
        checks=checks, scope=written,
        explanation=f"{TAGGED}: {tag} (printed as {fact.text}); the tag reads {shown}.",
    )


def _figure(text: str) -> float | None:
    """The printed digits' magnitude ('(1,577)' -> 1577.0), scale words ignored: what both readings printed."""
    parsed = parse_number(text)
    return abs(parsed.value) if parsed is not None else None


def _same_row(answer: SubAnswer, line: str) -> bool:
    """The figure the reader read is on the printed line a fact sits on: a table row by its label (the page prints
    its cells after it), a sentence by its words."""
    if row_label(answer):
        label, printed = _squash(row_label(answer)), _squash(line)
        return printed.startswith(label) and not printed[len(label):len(label) + 1].isalpha()
    return bool(answer.quote) and _squash(answer.quote)[:80] in _squash(line)


def cross_check(answer: SubAnswer, source: FactSource, scale: float | None = None) -> SubAnswer:
    """A figure read from a filing's text held against the filer's tags: the fact on the same printed row, else
    the facts of the metric's concepts in that filing. A period or a value that disagrees refuses it (the tag is
    the filer's word); a scale the reader missed is taken from the tag (the figure shown in the ``scale`` asked);
    an agreeing tag adds a check."""
    if answer.status != "found" or answer.value is None or answer.citation is None:
        return answer
    printed = _figure(answer.value.text)
    if printed is None:
        return answer
    tagged = [f for f, line in source.on_page(answer.citation.doc, answer.citation.page - 1)
              if _figure(f.text) == printed and _same_row(answer, line)]
    if tagged:
        return _held_against(answer, tagged, printed, "tags this printed figure", scale)
    concepts = concepts_for(answer.metric)
    filing = next(iter(source.filings("", concepts, answer.citation.doc)), None)
    if filing is None:
        return answer
    parts = [t for t in answer.scope if t not in CONCEPT_QUALIFIERS.values()]
    facts = [f for f in filing.facts if _holds_scope(f, parts)]
    if not answer.period or not facts:
        return answer
    at_period = [f for f in facts if answer.period in (f.period, f.period_by_dates)]
    if at_period:
        return _held_against(answer, at_period, printed, f"tags {metric_label(answer.metric)} for {answer.period}",
                             scale)
    same = [f for f in facts if not _apart(f.value, answer.value.absolute)]
    if same:
        shown = " or ".join(sorted({f"{f.period} ({period_words(f)})" for f in same}))
        return _disagrees(answer, f"the filer tags this figure as {shown}, not {answer.period}")
    return answer


def _held_against(answer: SubAnswer, tagged: Sequence[XbrlFact], printed: float, what: str,
                  scale: float | None = None) -> SubAnswer:
    """``answer`` checked against the facts that should state it: one of them agrees, or the reader missed
    the scale, or it is refused."""
    assert answer.value is not None
    read = answer.value.absolute
    fact = tagged[0]
    agreeing = [f for f in tagged if not _apart(f.value, read)]
    if not agreeing:
        rescaled = [f for f in tagged if not _apart(f.value, printed * 10.0 ** f.scale)]
        if rescaled and answer.period in {"", *(p for f in rescaled for p in (f.period, f.period_by_dates))}:
            return _rescaled(answer, rescaled[0], scale)
        return _disagrees(answer, f"the filer {what} as {display_value(fact_value(fact), _kind(fact))} "
                                  f"({fact.concept}, {period_words(fact)}); the figure read is {answer.value.text}")
    periods = {p for f in agreeing for p in (f.period, f.period_by_dates) if p}
    if answer.period and answer.period not in periods:
        shown = " or ".join(sorted({f"{f.period} ({period_words(f)})" for f in agreeing}))
        return _disagrees(answer, f"the filer tags this figure as {shown}, not {answer.period}")
    agree = agreeing[0]
    check = Check(name="period", passed=True, detail=f"agrees with the filer's tag {agree.concept} {agree.period}")
    return answer.model_copy(update={"checks": [*answer.checks, check]})


def _apart(a: float, b: float) -> bool:
    return abs(abs(a) - abs(b)) > AGREEMENT_TOLERANCE * max(abs(a), abs(b))


def _rescaled(answer: SubAnswer, fact: XbrlFact, scale: float | None = None) -> SubAnswer:
    """The figure read, in the scale its tag states (the table printed no scale the reader could see), shown in
    the ``scale`` asked."""
    assert answer.value is not None
    unit = (answer.value.unit or "USD") if fact.unit.startswith("USD") else answer.value.unit
    value = answer.value.model_copy(update={"scale": 10.0 ** fact.scale, "unit": unit})
    shown = display_value(value, _kind(fact), scale)
    old = answer.display or answer.value.text
    check = Check(name="scale", passed=True, detail=f"scale {fact.scale} from the filer's tag {fact.concept}")
    return answer.model_copy(update={
        "value": value, "display": shown, "answer": answer.answer.replace(old, shown, 1),
        "checks": [*(c for c in answer.checks if c.name != "scale"), check],
    })


def _disagrees(answer: SubAnswer, why: str) -> SubAnswer:
    closest = f"{answer.display or answer.value.text if answer.value else ''} {answer.citation.label() if answer.citation else ''}"
    missing = f"{answer.question.rstrip(' ?.')} ({why})"
    return answer.model_copy(update={
        "status": "not_found", "answer": f"{NOT_FOUND}: {missing}. Closest evidence: {closest.strip()}.",
        "missing": missing, "closest": closest.strip(), "value": None, "display": "", "confidence": 0.0,
        "checks": [*answer.checks, Check(name="period", passed=False, detail=why)],
    })


def statements_refusal(answer: SubAnswer, source: FactSource) -> SubAnswer:
    """A statement figure cited from a document that holds no financial statements is refused with the reason:
    what it states in prose is not the statement of record."""
    if answer.status not in {"found", "computed"} or answer.metric not in STATEMENT_METRICS or answer.citation is None:
        return answer
    why = source.statements_elsewhere(answer.citation.doc)
    if not why:
        return answer
    missing = (f"{_subject(answer.company, answer.metric, answer.period)}: {answer.citation.doc} does not hold the "
               f"financial statements ({why}); ingest the exhibit that holds them")
    return answer.model_copy(update={
        "status": "not_found", "answer": f"{NOT_FOUND}: {missing}.", "missing": missing, "value": None,
        "display": "", "confidence": 0.0, "closest": "",
        "checks": [*answer.checks, Check(name="form", passed=False, detail=why)],
    })



def _line_at(text: str, start: int, end: int) -> str:
    """The line of ``text`` that holds the span, whitespace collapsed."""
    line_end = text.find("\n", end)
    return " ".join(text[text.rfind("\n", 0, start) + 1:line_end if line_end >= 0 else None].split())


class StoreFacts:
    """:class:`FactSource` over the index store, for one answer: read lazily, kept for the turn."""

    def __init__(self, store: Store, documents: Sequence[DocumentMeta], recency: dict[str, int],
                 registry: EntityRegistry | None = None) -> None:
        self.store = store
        self.docs = {d.name: d for d in documents}
        self.recency = recency
        self.registry = registry
        self._all: dict[str, list[XbrlFact]] = {}
        self._placed: dict[str, tuple[dict[str, str], dict[str, str]]] = {}
        self._counts: dict[str, list[CountFact]] = {}

    def _doc_facts(self, name: str) -> list[XbrlFact]:
        if name not in self._all:
            self._all[name] = self.store.facts([self.docs[name].doc_id])
        return self._all[name]

    def _where(self, name: str) -> tuple[dict[str, str], dict[str, str]]:
        """For every printed fact of a filing, the line it sits on and the chunk that holds it (fact id ->),
        read from the filing's pages and chunks once for the turn."""
        if name not in self._placed:
            doc_id = self.docs[name].doc_id
            pages = {p.page: p for p in self.store.pages(doc_id)}
            chunks = self.store.chunks([doc_id])
            quotes: dict[str, str] = {}
            where: dict[str, str] = {}
            for f in self._doc_facts(name):
                page = pages.get(f.page) if f.page is not None else None
                if page is None:
                    continue
                quotes[f.fact_id] = _line_at(page.text, f.span_start, f.span_end)
                at = page.char_start + f.span_start
                where[f.fact_id] = next((c.chunk_id for c in chunks if c.char_start <= at < c.char_end), "")
            self._placed[name] = (quotes, where)
        return self._placed[name]

    def filings(self, company: str, concepts: Sequence[str], doc: str = "") -> list[FactFiling]:
        """Each tagged filing of ``company`` (or the filing ``doc``) with its facts of ``concepts``, where each
        sits and is quoted."""
        out = []
        for name, meta in self.docs.items():
            if not meta.n_facts or (doc and name != doc):
                continue
            if company and not same_company(company, meta.company, self.registry):
                continue
            wanted = set(concepts)
            facts = [f for f in self._doc_facts(name) if f.concept in wanted]
            quotes, where = self._where(name) if facts else ({}, {})
            out.append(FactFiling(
                doc_name=name, company=meta.company, fiscal_period=meta.fiscal_period,
                recency=self.recency.get(name, len(self.recency)), statements_elsewhere=meta.statements_elsewhere,
                facts=facts, quotes={f.fact_id: quotes[f.fact_id] for f in facts if f.fact_id in quotes},
                chunks={f.fact_id: where[f.fact_id] for f in facts if f.fact_id in where},
            ))
        return out

    def evidence_for(self, answers: Sequence[SubAnswer], have: Sequence[Evidence]) -> list[Evidence]:
        """The chunks a tagged figure or a statements refusal rests on, when retrieval did not bring them: the
        verifier checks every figure of the answer against its evidence."""
        seen = {e.chunk_id for e in have}
        out: list[Evidence] = []
        for sa in answers:
            meta = self.docs.get(sa.citation.doc) if sa.citation else None
            if meta is None or sa.citation is None:
                continue
            reason = meta.statements_elsewhere if sa.checks and sa.checks[-1].name == "form" else ""
            if reason:
                quoted = reason.split('"')[1][:60] if reason.count('"') >= 2 else reason
                chunks = [c for c in self.store.chunks([meta.doc_id]) if quoted in " ".join(c.text.split())][:1]
            elif sa.citation.chunk_id:
                chunks = list(self.store.chunks_by_id([sa.citation.chunk_id]).values())
            else:
                continue
            if sa.explanation.startswith(TAGGED) and sa.citation.chunk_id:
                # The tag itself is evidence: its scale may differ from the page's header ('in millions,
                # except shares, in thousands'), so the verifier reads the figure as the tag states it.
                out.append(Evidence.of_text(
                    chunk_id=f"xbrl:{sa.citation.chunk_id}:{sa.sub_query_id}", doc_name=meta.name,
                    page=sa.citation.page - 1, text=sa.explanation, company=meta.company,
                    filing_period=meta.fiscal_period, fy_end_month=meta.fy_end_month))
            for chunk in chunks:
                if chunk.chunk_id not in seen:
                    seen.add(chunk.chunk_id)
                    out.append(Evidence.from_chunk(chunk, meta.name, company=meta.company,
                                                   filing_period=meta.fiscal_period, fy_end_month=meta.fy_end_month))
        return out

    def on_page(self, doc_name: str, page: int) -> list[tuple[XbrlFact, str]]:
        """The facts printed on one 0-based page of a filing, each with the line it is printed on."""
        meta = self.docs.get(doc_name)
        if meta is None or not meta.n_facts:
            return []
        facts = [f for f in self._doc_facts(doc_name) if f.page == page]
        quotes = self._where(doc_name)[0] if facts else {}
        return [(f, quotes.get(f.fact_id, "")) for f in facts]

    def statements_elsewhere(self, doc_name: str) -> str:
        """Why a filing holds no financial statements ('' when it does or does not say)."""
        meta = self.docs.get(doc_name)
        return meta.statements_elsewhere if meta is not None else ""

    def counts(self, company: str, key: str) -> list[CountFiling]:
        """Each filing of ``company`` ('' for every company) with the counts its sentences state of ``key``."""
        out = []
        for name, meta in self.docs.items():
            if company and not same_company(company, meta.company, self.registry):
                continue
            if name not in self._counts:
                self._counts[name] = self.store.counts([meta.doc_id])
            found = [c for c in self._counts[name] if c.key == key]
            if found:
                out.append(CountFiling(doc_name=name, company=meta.company,
                                       recency=self.recency.get(name, len(self.recency)), counts=found))
        return out
