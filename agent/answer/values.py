"""The lexicon reader: the table row or sentence that carries a canonical metric for the asked period, with
its scale converted in code, and derived metrics (margins, ratios, days, turnover, growth, FCF, EBITDA) computed
from their components by :mod:`agent.finance.arithmetic`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from agent.answer.passages import PASSAGE_MAX_CHARS, _passages_answer
from agent.answer.reading import (
    Evidence,
    EvidenceReader,
    Segment,
    clause_at,
    is_statement,
    line_key,
    measured_unit,
    naming_context,
    record_naming,
    statement_kind,
)
from agent.answer.records import (
    SubAnswer,
    _capital,
    _computed_answer,
    _not_found,
    _subject,
    display_value,
)
from agent.answer.words import (
    RETRIEVAL_WEIGHT,
    TOTAL_BONUS,
    _about,
    _for_company,
    _names_other_number,
    asked_qualifiers,
    clip_words,
    filing_owner,
    is_part_row,
    other_kind_parent,
    unasked_column,
    unasked_part,
    unnamed_modifiers,
)
from agent.finance import arithmetic
from agent.finance.arithmetic import ArithmeticRefusal, CitedValue, Computation, formula_components
from agent.finance.basis import bases_said, nearest_bases, other_than_reported
from agent.finance.direction import asked_name, asks_contrary, in_direction, shown_name, turned
from agent.finance.formulas import Formula
from agent.finance.lexicon import canonical, deducted, figure_kind, find_metrics, narrower_name
from agent.finance.metrics import METRICS
from agent.finance.numbers import MONEY_UNITS, SUBUNITS, own_measure
from agent.finance.periods import is_month, shift_period, sort_key, without_periods
from agent.ingest.typed_tables import TOTAL_ROW_RE
from agent.query.asked import asks_change
from agent.query.content import WORD_RE, content_words
from agent.query.definitions import question_formulas
from agent.query.plan import SubQuery
from agent.query.scope import STOP_WORDS, basis_words, metric_modifiers
from agent.schemas import Basis, Citation, NumericValue

# Candidate scoring (relative weights; the best candidate wins, confidence is its score over the maximum).
EXACT_LABEL = 1.0  # the whole row label is a name of the metric ("Total revenue" for revenue)


PARTIAL_LABEL = 0.55  # the label names the metric plus qualifiers ("Industrial Sensors revenue")


TABLE_BONUS = 0.3  # a table row states the figure with its period column; prose restates it


STATEMENT_BONUS = 0.25  # a primary financial statement beats MD&A and notes


STATEMENT_MISMATCH = 0.45  # a balance-sheet metric read from the cash-flow statement's changes is wrong


ADJUSTED_PENALTY = 0.5  # a row on another basis ('adjusted', 'non-GAAP') answers only questions that ask it


SENTENCE_PERIOD_BONUS = 0.1  # a sentence that states the period next to the number
STATED_CHANGE_BONUS = 1.0  # a change asked, stated as one ('decreased by $932 million'), before any level read


OTHER_METRIC_PENALTY = (
    0.3  # 'Net income attributable to noncontrolling interests' is not net income to owners
)


QUALIFIER_WEIGHT = 0.1  # share of a row label's words the question uses: "net PP&E" picks the "... net" row


NAMING_WORDS = 6  # words before a sentence's figure that say what it is ('we reported a net loss of')
MAX_SCORE = EXACT_LABEL + TABLE_BONUS + STATEMENT_BONUS  # an exact statement row; retrieval only breaks ties


LATEST_CONFIDENCE = 0.85  # a value read for the latest period when the question named none


CONFLICT_CONFIDENCE = 0.75  # another equally good candidate disagrees




_TOPIC_STATEMENT = {
    "Balance Sheet": "balance",
    "Liquidity": "balance",
    "Leverage": "balance",
    "Cash Flow": "cashflow",
    "Revenue": "income",
    "Costs/Expenses": "income",
    "Profitability": "income",
    "Per Share": "income",
}


_PER_RE = re.compile(r"\s*per\s+")  # '$3.00 per diluted share': the figure belongs to the metric after 'per'


class _Candidate(BaseModel):
    seg: Segment
    value: NumericValue
    score: float
    exact: bool
    reasons: list[str] = Field(default_factory=list)


# A component a filing may not report under that name, and the figure that stands in for it (and why).
COMPONENT_FALLBACKS: dict[str, tuple[str, str]] = {
    "net income attributable to shareholders": (
        "net income",
        "a company without noncontrolling interests reports one net income line",
    ),
    "earnings per share": (
        "diluted earnings per share",
        "earnings per share asked without a basis is the diluted figure, the one a filer reports as its EPS",
    ),
}


# ---------------------------------------------------------------------------------------------------------
# Metric kinds and value fit
# ---------------------------------------------------------------------------------------------------------
def _fits(kind: str, n: NumericValue) -> bool:
    if kind == "money":
        return (n.unit in MONEY_UNITS or n.unit == "") and not (
            n.unit == "" and n.scale == 1.0 and abs(n.value) < 1
        )
    if kind == "percent":
        return n.unit in {"%", "bps"}
    if kind in {"ratio", "days"}:
        return n.unit in {"x", ""} and n.scale == 1.0
    if kind == "per_share":
        return n.unit in MONEY_UNITS or n.unit in SUBUNITS or n.unit == ""
    return n.unit in {"", "shares"}


def _coerce(kind: str, n: NumericValue) -> NumericValue:
    if kind == "per_share" and n.scale != 1.0:
        return n.model_copy(update={"scale": 1.0})  # "(in millions, except per share amounts)"
    return n


def _scope_terms(reader: EvidenceReader, names: Sequence[str]) -> list[str]:
    """Names the question scopes to that no filing belongs to: segments, regions, products."""
    return [n for n in dict.fromkeys(names) if n and not any(_about(ev, n) for ev in reader.evidence)]


def _totals_listed_line(seg: Segment, lines: set[str]) -> bool:
    """A 'Total X' row of a table that also lists an 'X' row of its own."""
    key = line_key(seg.label)
    return key.startswith("total ") and key.removeprefix("total ") in lines


def _label_quality(seg: Segment, metric: str) -> tuple[float, bool]:
    """(score, exact) of a row label or sentence for ``metric``; (0, False) when it does not name it."""
    if seg.kind == "row":
        if canonical(line_key(seg.label)) == metric or canonical(seg.label) == metric:
            return EXACT_LABEL, True
        if any(m.canonical == metric and not deducted(seg.label, m) for m in seg.mentions):
            bonus = TOTAL_BONUS if TOTAL_ROW_RE.match(seg.label) else 0.0
            return PARTIAL_LABEL + bonus, False
        return 0.0, False
    if any(m.canonical == metric for m in seg.mentions):
        return PARTIAL_LABEL, False
    return 0.0, False


# Between a metric's mention and a figure, '<noun> of $N' makes the figure that noun's ('carryforwards of',
# 'growth of', 'an increase of'); 'operating income of $N' (the 'of' right after the mention) keeps it.
_OF_ANOTHER_RE = re.compile(r"\b[A-Za-z][\w-]*\s+of\s+(?:approximately\s+|about\s+)?[$€£]?\s*$")
# A count or a rate written before what it is: at most two describing words between ('154,000 full-time
# employees', '8 percent organic revenue growth'); a change word or a preposition there ('a 3% decline in
# comparable sales') makes the figure the change's, not the metric's.
_WRITTEN_BEFORE_RE = re.compile(r"\s+(?:[A-Za-z][\w-]*\s+){0,2}")
_NOT_DESCRIBING = frozenset(["increase", "decrease", "decline", "drop", "rise", "reduction", "change", "improvement",
                             "deterioration", "contraction", "expansion", "point", "points", "basis"])


def _written_before(gap: str, n: NumericValue, metric: str) -> bool:
    """The figure ``n`` names ``metric`` written right after it ('315,000 employees', '8% organic growth')."""
    kind = figure_kind(metric)
    if kind not in {"count", "percent"} or (kind == "percent" and n.unit != "%"):
        return False
    words = {w.lower() for w in gap.split()}
    return bool(_WRITTEN_BEFORE_RE.fullmatch(gap)) and not words & (STOP_WORDS | _NOT_DESCRIBING)


def _owned_numbers(seg: Segment, metric: str) -> list[NumericValue]:
    """A sentence's numbers that belong to the mention of ``metric``: those after it, up to the next metric.

    A number directly followed by 'per <metric>' ('$3.00 per diluted share') belongs to that next metric, and
    so does a count written before the thing it counts ('approximately 154,000 full-time employees'); a
    number another noun claims ('<metric> carryforwards of $27 million') belongs to no metric.
    """
    if seg.kind == "row":
        return seg.numbers
    mentions = sorted(seg.mentions, key=lambda m: m.start)
    owned: list[NumericValue] = []
    for n in seg.numbers:
        local_start, local_end = n.start - seg.start, n.end - seg.start
        prior = [m for m in mentions if m.end <= local_start]
        owner = prior[-1].canonical if prior else ""
        following = [m for m in mentions if m.start >= local_end]
        if following and (
            _PER_RE.fullmatch(seg.raw[local_end : following[0].start])
            or _written_before(seg.raw[local_end : following[0].start], n, following[0].canonical)
        ):
            owner = following[0].canonical
        elif prior and _OF_ANOTHER_RE.search(seg.raw[prior[-1].end : local_start]):
            owner = ""  # 'net operating loss carryforwards of $27 million': the figure is the carryforwards'
        if owner == metric:
            owned.append(n)
    return owned


def _candidates(
    reader: EvidenceReader, metric: str, period: str, allowed: set[int], question: str, terms: Sequence[str] = (),
    change: bool = False, bases: Sequence[Basis] = (),
) -> list[_Candidate]:
    """Figures of ``metric`` in ``period`` from the rows and sentences of the ``allowed`` evidence; ``terms`` are
    the (lower-case) segment, region or product names the question scopes to: a row labelled by one of them
    under a sub-heading naming the metric ('Operating Profit' / 'Frito-Lay North America | 1,599') is one.
    An amount a sentence states as a change ('decreased by $932 million') is a candidate only when the plan asks
    the ``change``, and then before any level."""
    kind = figure_kind(metric)
    wanted = set(bases)
    preferred = _TOPIC_STATEMENT.get(METRICS[metric].topic, "") if metric in METRICS else ""
    said = question.lower()
    asked = set(WORD_RE.findall(said))
    intent_metrics = {m.canonical for m in find_metrics(question)}
    whole = METRICS[metric].part_of if metric in METRICS else ""
    asked_part = " ".join([question, *terms])
    out: list[_Candidate] = []
    for seg in reader.segments:
        if seg.ev not in allowed:
            continue
        quality, exact = _label_quality(seg, metric)
        reasons = [
            f"{'exact' if exact else 'partial'} metric match: {metric} ~ "
            f"{seg.label or _mention_surface(seg, metric)}"
        ]
        part = reader.evidence[seg.ev].part
        if quality <= 0 and whole and part and not unasked_part(reader.evidence[seg.ev], asked_part):
            # The part's own table names its figure with the whole's words ('Net sales' under 'Space').
            quality, exact = _label_quality(seg, whole)
            reasons = [f"{whole} of {part}, the part asked: {seg.label or _mention_surface(seg, whole)}"]
        if quality <= 0 and _total_of_kinds(seg, metric, reader, "total" in asked):
            quality = PARTIAL_LABEL
            reasons = [f"the total of rows of {metric}: {seg.label}"]
        if quality <= 0 and _segment_row(seg, metric, terms, reader.evidence[seg.ev]):
            quality = PARTIAL_LABEL
            heading = next((m.surface for m in seg.heading if m.canonical == metric), "") or _titled(
                reader.evidence[seg.ev], metric)
            reasons = [f"segment row: {seg.label}, under {heading!r} ({metric})"]
        if quality <= 0 or (seg.kind == "row" and _names_other_number(seg.label, question)):
            continue
        named = [m for m in seg.mentions if m.canonical == metric]
        if seg.kind == "row" and named and all(narrower_name(m) and m.surface.lower() not in said for m in named):
            continue  # 'Work in process' is one kind of inventories: never the inventories asked, only itself
        if other_kind_parent(kind == "per_share", seg.parent):
            continue  # per share under 'Diluted Earnings Per Common Share'; a count under 'Weighted average number of'
        if seg.kind == "row" and "total" not in asked and _totals_listed_line(seg, reader.lines.get(seg.ev, set())):
            # 'Total other operating expenses' sums the 'Other operating expenses' line it lists: a question
            # naming the line without 'total' asks for the line.
            quality -= 2 * TOTAL_BONUS
            reasons.append("a total of the line the question names")
        ev = reader.evidence[seg.ev]
        base = quality
        if seg.kind == "row":
            base += TABLE_BONUS
        if is_statement(ev):
            base += STATEMENT_BONUS
            reasons.append("financial statement")
        stmt = statement_kind(ev)
        if preferred == "balance" and stmt == "cashflow":
            base -= STATEMENT_MISMATCH
        if not set(other_than_reported(bases_said(seg.label or ""))) <= wanted:
            base -= ADJUSTED_PENALTY
        base += RETRIEVAL_WEIGHT * reader.rel_score[seg.ev]
        others = {m.canonical for m in seg.mentions} - {metric} - intent_metrics
        if seg.kind == "row" and not exact and others:
            base -= OTHER_METRIC_PENALTY
            reasons.append(f"label also names {', '.join(sorted(others))}")
        if seg.kind == "row":
            label_words = set(WORD_RE.findall(seg.label.lower())) - STOP_WORDS
            if label_words:
                base += QUALIFIER_WEIGHT * len(label_words & asked) / len(label_words)
        for n in _owned_numbers(seg, metric):
            if kind == "count" and seg.kind == "sentence" and measured_unit(seg.raw, n.end - seg.start):
                continue  # 'employees completed over 1 million hours': a measure of time, not a headcount
            n = _coerce(kind, n)
            if not _fits(kind, n):
                continue
            if period and n.period != period:
                continue
            if n.change and n.unit != "%" and not change:
                continue  # the amount the metric moved by, never its level (a percentage is a rate's level too)
            score = base + (SENTENCE_PERIOD_BONUS if seg.kind == "sentence" and n.period else 0.0)
            score += STATED_CHANGE_BONUS if change and n.change else 0.0
            out.append(_Candidate(seg=seg, value=n, score=score, exact=exact, reasons=reasons))
    return out


def _not_components(cands: list[_Candidate], asked: set[str]) -> list[_Candidate]:
    """The candidates less the rows a total row among them closes ('Accrued expenses and other liabilities' above
    'Total accrued liabilities', both read as accrued liabilities): a part of a total the table prints answers the
    whole only when the question (its content words ``asked``) names the part's own words too."""
    totals = [c for c in cands if c.seg.kind == "row" and c.seg.row is not None and c.seg.row.total]
    return [c for c in cands
            if not any(t.seg.ev == c.seg.ev and t.seg.parent in {c.seg.parent, ""} and t.seg.start > c.seg.start
                       and t.value.period == c.value.period and c not in totals
                       and not content_words(c.seg.label) <= asked | content_words(t.seg.label)
                       for t in totals)]


def _total_of_kinds(seg: Segment, metric: str, reader: EvidenceReader, total_asked: bool) -> bool:
    """A bare total row ('Total', 'Total as of December 31,') closing rows that are kinds of ``metric`` as the
    lexicon names them ('Raw materials', 'Work in process', 'Finished goods' of inventories): the metric's total;
    with the total asked ('the total accrued liabilities'), also one closing a row that names the metric itself
    ('Accrued Expenses' beside 'Accrued Interest')."""
    named = {w for w in content_words(without_periods(seg.label)) if not is_month(w)}  # 'as of December 31,'
    if seg.kind != "row" or seg.row is None or not seg.row.total or named:
        return False
    return any(other.kind == "row" and other.ev == seg.ev and other.parent == seg.parent and other is not seg
               and any(m.canonical == metric and (total_asked or narrower_name(m)) for m in other.mentions)
               for other in reader.segments)


def _clause(cand: _Candidate) -> str:
    """The clause of a sentence that holds the candidate's figure (a row: the whole row)."""
    if cand.seg.kind == "row":
        return cand.seg.text
    at = cand.value.start - cand.seg.start
    return clause_at(cand.seg.raw, at, at + (cand.value.end - cand.value.start))


def _segment_row(seg: Segment, metric: str, terms: Sequence[str], ev: Evidence) -> bool:
    """A table row whose label is a name the question scopes to, or its block's total ('Total Garden'), under a
    sub-heading or a table title naming ``metric`` ('NET SALES BY SEGMENT')."""
    if seg.kind != "row" or not terms:
        return False
    label = " ".join(seg.label.lower().split())
    if any(m.canonical == metric for m in seg.heading):
        return any(label == t or label.startswith(f"{t} ") or t.startswith(f"{label} ") for t in terms)
    if any(m.canonical in METRICS and metric not in (m.canonical, METRICS[m.canonical].part_of) for m in seg.heading):
        return False  # the sub-heading names the block's metric ('Revenue' over the segments), another than asked
    # under a title only the part's own row or its total: 'United Kingdom deferred tax' is another line of the part
    return bool(_titled(ev, metric)) and is_part_row(label, terms)


def _titled(ev: Evidence, metric: str) -> str:
    """The title of the evidence's table when it names ``metric`` or a part's figure of it ('NET SALES BY SEGMENT':
    segment revenue, revenue's parts), else ''."""
    title = ev.table.title if ev.table is not None else ""
    named = {m.canonical for m in find_metrics(title)} if title else set()
    ok = metric in named or any(metric in (m, METRICS[m].part_of) for m in named if m in METRICS)
    return title if ok else ""


def _provenance(reader: EvidenceReader, cand: _Candidate) -> str:
    """What the candidate figure is said to be of, lower-cased: its own clause (a sentence's other clauses are
    other figures'), a row's label with its table's title and header, and the section headings its chunk sits
    under (the trust gate reads the same words)."""
    ev = reader.evidence[cand.seg.ev]
    own = record_naming(ev, cand.seg, cand.value)
    if own is not None:
        return own.lower()  # a typed row: its own column's header, never the other columns' (the row prints all)
    table = _naming(reader, cand) if cand.seg.kind == "row" else ""
    return " ".join([_clause(cand), table, *ev.section_path]).lower()


def _naming(reader: EvidenceReader, cand: _Candidate) -> str:
    """The words that say what a candidate figure is: its row label with its table's title, or its sentence."""
    own = record_naming(reader.evidence[cand.seg.ev], cand.seg, cand.value)
    if own is not None:
        return own
    context = naming_context(reader.evidence[cand.seg.ev], cand.value.start,
                             cand.seg.label if cand.seg.kind == "row" else "")
    return f"{context} {cand.seg.parent}" if cand.seg.parent else context  # the row's sub-heading is its own


def _mention_surface(seg: Segment, metric: str) -> str:
    return next((m.surface for m in seg.mentions if m.canonical == metric), metric)


class _Found(BaseModel):
    value: NumericValue
    quote: str
    citation: Citation
    confidence: float
    exact: bool
    kind: Literal["row", "sentence"]
    reasons: list[str] = Field(default_factory=list)
    company: str = Field(default="", description="whose filing the figure is from")
    named_by: str = Field(default="", description="the words naming the figure: its row label, or the words "
                          "before it in its sentence")
    mixed_signs: bool = Field(default=False, description="its row prints both positive and negative figures")
    part: str = Field(default="", description="the part of the company (segment, region) its table is of")

    def read_as(self, asked: str) -> NumericValue:
        """The figure in the direction ``asked`` names ('net loss' of a 'Net income (loss) | (6,557)' row is
        6,557); as printed when neither names a direction."""
        turned_to = in_direction(self.value.value, self.named_by, asked, self.mixed_signs)
        return self.value if turned_to is None else turned(self.value, turned_to)


def _named_by(cand: _Candidate) -> str:
    """A row's label, after its sub-heading when only that names the metric ('Operating income (loss): Computing
    and Graphics', whose direction the sub-heading says); of a sentence, the few words before the figure ('a net
    loss of')."""
    if cand.seg.kind == "row":
        label, parent = cand.seg.label, cand.seg.parent
        return f"{parent}: {label}" if parent and not cand.seg.mentions and find_metrics(parent) else label
    at = max(0, cand.value.start - cand.seg.start)
    if cand.value.change:  # 'Net revenues of $28.7 billion increased by $1.8 billion': the level's words name it
        at = max((m.end for m in cand.seg.mentions if m.end <= at), default=at)
    return " ".join(cand.seg.raw[:at].split()[-NAMING_WORDS:])


def _find(
    reader: EvidenceReader, metric: str, period: str, company: str, question: str, scope: Sequence[str] = (),
    change: bool = False, bases: Sequence[Basis] = (),
) -> _Found | None:
    """The best figure for ``metric`` in ``period`` ('' = the latest period the evidence has); ``scope`` holds
    the names the question narrows it to (company, segments); ``change``: the plan asks the change of the metric,
    which a sentence may state ('decreased by $932 million'); ``bases``: the bases the plan asks other than as
    reported, which the figures whose own words state them answer first ('Adjusted EBITDA', not the EBITDA
    computed from the statements)."""
    allowed = _for_company(reader, company)
    terms = [" ".join(t.lower().split()) for t in _scope_terms(reader, scope)]
    own = " ".join(company.lower().split())
    cands = _candidates(reader, metric, period, allowed, question, terms, change, bases)
    # A segment, region or product named in the question scopes the figure: keep the rows that name it, and
    # of a sentence the figures whose own clause names it ('..., including approximately 132,000 people within
    # the United States' answers the U.S. count, not the worldwide one before it).
    # The figures whose own words name the most of the parts asked ('freight' and 'Europe': the Europe column).
    covered = [sum(t in _provenance(reader, c) for t in terms) for c in cands]
    most = max(covered, default=0)
    scoped = [c for c, n in zip(cands, covered, strict=True) if n == most and most > 0] or [
        c for c in cands if any(t in c.seg.text.lower() for t in terms)
    ]
    if scoped:
        cands = scoped
    elif any(t in " ".join(s.text.lower() for s in reader.segments if s.ev in allowed) for t in terms if t != own):
        # The evidence shows the segment or region asked ('APAC | $479,987 | ...') but no figure of it in the
        # period: the company's total is no answer for it. (The company itself is the gate's company check.)
        return None
    # A figure of a segment's or region's table answers only for that part: the company's own figure, where the
    # evidence has one, is the answer; where it has none, the gate says the figure found is a part's.
    asked = " ".join([question, *scope, *bases])  # a reconciliation's table is of the basis asked, no part
    whole = [c for c in cands if not unasked_part(reader.evidence[c.seg.ev], asked)
             and not unasked_column(reader.evidence[c.seg.ev], c.value, asked, company, c.seg.row_label)]
    cands = whole or cands
    if bases:
        # the figures whose own words state the bases asked ('Adjusted diluted earnings per share'), else those
        # whose table's title does ('Non-GAAP Reconciliation' over 'Adjusted EBITDA'), else all (the
        # statements of record are reported: they never answer a basis asked)
        named = [c for c in cands if set(bases) <= set(bases_said(_named_by(c)))]
        titled = [c for c in cands if set(bases) <= set(nearest_bases(_named_by(c), _provenance(reader, c)))]
        cands = named or titled or cands
    else:
        # asked on no basis: the figures whose own words state none other than the reported one, where any does
        cands = [c for c in cands if not other_than_reported(bases_said(_named_by(c)))] or cands
    if not any(t != own for t in terms) and not bases:
        # The statement of record: a company-level figure a primary statement prints is read there, never from a
        # note's, MD&A's or schedule's table (a note's 'Revenue' of contract liabilities is no annual revenue).
        of_record = [c for c in cands if c.seg.kind == "row" and is_statement(reader.evidence[c.seg.ev])]
        cands = of_record or cands
    if metric_modifiers(question, metric, company):
        # 'Contract manufacturing net sales': the rows (or sentences) whose own words or table title say so.
        named = [c for c in cands if not unnamed_modifiers(question, metric, _naming(reader, c), company)]
        cands = named or cands
    cands = _not_components(cands, content_words(question)) or cands
    if basis := basis_words(question, metric, company):
        # 'total accrued liabilities', 'net property and equipment': of the rows printed for the metric, those
        # whose own words say which one (the total, the net figure) answer; where none says it, all stay.
        said = [c for c in cands if set(basis) <= set(WORD_RE.findall(_named_by(c).lower()))]
        cands = said or cands
    if not cands:
        return None
    confidence_cap = 1.0
    if not period:
        dated = [c for c in cands if c.value.period]
        if dated:
            best_score = max(c.score for c in dated)
            good = [c for c in dated if c.score >= best_score - TABLE_BONUS]
            latest = max((c.value.period for c in good), key=sort_key)
            cands = [c for c in good if c.value.period == latest]
        confidence_cap = LATEST_CONFIDENCE
    cands.sort(key=lambda c: (-c.score, c.seg.ev, c.seg.start))
    best = cands[0]
    rivals = [
        c
        for c in cands[1:]
        if c.score >= best.score - 1e-9
        and abs(c.value.absolute - best.value.absolute) > 1e-6 * max(1.0, abs(best.value.absolute))
    ]
    confidence = min(confidence_cap, best.score / MAX_SCORE, 1.0)
    if rivals:
        confidence = min(confidence, CONFLICT_CONFIDENCE)
    ev = reader.evidence[best.seg.ev]
    quote = clip_words(best.seg.text, PASSAGE_MAX_CHARS)
    reasons = list(best.reasons)
    if best.value.period:
        reasons.append(
            f"period matched: {best.value.period}" if period else f"latest period: {best.value.period}"
        )
    return _Found(
        value=best.value,
        quote=quote,
        citation=ev.citation(quote, best.seg.start, best.seg.row_label),
        confidence=round(confidence, 3),
        exact=best.exact,
        kind=best.seg.kind,
        reasons=reasons,
        company=ev.company,
        named_by=_named_by(best),
        mixed_signs=best.seg.kind == "row" and len({n.value < 0 for n in best.seg.numbers if n.value}) > 1,
        part=ev.part,
    )


# ---------------------------------------------------------------------------------------------------------
# Answering one sub-query
# ---------------------------------------------------------------------------------------------------------
def _lexicon_answer(
    base: SubAnswer, sub_query: SubQuery, reader: EvidenceReader, metric: str, company: str, period: str
) -> SubAnswer:
    """The answer through the lexicon: the metric's rows and sentences, or its components."""
    intent = sub_query.intent
    if not (metric and intent.requires_numeric):
        return _passages_answer(base, sub_query, reader)
    if metric not in METRICS:
        return _not_found(base, f"'{metric}' is not a metric finrag knows")
    info = METRICS[metric]
    target_scale = sub_query.intent.scale
    kind = figure_kind(metric)
    # The question's own restriction ('in the United States') scopes the figure like a segment name does.
    # the parts of ``base.scope``: the basis it also names is no word a row must print ('Non-GAAP' says adjusted)
    parts = [t for t in base.scope if t not in set(Basis)]
    # ... never the company's own name ('MGM Resorts International' asks no international figure)
    qualifiers = asked_qualifiers(sub_query.question, [company, *intent.company_written])
    scope = [company, *intent.entities, *(term for _, term in qualifiers), *parts]
    change = asks_change(intent)
    bases = other_than_reported(intent.wording.basis)
    direct = _find(reader, metric, period, company, sub_query.question, scope, change, bases)
    stand_in_note, shown = "", base
    if direct is None and metric in COMPONENT_FALLBACKS:
        stand_in, why = COMPONENT_FALLBACKS[metric]
        direct = _find(reader, stand_in, period, company, sub_query.question, scope, bases=bases)
        stand_in_note = f" The filing reports no separate {metric}; {stand_in} is used ({why})."
        shown = base.model_copy(update={"metric": stand_in})  # the answer says which figure it states
    if info.formula is None:
        if direct is None:
            return _not_found(base, f"{_subject(company, metric, period or 'any period', base.scope)}")
        answer = _found_answer(shown, direct, kind, target_scale, change)
        answer.explanation += stand_in_note
        return answer
    formulas, unreadable = question_formulas(sub_query.question)
    refused = {m: why for m, why in unreadable.items() if m == metric or m in formula_components(metric, formulas)}
    if refused:
        # The question's own definition wins: a figure by finrag's formula (or the filing's) would answer another
        # question, so what cannot be computed is said instead of a number.
        return _not_found(base, f"{_subject(company, metric, period or 'any period', base.scope)} "
                                f"({'; '.join(refused.values())})")
    # a figure whose own words state the basis asked ('Adjusted EBITDA') is that figure; a formula computes it from
    # reported figures
    stated_on_basis = bool(bases) and direct is not None and set(bases) <= set(bases_said(direct.named_by))
    computed, why, sure = (None, "", 0.0) if stated_on_basis else _derive(
        reader, metric, period, company, sub_query.question, scope, formulas, bases)
    # A definition the question writes is computed by it; the filing's own figure may follow another one. Else
    # the row printing the metric under its own name is the statement of record ('Gross margin (%) | 73.2'), a
    # margin or ratio included: what the filing states is stated, computed only where no row prints it.
    # A part's row ('Operating margin' under a segment's heading) is no statement of the company's figure.
    of_part = direct is not None and bool(direct.part) and not _said(direct.part, [sub_query.question, *scope])
    prefer_computed = bool(formulas) or of_part or not (direct and direct.kind == "row" and direct.exact)
    if computed is not None and (prefer_computed or direct is None):
        answer = _computed_answer(base, computed, kind, target_scale, sure)
        if formulas:
            answer.explanation += f" By the question's definition of {', '.join(formulas)}, not finrag's own."
        if direct is not None and direct.value.period == computed.result.period:
            same = abs(abs(direct.value.value) - abs(round(computed.result.value, 1))) < 0.051
            note = "matches" if same else "differs from"
            answer.explanation += (
                f" The filing also states {direct.value.text} {direct.citation.label()}, which "
                f"{note} the computed figure."
            )
        return answer
    if direct is not None:
        answer = _found_answer(base, direct, kind, target_scale, change)
        if why:
            answer.explanation += f" Not computed from components: {why}."
        elif computed is not None:
            answer.explanation += f" Computed from its components it is {computed.result.value:,.2f}{computed.result.unit}."
        return answer
    return _not_found(base, f"{_subject(company, metric, period or 'any period', base.scope)} ({why})")


def _said(part: str, scope: Sequence[str]) -> bool:
    """Whether the parts ``scope`` already says name ``part`` ('aeronautics' says 'Aeronautics')."""
    return any(part.lower() in s.lower() or s.lower() in part.lower() for s in scope)


def _found_answer(base: SubAnswer, found: _Found, kind: str, target_scale: float | None, change: bool) -> SubAnswer:
    """The sentence and typed value of a figure found for ``base``; ``change``: the plan asks how much it moved."""
    read = found.read_as(asked_name(base.question, base.metric) or base.metric)
    name = shown_name(base.question, base.metric)
    outflow = base.metric in arithmetic.SPENDING_METRICS and read.value < 0
    shown_value = read.model_copy(update={"value": abs(read.value)}) if outflow else read
    if name != base.metric and read.value < 0:
        # 'the income tax benefit' of a year with a tax provision: the provision is said, not a negative benefit
        name = f"{base.metric} (not a {asks_contrary(name)})"
        shown_value = turned(read, -read.value)
    if kind == "money" and not shown_value.unit and not own_measure(found.named_by):
        # A lexicon money metric read from a statement that writes no currency sign: SEC filings report in USD
        # (a row stating its own scale and no currency counts something else: 'Revenue passenger miles (millions)').
        shown_value = shown_value.model_copy(update={"unit": "USD"})
    moved = ""
    if read.change and change:  # a change asked, stated as one: say which way it moved, by how much
        moved = "decreased by" if read.value < 0 else "increased by"
        shown_value = turned(shown_value, abs(shown_value.value))
    shown = display_value(shown_value, kind, target_scale)
    period = found.value.period or base.period
    # A question that names no company still gets a figure that says whose it is, and of which part.
    parts = [*base.scope, found.part] if found.part and not _said(found.part, base.scope) else base.scope
    sentence = (
        f"{_capital(_subject(base.company or found.company, name, period, parts))} {moved or 'was'} {shown} "
        f"{found.citation.label()}."
    )
    value = read.model_copy(update={"period": period})
    return base.model_copy(
        update={
            "status": "found",
            "answer": sentence,
            "value": value,
            "display": shown,
            "quote": found.quote,
            "citation": found.citation,
            "citations": [found.citation],
            "confidence": found.confidence,
            "period": period,
            "period_stated": bool(found.value.period),
            "exact_label": found.exact and found.kind == "row",
            "explanation": "; ".join(found.reasons)
            + f'. Source: "{found.quote}"'
            + (
                f". Reported as {found.value.text}: an outflow or expense shown as a negative; the amount "
                "is its "
                "magnitude."
                if outflow
                else ""
            ),
        }
    )


def _derive(
    reader: EvidenceReader,
    metric: str,
    period: str,
    company: str,
    question: str,
    scope: Sequence[str] = (),
    formulas: Mapping[str, Formula] | None = None,
    bases: Sequence[Basis] = (),
) -> tuple[Computation | None, str, float]:
    """A derived metric computed from components found in the evidence: (computation, '', confidence), or
    (None, why, 0) when it cannot be; the confidence is that of the least sure component used. ``formulas``
    (definitions the question writes) replace the lexicon's; a component the filing states on the ``bases`` asked
    is read on them ('Adjusted EBITDA' of an adjusted EBITDA margin)."""
    parts = formula_components(metric, formulas)
    if not period:
        period = _latest_component_period(reader, parts, company, question, scope)
        if not period:
            return None, "no period found for its components", 0.0
    needs_prior = arithmetic.needs_prior_period(metric, formulas)
    try:
        prior_period = shift_period(period, years=-1) if needs_prior else ""
    except ValueError:
        prior_period = ""
    values: dict[str, CitedValue] = {}
    prior: dict[str, CitedValue] = {}
    sureness: dict[tuple[str, str], float] = {}
    notes: list[str] = []
    for part in parts:
        for when, target in ((period, values), (prior_period, prior)):
            if not when:
                continue
            found = _find(reader, part, when, company, question, scope, bases=bases)
            if found is None and part in COMPONENT_FALLBACKS:
                stand_in, why = COMPONENT_FALLBACKS[part]
                found = _find(reader, stand_in, when, company, question, scope, bases=bases)
                if found is not None:
                    notes.append(f"{stand_in} is used for {part} ({why})")
            if found is not None and not set(other_than_reported(bases_said(found.named_by))) - set(bases):
                # a component stated on a basis not asked ('Adjusted EBITDA' of a reported margin) is none: the
                # formula computes it from its own components, where the filing prints them
                target[part] = _cited(part, found, when)
                sureness[(part, when)] = found.confidence
    owners = {filing_owner(reader.evidence, v.citation.doc) for v in (*values.values(), *prior.values()) if v.citation}
    if len(owners) > 1:
        # A question naming no company searches every filing: one company's SG&A over another's revenue is a
        # wrong number, whatever each component's own checks say.
        return None, f"its components come from different companies' filings ({', '.join(sorted(owners))})", 0.0
    try:
        comp = arithmetic.derive(metric, values, prior, period=period, formulas=formulas)
    except ArithmeticRefusal as exc:
        return None, str(exc), 0.0
    if notes:
        comp.explanation = " ".join([comp.explanation, *[_capital(n) + "." for n in dict.fromkeys(notes)]])
    used = [sureness.get((i.metric, i.value.period), 1.0) for i in comp.inputs]
    for step in comp.steps:
        used += [sureness.get((i.metric, i.value.period), 1.0) for i in step.inputs]
    return comp, "", min(used, default=1.0)


def _latest_component_period(
    reader: EvidenceReader, parts: Sequence[str], company: str, question: str, scope: Sequence[str] = ()
) -> str:
    periods = []
    for part in parts:
        found = _find(reader, part, "", company, question, scope)
        if found is not None and found.value.period:
            periods.append(found.value.period)
    return max(periods, key=sort_key) if periods else ""


def _cited(metric: str, found: _Found, period: str) -> CitedValue:
    value = _coerce(figure_kind(metric), found.read_as(metric))
    return CitedValue(
        label=f"{metric} {period}".strip(),
        metric=metric,
        value=value.model_copy(update={"period": value.period or period}),
        citation=found.citation,
    )
