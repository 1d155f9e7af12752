"""Query preprocessing (VeritasFi 4.1, step 1): resolve a turn against the conversation.

**Rewrite** (co-reference and ellipsis), with an offline twin and a language-model twin that return the same
:class:`Rewrite`: the conversation's slots (company, metrics, periods, form, the user's subject, the last
answers' figures) fill what a follow-up leaves out. "what about 2022?" takes a new period and keeps company and
metric; "and as a percentage of revenue?" keeps company and period and asks for the previous metric over
revenue; "how does that compare with Microsoft?" adds a company and keeps metric and period; "what was the
change?" / "what is that as a %?" / "including 2015, what is the total?" (ConvFinQA) point at earlier answers,
so the rewrite keeps references to those figures and names the operation, and the answer step computes it in
code. Only follow-ups inherit slots: small talk ('hello', 'thanks') and generic definitions ('what is
EBITDA?') are returned as asked and marked ``standalone``; a question that names its own company keeps it.

The self-contained turn is then split into sub-queries by :mod:`agent.decompose`. The wording cues both steps
read (change, share, sum, average ...) live here. :func:`classify_query` tells the router whether a question
needs filings, market data or no evidence at all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, Field

from agent import llm_schemas
from agent.arithmetic import MONEY_UNITS, CitedValue, Computation
from agent.intent import extract_intent, match_company
from agent.lexicon import METRICS, FormulaKind, canonical, find_metrics
from agent.llm import UsageLog, structured_call
from agent.periods import find_periods, normalise_period, shift_period, sort_key, without_periods
from agent.prompts import rewrite_messages
from agent.schemas import NumericValue, QueryIntent, Relation

if TYPE_CHECKING:  # the plan a turn was split into, recorded in the slots (agent.decompose imports this module)
    from agent.decompose import QueryPlan

# Words that make a turn lean on earlier ones (pronouns and ellipsis openers).
_REFERENCE_RE = re.compile(
    r"\b(?:that|this|it|its|those|these|them|their|they|the same|same|then|again|previous|prior|above)\b"
    r"|^\s*(?:and|so|also|what about|how about|and what about|what of)\b",
    re.IGNORECASE,
)
_FOLLOW_UP_OPENER_RE = re.compile(r"^\s*(?:and|so|also|what about|how about|what of|then)\b", re.IGNORECASE)
# A follow-up about the change just computed ('this change as a percentage of that net revenue in 2008').
_THIS_CHANGE_RE = re.compile(
    r"\b(?:this|that|the\s+same)\s+(?:\w+\s+){0,2}?(?:change|difference|increase|decrease|decline|drop|"
    r"growth|variation|fluctuation)\b",
    re.IGNORECASE,
)
TYPED_NUMBER = "the number"  # label prefix of a number the user typed (no citation: it is not from a filing)
# Arithmetic with a typed number: 'that divided by 1000', 'that less an initial $100 investment', '100000 / 100'.
_CONSTANT_OP_RE = re.compile(
    r"(?:\b(?:(?:that|this|it)(?:\s+(?:change|difference|value|amount|result|total|sum|number|quotient))?|"
    r"the\s+(?:result|change|difference|total|sum|value|amount|quotient)(?:\s+\w+)?)|"
    r"(?<![\w.,$])(?!(?:19|20)\d\d\b)(?P<left_num>\d[\d,]*(?:\.\d+)?))\s+"
    r"(?P<op>divided\s+by|over|less|minus|plus)\s+(?:an?\s+(?:initial\s+)?)?\$?\s*"
    r"(?!(?:19|20)\d\d\b)(?P<num>\d[\d,]*(?:\.\d+)?)(?![\d,]*\s*(?:%|percent))",
    re.IGNORECASE,
)
# 'What is that in millions?', 'how much is this three year amount in billions?': the last answer re-scaled.
_CONVERT_RE = re.compile(
    r"^(?:and\s+|so\s+)?(?:what|how\s+much)\s+(?:is|was|would\s+be)\s+(?:that|this|it|th(?:is|at)\s+"
    r"(?:[\w-]+\s+){0,3}(?:amount|value|total|sum|figure|number|result))\s+in\s+"
    r"(?P<target>thousands|millions|billions|percentage|percent)\s*\??$",
    re.IGNORECASE,
)
_TARGET_SCALE = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}
SCALE_STEP = 1e3  # filings step scales by a thousand: an unscaled figure asked in millions was in thousands
# Words a period-only follow-up wraps its period in ('and what was it in 2007?', 'the value for 2010 again?').
FOLLOW_UP_FILLER = frozenset(
    (
        *("and", "so", "also", "then", "what", "about", "how", "of", "was", "were", "is", "are", "it", "its"),
        *("they", "them", "that", "this", "those", "these", "the", "in", "for", "value", "values", "amount"),
        *("figure", "number", "specific", "again", "year", "fiscal", "during", "at", "as"),
    )
)
# The question and arithmetic words around a figure's name ('so what was, then, the net change in ...').
_SUBJECT_HEAD_RE = re.compile(
    r"^(?:(?:in|between|from|during|for|as\s+of|at|by|the\s+years?\s+of|years?\s+of|and|to)\b[\s,]*)*"
    r"(?:(?:and|so|also|then|now)\b[\s,]*)*(?:(?:what|how\s+much|how\s+many)\s+(?:was|were|is|are|did|does|do)?"
    r"[\s,]*(?:(?:then|again|also)\b[\s,]*)?)?(?:the\s+)?"
    r"(?:(?:net\s+|total\s+|overall\s+)?(?:percent(?:age)?\s+)?(?:change|difference|variation|variance|increase|"
    r"decrease|growth|decline|fluctuation|sum|total|average)\s+(?:in|of|for)\s+(?:the\s+)?)?"
    r"(?:(?:value|amount|balance|number)\s+of\s+(?:the\s+)?)?",
    re.IGNORECASE,
)
_SUBJECT_TAIL_RE = re.compile(
    r"(?:[\s,]+(?:again|then|respectively|in\s+total|combined|in\s+all|over\s+the\s+year|"
    r"(?:over|during|for)\s+(?:th(?:is|at|ose|e)\s+)?(?:period|years?|time)))+\s*$",
    re.IGNORECASE,
)
# Words that joined the periods removed from a question ('from 2008 to 2009', 'between 2010 and 2011').
_SUBJECT_PERIOD_GLUE_RE = re.compile(
    r"(?:\b(?:from|between|in|during|for|of|at|as\s+of|the\s+years?\s+of|years?\s+of|to|and|through)\s*,?\s*)+"
    r"(?=\s*(?:[,?]|$))|\b(?:from|between|the\s+years?\s+of)\s+(?:and|to)\b",
    re.IGNORECASE,
)
_COUNT_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "both": 2}
# 'these three years', 'the two years', 'all 3 years', 'both years': a total or average over earlier figures.
_SPAN_COUNT_RE = re.compile(
    r"\b(?:(?:the|these|those|all|last)\s+)?(?P<n>two|three|four|five|both|[2-5])\s+(?:years|periods|quarters|values)\b",
    re.IGNORECASE,
)
_INCLUDING_RE = re.compile(
    r"\b(?:including|adding|plus)\s+(?P<thing>.+?)(?:,\s*(?:what|how)\b.*|\s+what\s+.*)?\??$", re.IGNORECASE
)
_NOT_NOUN = r"(?!(?:from|to|in|between|of|for|over|during|and|as|at|by|on)\b)"  # a noun phrase ends before these
_DEMONSTRATIVE_RE = re.compile(
    rf"\b(?:that|this|those|these|the\s+same)\s+(?:{_NOT_NOUN}[a-z&-]+\s+){{0,2}}{_NOT_NOUN}[a-z&-]+", re.I
)
_RESULT_RE = re.compile(r"\b(?:that|this|the\s+(?:net\s+)?(?:change|difference|increase|decrease))\b", re.I)
_CHANGE_OR_TOTAL_RE = re.compile(
    r"\b(?:change|difference|variation|variance|increase|decrease|growth|decline|fluctuation|sum|total)\b", re.I
)
# Words of arithmetic and comparison: a remainder of only these names no figure ('the percent change').
OPERATION_WORDS = frozenset(
    (
        *("change", "difference", "variation", "variance", "increase", "decrease", "growth", "decline", "net"),
        *("fluctuation", "percent", "percentage", "sum", "total", "average", "ratio", "between", "two"),
        *("three", "both", "all", "years", "over", "rate", "portion", "proportion", "share", "much", "many"),
    )
)
# Words that only link a follow-up's periods and arithmetic ('over the subsequent year, from 2009 to 2010').
LINK_WORDS = frozenset(
    (
        *("from", "to", "between", "over", "subsequent", "following", "next", "year", "period", "did", "does"),
        *("do", "precedent", "preceding", "prior", "previous", "earlier", "later", "same"),
    )
)
SUBJECT_MAX_WORDS = 20  # longer remainders are whole sentences, not the name of a figure
BARE_FOLLOW_UP_MAX_WORDS = 1  # one stray word ('then', 'ok') still leaves the turn a bare period follow-up
_COMPANY_PRONOUN_RE = re.compile(r"\b(?:its|their|the company's|the company|the firm's|the firm|it)\b", re.I)
COMPARE_RE = re.compile(
    r"\bcompar\w*|\bversus\b|\bvs\.?(?=\s)|\bagainst\b|\brelative to\b|\bhigher than\b|\blower than\b|"
    r"\bbigger than\b|\bsmaller than\b|\bmore than\b|\bless than\b",
    re.IGNORECASE,
)
CAGR_RE = re.compile(r"\bcagr\b|\bcompound(?:ed)?\s+annual", re.IGNORECASE)
PERCENT_RE = re.compile(r"%|\bpercent(?:s|age)?\b|\bgrowth\s+rate\b|\brate\s+of\s+(?:growth|change)\b", re.I)
CHANGE_RE = re.compile(
    r"\bchang\w*|\bincreas\w*|\bdecreas\w*|\bdifference\b|\bgr[eo]w\w*|\bdeclin\w*|\brise\b|\brose\b|"
    r"\bfell\b|\bvariation\b|\bfluctuat\w*|\bvar(?:y|ied)\b|"
    r"\bdrop\w*|\bmove[ds]?\b|\bvariance\b|\bdelta\b|\byear[- ]over[- ]year\b|\byoy\b",
    re.IGNORECASE,
)
_OVER_BASE_RE = re.compile(
    r"\b(?:over|divided\s+by|relative\s+to|in\s+relation\s+to|as\s+a\s+(?:share|portion)\s+of)"
    r"\s+(?:the\s+|this\s+|that\s+)?(?:\d{4}|prior|previous|earlier|original|base|initial)\b",
    re.IGNORECASE,
)
# "Weighted average" names a metric (weighted average exercise price), never an average to compute.
AVERAGE_RE = re.compile(r"(?<!weighted )\baverage\b|\bmean\b", re.IGNORECASE)
SUM_RE = re.compile(r"\btotal\b|\bsum\b|\bcombined\b|\bcumulative\b|\baltogether\b|\bin aggregate\b", re.I)
# 'What was the total capital?' names a reported total (a lookup), unlike 'the total of both' or 'the sum'.
_NAMED_TOTAL_RE = re.compile(
    r"\btotal\s+(?!(?:of|for|sum|amount|value|number|in|between|over|during|then|again|including)\b)[a-z]",
    re.IGNORECASE,
)
_OTHER_SUM_RE = re.compile(
    r"\bsum\b|\bcombined\b|\baltogether\b|\bin aggregate\b|\bboth\b|\ball\b|"
    r"\b(?:these|those|the|the\s+last)\s+(?:two|three|four|five)\s+(?:years|periods|quarters)\b",  # 'these two years'
    re.I,
)
SHARE_RE = re.compile(
    r"\bas\s+an?\s+(?:%|percent(?:age)?|share|proportion|fraction|portion)\s+of\b|"
    r"\b(?:%|percent(?:age)?)\s+of\b|"
    r"\bshare\s+of\b|\bproportion\s+of\b|\bportion\s+of\b",
    re.IGNORECASE,
)
_BARE_MARGIN_RE = re.compile(r"\bmargins?\b", re.IGNORECASE)
PRIOR_YEAR_RE = re.compile(
    r"\b(?:the\s+)?(?:year|period)\s+before\b|\bprior\s+year\b|\bprevious\s+year\b|"
    r"\bpreceding\s+year\b|\blast\s+year\b",
    re.IGNORECASE,
)
NEXT_YEAR_RE = re.compile(r"\b(?:the\s+)?(?:following|next|subsequent)\s+year\b|\byear\s+after\b", re.I)
_SCALE_HINT_RE = re.compile(
    r"\(?\b(?:answer\s+)?in\s+(?:usd|us\s*\$|\$|us\s+dollars?|dollars)?\s*"
    r"(?:thousands|millions|billions)\b\)?",
    re.IGNORECASE,
)
# Router cues.
_MARKET_RE = re.compile(
    r"\b(?:stock|share)\s+price|"
    r"\bprice\s+(?:of\s+(?:the\s+)?(?:stock|shares?)|history|target|performance|chart)\b|"
    r"\bmarket\s+cap(?:italization|italisation)?\b|\bstock\s+(?:performance|perform\w*|return|chart|quote)\b|"
    r"\bhow\s+(?:has|have|did|is|are)\s+(?:the\s+)?(?:stock|shares?)\b|\btrading\s+(?:at|price|volume)\b|"
    r"\b52[- ]week\b|\b(?:current|latest|today'?s?|live)\s+(?:stock\s+|share\s+)?(?:price|quote|valuation)\b|"
    r"\bshares?\s+(?:traded|trading)\b|\bticker\s+price\b",
    re.IGNORECASE,
)
_FILING_REFERENCE_RE = re.compile(
    r"\b10-?[KQ]\b|\b8-?K\b|\bfiling\b|\bannual\s+report\b|\breported\b|"
    r"\bbalance\s+sheet\b|\bstatement\b",
    re.IGNORECASE,
)
# A price the filing itself reports: option exercise and grant prices, buyback prices paid, offering prices.
_FILING_PRICE_RE = re.compile(
    r"\b(?:exercise|strike|grant(?:-date)?|weighted[- ]average|options?|awards?|repurchased?|purchased?|paid|"
    r"offering|conversion|redemption|issuance|tender|acquisition)\b[^?.!]{0,40}\bprices?\b|"
    r"\bprices?\b[^?.!]{0,30}\b(?:paid|exercis\w*|granted|options?|awards?|units)\b",
    re.IGNORECASE,
)
_SMALL_TALK_RE = re.compile(
    r"^\s*(?:hi|hello|hey|good\s+(?:morning|afternoon|evening)|thanks?(?:\s+you)?|thank\s+you|cheers|bye|"
    r"goodbye|"
    r"ok(?:ay)?|great|cool|who\s+are\s+you|what\s+can\s+you\s+do|help)\b[\s!.?,]*(?:\w+[\s!.?]*){0,4}$",
    re.IGNORECASE,
)
_GENERIC_DEFINITION_RE = re.compile(
    r"^\s*(?:what\s+(?:is|are|does)\s+(?:an?\s+|the\s+)?|define\s+|explain\s+(?:what\s+)?|"
    r"what'?s\s+(?:an?\s+)?|"
    r"meaning\s+of\s+)",
    re.IGNORECASE,
)
# A definition asked in question form ('what is EBITDA?', 'what is an operating lease?', 'define EBITDA'):
# the article decides -- 'a'/'an' or none asks what a term means, 'the' points at one company's figure.
_WHAT_IS_RE = re.compile(
    r"^\s*(?:(?:and|so|ok(?:ay)?|also)[\s,]+)?(?:what\s+(?:is|are)|what'?s)\s+"
    r"(?P<article>(?:an?|the)\s+)?(?P<term>[^?!.]+?)\s*[?!.]*\s*$",
    re.IGNORECASE,
)
_DEFINE_RE = re.compile(
    r"^\s*(?:please\s+)?(?:define|explain\s+what\b.*\b(?:is|are|means?)\s*[?!.]*\s*$)",
    re.IGNORECASE,
)
# Pronouns that point at a company ('its', 'the company'); a bare 'it' may be the term itself.
_OWNER_PRONOUN_RE = re.compile(r"\b(?:its|their|the\s+(?:company|firm|group)(?:'s)?)\b", re.IGNORECASE)
_MARKET_METRICS = frozenset(
    {"market capitalization", "share price", "dividend yield", "price to earnings ratio", "enterprise value"}
)
NON_NUMERIC_RELATIONS = frozenset({Relation.EXPLANATION, Relation.DEFINITION, Relation.POLICY})
QUALITATIVE_TOPICS = frozenset(
    {"Risk", "Other", "Guidance"}
)  # metrics of these topics are described, not counted


# ---------------------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------------------
class Turn(BaseModel):
    """One finished turn of the conversation: what was asked, how it was understood, what was answered."""

    question: str
    rewritten: str = ""
    answer: str = ""
    values: list[CitedValue] = Field(default_factory=list, description="figures the answer gave")
    computations: list[Computation] = Field(default_factory=list)


class DialogueSlots(BaseModel):
    """Conversation state carried across turns: what the follow-ups may leave out."""

    company: str = ""
    companies: list[str] = Field(
        default_factory=list, description="all companies of the last turn (comparisons)"
    )
    ticker: str = ""
    metrics: list[str] = Field(default_factory=list, description="canonical metric names")
    periods: list[str] = Field(default_factory=list, description="normalised periods, chronological")
    form: str = ""
    last_question: str = Field(default="", description="the last turn's rewritten question")
    last_sub_queries: list[str] = Field(
        default_factory=list, description="the last turn's sub-query questions"
    )
    last_values: list[CitedValue] = Field(
        default_factory=list, description="figures of recent answers, newest last"
    )
    last_lookup: str = Field(
        default="", description="the last question that asked for one figure in one period ('and 2007 again?')"
    )
    last_computation: Computation | None = None
    subject: str = Field(
        default="", description="what the last figure question asked about, in the user's words ('rental expense')"
    )


class Rewrite(BaseModel):
    """A turn made self-contained, with the slots it used and any references to earlier answers."""

    original: str
    question: str = Field(description="the self-contained question")
    carried_over: list[str] = Field(
        default_factory=list, description="'slot: value' filled from earlier turns"
    )
    changed: bool = False
    intent: QueryIntent = Field(default_factory=QueryIntent)
    slots: DialogueSlots = Field(default_factory=DialogueSlots, description="slots after this question")
    references: list[CitedValue] = Field(
        default_factory=list, description="earlier answers' figures this turn computes with, in operand order"
    )
    operation: str = Field(
        default="",
        description="arithmetic on the references: change | percent_change | ratio | sum | average | ''",
    )
    source: Literal["offline", "llm"] = "offline"
    reason: str = Field(default="", description="why the offline twin answered, when a model was configured")
    standalone: Literal["", "small_talk", "definition"] = Field(
        default="",
        description="a turn that inherits nothing from the conversation: small talk or a generic definition",
    )


class QueryKind(StrEnum):
    """Where a (sub-)question's evidence comes from."""

    FILING = "filing"
    MARKET = "market"
    NO_EVIDENCE = "no_evidence"


# ---------------------------------------------------------------------------------------------------------
# Router helper
# ---------------------------------------------------------------------------------------------------------
def classify_query(question: str, intent: QueryIntent | None = None) -> QueryKind:
    """Filing question, market-data question (price, market cap, stock performance) or no-evidence question.

    No evidence: small talk, and definitions of generic terms that name no company and no period ("What is
    EBITDA?"). Market: live-market cues, unless the question points at a filing ("in the 10-K").
    """
    text = question.strip()
    if not text or _SMALL_TALK_RE.match(text):
        return QueryKind.NO_EVIDENCE
    metrics = set(intent.metrics) if intent is not None else {m.canonical for m in find_metrics(text)}
    has_company = bool(intent and (intent.company or intent.ticker))
    has_period = bool(intent and intent.temporal_scope.periods) or bool(find_periods(text))
    if (_MARKET_RE.search(text) or (metrics and metrics <= _MARKET_METRICS)) and not points_at_filing(text):
        return QueryKind.MARKET
    opener = _GENERIC_DEFINITION_RE.match(text)
    rest = text[opener.end() :].strip(" ?.!") if opener else ""
    generic = bool(opener) and (
        (intent is not None and intent.relation is Relation.DEFINITION)
        or bool(rest)
        and canonical(re.sub(r"\s+(?:mean|stand\s+for)$", "", rest, flags=re.I)) is not None
    )
    if generic and not has_company and not has_period and not _COMPANY_PRONOUN_RE.search(text):
        return QueryKind.NO_EVIDENCE
    return QueryKind.FILING


def points_at_filing(text: str) -> bool:
    """True when the wording ties a price or figure to a filing ("in the 10-K", "exercise price per share")."""
    return bool(_FILING_REFERENCE_RE.search(text) or _FILING_PRICE_RE.search(text))


def needs_evidence(question: str, intent: QueryIntent | None = None) -> bool:
    """True unless the question can be answered without filings or market data."""
    return classify_query(question, intent) is not QueryKind.NO_EVIDENCE


# ---------------------------------------------------------------------------------------------------------
# Phrasing helpers
# ---------------------------------------------------------------------------------------------------------
def metric_label(metric: str) -> str:
    """A canonical metric as people write it: its upper-case abbreviation when that is its name ('EBITDA')."""
    info = METRICS.get(metric)
    if info is not None:
        for abbr in info.abbreviations:
            if abbr.lower() == metric and abbr.isupper():
                return abbr
    return metric


def possessive(company: str) -> str:
    """'3M' -> "3M's", 'Northwind Instruments' -> "Northwind Instruments'"."""
    return f"{company}'" if company.endswith("s") else f"{company}'s"


def _join(items: Sequence[str]) -> str:
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def lookup_question(company: str, metrics: Sequence[str], periods: Sequence[str], hint: str = "") -> str:
    names = [metric_label(m) for m in metrics]
    subject = f"{possessive(company)} {_join(names)}" if company else f"the {_join(names)}"
    when = f" in {_join(periods)}" if periods else ""
    verb = "was" if periods else "is"
    tail = f" ({hint})" if hint else ""
    return f"What {verb} {subject}{when}{tail}?"


def chronological(periods: Sequence[str]) -> list[str]:
    return sorted(dict.fromkeys(p for p in periods if p), key=sort_key)


def scale_hint(question: str) -> str:
    m = _SCALE_HINT_RE.search(question)
    return m.group(0).strip("() ") if m else ""


def margin_metric(metric: str) -> str:
    """The lexicon margin of an amount metric ('ebitda' -> 'ebitda margin'); '' when it has none."""
    for name, info in METRICS.items():
        formula = info.formula
        if (
            formula is not None
            and formula.kind is FormulaKind.MARGIN
            and [t.metric for t in formula.numerator] == [metric]
        ):
            return name
    return ""


# ---------------------------------------------------------------------------------------------------------
# Slots
# ---------------------------------------------------------------------------------------------------------
def companies_in(question: str, known_companies: Sequence[str]) -> list[str]:
    """Every known company the question names, in the order it names them ('3M ... and Microsoft')."""
    low = question.lower()
    found: list[tuple[int, str]] = []
    for company in known_companies:
        if match_company(question, [company]) != company:
            continue
        first = re.findall(r"[a-z0-9]+", company.lower())[:1]
        at = low.find(first[0]) if first else -1
        found.append((at if at >= 0 else len(low), company))
    return [c for _, c in sorted(found)]


def intent_companies(intent: QueryIntent, known_companies: Sequence[str]) -> list[str]:
    """Companies a question names: all known ones in order, else the intent's routing company."""
    named = companies_in(intent.question, known_companies) if known_companies else []
    if intent.company and intent.company not in named:
        named.insert(0, intent.company)
    return named


def slots_from_intent(intent: QueryIntent, known_companies: Sequence[str] = ()) -> DialogueSlots:
    """The slots a self-contained question fills on its own."""
    companies = intent_companies(intent, known_companies)
    return DialogueSlots(
        company=companies[0] if companies else "",
        companies=companies,
        ticker=intent.ticker,
        metrics=list(intent.metrics),
        periods=chronological(intent.temporal_scope.periods),
        form=intent.form,
    )


def update_slots(
    slots: DialogueSlots,
    rewrite: Rewrite,
    plan: QueryPlan | None = None,
    values: Sequence[CitedValue] = (),
    computations: Sequence[Computation] = (),
    keep_values: int = 4,
) -> DialogueSlots:
    """The slots after a finished turn: the rewrite's slots plus the answer's figures (newest last).

    ``keep_values`` bounds the remembered figures: follow-ups refer back a turn or two ("the change", "that").
    """
    new = rewrite.slots.model_copy(deep=True)
    if rewrite.standalone == "small_talk":  # 'thanks' leaves the conversation where it was
        new.last_question, new.last_sub_queries = slots.last_question, list(slots.last_sub_queries)
    else:
        new.last_question = rewrite.question
        new.last_sub_queries = [s.question for s in plan.sub_queries] if plan else [rewrite.question]
    single = len(find_periods(rewrite.question)) == 1 and not rewrite.references
    new.last_lookup = rewrite.question if single and rewrite.standalone != "small_talk" else slots.last_lookup
    # Arithmetic on earlier answers names no new subject ('the change in the value from 2008 to 2009').
    asks_anew = rewrite.standalone != "small_talk" and not rewrite.references
    new.subject = (subject_phrase(rewrite.question) if asks_anew else "") or slots.subject
    remembered = [*slots.last_values, *values][-keep_values:]
    new.last_values = remembered
    # A computation stays the reference for 'as a %?' until another is made or the subject changes. Of a turn's
    # computations, 'that' is the one its answer leads with (the change, before the growth rate derived from it).
    same_subject = new.metrics == slots.metrics or not new.metrics
    new.last_computation = (
        computations[0] if computations else (slots.last_computation if same_subject else None)
    )
    return new


# ---------------------------------------------------------------------------------------------------------
# Rewrite: offline twin
# ---------------------------------------------------------------------------------------------------------
def _value_operation(question: str, slots: DialogueSlots) -> str:
    """The arithmetic a value-referring follow-up asks for ('what was the change?' -> change)."""
    q = question.lower()
    if CAGR_RE.search(q):
        return "cagr"
    over_base = bool(_OVER_BASE_RE.search(q))  # 'the difference divided by the 2014 value'
    percent = (
        bool(PERCENT_RE.search(q))
        or over_base
        or bool(re.search(r"\bin\s+relation\s+to\b|\brepresent\b", q))
    )
    last = slots.last_computation
    after_change = last is not None and last.operation in {"change", "difference"}
    relation = bool(re.search(r"\bin\s+relation\s+to\b|\brepresent\b", q))
    refers_change = bool(_THIS_CHANGE_RE.search(q))
    if relation and not refers_change and len({p.norm for p in find_periods(q)}) >= 2:
        return "ratio"  # 'the 2008 amount in relation to this 2007 one': one figure over the other
    if percent and refers_change:
        return "percent_change"  # 'this change in relation to the 2008 total': the change over its base
    if AVERAGE_RE.search(q):
        return "average"
    if SUM_RE.search(q) and not _names_reported_total(q):
        return "sum"
    if CHANGE_RE.search(q):
        return "percent_change" if percent else "change"
    if SHARE_RE.search(q) and not _OVER_BASE_RE.search(q):
        return "share"  # 'the Louisiana amount as a percent of the Arkansas one'
    if percent and after_change:
        return "percent_change"  # "what is that as a %?" after a change: the change over its base
    if re.search(r"\bin\s+relation\s+to\b|\brepresent\b|\bratio\b|\bdivided\s+by\b|\bquotient\b", q):
        return "ratio"
    return ""


def _names_reported_total(question: str) -> bool:
    """'What was the total capital in 2008?': a total the filing reports, to be looked up, not a sum of the
    earlier answers -- unless the turn also says sum, combined, both or all, or names two periods."""
    return (
        bool(_NAMED_TOTAL_RE.search(question))
        and not _OTHER_SUM_RE.search(question)
        and len({p.norm for p in find_periods(question)}) <= 1
    )


def _order_by_question(values: list[CitedValue], question: str) -> list[CitedValue]:
    """Operands in the order the question names their periods ('2016 ... in relation to this 2015 one')."""
    named = [p.norm for p in find_periods(question)]
    if len(named) >= 2 and all(any(v.value.period == p for v in values) for p in named[:2]):
        return [next(v for v in values if v.value.period == p) for p in named[:2]]
    return values


def _named_values(question: str, pool: Sequence[CitedValue]) -> list[CitedValue] | None:
    """The remembered figures of the periods the question names; None when one of them has no figure."""
    named = list(dict.fromkeys(p.norm for p in find_periods(question)))
    if not named:
        return list(pool)
    chosen = [next((v for v in reversed(pool) if v.value.period == p), None) for p in named]
    if any(v is None for v in chosen):
        return None
    return [v for v in chosen if v is not None]


def _reference_rewrite(question: str, slots: DialogueSlots, operation: str) -> Rewrite | None:
    """A follow-up that computes with earlier answers (ConvFinQA): keep references, name the operation.

    None when the figures it needs are not among the earlier answers (the question is then asked afresh).
    """
    metric = metric_label(slots.metrics[0]) if slots.metrics else "the value"
    who = f"{possessive(slots.company)} " if slots.company else ""
    last = slots.last_computation
    named = find_periods(question)
    if (
        operation == "percent_change"
        and last is not None
        and last.operation in {"change", "difference"}
        and len(last.inputs) == 2
        and len(named) <= 1
    ):
        old, new = last.inputs
        base = named[0].norm if named else old.value.period
        if base and base == new.value.period:  # 'in relation to the 2005 value' names the base explicitly
            old, new = new, old
        text = (
            f"What is the change in {who}{metric} from {old.value.period or 'the earlier value'} to "
            f"{new.value.period or 'the later value'} as a percentage of the {old.value.period} value?"
        )
        return Rewrite(
            original=question,
            question=text,
            changed=True,
            references=[old, new],
            operation=operation,
            carried_over=[f"values: {old.value.text}, {new.value.text}"],
        )
    remembered = _distinct_values(slots.last_values)
    if operation not in {"sum", "average"}:
        # Changes, shares and ratios compare reported figures; totals and averages may add up computed ones.
        reported = [v for v in remembered if not v.computed]
        remembered = reported if len(reported) >= 2 else remembered
    pool = _named_values(question, remembered)
    if pool is None or len(pool) < 2:
        return None
    if operation in {"change", "percent_change", "cagr"}:
        dated = [v for v in pool if v.value.period and normalise_period(v.value.period) == v.value.period]
        if len(dated) >= 2:
            old, new = sorted(dated[-2:], key=lambda v: sort_key(v.value.period))
        else:  # undated figures: the difference of the first asked minus the second asked
            new, old = pool[-2], pool[-1]
        kind = {
            "change": "change",
            "percent_change": "percentage change",
            "cagr": "compound annual growth rate",
        }
        span = (
            f" from {old.value.period} to {new.value.period}" if old.value.period and new.value.period else ""
        )
        text = f"What was the {kind[operation]} in {who}{metric}{span}?"
        refs = [old, new]
    elif operation == "share":
        refs = [pool[-1], pool[-2]]
        text = (
            f"What is the last figure ({refs[0].value.text}) as a percentage of the one before "
            f"({refs[1].value.text})?"
        )
    elif operation == "ratio":
        refs = _order_by_question(pool[-2:][::-1], question)
        text = (
            f"What is {who}{metric} in {refs[0].value.period or 'the later period'} relative to "
            f"{refs[1].value.period or 'the earlier period'}?"
        )
    else:  # sum / average of the remembered figures ('the total for these three years': the last three read)
        count = _operand_count(question)
        reported = [v for v in pool if not v.computed]
        if count > len(pool):
            return None
        refs = reported[-count:] if len(reported) >= count > 2 else pool[-count:]
        periods = _join([r.value.period for r in refs if r.value.period])
        text = f"What is the {'total' if operation == 'sum' else 'average'} of {who}{metric}" + (
            f" in {periods}?" if periods else " over the last two answers?"
        )
    carried = [f"values: {', '.join(r.value.text for r in refs)}"]
    return Rewrite(
        original=question,
        question=text,
        changed=True,
        references=refs,
        operation=operation,
        carried_over=carried,
    )


def _operand_count(question: str) -> int:
    """How many earlier figures a total or average spans: 'these three years' -> 3; two by default."""
    m = _SPAN_COUNT_RE.search(question)
    if m is None:
        return 2
    word = m.group("n").lower()
    return int(word) if word.isdigit() else _COUNT_WORDS[word]


def _including_rewrite(question: str, slots: DialogueSlots) -> Rewrite | None:
    """'Including the year of 2015, what then becomes this total?', 'and including the impact of inventories?':
    the last result plus one new figure, looked up now and added in code. None for anything else."""
    m = _INCLUDING_RE.search(question)
    last = slots.last_computation
    if m is None or last is None or last.operation not in {"sum", "average"}:
        return None
    thing = " ".join(m.group("thing").split()).strip(" ,?")
    periods = [p.norm for p in find_periods(thing)]
    if _SPAN_COUNT_RE.search(thing) or re.fullmatch(r"(?:all\s+)?(?:the\s+)?(?:\d|three|four|five)\s+years", thing):
        return None  # 'including all 3 years': a total over earlier answers, not a new figure
    if _own_words(thing):
        lookup = f"What was {thing}" + ("" if periods or not slots.periods else f" in {slots.periods[-1]}") + "?"
    else:  # 'the year of 2015', 'the value for 2010': the last subject in that period
        subject = slots.subject or (metric_label(slots.metrics[0]) if slots.metrics else "")
        lookup = _subject_question(subject, thing, periods)
    if not lookup:
        return None
    base = CitedValue(label=last.metric or "the last total", value=last.result, computed=True)
    return Rewrite(
        original=question,
        question=lookup,
        changed=True,
        references=[base],
        operation="sum",
        carried_over=[f"values: {last.result.text}"],
    )


def _literal(text: str, like: NumericValue | None = None) -> CitedValue:
    """A number the user typed, in the unit and scale of the figure it is combined with ('that less $100')."""
    number = float(text.replace(",", ""))
    value = NumericValue(
        text=text,
        value=number,
        scale=like.scale if like is not None else 1.0,
        unit=like.unit if like is not None and like.unit != "%" else "",
    )
    return CitedValue(label=f"{TYPED_NUMBER} {text}", value=value, computed=True)


def _constant_rewrite(question: str, slots: DialogueSlots) -> Rewrite | None:
    """'What is that divided by 1000?', 'that less an initial $100 investment', 'what is 100000 divided by 100?':
    the last answer (or a typed number) combined with a typed number, in code. None for anything else."""
    m = _CONSTANT_OP_RE.search(question)
    if m is None:
        return None
    last = slots.last_values[-1] if slots.last_values else None
    if slots.last_computation is not None and (last is None or last.computed):
        result = slots.last_computation.result
        last = CitedValue(label=slots.last_computation.metric or "the last result", value=result, computed=True)
    if m.group("left_num"):
        left = _literal(m.group("left_num"))
    elif last is not None:
        left = last
    else:
        return None
    right = _literal(m.group("num"), left.value)
    op = m.group("op").lower()
    if op.startswith(("divided", "over")):
        operation, refs, verb = "ratio", [left, right], "divided by"
    elif op in {"less", "minus"}:
        operation, refs, verb = "change", [right, left], "less"
    else:
        operation, refs, verb = "sum", [left, right], "plus"
    text = f"What is {left.value.text} ({left.label}) {verb} {m.group('num')}?"
    return Rewrite(
        original=question,
        question=text,
        changed=True,
        references=refs,
        operation=operation,
        carried_over=[f"values: {left.value.text}"] if not m.group("left_num") else [],
    )


def _convert_rewrite(question: str, slots: DialogueSlots) -> Rewrite | None:
    """'What is that in millions?' (a figure in thousands: divided by 1000), 'how much is that in percentage?'
    (a fraction: divided by 0.01): the last answer in a larger unit, in code. None when the last figure is
    already in that unit or would have to grow (re-stating millions in dollars adds no information)."""
    m = _CONVERT_RE.search(question.strip())
    if m is None:
        return None
    last = slots.last_values[-1] if slots.last_values else None
    if slots.last_computation is not None and (last is None or last.computed):
        result = slots.last_computation.result
        last = CitedValue(label=slots.last_computation.metric or "the last result", value=result, computed=True)
    if last is None:
        return None
    target = m.group("target").lower()
    scale = last.value.scale or 1.0
    if target.startswith("percent"):
        if last.value.unit == "%" or last.value.unit in MONEY_UNITS:
            return None
        factor, text = 0.01, "0.01"
    else:
        if last.value.unit in {"%", "x"}:
            return None  # a percentage or a multiple has no money scale
        wanted = _TARGET_SCALE[target]
        if scale <= 1.0 and abs(last.value.value) < SCALE_STEP:
            return None  # a small unscaled figure: nothing says what unit it is in
        # A large figure with no stated scale asked in millions is taken as one step below (thousands).
        held = scale if scale > 1.0 else wanted / SCALE_STEP
        if wanted <= held:
            return None
        factor = wanted / held
        text = f"{factor:,.0f}"
    divisor = CitedValue(
        label=f"{TYPED_NUMBER} {text}",
        value=NumericValue(text=text, value=factor, scale=scale, unit=last.value.unit if factor > 1 else ""),
        computed=True,
    )
    return Rewrite(
        original=question,
        question=f"What is {last.value.text} ({last.label}) in {target}?",
        changed=True,
        references=[last, divisor],
        operation="ratio",
        carried_over=[f"values: {last.value.text}"],
    )


def _distinct_values(values: Sequence[CitedValue]) -> list[CitedValue]:
    """Remembered figures, one per (metric, period) -- or per figure when it has no period -- newest last."""
    out: dict[tuple[str, str], CitedValue] = {}
    for v in values:
        key = (v.metric, v.value.period or f"value:{v.value.value!r}")
        out.pop(key, None)
        out[key] = v
    return list(out.values())


def _relative_period(question: str, slots: DialogueSlots) -> list[str]:
    if not slots.periods:
        return []
    latest = slots.periods[-1]
    try:
        if PRIOR_YEAR_RE.search(question):
            return [shift_period(latest, years=-1)]
        if NEXT_YEAR_RE.search(question):
            return [shift_period(latest, years=1)]
    except ValueError:
        return []
    return []


def asks_definition(question: str, intent: QueryIntent) -> bool:
    """True when ``question`` asks what a generic term means, not what one company reported.

    The intent's relation says so ('what does free cash flow mean?', 'what is the definition of ROE?'), or the
    question form does: 'define EBITDA', 'explain what EBITDA is', 'what is/are' followed by a term with an
    indefinite article ('what is an operating lease?') or by a bare lexicon metric ('what is EBITDA?'). 'What
    is the EBITDA?' and 'what was the net income?' ask for a figure (definite article, past tense), and a
    question that names a company or period, or says 'its' / 'the company', is about that company.
    """
    about_one = intent.company or intent.ticker or intent.temporal_scope.periods or find_periods(question)
    if about_one or _OWNER_PRONOUN_RE.search(question):
        return False
    if intent.relation is Relation.DEFINITION or _DEFINE_RE.match(question):
        return True
    form = _WHAT_IS_RE.match(question)
    if form is None:
        return False
    article = (form.group("article") or "").strip().lower()
    if article == "the":
        return False
    return article in {"a", "an"} or canonical(form.group("term")) is not None


def _standalone_kind(question: str, intent: QueryIntent, slots: DialogueSlots) -> str:
    """'small_talk' or 'definition' for a turn that leans on no earlier turn; '' for everything else.

    Small talk names no company, metric or period and asks nothing of earlier answers ('ok, what was the
    change?' is a follow-up even though it opens with 'ok').
    """
    if (
        _SMALL_TALK_RE.match(question)
        and not intent.metrics
        and not intent.company
        and not find_periods(question)
        and not _value_operation(question, slots)
    ):
        return "small_talk"
    if asks_definition(question, intent):
        return "definition"
    return ""


def _standalone(question: str, intent: QueryIntent, slots: DialogueSlots, kind: str) -> Rewrite:
    """A turn returned as asked, inheriting nothing.

    Small talk keeps the slots as they were; a definition keeps company and period and makes its term the
    metric later turns refer to ('what is EBITDA?' then 'and for 3M in 2022?').
    """
    kept = slots.model_copy(deep=True)
    if kind == "definition":
        intent = intent.model_copy(update={"relation": Relation.DEFINITION, "requires_numeric": False})
        kept.metrics = list(intent.metrics) or kept.metrics
    return Rewrite(
        original=question,
        question=question,
        intent=intent,
        slots=kept,
        standalone=kind,  # type: ignore[arg-type]
    )


def rewrite(
    question: str,
    history: Sequence[Turn],
    slots: DialogueSlots,
    known_companies: Sequence[str] = (),
) -> Rewrite:
    """Offline twin: make ``question`` self-contained by carrying company, metric and period slots over.

    What the question states wins; what it leaves out comes from ``slots``. A first turn (no slots) or a
    question that already names company, metric and period is returned unchanged.

    Carry-over rule: only a follow-up inherits slots -- a turn that leans on earlier ones through ellipsis or
    pronouns ('what about 2022?', 'and its margin?', 'how does that compare with Microsoft?'), a bare period
    or company, or a company-specific lookup that names no company ('what was the net income?'). Small talk
    ('hello', 'thanks') and generic definitions (:func:`asks_definition`: 'what is EBITDA?', 'what does free
    cash flow mean?') are returned as asked, marked ``standalone``, and inherit nothing; a question that names
    its own company keeps it.
    """
    question = " ".join(question.split())
    intent = extract_intent(question, list(known_companies))
    own = slots_from_intent(intent, known_companies)
    has_history = bool(history) or bool(slots.metrics or slots.company or slots.last_values)
    constant = _constant_rewrite(question, slots) or _convert_rewrite(question, slots)
    if constant is not None:  # 'what is that divided by 1000?': arithmetic with a typed number, in code
        constant.slots = slots.model_copy(deep=True) if has_history else own
        constant.intent = extract_intent(constant.question, list(known_companies))
        constant.intent.requires_numeric = True
        return constant
    including = _including_rewrite(question, slots)
    if including is not None:  # 'including 2015, what becomes this total?': a new figure plus the last total
        including.slots = slots.model_copy(deep=True)
        including.intent = extract_intent(including.question, list(known_companies))
        including.intent.requires_numeric = True
        return including
    kind = _standalone_kind(question, intent, slots)
    if kind:
        return _standalone(question, intent, slots if has_history else own, kind)
    q_companies = own.companies
    q_metrics = list(intent.metrics)
    q_periods = own.periods or _relative_period(question, slots)
    if not has_history:
        return _finish(question, question, [], own, intent, known_companies)
    carried: list[str] = []
    referring = bool(_REFERENCE_RE.search(question))

    # 1. Arithmetic on earlier answers ("what was the change?", "what is that as a %?").
    # 'the total pension service cost in the two years' re-names the metric the earlier answers read.
    over_earlier = bool(q_metrics) and set(q_metrics) <= set(slots.metrics) and bool(_SPAN_COUNT_RE.search(question))
    # 'what is that divided by the 2007 net revenues?' after a change: the change over its own base year.
    over_base = (
        bool(q_metrics)
        and set(q_metrics) <= set(slots.metrics)
        and slots.last_computation is not None
        and slots.last_computation.operation in {"change", "difference"}
        and bool(_RESULT_RE.search(question) and _OVER_BASE_RE.search(question))
    )
    if (not q_metrics or over_earlier or over_base or _THIS_CHANGE_RE.search(question)) and not q_companies:
        operation = _value_operation(question, slots)
        if operation and (slots.last_values or slots.last_computation):
            ref = _reference_rewrite(question, slots, operation)
            if ref is not None:
                ref.slots = slots.model_copy(deep=True)
                ref.intent = extract_intent(ref.question, list(known_companies))
                ref.intent.requires_numeric = True
                return ref

    # 'and its margin?': the margin of the previous metric (EBITDA -> EBITDA margin), from the lexicon.
    margin = (
        margin_metric(slots.metrics[0])
        if not q_metrics and not q_companies and slots.metrics and _BARE_MARGIN_RE.search(question)
        else ""
    )
    if margin:
        q_metrics = [margin]
        carried.append(f"metric: {slots.metrics[0]}")
    companies = q_companies or ([slots.company] if slots.company else [])
    if q_companies and not q_metrics:
        carried += [f"metric: {m}" for m in slots.metrics]
    if not q_companies and slots.company:
        carried.append(f"company: {slots.company}")
    metrics = q_metrics or list(slots.metrics)
    if not q_metrics and slots.metrics and not q_companies:
        carried += [f"metric: {m}" for m in slots.metrics]
    periods = q_periods
    hint = scale_hint(question)

    # 2. A new company next to the previous one: a comparison when the turn says so, else a switch.
    if q_companies and not q_metrics and slots.metrics and slots.company and slots.company not in q_companies:
        periods = q_periods or list(slots.periods)
        if not q_periods:
            carried += [f"period: {p}" for p in slots.periods]
        if COMPARE_RE.search(question):
            both = list(dict.fromkeys([slots.company, *q_companies]))
            text = (
                f"Compare {_join([possessive(c) for c in both])} "
                f"{_join([metric_label(m) for m in slots.metrics])}"
                f"{' in ' + _join(periods) if periods else ''}."
            )
            carried.append(f"company: {slots.company}")
            new_slots = own.model_copy(
                update={
                    "company": both[0],
                    "companies": both,
                    "metrics": list(slots.metrics),
                    "periods": periods,
                }
            )
            return _finish(question, text, carried, new_slots, intent, known_companies)
        text = lookup_question(q_companies[0], slots.metrics, periods, hint)
        new_slots = own.model_copy(update={"metrics": list(slots.metrics), "periods": periods})
        return _finish(question, text, carried, new_slots, intent, known_companies)

    # 3. "and as a percentage of revenue?": the previous metric over the named one, same company and period.
    share = SHARE_RE.search(question)
    if q_metrics and share and slots.metrics and not find_metrics(question[: share.start()]):
        base = slots.metrics[0]
        periods = q_periods or list(slots.periods)
        if not q_periods:
            carried += [f"period: {p}" for p in slots.periods]
        carried.append(f"metric: {base}")
        who = possessive(companies[0]) + " " if companies else "the "
        when = f" in {_join(periods)}" if periods else ""
        text = (
            f"What was {who}{metric_label(base)} as a percentage of "
            f"{_join([metric_label(m) for m in q_metrics])}"
            f"{when}?"
        )
        new_slots = own.model_copy(
            update={
                "company": companies[0] if companies else "",
                "companies": companies,
                "metrics": [base, *q_metrics],
                "periods": periods,
            }
        )
        return _finish(question, text, carried, new_slots, intent, known_companies)

    # 4. Only a new period ("what about 2022?"): company and metric carry over.
    if q_periods and not q_metrics and slots.metrics:
        if len(slots.companies) > 1 and not q_companies:
            names = _join([metric_label(m) for m in slots.metrics])
            text = f"Compare {_join([possessive(c) for c in slots.companies])} {names} in {_join(q_periods)}."
            companies = list(slots.companies)
            carried.append(f"company: {', '.join(slots.companies[1:])}")
        else:
            text = (
                _with_period(slots.last_question, question, q_periods)
                or _subject_question(slots.subject, question, q_periods)
                or lookup_question(companies[0] if companies else "", metrics, q_periods, hint)
            )
        new_slots = own.model_copy(
            update={
                "company": companies[0] if companies else "",
                "companies": companies,
                "metrics": metrics,
                "periods": q_periods,
            }
        )
        return _finish(question, text, carried, new_slots, intent, known_companies)

    # 4b. Only a new period after a question about something the lexicon does not name ('what was the equipment
    # rents payable in 2008?' then 'and in 2007?'): the last question, its period swapped.
    if q_periods and not q_metrics and not q_companies and not slots.metrics and _bare_follow_up(question):
        text = (
            _with_period(slots.last_question, question, q_periods)
            or _with_period(slots.last_lookup, question, q_periods)
            or _subject_question(slots.subject, question, q_periods)
        )
        if text:
            new_slots = own.model_copy(
                update={"company": companies[0] if companies else "", "companies": companies, "periods": q_periods}
            )
            return _finish(question, text, [*carried, "question: the last one"], new_slots, intent, known_companies)

    # 4c. New periods for the arithmetic just done on something the lexicon does not name ('and from 2009 to
    # 2010, what was that change?' after 'the change in rental expense from 2008 to 2009'): the subject carries.
    if (
        q_periods
        and not q_metrics
        and not q_companies
        and slots.subject
        and not _own_words(question)
        and (op := _CHANGE_OR_TOTAL_RE.search(question))
    ):
        named = next(
            (d for d in _DEMONSTRATIVE_RE.finditer(question) if d.group(0).split()[-1].lower() not in OPERATION_WORDS),
            None,
        )
        if named is not None:  # 'the change in that performance price': the subject in its place
            text = f"{question[: named.start()]}the {slots.subject}{question[named.end():]}"
        else:
            text = f"{question[: op.end()]} in {slots.subject}{question[op.end():]}"
        new_slots = own.model_copy(
            update={"company": companies[0] if companies else "", "companies": companies, "periods": q_periods}
        )
        return _finish(question, text, [*carried, f"subject: {slots.subject}"], new_slots, intent, known_companies)

    # 5. Only a new metric ("and net income?", "what about its margin?"): company and period carry over.
    follow_up = referring or bool(_FOLLOW_UP_OPENER_RE.match(question)) or len(question.split()) <= 6
    if (
        q_metrics
        and not q_companies
        and not q_periods
        and follow_up
        and intent.relation not in NON_NUMERIC_RELATIONS
    ):
        periods = list(slots.periods)
        carried += [f"period: {p}" for p in periods]
        text = lookup_question(companies[0] if companies else "", q_metrics, periods, hint)
        new_slots = own.model_copy(
            update={
                "company": companies[0] if companies else "",
                "companies": companies,
                "metrics": q_metrics,
                "periods": periods,
            }
        )
        return _finish(question, text, carried, new_slots, intent, known_companies)

    # 6. Otherwise fill only what is missing: the company when the turn refers to it or names none.
    text = question
    if not q_companies and slots.company and (referring or intent.relation not in {Relation.DEFINITION}):
        replaced = _COMPANY_PRONOUN_RE.sub(
            lambda m: (
                possessive(slots.company)
                if m.group(0).lower().endswith(("its", "their", "'s"))
                else slots.company
            ),
            question,
            count=1,
        )
        text = replaced if replaced != question else f"{question.rstrip(' ?.')} for {slots.company}?"
    else:
        carried = [c for c in carried if not c.startswith("company:")]
    if not q_periods and slots.periods and referring and intent.requires_numeric:
        text = f"{text.rstrip(' ?.')} in {_join(slots.periods)}?"
        carried += [f"period: {p}" for p in slots.periods]
        periods = list(slots.periods)
    carried = [c for c in carried if not c.startswith("metric:") or not q_metrics]
    new_slots = own.model_copy(
        update={
            "company": companies[0] if companies else "",
            "companies": companies or own.companies,
            "metrics": metrics,
            "periods": periods or own.periods,
        }
    )
    return _finish(question, text, carried, new_slots, intent, known_companies)


def subject_phrase(question: str) -> str:
    """What a figure question asks about, in its own words: 'what was the net change in rental expense for
    operating leases from 2008 to 2009?' -> 'rental expense for operating leases'. The question words, the
    arithmetic ('the change in'), periods and scale hints are dropped; '' when nothing that names a figure
    is left ('what was the value in 2008?', 'what is that as a percentage?')."""
    text = without_periods(question.strip().rstrip("?.! "))
    text = _SCALE_HINT_RE.sub(" ", text)
    text = _SUBJECT_PERIOD_GLUE_RE.sub(" ", text)
    text = _SUBJECT_HEAD_RE.sub("", " ".join(text.split()).lstrip(" ,;:"))
    text = _SUBJECT_TAIL_RE.sub("", text).strip(" ,;:")
    words = [w for w in re.findall(r"[a-z&]{2,}", text.lower()) if w not in FOLLOW_UP_FILLER | OPERATION_WORDS]
    if not words or _REFERENCE_RE.search(text) or len(text.split()) > SUBJECT_MAX_WORDS:
        return ""
    return text


def _own_words(question: str) -> list[str]:
    """The words of a follow-up that could name a figure: not periods, filler, arithmetic or pronouns."""
    rest = _DEMONSTRATIVE_RE.sub(" ", without_periods(question))  # 'that performance price' names the earlier subject again
    rest = _REFERENCE_RE.sub(" ", rest)
    return [
        w
        for w in re.findall(r"[a-z&]{2,}", rest.lower())
        if w not in FOLLOW_UP_FILLER | OPERATION_WORDS | LINK_WORDS
    ]


def _subject_question(subject: str, question: str, periods: Sequence[str]) -> str:
    """'What was the rental expense in 2008?' from the last subject and the one period a follow-up names; ''
    without a subject or with several periods."""
    if not subject or len(periods) != 1:
        return ""
    now = find_periods(question)
    when = now[0].surface if len(now) == 1 and now[0].norm == periods[0] else periods[0]
    return f"What was the {subject} in {when}?"


def _bare_follow_up(question: str) -> bool:
    """True for a turn that names only a period around filler ('and in 2007?', 'and what were they in 2014?',
    'and the specific value for 2010 again?'): it asks the last question again for another period."""
    words = [w for w in re.findall(r"[a-z]+", without_periods(question).lower()) if w not in FOLLOW_UP_FILLER]
    return len(words) <= BARE_FOLLOW_UP_MAX_WORDS


def _with_period(last_question: str, question: str, periods: Sequence[str]) -> str:
    """The last question with its one period replaced by the new one, keeping the user's wording of the metric
    ('what was the net cash provided by operating activities in 2013?' + 'and in 2012?'); '' when it has none
    or several periods."""
    before = find_periods(last_question)
    if len(before) != 1 or len(periods) != 1:
        return ""
    now = find_periods(question)
    new_text = now[0].surface if len(now) == 1 and now[0].norm == periods[0] else periods[0]
    old = before[0]
    text = last_question[: old.start] + new_text + last_question[old.end :]
    return text[:1].upper() + text[1:]


def _finish(
    original: str,
    text: str,
    carried: list[str],
    slots: DialogueSlots,
    intent: QueryIntent,
    known_companies: Sequence[str],
) -> Rewrite:
    changed = text != original
    final_intent = extract_intent(text, list(known_companies)) if changed else intent
    return Rewrite(
        original=original,
        question=text,
        carried_over=list(dict.fromkeys(carried)) if changed else [],
        changed=changed,
        intent=final_intent,
        slots=slots,
    )


# ---------------------------------------------------------------------------------------------------------
# Rewrite: language-model twin
# ---------------------------------------------------------------------------------------------------------
def history_messages(history: Sequence[Turn]) -> list[BaseMessage]:
    """Earlier turns as chat messages (the user's words and the answers) for the rewrite prompt."""
    out: list[BaseMessage] = []
    for turn in history:
        out.append(HumanMessage(turn.question))
        if turn.answer:
            out.append(AIMessage(turn.answer))
    return out


def rewrite_llm(
    question: str,
    history: Sequence[Turn],
    slots: DialogueSlots,
    *,
    model: BaseChatModel | None,
    usage: UsageLog | None = None,
    known_companies: Sequence[str] = (),
) -> Rewrite:
    """Language-model twin of :func:`rewrite` (prompt with the conversation); falls back to the offline twin.

    The model only rewords the question. References to earlier figures and the operation on them come from
    the offline twin either way: a model never carries numbers from one turn to the next.
    """
    offline = rewrite(question, history, slots, known_companies)
    if model is None or offline.standalone:
        return offline  # small talk and generic definitions have nothing to resolve

    def fallback() -> llm_schemas.RewriteOutput:
        return llm_schemas.RewriteOutput(
            question=offline.question, carried_over=offline.carried_over, changed=offline.changed
        )

    result = structured_call(
        model,
        llm_schemas.RewriteOutput,
        rewrite_messages(question, history_messages(history)),
        fallback=fallback,
        step="rewrite",
        usage=usage,
    )
    if result.source == "offline":
        return offline.model_copy(update={"reason": result.reason})
    out = result.value
    intent = extract_intent(out.question, list(known_companies))
    new_slots = slots_from_intent(intent, known_companies)
    for name in ("company", "ticker", "form"):
        if not getattr(new_slots, name):
            setattr(new_slots, name, getattr(offline.slots, name))
    new_slots.companies = new_slots.companies or offline.slots.companies
    new_slots.metrics = new_slots.metrics or offline.slots.metrics
    new_slots.periods = new_slots.periods or offline.slots.periods
    return Rewrite(
        original=question,
        question=out.question,
        carried_over=out.carried_over,
        changed=out.changed or out.question != question,
        intent=intent,
        slots=new_slots,
        references=offline.references,
        operation=offline.operation,
        source="llm",
    )
