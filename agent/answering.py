"""Answer sub-queries from evidence and merge them into one cited answer (offline and language-model twins).

Offline twin (extractive, DESIGN "Every language-model step has an offline twin"): for a numeric sub-query it
finds the table row or sentence that carries the asked metric and period (rows and sentences as
:class:`agent.reading.EvidenceReader` reads them). Row labels and sentences are matched
to metrics through the lexicon (canonical names, synonyms, abbreviations), periods through the row's period
cells or the sentence's period mentions. Exact labels beat partial ones ("Total revenue" beats "Industrial
Sensors revenue"), statements beat MD&A restatements, a balance-sheet metric prefers the balance sheet over
the cash-flow statement's changes. Scales are converted in code ("in USD millions" vs "(in thousands)").
Derived metrics (margins, ratios, days, turnover, growth, FCF, EBITDA) are computed by :mod:`agent.arithmetic`
from their components. Explanation, definition and policy questions get the best one to three evidence
sentences. Nothing found means an honest "not found in the filings: <what>", never a guess.

:func:`compose_answer` merges sub-answers and computations into one :class:`FinalAnswer` where every figure
carries ``[doc, p. N]``. :func:`llm_answer` is the grounded-prompt twin (multistage_retrieval_reranking 3.7):
the model sees only the evidence, does arithmetic through the calculator tool, and its text goes through
:func:`agent.verify.verify_answer`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Literal

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from agent import arithmetic
from agent.arithmetic import ArithmeticRefusal, CitedValue, Computation
from agent.decompose import Combination, QueryPlan, SubQuery
from agent.lexicon import METRICS, FormulaKind, canonical, components, find_metrics
from agent.llm import UsageLog, calculator, text_call
from agent.llm_schemas import EvidenceBlock
from agent.memory import companies_agree, company_key
from agent.numbers import decimals_of, format_number
from agent.periods import find_periods, normalise_period, shift_period, sort_key, without_periods
from agent.preprocess import TYPED_NUMBER, Rewrite, metric_label, possessive
from agent.prompts import answer_messages
from agent.reading import (
    CELL_HEADER_ITER_RE,
    MONTH_BEFORE_RE,
    Evidence,
    EvidenceReader,
    Segment,
    is_statement,
    only_periods,
    statement_kind,
)
from agent.schemas import Citation, NumericValue, Relation
from agent.verify import Verification, verify_answer

NOT_FOUND = "Not found in the filings"  # how every honest miss starts, so people and evals can spot it
MAX_PASSAGES = 3  # explanation answers quote at most three sentences: enough to explain, short enough to read
PASSAGE_MAX_CHARS = 600  # a "sentence" longer than this is a run-on extraction; clip the quote
# Candidate scoring (relative weights; the best candidate wins, confidence is its score over the maximum).
EXACT_LABEL = 1.0  # the whole row label is a name of the metric ("Total revenue" for revenue)
PARTIAL_LABEL = 0.55  # the label names the metric plus qualifiers ("Industrial Sensors revenue")
TOTAL_BONUS = 0.1  # among partial labels, a "Total ..." row is the total, not a sub-item
TABLE_BONUS = 0.3  # a table row states the figure with its period column; prose restates it
STATEMENT_BONUS = 0.25  # a primary financial statement beats MD&A and notes
STATEMENT_MISMATCH = 0.45  # a balance-sheet metric read from the cash-flow statement's changes is wrong
ADJUSTED_PENALTY = 0.5  # 'adjusted'/'non-GAAP' rows answer only questions that ask for them
SENTENCE_PERIOD_BONUS = 0.1  # a sentence that states the period next to the number
RETRIEVAL_WEIGHT = 0.05  # retrieval score breaks ties between equally good rows
OTHER_METRIC_PENALTY = (
    0.3  # 'Net income attributable to noncontrolling interests' is not net income to owners
)
QUALIFIER_WEIGHT = 0.1  # share of a row label's words the question uses: "net PP&E" picks the "... net" row
MAX_SCORE = EXACT_LABEL + TABLE_BONUS + STATEMENT_BONUS  # an exact statement row; retrieval only breaks ties
LATEST_CONFIDENCE = 0.85  # a value read for the latest period when the question named none
CONFLICT_CONFIDENCE = 0.75  # another equally good candidate disagrees
COMPUTED_CONFIDENCE_FLOOR = 0.5  # a computation is as sure as its least sure input, but never below this
PASSAGE_KEEP_SHARE = 0.75  # further passages must score close to the best one, or they are off topic
PASSAGE_MIN_WORDS = 5  # shorter "sentences" are headings ("Currency exchange rates."), read with what follows
RELATION_CUE_BONUS = 0.3  # a sentence that explains ("driven by"), defines or states a policy, as asked
UPPERCASE_SHARE = 0.6  # a line mostly in capitals is a heading or cover text, not an answer
ROUNDED_DECIMALS = {1e9: 1, 1e6: 0, 1e3: 0}  # how a converted figure is quoted: $4.6 billion, $303 million
CELL_MIN_SCORE = 0.5  # a table cell must name at least half the question's words to answer it
CELL_PRECISION_WEIGHT = 0.3  # among cells naming the question equally, the label that says least else wins
CELL_STEM_MIN_CHARS = 3  # 'gas' and 'its' are not plurals
_CELL_FILLER = frozenset(
    (
        *("value", "values", "amount", "amounts", "figure", "number", "total", "much", "many", "then"),
        *("again", "specific", "year", "years", "fiscal", "during", "period", "respectively"),
    )
)  # question words that never name a row ('what was the value of ...', 'how much ...')
_EQUITY_WORDS = frozenset(
    ("common", "stock", "share", "price", "performance", "value", "return", "cumulative", "investment")
)  # words that say 'the stock of' a company or index a performance table names by its name alone
_SCHEDULE_CUE_RE = re.compile(r"\b(?:due|matur\w*|payable\s+in|expir\w*|scheduled)\b", re.IGNORECASE)
_NON_FIGURE_RELATIONS = frozenset({Relation.EXPLANATION, Relation.DEFINITION, Relation.POLICY})
CELL_OVER_PROSE_CONFIDENCE = 0.75  # a table cell naming (nearly) every question word beats a prose restatement
UNDATED_YEAR_COLUMNS = 2  # a header-less row: only its first two columns are read as this year and last
_DOC_YEAR_RE = re.compile(r"(?:^|_)((?:19|20)\d\d)(?:_|$)")
HEADER_NAMED_BONUS = 0.3  # the question writes the cell's column header verbatim ('on 12/14')
HEADER_MIN_CHARS = 3  # shorter headers ('a', '%') are written by chance
CELL_SAME_ROW_BONUS = 0.2  # the second year of a change comes from the row the first year came from
_NUMBERED_NAME_RE = re.compile(r"\b([a-z]+)\s+(\d{1,2}|[ivx]{1,4})\b(?![\d.,%])", re.IGNORECASE)
# 'What is the value of the S&P 500 in 2018 less 100?', '... less an initial $100 investment?': a figure looked
# up, then a number the user typed taken from it (or added, or divided by), in code.
_TYPED_OP_RE = re.compile(
    r"\b(?P<op>less|minus|plus|divided\s+by)\s+(?:an?\s+|and\s+)?(?:assumed\s+)?(?:initial\s+)?"
    r"(?:investment\s+of\s+)?\$?\s*(?!(?:19|20)\d\d\b)(?P<num>\d[\d,]*(?:\.\d+)?)(?:\s+investment)?\s*\??\s*$",
    re.IGNORECASE,
)
_FOOTNOTE_RE = re.compile(r"\(\s*\d{1,2}\s*\)")  # '( 1 )' marks a footnote, not a negative one
PROSE_FIGURE_WINDOW = 8  # words either side of a number in a sentence that say what the number is
PROSE_LABEL_MAX_WORDS = 12  # words before a figure in a sentence that can name it ('rental expense for ... was')
# 'rental expense for operating leases was approximately': the verb and hedge words end a sentence's subject
_PROSE_VERB_TAIL_RE = re.compile(
    r"(?:\s*\b(?:was|were|is|are|of|totaled|totalled|amounted|aggregated|approximately|about|"
    r"approximated|reached|to|by|and|or|had|has|have|recognized|recorded|reported)\b[\s,$]*)+$",
    re.IGNORECASE,
)
_PROSE_LEAD_RE = re.compile(r"^(?:(?:of|for|in|on|at|and|the)\s+)+", re.IGNORECASE)
PROSE_PERIOD_BONUS = 0.5  # among numbers named equally well, the one written next to the asked period
_CELL_CHANGE_RE = re.compile(
    r"\b(?:change[sd]?|difference|increase[sd]?|decrease[sd]?|decline[sd]?|grow(?:th|n)?|rise|fall|drop|"
    r"variation|variance|fluctuation|var(?:y|ied))\b",
    re.I,
)
_CELL_PERCENT_RE = re.compile(r"%|\bpercent(?:age)?\b|\bgrowth\s+rate\b|\brate\s+of\b", re.IGNORECASE)
_REMEMBERED_OPERATIONS = frozenset({"change", "difference", "percent_change", "sum", "ratio"})
_CELL_RATIO_RE = re.compile(
    r"\bratio\b|\bdivided\s+by\b|\bin\s+relation\s+to\b|\brepresent\b|\bquotient\b", re.IGNORECASE
)
_CELL_SHARE_RES = (
    re.compile(r"\b(?:ratio|proportion)\s+of\s+(?P<a>.+?)\s+(?:to|over|versus|vs\.?)\s+(?P<b>[^?]+)", re.I),
    re.compile(
        r"(?:\bwhat\s+(?:was|were|is|are)\s+)?(?P<a>[^,?]+?)\s+as\s+an?\s+(?:percent(?:age)?|share|portion|"
        r"proportion|fraction)\s+of\s+(?P<b>[^?]+)",
        re.I,
    ),
    re.compile(
        r"\b(?:how\s+much|what\s+(?:percent(?:age)?|portion|proportion|share|fraction))\s+(?:did|does|do|was|is)\s+"
        r"(?:the\s+)?(?P<a>[^?]+?)\s+represent\s+(?:in\s+relation\s+to|relative\s+to|of|compared\s+(?:to|with))\s+"
        r"(?P<b>[^?]+)",
        re.I,
    ),
)  # 'the ratio of X to Y', 'X as a percentage of Y', 'how much did X represent in relation to Y'
# 'What percentage of undeveloped acres were in the US?', 'what portion of total debt is due within a year?':
# the whole first, then what the part is; the part's cell must name both.
_CELL_PART_OF_RE = re.compile(
    r"\bwhat\s+(?:was\s+the\s+|is\s+the\s+)?(?:percent(?:age)?|portion|proportion|share|fraction)\s+of\s+"
    r"(?:the\s+)?(?P<b>[^?]+?)\s+(?:(?:that\s+)?(?:was|were|is|are)\s+(?:made\s+(?:up\s+)?of\s+|attributable\s+to\s+|"
    r"due\s+to\s+|related\s+to\s+|in\s+)?|(?:attributable|due|related|allocated)\s+to\s+|in\s+)(?P<a>[^?]+)",
    re.IGNORECASE,
)
# Rows naming an amount taken away, which tables may print negative; and labels whose sign carries meaning.
_DEDUCTION_LABEL_RE = re.compile(
    r"\b(?:loss(?:es)?|expenses?|costs?|liabilit(?:y|ies)|debt|deductions?|charges?|outflows?|payments?|"
    r"purchases?|repurchases?|impairments?|depreciation|amortization|allowances?|dividends?|taxes)\b",
    re.IGNORECASE,
)
_SIGNED_LABEL_RE = re.compile(
    r"\bnet\b|\bgains?\b|\bincome\b|\bchanges?\b|\bincreases?\b|\bdecreases?\b|\bbenefits?\b|"
    r"\bprovided\b|\bused\b|\(|/|\bvs\b|\bfrom\b|\bimpact\b|\beffect\b|\bvariance\b",
    re.IGNORECASE,
)
_CELL_SUM_RE = re.compile(r"\bsum\b|\bcombined\b|\baltogether\b|\btogether\b|\bin\s+aggregate\b", re.IGNORECASE)
_HOW_MUCH_RE = re.compile(r"\bhow\s+(?:much|many)\b|\bwhat\s+(?:was|were|is|are)\s+the\b", re.IGNORECASE)

_QUESTION_SCALE_RE = re.compile(
    r"\b(?:in|usd|us\$|\$)\s*(?:usd\s+|us\s*\$\s*|\$\s*|us\s+dollars?\s+|dollars\s+)?"
    r"(thousands|millions|billions)\b",
    re.IGNORECASE,
)
_SCALE_OF_WORD = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}
_ADJUSTED_RE = re.compile(
    r"\badjusted\b|\bnon[\s-]?gaap\b|\bcore\b|\borganic\b|\bpro\s+forma\b", re.IGNORECASE
)
_TOTAL_RE = re.compile(r"^\s*total\b", re.IGNORECASE)
_TOTAL_WORD_RE = re.compile(r"\btotal\b", re.IGNORECASE)
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
# Cues that a sentence explains, defines or states a policy (for extractive non-numeric answers).
_RELATION_CUES: dict[Relation, re.Pattern[str]] = {
    Relation.EXPLANATION: re.compile(
        r"\bdue\s+to\b|\bdriven\s+by\b|\bbecause\b|\breflect\w*|\bprimarily\b|"
        r"\bas\s+a\s+result\b|\battributable\s+to\b|\bled\s+by\b|\boffset\b",
        re.I,
    ),
    Relation.DEFINITION: re.compile(
        r"\bdefined\s+as\b|\bmeans\b|\brefers\s+to\b|\bconsists?\s+of\b|\bis\s+the\b|"
        r"\brepresents?\b",
        re.I,
    ),
    Relation.POLICY: re.compile(
        r"\brecogni[sz]\w*|\bpolicy\b|\baccount\w*\s+for\b|\bmeasured\b|\bestimat\w*|"
        r"\btested\b|\bamortiz\w*|\bdepreciat\w*|\bin\s+accordance\b",
        re.I,
    ),
}
_PER_RE = re.compile(r"\s*per\s+")  # '$3.00 per diluted share': the figure belongs to the metric after 'per'
_WORD_RE = re.compile(r"[a-z][a-z0-9&'-]+")
_STOP = frozenset(
    (
        "the",
        "a",
        "an",
        "of",
        "in",
        "on",
        "for",
        "to",
        "and",
        "or",
        "is",
        "was",
        "were",
        "are",
        "be",
        "what",
        "how",
        "why",
        "which",
        "does",
        "did",
        "do",
        "its",
        "it",
        "their",
        "this",
        "that",
        "with",
        "by",
        "from",
        "as",
        "at",
        "company",
        "company's",
    )
)


# ---------------------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------------------


class Passage(BaseModel):
    """A quoted evidence sentence with its citation (extractive answers)."""

    text: str
    citation: Citation


class SubAnswer(BaseModel):
    """The answer to one sub-query: a value with unit, scale, sign and period, or passages, or not-found."""

    sub_query_id: str = ""
    question: str
    status: Literal["found", "computed", "text", "not_found"]
    answer: str = Field(description="one readable sentence with citations")
    metric: str = ""
    company: str = ""
    period: str = ""
    value: NumericValue | None = Field(default=None, description="the figure as read (or computed)")
    display: str = Field(default="", description="the figure as shown, in the scale the question asked for")
    quote: str = Field(default="", description="the exact row or sentence the figure comes from")
    citation: Citation | None = None
    citations: list[Citation] = Field(default_factory=list)
    computations: list[Computation] = Field(default_factory=list)
    passages: list[Passage] = Field(default_factory=list)
    confidence: float = 0.0
    explanation: str = ""
    missing: str = Field(default="", description="what could not be found, for not_found answers")
    period_stated: bool = Field(
        default=True, description="False when the figure's row or sentence states no period of its own"
    )
    exact_label: bool = Field(
        default=False, description="the figure's row label is a name of the metric itself, not a partial match"
    )

    def cited_value(self) -> CitedValue | None:
        """The figure as a computation input (None when there is no figure)."""
        if self.value is None:
            return None
        label = " ".join(x for x in (self.company, self.metric, self.period) if x) or self.question
        return CitedValue(label=label, metric=self.metric, value=self.value, citation=self.citation)


class Figure(BaseModel):
    """A figure shown in the final answer, with what supports it."""

    text: str
    value: NumericValue
    citations: list[Citation] = Field(default_factory=list)
    computed: bool = False
    formula: str = ""


class FinalAnswer(BaseModel):
    """The merged answer: text where every figure carries [doc, p. N], plus its parts for the trace."""

    question: str
    text: str
    citations: list[Citation] = Field(default_factory=list)
    figures: list[Figure] = Field(default_factory=list)
    not_found: list[str] = Field(default_factory=list)
    computations: list[Computation] = Field(default_factory=list)
    sub_answers: list[SubAnswer] = Field(default_factory=list)
    verification: Verification | None = None
    source: Literal["offline", "llm"] = "offline"
    reason: str = Field(default="", description="why the offline twin answered, when a model was configured")

    def cited_values(self) -> list[CitedValue]:
        """The figures this answer gave, for the conversation's slots (follow-ups compute with them)."""
        out = [v for v in (sa.cited_value() for sa in self.sub_answers) if v is not None]
        for comp in self.computations:
            label = " ".join(x for x in (comp.metric, comp.operation, comp.result.period) if x)
            out.append(CitedValue(label=label, metric=comp.metric, value=comp.result, computed=True))
        return out


class CombinationResult(BaseModel):
    """Computations over sub-answers, and the combinations that could not be computed (with why)."""

    computations: list[Computation] = Field(default_factory=list)
    labels: dict[str, str] = Field(
        default_factory=dict, description="computation metric/label by combination id"
    )
    failed: list[str] = Field(default_factory=list)


# ---------------------------------------------------------------------------------------------------------
# Reading evidence: rows and sentences with their figures
# ---------------------------------------------------------------------------------------------------------


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
}


# ---------------------------------------------------------------------------------------------------------
# Metric kinds and value fit
# ---------------------------------------------------------------------------------------------------------
def _expected_kind(metric: str) -> str:
    """What a metric's figure looks like: money | percent | ratio | days | per_share | count."""
    info = METRICS.get(metric)
    if info is None:
        return "money"
    if info.formula is not None:
        return {"%": "percent", "x": "ratio", "days": "days"}.get(info.formula.unit, "money")
    if metric in {"shares outstanding", "employees"}:
        return "count"
    if metric in {"dividend yield", "comparable sales", "organic growth"}:
        return "percent"
    if metric == "price to earnings ratio":
        return "ratio"
    if info.topic == "Per Share":
        return "per_share"
    return "money"


def _fits(kind: str, n: NumericValue) -> bool:
    if kind == "money":
        return n.unit in {"USD", "EUR", "GBP", ""} and not (
            n.unit == "" and n.scale == 1.0 and abs(n.value) < 1
        )
    if kind == "percent":
        return n.unit in {"%", "bps"}
    if kind in {"ratio", "days"}:
        return n.unit in {"x", ""} and n.scale == 1.0
    if kind == "per_share":
        return n.unit in {"USD", "EUR", "GBP", ""}
    return n.unit in {"", "shares"}


def _coerce(kind: str, n: NumericValue) -> NumericValue:
    if kind == "per_share" and n.scale != 1.0:
        return n.model_copy(update={"scale": 1.0})  # "(in millions, except per share amounts)"
    return n


# ---------------------------------------------------------------------------------------------------------
# Finding a metric's value for a period
# ---------------------------------------------------------------------------------------------------------
def _for_company(reader: EvidenceReader, company: str) -> set[int]:
    """Indexes of the evidence about ``company``; all of them when none is identifiably about it."""
    everything = set(range(len(reader.evidence)))
    if not company:
        return everything
    chosen = {i for i, ev in enumerate(reader.evidence) if _about(ev, company)}
    return chosen or everything


def _about(ev: Evidence, company: str) -> bool:
    """True when ``ev`` comes from a filing of ``company`` (its recorded company or its document name)."""
    key = company_key(company).replace(" ", "")
    if ev.company and companies_agree(ev.company, company):
        return True
    return bool(key) and key in company_key(ev.doc_name.replace("_", " ")).replace(" ", "")


def _scope_terms(reader: EvidenceReader, names: Sequence[str]) -> list[str]:
    """Names the question scopes to that no filing belongs to: segments, regions, products."""
    return [n for n in dict.fromkeys(names) if n and not any(_about(ev, n) for ev in reader.evidence)]


def _label_quality(seg: Segment, metric: str) -> tuple[float, bool]:
    """(score, exact) of a row label or sentence for ``metric``; (0, False) when it does not name it."""
    if seg.kind == "row":
        label = re.sub(r"\s*\(.*?\)\s*$", "", seg.label).strip(" :")
        if canonical(label) == metric or canonical(seg.label) == metric:
            return EXACT_LABEL, True
        if any(m.canonical == metric for m in seg.mentions):
            bonus = TOTAL_BONUS if _TOTAL_RE.match(seg.label) else 0.0
            return PARTIAL_LABEL + bonus, False
        return 0.0, False
    if any(m.canonical == metric for m in seg.mentions):
        return PARTIAL_LABEL, False
    return 0.0, False


def _owned_numbers(seg: Segment, metric: str) -> list[NumericValue]:
    """A sentence's numbers that belong to the mention of ``metric``: those after it, up to the next metric.

    A number directly followed by 'per <metric>' ('$3.00 per diluted share') belongs to that next metric.
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
        if following and _PER_RE.fullmatch(seg.raw[local_end : following[0].start]):
            owner = following[0].canonical
        if owner == metric:
            owned.append(n)
    return owned


def _numbered_names(text: str) -> dict[str, set[str]]:
    """Names that carry a number ('tier 2', 'level 3', 'class b' is not one): word -> the numbers it takes."""
    out: dict[str, set[str]] = {}
    for word, num in _NUMBERED_NAME_RE.findall(text.lower()):
        if word not in _STOP:
            out.setdefault(word, set()).add(num)
    return out


def _names_other_number(label: str, question: str) -> bool:
    """The row names a numbered thing the question names with another number: 'tier 1 capital' does not
    answer 'tier 2 capital', however many words they share."""
    asked = _numbered_names(question)
    if not asked:
        return False
    row = _numbered_names(label)
    return any(word in row and not (nums & row[word]) for word, nums in asked.items())


def _candidates(
    reader: EvidenceReader, metric: str, period: str, allowed: set[int], question: str
) -> list[_Candidate]:
    kind = _expected_kind(metric)
    wants_adjusted = bool(_ADJUSTED_RE.search(question))
    preferred = _TOPIC_STATEMENT.get(METRICS[metric].topic, "") if metric in METRICS else ""
    asked = set(_WORD_RE.findall(question.lower()))
    intent_metrics = {m.canonical for m in find_metrics(question)}
    out: list[_Candidate] = []
    for seg in reader.segments:
        if seg.ev not in allowed:
            continue
        quality, exact = _label_quality(seg, metric)
        if quality <= 0 or (seg.kind == "row" and _names_other_number(seg.label, question)):
            continue
        ev = reader.evidence[seg.ev]
        base = quality
        reasons = [
            f"{'exact' if exact else 'partial'} metric match: {metric} ~ "
            f"{seg.label or _mention_surface(seg, metric)}"
        ]
        if seg.kind == "row":
            base += TABLE_BONUS
        if is_statement(ev):
            base += STATEMENT_BONUS
            reasons.append("financial statement")
        stmt = statement_kind(ev)
        if preferred == "balance" and stmt == "cashflow":
            base -= STATEMENT_MISMATCH
        if _ADJUSTED_RE.search(seg.label or "") and not wants_adjusted:
            base -= ADJUSTED_PENALTY
        base += RETRIEVAL_WEIGHT * reader.rel_score[seg.ev]
        others = {m.canonical for m in seg.mentions} - {metric} - intent_metrics
        if seg.kind == "row" and not exact and others:
            base -= OTHER_METRIC_PENALTY
            reasons.append(f"label also names {', '.join(sorted(others))}")
        if seg.kind == "row":
            label_words = set(_WORD_RE.findall(seg.label.lower())) - _STOP
            if label_words:
                base += QUALIFIER_WEIGHT * len(label_words & asked) / len(label_words)
        for n in _owned_numbers(seg, metric):
            n = _coerce(kind, n)
            if not _fits(kind, n):
                continue
            if period and n.period != period:
                continue
            score = base + (SENTENCE_PERIOD_BONUS if seg.kind == "sentence" and n.period else 0.0)
            out.append(_Candidate(seg=seg, value=n, score=score, exact=exact, reasons=reasons))
    return out


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


def _find(
    reader: EvidenceReader, metric: str, period: str, company: str, question: str, scope: Sequence[str] = ()
) -> _Found | None:
    """The best figure for ``metric`` in ``period`` ('' = the latest period the evidence has); ``scope`` holds
    the names the question narrows it to (company, segments)."""
    allowed = _for_company(reader, company)
    cands = _candidates(reader, metric, period, allowed, question)
    # A segment, region or product named in the question scopes the figure: keep the rows that name it.
    scoped = [c for c in cands if any(t.lower() in c.seg.text.lower() for t in _scope_terms(reader, scope))]
    if scoped:
        cands = scoped
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
    quote = (
        best.seg.text
        if len(best.seg.text) <= PASSAGE_MAX_CHARS
        else best.seg.text[:PASSAGE_MAX_CHARS] + " ..."
    )
    reasons = list(best.reasons)
    if best.value.period:
        reasons.append(
            f"period matched: {best.value.period}" if period else f"latest period: {best.value.period}"
        )
    return _Found(
        value=best.value,
        quote=quote,
        citation=ev.citation(quote, best.seg.start),
        confidence=round(confidence, 3),
        exact=best.exact,
        kind=best.seg.kind,
        reasons=reasons,
    )


# ---------------------------------------------------------------------------------------------------------
# Display
# ---------------------------------------------------------------------------------------------------------
def question_scale(question: str) -> float | None:
    """The scale a question asks the answer in ('in USD millions' -> 1e6); None when it names none."""
    m = _QUESTION_SCALE_RE.search(question or "")
    return _SCALE_OF_WORD[m.group(1).lower()] if m else None


def display_value(n: NumericValue, kind: str, target_scale: float | None = None) -> str:
    """A figure for people, converted to ``target_scale`` when the question asked for one."""
    if kind in {"percent"} or n.unit in {"%", "bps", "x", "days"}:
        return arithmetic.display(n.value, n.unit or ("%" if kind == "percent" else ""), 1.0)
    if kind in {"ratio", "days"}:
        return arithmetic.display(n.value, "x" if kind == "ratio" else "days", 1.0)
    if kind == "per_share":
        return format_number(n.value, n.unit or "USD", 1.0, 2)
    scale = n.scale or 1.0
    value = n.value
    written = decimals_of(n.text)
    decimals = written if not float(value).is_integer() else 0
    if target_scale and scale > 1.0 and target_scale != scale:
        value = n.value * scale / target_scale
        # Keep every digit the filing wrote: 1,577,250 thousand is 1,577.25 million.
        decimals = max(0, written + round(math.log10(target_scale / scale)))
        text = f"{abs(value):.{decimals}f}".rstrip("0").rstrip(".") if decimals else f"{abs(value):.0f}"
        decimals = len(text.split(".")[1]) if "." in text else 0
        scale = target_scale
    if kind == "count":
        return format_number(value, "shares" if n.unit == "shares" else "", scale, decimals)
    exact = format_number(value, n.unit, scale, decimals)
    places = ROUNDED_DECIMALS.get(scale)
    if target_scale and scale == target_scale and places is not None and decimals > places:
        # Converted to the scale asked for: shown rounded the way analysts quote it, the digits the filing
        # reported kept beside it ('$4.6 billion ($4.625 billion)').
        rounded = format_number(round(value, places), n.unit, scale, places)
        if rounded != exact:
            return f"{rounded} ({exact})"
    return exact


def _subject(company: str, metric: str, period: str) -> str:
    who = f"{possessive(company)} " if company else ""
    when = f" in {period}" if period else ""
    return f"{who}{metric_label(metric)}{when}"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


# ---------------------------------------------------------------------------------------------------------
# Answering one sub-query
# ---------------------------------------------------------------------------------------------------------
_RATIO_KINDS = frozenset(
    {FormulaKind.RATIO, FormulaKind.MARGIN, FormulaKind.DAYS, FormulaKind.TURNOVER, FormulaKind.GROWTH}
)


def answer_sub_query(
    sub_query: SubQuery, evidence: Sequence[Evidence], reader: EvidenceReader | None = None
) -> SubAnswer:
    """The offline extractive answer to one sub-query over ``evidence`` (never a guess).

    Numeric sub-queries get the figure (read, or computed from components for derived metrics) with its quote
    and citation; explanation, definition and policy sub-queries get the best one to three sentences.
    """
    answer = _answer_sub_query(sub_query, evidence, reader)
    typed = _TYPED_OP_RE.search(sub_query.question)
    if typed is None or answer.value is None or answer.status not in {"found", "text"}:
        return answer
    return _with_typed_number(answer, typed, sub_query.question)


def _with_typed_number(answer: SubAnswer, typed: re.Match[str], question: str) -> SubAnswer:
    """The figure read, less / plus / divided by the number the question typed; the figure alone when the
    arithmetic is refused."""
    read = answer.cited_value()
    if read is None:
        return answer
    number = typed.group("num").replace(",", "")
    literal = CitedValue(
        label=f"the number {number}",
        value=NumericValue(
            text=number,
            value=float(number),
            scale=read.value.scale,
            unit=read.value.unit if read.value.unit != "%" else "",
        ),
        computed=True,
    )
    op = typed.group("op").lower()
    try:
        if op.startswith("divided"):
            comp, kind = arithmetic.ratio(read, literal, answer.metric), "ratio"
        elif op == "plus":
            comp, kind = arithmetic.total([read, literal], answer.metric), "money"
        else:
            comp, kind = arithmetic.change(literal, read, answer.metric), "money"
    except ArithmeticRefusal:
        return answer
    computed = _computed_answer(answer, comp, kind, question_scale(question), answer.confidence)
    labels = " ".join(dict.fromkeys(c.label() for c in comp.citations()))
    computed.answer = (
        f"{read.value.text.strip()} {' '.join(op.split())} {number}: {computed.display} "
        f"(computed: {comp.formula}) {labels}.\n{answer.answer}"  # then the figure read, as cited
    )
    return computed


def _answer_sub_query(
    sub_query: SubQuery, evidence: Sequence[Evidence], reader: EvidenceReader | None = None
) -> SubAnswer:
    reader = reader or EvidenceReader(evidence)
    intent = sub_query.intent
    metric = sub_query.metric or (intent.metrics[0] if len(intent.metrics) == 1 else "")
    company = sub_query.company or intent.company
    period = sub_query.period or (
        intent.temporal_scope.periods[0] if len(intent.temporal_scope.periods) == 1 else ""
    )
    base = SubAnswer(
        sub_query_id=sub_query.id,
        question=sub_query.question,
        status="not_found",
        answer="",
        metric=metric,
        company=company,
        period=period,
    )
    if not reader.evidence:
        return _not_found(base, "no evidence was retrieved")
    if not (metric and intent.requires_numeric) or metric not in METRICS:
        cell = _cell_answer(base, sub_query, reader) if _asks_figure(sub_query) else None
        if cell is not None:
            return cell
    answer = _lexicon_answer(base, sub_query, reader, metric, company, period)
    if answer.status not in {"not_found", "found"} or not _asks_figure(sub_query):
        return answer
    # The lexicon's rows may be missing ('2007 net revenue | 442.3' puts the year in the label), or it read
    # prose or a row naming less of the question ('accounts payable' for 'total accounts payable and other
    # current liabilities'): a table cell that names the whole question is then the better reading.
    cell = _cell_answer(base, sub_query, reader)
    if cell is None:
        return answer
    if answer.status == "not_found":
        return cell
    words = _content_words(sub_query.question)
    cell_recall, read_recall = _row_recall(cell.quote, words), _row_recall(answer.quote, words)
    if cell.confidence >= CELL_OVER_PROSE_CONFIDENCE and cell_recall > read_recall:
        return cell
    if (
        not answer.exact_label
        and cell_recall == read_recall > 0
        and _row_precision(cell.quote, words) > _row_precision(answer.quote, words)
    ):
        return cell  # 'pension service cost': the 'service cost' row, not 'net pension cost' naming as many words
    if not answer.period_stated and cell.period_stated and cell.period == answer.period:
        return cell  # the lexicon's row gave no period; the cell's column (or the filing's year) does
    return answer


def _row_recall(quote: str, words: set[str]) -> float:
    """Share of the question's words a quoted table row's label names (0 for prose: it has no label)."""
    if "|" not in quote or not words:
        return 0.0
    return len(words & _content_words(quote.split("|", 1)[0])) / len(words)


def _row_precision(quote: str, words: set[str]) -> float:
    """Share of a quoted table row's label words that the question uses (0 for prose)."""
    if "|" not in quote:
        return 0.0
    label = _content_words(quote.split("|", 1)[0])
    return len(words & label) / len(label) if label else 0.0


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
    target_scale = question_scale(sub_query.question)
    kind = _expected_kind(metric)
    scope = [company, *intent.entities]
    direct = _find(reader, metric, period, company, sub_query.question, scope)
    stand_in_note = ""
    if direct is None and metric in COMPONENT_FALLBACKS:
        stand_in, why = COMPONENT_FALLBACKS[metric]
        direct = _find(reader, stand_in, period, company, sub_query.question, scope)
        stand_in_note = f" The filing reports no separate {metric}; {stand_in} is used ({why})."
    if info.formula is None:
        if direct is None:
            return _not_found(base, f"{_subject(company, metric, period or 'any period')}")
        answer = _found_answer(base, direct, kind, target_scale)
        answer.explanation += stand_in_note
        return answer
    computed, why, sure = _derive(reader, metric, period, company, sub_query.question, scope)
    prefer_computed = info.formula.kind in _RATIO_KINDS or not (
        direct and direct.kind == "row" and direct.exact
    )
    if computed is not None and (prefer_computed or direct is None):
        answer = _computed_answer(base, computed, kind, target_scale, sure)
        if direct is not None and direct.value.period == computed.result.period:
            same = abs(abs(direct.value.value) - abs(round(computed.result.value, 1))) < 0.051
            note = "matches" if same else "differs from"
            answer.explanation += (
                f" The filing also states {direct.value.text} {direct.citation.label()}, which "
                f"{note} the computed figure."
            )
        return answer
    if direct is not None:
        answer = _found_answer(base, direct, kind, target_scale)
        if why:
            answer.explanation += f" Not computed from components: {why}."
        return answer
    return _not_found(base, f"{_subject(company, metric, period or 'any period')} ({why})")


def _not_found(base: SubAnswer, what: str) -> SubAnswer:
    what = what.rstrip(" ?.")
    return base.model_copy(
        update={"status": "not_found", "missing": what, "confidence": 0.0, "answer": f"{NOT_FOUND}: {what}."}
    )


def _found_answer(base: SubAnswer, found: _Found, kind: str, target_scale: float | None) -> SubAnswer:
    outflow = base.metric in arithmetic.SPENDING_METRICS and found.value.value < 0
    shown_value = found.value.model_copy(update={"value": abs(found.value.value)}) if outflow else found.value
    shown = display_value(shown_value, kind, target_scale)
    period = found.value.period or base.period
    sentence = (
        f"{_capital(_subject(base.company, base.metric, period))} was {shown} {found.citation.label()}."
    )
    value = found.value.model_copy(update={"period": period})
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


def _computed_answer(
    base: SubAnswer, comp: Computation, kind: str, target_scale: float | None, sureness: float
) -> SubAnswer:
    cites = comp.citations()
    labels = " ".join(c.label() for c in cites)
    shown = display_value(comp.result, kind, target_scale)
    period = comp.result.period or base.period
    sentence = (
        f"{_capital(_subject(base.company, base.metric, period))} was {shown} "
        f"(computed: {comp.formula}) {labels}."
    )
    confidence = max(COMPUTED_CONFIDENCE_FLOOR, sureness)
    return base.model_copy(
        update={
            "status": "computed",
            "answer": sentence,
            "value": comp.result,
            "display": shown,
            "quote": "; ".join(i.citation.quote for i in comp.inputs if i.citation and i.citation.quote),
            "citation": cites[0] if cites else None,
            "citations": cites,
            "computations": [comp],
            "confidence": round(confidence, 3),
            "period": period,
            "explanation": comp.explanation,
        }
    )


def _derive(
    reader: EvidenceReader, metric: str, period: str, company: str, question: str, scope: Sequence[str] = ()
) -> tuple[Computation | None, str, float]:
    """A derived metric computed from components found in the evidence: (computation, '', confidence), or
    (None, why, 0) when it cannot be; the confidence is that of the least sure component used."""
    formula = METRICS[metric].formula
    assert formula is not None
    parts = components(metric)
    if not period:
        period = _latest_component_period(reader, parts, company, question, scope)
        if not period:
            return None, "no period found for its components", 0.0
    needs_prior = arithmetic.needs_prior_period(metric)
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
            found = _find(reader, part, when, company, question, scope)
            if found is None and part in COMPONENT_FALLBACKS:
                stand_in, why = COMPONENT_FALLBACKS[part]
                found = _find(reader, stand_in, when, company, question, scope)
                if found is not None:
                    notes.append(f"{stand_in} is used for {part} ({why})")
            if found is not None:
                target[part] = _cited(part, found, when)
                sureness[(part, when)] = found.confidence
    try:
        comp = arithmetic.derive(metric, values, prior, period=period)
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
    value = _coerce(_expected_kind(metric), found.value)
    return CitedValue(
        label=f"{metric} {period}".strip(),
        metric=metric,
        value=value.model_copy(update={"period": value.period or period}),
        citation=found.citation,
    )


def _keywords(sub_query: SubQuery) -> set[str]:
    intent = sub_query.intent
    words = {w for w in _WORD_RE.findall(sub_query.question.lower()) if w not in _STOP}
    for kw in intent.keywords:
        words.update(w for w in _WORD_RE.findall(kw.lower()) if w not in _STOP)
    for m in intent.metrics:  # the canonical name only: synonyms' generic words ('rate') pull in noise
        words.update(w for w in _WORD_RE.findall(m.lower()) if w not in _STOP)
    return words


def _passages_answer(base: SubAnswer, sub_query: SubQuery, reader: EvidenceReader) -> SubAnswer:
    """Extractive answer: the one to three sentences that best match the question's words and relation."""
    words = _keywords(sub_query)
    cue = _RELATION_CUES.get(sub_query.intent.relation)
    allowed = _for_company(reader, base.company)
    sentences = [seg for seg in reader.segments if seg.ev in allowed and seg.kind == "sentence"]
    scored: list[tuple[float, Segment]] = []
    heading: Segment | None = None
    for seg in sentences:
        letters = [ch for ch in seg.raw if ch.isalpha()]
        if letters and sum(ch.isupper() for ch in letters) / len(letters) > UPPERCASE_SHARE:
            heading = None
            continue
        if len(seg.text.split()) < PASSAGE_MIN_WORDS:
            heading = seg  # "Currency exchange rates." titles the sentence after it
            continue
        context = heading if heading is not None and heading.ev == seg.ev else None
        heading = None
        body = f"{context.text} {seg.text}" if context is not None else seg.text
        tokens = set(_WORD_RE.findall(body.lower()))
        overlap = len(words & tokens) / max(1, len(words))
        if overlap == 0:
            continue
        score = (
            overlap
            + (RELATION_CUE_BONUS if cue is not None and cue.search(seg.text) else 0.0)
            + RETRIEVAL_WEIGHT * reader.rel_score[seg.ev]
        )
        if context is not None:
            seg = seg.model_copy(
                update={"start": context.start, "raw": reader.evidence[seg.ev].text[context.start : seg.end]}
            )
        scored.append((score, seg))
    if not scored:
        return _not_found(base, f"nothing in the evidence addresses: {sub_query.question}")
    scored.sort(key=lambda s: -s[0])
    best = scored[0][0]
    chosen = [seg for score, seg in scored[:MAX_PASSAGES] if score >= PASSAGE_KEEP_SHARE * best]
    chosen.sort(key=lambda s: (s.ev, s.start))
    passages = []
    for seg in chosen:
        ev = reader.evidence[seg.ev]
        quote = seg.text if len(seg.text) <= PASSAGE_MAX_CHARS else seg.text[:PASSAGE_MAX_CHARS] + " ..."
        passages.append(Passage(text=quote, citation=ev.citation(quote, seg.start)))
    text = " ".join(f"{p.text} {p.citation.label()}" for p in passages)
    answer = base.model_copy(
        update={
            "status": "text",
            "answer": text,
            "passages": passages,
            "citations": [p.citation for p in passages],
            "citation": passages[0].citation,
            "quote": passages[0].text,
            "confidence": round(min(1.0, best), 3),
            "explanation": "extractive: the evidence sentences that best match the question",
        }
    )
    if _asks_figure(sub_query):
        figure = _prose_figure(reader, chosen, _content_words(sub_query.question), base.period)
        if figure is not None:
            # The quoted sentence stays the answer; its figure is remembered so that a follow-up ('what is
            # the sum?', 'the difference between them?') can compute with it.
            at = chosen.index(figure[1])
            answer.value = figure[0]
            answer.display = figure[0].text.strip()
            answer.citation = passages[at].citation
            answer.quote = passages[at].text
    return answer


def _prose_figure(
    reader: EvidenceReader, segs: Sequence[Segment], words: set[str], period: str
) -> tuple[NumericValue, Segment] | None:
    """The number of the quoted sentences whose neighbouring words name most of the question's ``words``
    ('$16 million accrued' for 'the accrued value'), with the sentence it is in. Years and the day of a
    date are not figures; None when no number's neighbourhood names any of the words."""
    best: tuple[float, NumericValue, Segment] | None = None
    for seg in segs:
        text = reader.evidence[seg.ev].text
        dates = [(seg.start + p.start, seg.start + p.end) for p in find_periods(text[seg.start : seg.end])]
        numbers = [
            n
            for n in seg.numbers
            if not any(a <= n.start < b for a, b in dates)
            and not MONTH_BEFORE_RE.search(text[: n.start])
            and not _FOOTNOTE_RE.fullmatch(n.text.strip())
        ]
        for i, n in enumerate(numbers):
            lo = numbers[i - 1].end if i > 0 else seg.start
            hi = numbers[i + 1].start if i + 1 < len(numbers) else seg.end
            before = text[max(lo, seg.start) : n.start].split()[-PROSE_FIGURE_WINDOW:]
            after = text[n.end : min(hi, seg.end)].split()[:PROSE_FIGURE_WINDOW]
            hits = len(words & _content_words(" ".join(before + after)))
            if not hits:
                continue
            score = hits + (PROSE_PERIOD_BONUS if period and n.period == period else 0.0)
            if best is None or score > best[0]:
                best = (score, n, seg)
    if best is None:
        return None
    _, n, seg = best
    return n.model_copy(update={"period": n.period or period}), seg


# ---------------------------------------------------------------------------------------------------------
# Table cells for figures the lexicon does not name ('equipment rents payable', 'gallons hedged')
# ---------------------------------------------------------------------------------------------------------
class _Cell(BaseModel):
    """One figure of a table row with the words that name it: the row label and its column header."""

    seg: Segment
    label: str = Field(description="the row label ('equipment rents payable', or a schedule row's year)")
    header: str
    value: NumericValue
    periods: set[str] = Field(default_factory=set, description="periods the value's column or label name")
    prose: bool = Field(default=False, description="read from a sentence: the label is the words before it")


def _stem(word: str) -> str:
    """A crude singular so 'losses' meets 'loss' and 'costs' meets 'cost'."""
    if len(word) > CELL_STEM_MIN_CHARS and word.endswith("es") and word[-3] in "sxz":
        return word[:-2]
    if len(word) > CELL_STEM_MIN_CHARS and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _content_words(text: str) -> set[str]:
    """Words that name what a figure is: no stop words, no periods, no question filler."""
    rest = without_periods(re.sub(r"[-/]", " ", text.lower()))  # 'long-term' meets 'long term'
    return {
        _stem(w)
        for w in _WORD_RE.findall(rest)
        if w not in _STOP and w not in _CELL_FILLER and not w.isdigit()
    }


def _table_cells(reader: EvidenceReader, allowed: set[int]) -> list[_Cell]:
    """Every figure of every table row in the evidence, with its row label, column header and periods.

    Both table orientations: periods as columns ('2008: 93') or in the row label ('2007 net revenue | 442.3'),
    where the columns then name the items.
    """
    out: list[_Cell] = []
    for seg in reader.segments:
        if seg.kind != "row" or seg.ev not in allowed:
            continue
        label, numbers = seg.label, list(seg.numbers)
        if not label:
            # A schedule row labelled by its year only ('2015 | 1110566'): the year names the row.
            first = seg.raw.split("|", 1)[0].strip()
            if not first or not only_periods(first):
                continue
            label = first
            numbers = [n for n in numbers if n.start >= seg.start + seg.raw.index("|")]
        text = reader.evidence[seg.ev].text
        label_periods = _label_periods(label)
        undated = _undated_columns(reader.evidence[seg.ev], seg, label_periods)
        names = _column_names(text, seg.start)
        names = names if len(names) == len(numbers) else []
        for i, n in enumerate(numbers):
            if undated and i < len(undated):
                n = n.model_copy(update={"period": undated[i]})
            cell_end = text.find("|", n.end)
            if ":" in text[n.end : cell_end if cell_end >= 0 else len(text)].split("\n", 1)[0]:
                continue  # a number before its cell's colon is in the column header ('peer group ( 1 ):')
            cell_start = text.rfind("|", 0, n.start) + 1
            cell = text[cell_start : n.start]
            piped = cell_start > text.rfind("\n", 0, n.start) + 1  # a pipe opens this cell on its own line
            if piped and re.search(r"[a-z]", cell.rsplit(":", 1)[-1], re.IGNORECASE):
                continue  # a number inside a name ('s&p 500' in a header line), not a value of the row
            header = cell.split(":", 1)[0].strip() if ":" in cell else (names[i] if names else "")
            periods = set(label_periods) | _label_periods(header)
            if n.period:
                periods.add(n.period)
            out.append(_Cell(seg=seg, label=label, header=header, value=n, periods=periods))
    return out


def _column_names(text: str, start: int) -> list[str]:
    """The names of a header line without figures ('citi | s&p 500 | s&p financials') above the block of
    rows whose row starts at ``start``; empty when the block has none."""
    for line in reversed(text[:start].split("\n")[:-1]):
        if "|" not in line:
            return []
        cells = [c.strip() for c in line.split("|")]
        if all(c and re.search(r"[a-z]", c, re.IGNORECASE) for c in cells):
            return cells
    return []


def _label_periods(text: str) -> set[str]:
    """Periods a row label or column header names, numeric dates included ('12/09' is FY2009: a date in a
    year closes that year's fiscal period, as the filing's own year columns do)."""
    found = {p.norm for p in find_periods(text)}
    if found:
        return found
    alone = normalise_period(text)  # a lone '12/09' header
    return {alone} if alone else set()


def _filing_year(ev: Evidence) -> int | None:
    """The fiscal year of the filing an evidence item comes from, from its document name ('PM_2017_...')."""
    m = _DOC_YEAR_RE.search(ev.doc_name)
    return int(m.group(1)) if m else None


def _undated_columns(ev: Evidence, seg: Segment, label_periods: set[str]) -> list[str]:
    """Periods for a row whose table lost its header ('operating income | 11503 | 10815 | 688'): filings list
    the newest year first, and the newest is the filing's own year. Empty when the row states periods or
    the filing's year is unknown."""
    if label_periods or len(seg.numbers) < 2 or any(n.period for n in seg.numbers):
        return []
    if "columns:" in ev.text or CELL_HEADER_ITER_RE.search(ev.text):
        return []  # the table has headers: no guessing
    year = _filing_year(ev)
    if year is None:
        return []
    return [f"FY{year - i}" for i in range(min(len(seg.numbers), UNDATED_YEAR_COLUMNS))]


def _best_cell(
    reader: EvidenceReader,
    words: set[str],
    asked: set[str],
    company: str,
    same_row: str = "",
    question: str = "",
) -> tuple[float, _Cell] | None:
    """The cell whose row label and column header name most of ``words``, in one of the ``asked`` periods.

    Recall of the question's words first, then how little else the label says; ``same_row`` favours the row
    an earlier period was read from (a change reads both years from one row).
    """
    allowed = _for_company(reader, company)
    if company and not any(_about(reader.evidence[i], company) for i in allowed):
        return None  # no table of this company's filings: another company's row is no answer
    cells = _table_cells(reader, allowed)
    found = _best_of(cells, reader, words, asked, same_row, question)
    if found is None and asked:
        # No cell of the period names the item: an undated one-column table (a walk from one year's figure
        # to the next) may still carry it; cells that name another period stay out.
        found = _best_of([c for c in cells if not c.periods], reader, words, set(), same_row, question)
    if found is None and asked:
        # No table names it: a sentence may state it for the period ('rental expense was $66.9 million,
        # $57.2 million and $49.0 million in 2010, 2009 and 2008, respectively').
        found = _best_of(_prose_cells(reader, allowed), reader, words, asked, same_row, question)
    return found


def _prose_cells(reader: EvidenceReader, allowed: set[int]) -> list[_Cell]:
    """Dated figures of the evidence's sentences as cells: the label is the words before the figure back to
    the previous figure, or the previous figure's label when only periods and joining words lie between
    ('$2.2 billion for 2011, $2.0 billion for 2010'). Years, days of dates and footnote marks are no figures."""
    out: list[_Cell] = []
    for seg in reader.segments:
        if seg.kind != "sentence" or seg.ev not in allowed:
            continue
        text = reader.evidence[seg.ev].text
        dates = [(seg.start + p.start, seg.start + p.end) for p in find_periods(text[seg.start : seg.end])]
        label, prev_end = "", seg.start
        for n in seg.numbers:
            if any(a <= n.start < b for a, b in dates) or _FOOTNOTE_RE.fullmatch(n.text.strip()):
                continue
            before = text[prev_end : n.start]
            prev_end = n.end
            own = _PROSE_VERB_TAIL_RE.sub("", " ".join(before.split()[-PROSE_LABEL_MAX_WORDS:])).strip(" ,;:$(")
            own = _PROSE_LEAD_RE.sub("", own)
            if _content_words(own):
                label = own
            if not label or not n.period:
                continue
            out.append(_Cell(seg=seg, label=label, header="", value=n, periods={n.period}, prose=True))
    return out


def _best_of(
    cells: Sequence[_Cell],
    reader: EvidenceReader,
    words: set[str],
    asked: set[str],
    same_row: str,
    question: str = "",
) -> tuple[float, _Cell] | None:
    """The best-scoring cell of ``cells`` (see :func:`_best_cell`), or None below the minimum score."""
    best: tuple[float, _Cell] | None = None
    wants_total = bool(re.search(r"\btotal\b", question, re.IGNORECASE))
    for cell in cells:
        if asked and not (asked & cell.periods):
            continue
        if question and _names_other_number(f"{cell.label} {cell.header}", question):
            continue
        label_words = _content_words(cell.label)
        hits = words & (label_words | _content_words(cell.header))
        if not hits:
            continue
        # 'the value of pmi common stock' in a performance table: the row or column naming the company (or
        # index) is the stock; 'common stock', 'price' and 'value' then name nothing more.
        rest = words - _EQUITY_WORDS
        needed = rest if rest and rest != words and rest <= hits else words
        recall = len(hits & needed) / len(needed)
        precision = len(words & label_words) / max(1, len(label_words))
        score = (
            recall
            + CELL_PRECISION_WEIGHT * precision
            + RETRIEVAL_WEIGHT * reader.rel_score[cell.seg.ev]
            + (CELL_SAME_ROW_BONUS if same_row and cell.label == same_row else 0.0)
            # 'the total capital' is the 'Total capital' row, not a component row naming as many words
            + (TOTAL_BONUS if wants_total and _TOTAL_RE.match(cell.label) else 0.0)
            + (HEADER_NAMED_BONUS if _names_header(question, cell.header) else 0.0)
        )
        if best is None or score > best[0]:
            best = (score, cell)
    if best is None or best[0] < CELL_MIN_SCORE:
        return None
    return best


def _names_header(question: str, header: str) -> bool:
    """'The value of e*trade financial on 12/14': the question writes a column header as printed."""
    header = header.strip()
    return len(header) >= HEADER_MIN_CHARS and bool(
        re.search(rf"(?<![\w/]){re.escape(header)}(?![\w/])", question, re.IGNORECASE)
    )


def _schedule_asked(sub_query: SubQuery) -> bool:
    """'Long-term debt due in 2005', 'maturities in 2017': the question asks for a year of a schedule (a table
    whose rows are years), even when the lexicon names its metric."""
    text = " ".join([sub_query.question, *sub_query.intent.keywords])
    return bool(_SCHEDULE_CUE_RE.search(text))


def _schedule_cell(reader: EvidenceReader, asked: set[str], company: str) -> tuple[float, _Cell] | None:
    """'What is the amount due in 2015?' over a schedule whose rows are years ('2015 | 1110566'): the one
    figure of the one row of that year, when the question's words name nothing else in the tables."""
    if not asked:
        return None
    allowed = _for_company(reader, company)
    if company and not any(_about(reader.evidence[i], company) for i in allowed):
        return None
    cells = [c for c in _table_cells(reader, allowed) if only_periods(c.label) and asked & c.periods]
    rows = {(c.seg.ev, c.seg.start) for c in cells}
    if len(cells) != 1 or len(rows) != 1:
        return None  # several figures for that year: nothing says which one is asked
    return CELL_MIN_SCORE, cells[0]


def _cell_value(cell: _Cell, asked: set[str], fallback_period: str) -> NumericValue:
    """The cell's figure with the period it answers: the asked one it states, else its own.

    A row that names an amount of something subtracted ('accumulated other comprehensive losses', 'debt
    assumed', 'issuance costs') printed as a negative is that amount: its magnitude, as the filing's words
    say it and as a change between two years of it must be computed. A row whose sign flips between columns
    keeps its signs: there the sign means something."""
    common = sorted(asked & cell.periods)
    period = common[0] if common else (cell.value.period or fallback_period)
    value = cell.value
    printed_negative = all(n.value <= 0 for n in cell.seg.numbers)
    if (
        value.value < 0
        and printed_negative
        and _DEDUCTION_LABEL_RE.search(cell.label)
        and not _SIGNED_LABEL_RE.search(cell.label)
    ):
        value = value.model_copy(update={"value": -value.value, "text": value.text.lstrip("-(").rstrip(")")})
    return value.model_copy(update={"period": period})


def _cell_name(cell: _Cell) -> str:
    """What the figure is, for people: its row label plus a column header that is not just a period."""
    header = "" if only_periods(cell.header) else cell.header
    return " ".join(x for x in (cell.label, header) if x).strip()


def _cell_answer(base: SubAnswer, sub_query: SubQuery, reader: EvidenceReader) -> SubAnswer | None:
    """The table figure whose row label and column header best name what the question asks, in its period.

    A question naming two periods and a change, percentage change or sum gets it computed in code from the
    two cells. None when no cell names enough of the question.
    """
    words = _content_words(sub_query.question)
    if not words:
        return None
    named = list(dict.fromkeys(p.norm for p in find_periods(sub_query.question)))
    if len(named) >= 2:
        return _cell_combination(base, sub_query, reader, words, named[:2])
    asked = set(named) | ({base.period} if base.period else set())
    share = next((m for r in _CELL_SHARE_RES if (m := r.search(sub_query.question))), None)
    if share and _content_words(share.group("a")) and _content_words(share.group("b")):
        return _cell_share(base, sub_query, reader, share, asked)
    part_of = _CELL_PART_OF_RE.search(sub_query.question)
    if part_of and _content_words(part_of.group("a")) and _content_words(part_of.group("b")):
        return _cell_share(base, sub_query, reader, part_of, asked, part_names_whole=True)
    found = _best_cell(reader, words, asked, base.company, question=sub_query.question)
    if found is None and (not base.metric or _schedule_asked(sub_query)):
        found = _schedule_cell(reader, asked, base.company)
    if found is None:
        return None
    score, cell = found
    ev = reader.evidence[cell.seg.ev]
    quote = cell.seg.text
    citation = ev.citation(quote, cell.seg.start)
    value = _cell_value(cell, asked, base.period)
    period = value.period
    shown = value.text.strip()
    when = f" in {period}" if period else ""
    name = _cell_name(cell)
    if only_periods(name):  # a schedule row is named by its year: the figure is the asked metric's
        name = base.metric or "the amount"
    return base.model_copy(
        update={
            "status": "found",
            "answer": f"{_capital(name)}{when} was {shown} {citation.label()}.",
            "value": value,
            "display": shown,
            "quote": quote,
            "citation": citation,
            "citations": [citation],
            "period": period,
            "period_stated": bool(asked & cell.periods) or not asked,
            "confidence": round(min(1.0, score / (1 + CELL_PRECISION_WEIGHT)), 3),
            "explanation": (f'sentence figure: "{cell.label}"' if cell.prose else f'table cell: row "{cell.label}"')
            + (f', column "{cell.header}"' if cell.header else "")
            + f'. Source: "{quote}"',
        }
    )


def _cell_share(
    base: SubAnswer,
    sub_query: SubQuery,
    reader: EvidenceReader,
    share: re.Match[str],
    asked: set[str],
    part_names_whole: bool = False,
) -> SubAnswer | None:
    """'Nuclear fuel expenses as a percentage of 2016 net revenue', 'the ratio of X to Y': two cells of one
    period, divided in code (a percentage when the question asks for one). None when either is missing.

    ``part_names_whole``: the part is worded as a subset of the whole ('what percentage of acres were in the
    US'), so its cell is the one naming the whole's words and the part's together."""
    values: list[CitedValue] = []
    sureness: list[float] = []
    cells: list[_Cell] = []
    for i, part in enumerate((share.group("a"), share.group("b"))):
        words = _content_words(part)
        if part_names_whole and i == 0:
            words |= _content_words(share.group("b"))
        found = _best_cell(reader, words, asked, base.company, question=part)
        if found is None and i == 1 and _TOTAL_WORD_RE.search(part):
            found = _total_cell(reader, cells[0], words)  # 'the total investments amount': the part's 'Total' row
        if found is None:
            return None
        score, cell = found
        cells.append(cell)
        citation = reader.evidence[cell.seg.ev].citation(cell.seg.text, cell.seg.start)
        value = _cell_value(cell, asked, base.period)
        values.append(
            CitedValue(label=f"{_cell_name(cell)} {value.period}".strip(), value=value, citation=citation)
        )
        sureness.append(min(1.0, score / (1 + CELL_PRECISION_WEIGHT)))
    if values[0].citation == values[1].citation and values[0].value.value == values[1].value.value:
        return None  # both parts read the same cell: the question's two items were not told apart
    percent = bool(_CELL_PERCENT_RE.search(share.group(0)))
    try:
        comp = arithmetic.ratio(values[0], values[1], base.metric, as_percent=percent)
    except ArithmeticRefusal:
        return None
    answer = _computed_answer(
        base, comp, "percent" if percent else "ratio", question_scale(sub_query.question), min(sureness)
    )
    answer.answer = (
        f"{_capital(values[0].label)} {'as a percentage of' if percent else 'relative to'} {values[1].label}: "
        f"{answer.display} (computed: {comp.formula}) "
        + " ".join(dict.fromkeys(c.label() for c in comp.citations()))
        + "."
    )
    return answer


def _total_cell(reader: EvidenceReader, part: _Cell, words: set[str]) -> tuple[float, _Cell] | None:
    """The 'Total ...' row of the part's own table, in the part's column, when its label names nothing the
    question's whole does not ('total' for 'the total investments amount')."""
    for cell in _table_cells(reader, {part.seg.ev}):
        if (
            _TOTAL_RE.match(cell.label)
            and _content_words(cell.label) <= words
            and cell.header == part.header
            and cell.periods == part.periods
            and cell.seg.start > part.seg.start
        ):
            return CELL_MIN_SCORE * (1 + CELL_PRECISION_WEIGHT), cell
    return None


def _cell_combination(
    base: SubAnswer, sub_query: SubQuery, reader: EvidenceReader, words: set[str], periods: list[str]
) -> SubAnswer | None:
    """'What was the change in X from 2016 to 2017?': both cells read from one row, the arithmetic in code."""
    q = sub_query.question
    percent = bool(_CELL_PERCENT_RE.search(q))
    if _CELL_RATIO_RE.search(q) and not _CELL_CHANGE_RE.search(q):
        operation = "ratio"  # 'the ratio of the 2016 hedged gallons to 2017': in the order asked
    elif _CELL_CHANGE_RE.search(q):
        operation = "percent_change" if percent else "change"
    elif _CELL_SUM_RE.search(q) and not percent:
        operation = "sum"
    else:
        return None
    values: list[CitedValue] = []
    sureness: list[float] = []
    row = ""
    for period in periods if operation == "ratio" else sorted(periods, key=sort_key):
        found = _best_cell(reader, words, {period}, base.company, same_row=row, question=q)
        if found is None:
            return None
        score, cell = found
        row = row or cell.label
        ev = reader.evidence[cell.seg.ev]
        citation = ev.citation(cell.seg.text, cell.seg.start)
        values.append(
            CitedValue(
                label=f"{_cell_name(cell)} {period}",
                metric=base.metric,
                value=_cell_value(cell, {period}, period),
                citation=citation,
            )
        )
        sureness.append(min(1.0, score / (1 + CELL_PRECISION_WEIGHT)))
    try:
        if operation == "sum":
            comp = arithmetic.total(values, base.metric)
        elif operation == "ratio":
            comp = arithmetic.ratio(values[0], values[1], base.metric, as_percent=percent)
        elif operation == "percent_change":
            comp = arithmetic.percent_change(values[0], values[1], base.metric)
        else:
            comp = arithmetic.change(values[0], values[1], base.metric)
    except ArithmeticRefusal:
        return None
    kind = "percent" if comp.result.unit == "%" else ("ratio" if operation == "ratio" else "money")
    answer = _computed_answer(base, comp, kind, question_scale(q), min(sureness))
    name = values[0].label.rsplit(" ", 1)[0]
    first, second = values[0].value.period, values[1].value.period
    what = {
        "sum": f"Total of {name} in {first} and {second}",
        "ratio": f"{_capital(name)} in {first} relative to {second}",
        "percent_change": f"Percentage change in {name} from {first} to {second}",
        "change": f"Change in {name} from {first} to {second}",
    }[operation]
    answer.answer = (
        f"{what}: {answer.display} (computed: {comp.formula}) "
        + " ".join(dict.fromkeys(c.label() for c in comp.citations()))
        + "."
    )
    return answer


def _asks_figure(sub_query: SubQuery) -> bool:
    """A question after a figure though the lexicon names no metric: it names a period or asks 'how much'."""
    if sub_query.intent.relation in _NON_FIGURE_RELATIONS:
        return False
    q = sub_query.question
    return bool(find_periods(q)) or bool(_HOW_MUCH_RE.search(q)) or sub_query.intent.requires_numeric


# ---------------------------------------------------------------------------------------------------------
# Combining sub-answers, references to earlier turns
# ---------------------------------------------------------------------------------------------------------
def combine(plan: QueryPlan, sub_answers: Sequence[SubAnswer]) -> CombinationResult:
    """Run the plan's combinations over the sub-answers' figures, in order (refusals reported, not raised)."""
    values: dict[str, CitedValue] = {}
    for sa in sub_answers:
        cv = sa.cited_value()
        if cv is not None and sa.sub_query_id:
            values[sa.sub_query_id] = cv
    out = CombinationResult()
    produced: dict[str, Computation] = {}
    for combo in plan.combinations:
        missing = [op for op in combo.operands if op not in values]
        if missing:
            out.failed.append(f"{combo.label or combo.operation}: missing {', '.join(missing)}")
            continue
        try:
            comp = _run(combo, [values[op] for op in combo.operands])
        except ArithmeticRefusal as exc:
            out.failed.append(f"{combo.label or combo.operation}: {exc}")
            continue
        comp.explanation = " ".join(
            filter(None, [combo.label and _capital(combo.label) + ".", comp.explanation])
        )
        comp.steps = [produced[op] for op in combo.operands if op in produced]  # citations flow through
        produced[combo.id] = comp
        out.computations.append(comp)
        out.labels[combo.id] = combo.label
        values[combo.id] = CitedValue(
            label=combo.label or combo.operation, metric=comp.metric, value=comp.result, computed=True
        )
    return out


def _run(combo: Combination, operands: list[CitedValue]) -> Computation:
    metric = combo.metric
    op = combo.operation
    if op == "difference":
        return arithmetic.difference(operands[0], operands[1], metric)
    if op == "change":
        return arithmetic.change(operands[0], operands[-1], metric)
    if op == "percent_change":
        return arithmetic.percent_change(operands[0], operands[-1], metric)
    if op == "cagr":
        years = arithmetic.years_between(operands[0].value.period, operands[-1].value.period)
        return arithmetic.cagr(operands[0], operands[-1], years, metric)
    if op == "ratio":
        return arithmetic.ratio(operands[0], operands[1], metric)
    if op == "share":
        return arithmetic.share_of_total(operands[0], operands[1], metric)
    if op == "sum":
        return arithmetic.total(operands, metric)
    return arithmetic.average(operands, metric)


def answer_references(rewrite: Rewrite) -> Computation | None:
    """The arithmetic a follow-up asks on earlier answers ("what was the change?"), computed in code."""
    refs = rewrite.references
    if not rewrite.operation or len(refs) < 2:
        return None
    combo = Combination(
        id="r1",
        operation=rewrite.operation
        if rewrite.operation
        in {  # type: ignore[arg-type]
            "change",
            "percent_change",
            "cagr",
            "ratio",
            "share",
            "sum",
            "average",
        }
        else "change",
        operands=[],
        metric=refs[0].metric,
        label=rewrite.question,
    )
    return _run(combo, list(refs))


# ---------------------------------------------------------------------------------------------------------
# Composing the final answer
# ---------------------------------------------------------------------------------------------------------
def _computation_sentence(comp: Computation, label: str) -> tuple[str, Figure]:
    cites = comp.citations()
    tail = f" {' '.join(c.label() for c in cites)}" if cites else ""
    head = _capital(label) if label else _capital(comp.metric or comp.operation)
    shown = comp.result.text
    if comp.operation in {"change", "difference"} and comp.result.unit == "%":
        shown = shown.removesuffix("%") + " pp"  # a difference of percentages is in percentage points
    sentence = f"{head}: {shown} ({comp.formula}){tail}."
    return sentence, Figure(text=shown, value=comp.result, citations=cites, computed=True, formula=comp.formula)


def compose_answer(
    question: str,
    sub_answers: Sequence[SubAnswer],
    computations: Sequence[Computation] = (),
    not_found: Sequence[str] = (),
    evidence: Sequence[Evidence] | None = None,
    labels: Sequence[str] = (),
) -> FinalAnswer:
    """Merge sub-answers and computations into one answer; every figure carries ``[doc, p. N]``.

    The computed results lead (they answer comparisons and trends directly), then each sub-answer, then what
    was not found. With ``evidence`` the text is also run through :func:`agent.verify.verify_answer`.
    """
    lines: list[str] = []
    figures: list[Figure] = []
    citations: dict[tuple[str, int], Citation] = {}
    for i, comp in enumerate(computations):
        label = labels[i] if i < len(labels) else ""
        sentence, figure = _computation_sentence(comp, label)
        lines.append(sentence)
        figures.append(figure)
        for c in figure.citations:
            citations.setdefault((c.doc, c.page), c)
    missing = list(not_found)
    for sa in sub_answers:
        if sa.status == "not_found":
            missing.append(sa.missing or sa.question)
            continue
        lines.append(sa.answer)
        for c in sa.citations:
            citations.setdefault((c.doc, c.page), c)
        if sa.value is not None:
            figures.append(
                Figure(
                    text=sa.display or sa.value.text,
                    value=sa.value,
                    citations=sa.citations,
                    computed=sa.status == "computed",
                    formula=sa.computations[0].formula if sa.computations else "",
                )
            )
    if missing:
        lines.append(f"{NOT_FOUND}: {'; '.join(dict.fromkeys(missing))}.")
    text = "\n".join(lines) if lines else f"{NOT_FOUND}: {question}."
    answer = FinalAnswer(
        question=question,
        text=text,
        citations=list(citations.values()),
        figures=figures,
        not_found=list(dict.fromkeys(missing)),
        # A change read straight from a table ('the change from 2016 to 2017') is what the next turn's 'and
        # the percent change?' works on: it is kept like a planned computation.
        computations=[
            *computations,
            *(c for sa in sub_answers for c in sa.computations if c.operation in _REMEMBERED_OPERATIONS),
        ],
        sub_answers=list(sub_answers),
    )
    if evidence is not None:
        all_comps = [*computations, *(c for sa in sub_answers for c in sa.computations)]
        answer.verification = verify_answer(text, evidence, all_comps)
        answer.text = answer.verification.text
    return answer


def _reference_label(rewrite: Rewrite) -> str:
    refs = rewrite.references
    if any(r.citation is None and r.label.startswith(TYPED_NUMBER) for r in refs):
        return rewrite.question.rstrip(" ?")  # 'What is 385373 (...) divided by 1000' says what was done
    metric = metric_label(refs[0].metric) if refs and refs[0].metric else "the value"
    first, last = refs[0].value.period, refs[-1].value.period
    span = f" from {first} to {last}" if first and last and first != last else ""
    return {
        "change": f"change in {metric}{span}",
        "percent_change": f"percentage change in {metric}{span}",
        "cagr": f"compound annual growth of {metric}{span}",
        "ratio": f"{metric} in {first or 'the first period'} relative to {last or 'the second'}",
        "share": f"{metric} as a percentage of the earlier figure",
        "sum": f"total of {metric}",
        "average": f"average of {metric}",
    }.get(rewrite.operation, rewrite.question)


def answer_offline(
    plan: QueryPlan, evidence: Sequence[Evidence], rewrite: Rewrite | None = None
) -> FinalAnswer:
    """The whole offline answer step: each sub-query, the combinations, then the merged, verified answer."""
    if rewrite is not None and len(rewrite.references) == 1 and rewrite.operation:
        return _answer_with_reference(plan, evidence, rewrite)
    if rewrite is not None and rewrite.references and rewrite.operation:
        try:
            comp = answer_references(rewrite)
        except ArithmeticRefusal as exc:
            return compose_answer(plan.question, [], not_found=[f"{rewrite.question} ({exc})"])
        if comp is not None:
            return compose_answer(
                plan.question, [], [comp], labels=[_reference_label(rewrite)], evidence=evidence
            )
    reader = EvidenceReader(evidence)
    sub_answers = [answer_sub_query(sq, evidence, reader) for sq in plan.sub_queries]
    combined = combine(plan, sub_answers)
    # The final results (those no other step consumes) answer the question: they lead.
    consumed = {op for c in plan.combinations for op in c.operands}
    done = [c for c in plan.combinations if c.id in combined.labels]
    order = sorted(range(len(done)), key=lambda i: done[i].id in consumed)
    computations = [combined.computations[i] for i in order]
    labels = [combined.labels[done[i].id] for i in order]
    return compose_answer(
        plan.question,
        sub_answers,
        computations,
        combined.failed + plan.notes,
        evidence=evidence,
        labels=labels,
    )


def _answer_with_reference(plan: QueryPlan, evidence: Sequence[Evidence], rewrite: Rewrite) -> FinalAnswer:
    """'Including 2015, what becomes this total?': the new figure read from the evidence, then combined in code
    with the earlier result the rewrite carries."""
    reader = EvidenceReader(evidence)
    sub_answers = [answer_sub_query(sq, evidence, reader) for sq in plan.sub_queries]
    read = next((v for a in sub_answers if (v := a.cited_value()) is not None), None)
    if read is None:
        return compose_answer(plan.question, sub_answers, evidence=evidence)
    combo = Combination(id="r1", operation=rewrite.operation, operands=[], metric=read.metric,  # type: ignore[arg-type]
                        label=rewrite.original)
    try:
        comp = _run(combo, [rewrite.references[0], read])
    except ArithmeticRefusal as exc:
        return compose_answer(plan.question, sub_answers, not_found=[f"{rewrite.original} ({exc})"])
    label = f"{_capital(rewrite.operation)} with {read.label}"
    return compose_answer(plan.question, sub_answers, [comp], labels=[label], evidence=evidence)


# ---------------------------------------------------------------------------------------------------------
# Language-model twin
# ---------------------------------------------------------------------------------------------------------
def evidence_blocks(evidence: Sequence[Evidence]) -> list[EvidenceBlock]:
    """Evidence as prompt blocks, each with the label it must be cited by."""
    return [
        EvidenceBlock(label=ev.citation().label(), text=ev.text, source=ev.source, chunk_id=ev.chunk_id)
        for ev in evidence
    ]


def _calculator_computations(calls: Sequence[object]) -> list[Computation]:
    out: list[Computation] = []
    for call in calls:
        if getattr(call, "name", "") != "calculator" or not getattr(call, "ok", False):
            continue
        try:
            value = float(getattr(call, "output", ""))
        except ValueError:
            continue
        expression = str(getattr(call, "arguments", ""))
        m = re.search(r'"expression"\s*:\s*"([^"]*)"', expression)
        formula = f"{m.group(1) if m else expression} = {call.output}"  # type: ignore[attr-defined]
        out.append(
            Computation(
                operation="calculator",
                inputs=[],
                formula=formula,
                result=NumericValue(text=str(call.output), value=value),
            )
        )  # type: ignore[attr-defined]
    return out


def llm_answer(
    question: str,
    evidence: Sequence[Evidence],
    *,
    model: BaseChatModel | None,
    fallback: FinalAnswer,
    usage: UsageLog | None = None,
    computations: Sequence[Computation] = (),
) -> FinalAnswer:
    """Grounded answer by the language model (evidence only, calculator for arithmetic), then verified.

    ``fallback`` is the offline twin's answer, returned when no model is configured or the model fails twice.
    Every figure of the model's text must appear in its cited evidence or be a calculator / code computation;
    the rest is flagged ``[unverified]``.
    """
    if model is None:
        return fallback
    result = text_call(
        model,
        answer_messages(question, evidence_blocks(evidence)),
        fallback=lambda: fallback.text,
        step="answer",
        usage=usage,
        tools=[calculator],
    )
    if result.source == "offline":
        return fallback.model_copy(update={"reason": result.reason})
    calc = _calculator_computations(result.tool_calls)
    comps = [*computations, *calc]
    verification = verify_answer(result.text, evidence, comps)
    figures = [
        Figure(
            text=c.text,
            value=c.value,
            citations=_label_citations(c.cited, evidence),
            computed=c.basis == "computation",
            formula=c.support if c.basis == "computation" else "",
        )
        for c in verification.checks
        if c.supported
    ]
    cites: dict[tuple[str, int], Citation] = {}
    for f in figures:
        for c in f.citations:
            cites.setdefault((c.doc, c.page), c)
    return FinalAnswer(
        question=question,
        text=verification.text,
        citations=list(cites.values()),
        figures=figures,
        not_found=[],
        computations=comps,
        sub_answers=list(fallback.sub_answers),
        verification=verification,
        source="llm",
    )


def _label_citations(label: str, evidence: Sequence[Evidence]) -> list[Citation]:
    m = re.match(r"\[(?P<doc>[^\[\]]+?),\s*p\.\s*(?P<page>\d+)\]", label or "")
    if m is None:
        return []
    doc, page = m.group("doc").strip(), int(m.group("page"))
    ev = next((e for e in evidence if e.doc_name == doc and e.page + 1 == page), None)
    return [Citation(doc=doc, page=page, chunk_id=ev.chunk_id if ev else "")]
