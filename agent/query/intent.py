"""Offline Query Intent twin (FinCARDS 3.3): what a question demands, in the Chunk Card's own vocabulary.

Rules over the finance lexicon and the period parser: metrics (with the inputs of derived ones), normalised
periods (explicit, ranges such as "FY2018 - FY2020", "three year average", and the prior year that a change,
an average balance or growth needs), relation from cue words, whether numeric evidence is required, keywords,
and the company, ticker and form the question is about (for document routing).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.entities import EntityRegistry, as_registry
from agent.entities.names import FILER_WORDS, NOT_NAMES, core_tokens, name_tokens
from agent.finance.basis import bases_said, without_bases
from agent.finance.direction import asked_name, asks_contrary
from agent.finance.lexicon import (
    canonical,
    deducted,
    figure_kind,
    find_metrics,
    statements_named,
    topic_from_cues,
    topic_of,
    without_metrics,
)
from agent.finance.metrics import METRICS
from agent.finance.numbers import asked_measure, name_numbers, same_measure
from agent.finance.periods import (
    PeriodMention,
    expand_range,
    find_periods,
    granularity,
    is_month,
    names_to_date,
    shift_period,
    sort_key,
    to_date_of,
    with_lone_part,
    with_shared_part,
)
from agent.finance.wording import (
    AS_SHARE_RE,
    CHANGE,
    COUNT_VALUES,
    COUNT_WORD,
    MOVEMENT,
    SCALE,
    YEAR_ON_YEAR,
    groups_found,
    per_unit,
    without_possessive,
)
from agent.ingest.cards import find_scope_entities
from agent.query.asked import (
    COMPARATIVE,
    LOWEST,
    PERIODS_MEETING,
    SIZE_WORD,
    choice_words,
    operations_asked,
    share_asked,
    threshold_asked,
)
from agent.query.content import WORD_RE, content_words
from agent.query.counted import WORKFORCE_KEY, WORKFORCE_METRIC, counted_thing
from agent.query.cues import (
    BEFORE,
    CAGR_RE,
    TYPED_OPERATOR,
    asked_scale,
    asks_percent,
    asks_total,
    relative_years,
    share_of_metric,
)
from agent.query.definitions import asked_part
from agent.query.kind import COMPOSED, WORKED_OUT, QueryKind, classify_query, find_form, in_question_form
from agent.query.names import question_names
from agent.query.operations import COMPUTED, guess_operation
from agent.query.predicate import asked_predicate
from agent.query.scope import (
    PLAIN_MODIFIERS,
    STOP_WORDS,
    contributed_part,
    contributing_metrics,
    excluded,
    scope_terms,
    terms_for,
    unique_terms,
)
from agent.schemas import (
    PeriodDate,
    QueryIntent,
    Relation,
    ScopeTerm,
    TemporalScope,
    Threshold,
    TypedNumber,
    Wording,
)

MAX_AVERAGE_YEARS = 10  # "N year average" beyond this is not a reporting-period request
TREND_YEARS = 3  # an annual report's statements compare three years

_DEFINITION = re.compile(
    r"\bwhat\s+(?:is|are)\s+the\s+definitions?\s+of\b|\bwhat\s+(?:does|do)\b.{0,60}\b(?:mean|stand\s+for)\b|"
    r"\bmeaning\s+of\b|"
    r"\bwhat\s+is\s+meant\s+by\b|\bhow\s+(?:is|are|does|do)\b.{0,60}\bdefined?\b|"
    # What a measure is made of or how it is worked out: 'What does goodwill consist of?', 'How is EBITDA
    # calculated?', 'What are the components considered when calculating X?'. The answer is words, not a figure.
    rf"\bwhat\s+(?:does|do|did)\b.{{0,80}}\b(?:{COMPOSED})s?\b|"
    r"\bwhat\s+(?:are|were)\s+the\s+(?:components|items|elements)\b|"
    rf"\bhow\s+(?:is|are|was|were)\b.{{0,60}}\b(?:{WORKED_OUT})\b",
    re.I,
)
_POLICY = re.compile(
    r"\bpolic(?:y|ies)\b|\baccounting\s+(?:for|treatment|method|standard)s?\b|"
    r"\bhow\s+(?:does|do|did)\b.{0,40}\b(?:recogni[sz]e|account\s+for|measure|value)\b",
    re.I,
)
_EXPLANATION = re.compile(
    # 'When did the board approve the plan?', 'Where can the discussion be found?': a date or place in words.
    r"^\W*(?:when|where)\b|\bwhy\b|\bwhat\s+(?:drove|drives|driven|caused|causes|contributed|explains|led\s+to)\b|\bdrivers?\b|"
    r"\breasons?\b|\bexplain\b|\bwhat\s+factors\b|\bdue\s+to\s+what\b|\bhow\s+did\b.{0,60}\bimpact\b|"
    # a reason asked by what produced something: 'what accounts for', 'what could result in', 'the cause of',
    # '... driven by?'
    r"\bwhat\s+(?:could\s+|would\s+|may\s+)?(?:accounts?\s+for|results?\s+in|resulted\s+in)\b|\bcauses?\s+of\b|"
    r"\b(?:driven|caused)\s+by\s*\?|"
    r"\bwhat\s+(?:is|was)\s+(?:the\s+)?(?:impact|effect)\b",
    re.I,
)
_TREND = re.compile(
    r"\btrends?\b|\bover\s+the\s+(?:past|last)\b|\bimproving\b|\bdeteriorat\w*|\bstable\b|"
    r"\bconsistent(?:ly)?\b|\bhistor(?:y|ical(?:ly)?)\b|\beach\s+year\b|\bover\s+time\b|\bmulti[\s-]year\b|"
    rf"\b(?:{COUNT_WORD}|\d{{1,2}})[\s-]years?\s+(?:average|trend|period|history)\b",
    re.I,
)
_COMPARISON = re.compile(
    rf"\bcompar\w*|\bvs\.?(?=\s)|\bversus\b|\b(?:{CHANGE}|{YEAR_ON_YEAR})\b|"
    r"\bhigher\b|\blower\b|\braised?\b|\b(?:largest|biggest|highest|lowest|most|least|worst|best)\b|"
    r"\bbetween\b.{1,60}\band\b",
    re.I,
)
_NUMERIC = re.compile(
    r"\bhow\s+(?:much|many)\b|\bamount\b|\bin\s+(?:usd|us\s+dollars|dollars|\$)|\busd\b|"
    rf"\b(?:{SCALE}|million|billion|thousand)\b|\bratio\b|%|\bpercent(?:age)?s?\b|\bround(?:ed)?\b|\bdecimal\b|"
    r"\bcalculat\w+|\bcomput\w+|"
    r"\bquantity\b|\bnumber\s+of\b|\bby\s+how\s+much\b|\bvalue\s+of\b|\btotal\b|\bpercentage\s+points?\b",
    re.I,
)
# Words that ask an amount, 'how much' by its group: it asks one even of a cause ('how much did X drive ...').
_AMOUNT = re.compile(r"(?P<how_much>\bhow\s+(?:much|many)\b)|\bamount\b|\bvalue\s+of\b|\bnumber\s+of\b|%|\bpercent", re.I)
# Words that ask after a figure whatever they name: 'how much', 'what were the' (a period named does too).
_HOW_MUCH_RE = re.compile(r"\bhow\s+(?:much|many)\b|\bwhat\s+(?:was|were|is|are)\s+the\b", re.IGNORECASE)
_ASKS_VALUE = re.compile(r"\b(?:what|how)\s+(?:is|was|did|has|much|many)\b", re.I)
# Formula kinds whose result is a number by nature (a ratio is asked for its value); sums and differences
# such as total debt or free cash flow are amounts that may be asked about qualitatively.
_NUMERIC_KINDS = frozenset({"ratio", "margin", "days", "turnover", "growth"})
# A clause opening with when / where that ends before the interrogative sets a condition: it asks no time or place.
_CONDITION_OPENING_RE = re.compile(r"^\W*(?:when|where)\b[^?]*?,\s*(?=(?:what|how|which)\b)", re.I)
# A full stop ends a sentence only before the capital that opens the next one: a decimal point or the abbreviation
# of a company's name ('Northwind Instruments, Inc.?') ends none.
_QUESTION_SENTENCE = re.compile(r"(?:[^?.!]|\.(?!\s+[A-Z]))*\?")
_LATEST = re.compile(
    r"\b(?:latest|most\s+recent|current|this)\s+(?:fiscal\s+)?(?P<g1>quarter|year|period|fiscal\s+year)\b|"
    r"\b(?:last|previous|prior|past|recent)\s+(?:fiscal\s+)?(?P<g2>quarter|year)\b|"
    r"\b(?P<g3>year)[\s-]to[\s-]date\b|\bYTD\b|\bmost\s+recent(?:ly)?\b|\blatest\b",
    re.I,
)
# A change asked, year on year or between any two periods, needs the period before the one named.
_CHANGE_ASKED = re.compile(rf"\b(?:{YEAR_ON_YEAR}|{MOVEMENT})\b", re.I)
_SPAN_YEARS = re.compile(
    rf"\b(?P<n>{COUNT_WORD}|\d{{1,2}})[\s-]years?\s+(?:average|avg|trend|period|span|history|cagr)\b|"
    rf"\b(?:past|last|prior)\s+(?P<n2>{COUNT_WORD}|\d{{1,2}})\s+(?:fiscal\s+)?years\b",
    re.I,
)
_RANGE_JOIN = re.compile(r"^\s*(?:-|–|—|to|through|thru|until)\s*$", re.I)
_TICKER = re.compile(
    r"\((?:(?:NYSE|NASDAQ|Nasdaq|AMEX|ticker)\s*:\s*)?(?P<a>[A-Z]{1,5})\)|"
    r"\b(?:NYSE|NASDAQ|Nasdaq)\s*:\s*(?P<b>[A-Z]{1,5})\b|"
    r"\b(?:ticker|symbol)\s*(?:is\s+|:\s*)?(?P<c>[A-Z]{1,5})\b"
)
# A company named in the question's own words when no list of companies is given.
_COMPANY_GUESS = re.compile(
    r"(?P<a>\b[A-Z0-9][\w&.\-]*(?:\s+(?:&\s+)?[A-Z][\w&.\-]*){0,3})['’]s?\b(?!\w)|"
    r"\bfor\s+(?P<b>[A-Z0-9][\w&.\-]*(?:\s+(?:&\s+)?[A-Z][\w&.\-]*){0,3})\s*[?.]|"
    r"\b(?i:does|did|is|has|was|were|have|had|do|can)\s+"
    r"(?P<c>[A-Z0-9][\w&.\-]*(?:\s+(?:&\s+)?[A-Z][\w&.\-]*){0,3})\s+(?=[a-z])"
)
_NOT_COMPANY_TEXT = """what which who how why when where does did is the a an in for based as from
    between among according answer give please usd us gaap non-gaap i we you if it this that these q1 q2
    q3 q4 h1 h2 by assume round calculate define respond here using taking basing our they their has have
    was were ceo cfo agm ppne net total"""
_NOT_COMPANY = frozenset(_NOT_COMPANY_TEXT.split())
_YEAR_SPAN_RE = re.compile(r"(?:19|20)\d{2}\s*[-–]\s*(?:(?:19|20)\d{2}|\d{2})")
_STOPWORDS_TEXT = """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers him his how i if in into is it its itself just me more most my no
    nor not now of off on once only or other our ours out over own same she should so some such than that
    the their theirs them then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours also may might must shall per
    via vs versus please answer question questions response respond give provide provided using use
    utilize utilizing utilising based basing base rely relying details detail shown show shows outlined
    clearly primarily plainly information info assume assuming perspective analyst analysts banker
    investment research public equities resource resources round rounded decimal decimals places place
    units unit calculate calculated compute computed extract help us want need following drawing
    conclusions conclusion judgment judgments judgement reasonable approximation exact possible lost
    internet connection access providers provider metric metrics financial stated state explain reasoning
    mentioned report reported reporting company companies firm business define defined definition term
    terms year years fiscal fy amount much many value values total one two three four five six seven
    eight nine ten"""
_STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
_KEYWORD = re.compile(r"[a-z0-9&]+(?:[-'’][a-z0-9]+)*")
# A balance asked at its period's start ('beginning balance', 'Outstanding, beginning of the year'), not 'start-up'.
_OPENING_RE = re.compile(r"\b(?:beginning|opening|start)\b(?!-)", re.IGNORECASE)
_AS_OF_RE = re.compile(r"\b(?:as\s+of|at)\s*$", re.IGNORECASE)
_AS_OF_LEAD_RE = re.compile(r"(?:as\s+of|at)\b", re.IGNORECASE)
AS_OF_REACH = 8  # characters before a date searched for 'as of'
LABEL_REACH = 80  # characters after a guessed name read for the metric it may open (a row label's length)
_PERIOD_TOKEN = re.compile(
    r"^(?:fy)?'?\d{2,4}(?:q[1-4]|h[12])?$|^[qh][1-4](?:['’]?\d{2,4})?$|^[1-4][qh]['’]?\d{2,4}$"
)


# ---------------------------------------------------------------------------------------------------------
# Companies, tickers, forms
# ---------------------------------------------------------------------------------------------------------
def without_names(text: str, names: Sequence[str], keep: bool = False) -> str:
    """``text`` with each of ``names`` as written cut, as whole words in any case (its abbreviation's stop, 'Inc.',
    and a possessive with it), its spaces made one; '' when it names none of them. With ``keep``, each name is
    written by the words that identify its company instead, its legal form dropped ('American Water Works Company,
    Inc.' -> 'American Water Works'): the words a company's own filings print of it, whatever form the question
    gives."""
    cut = text
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        key = name.lower()
        core = " ".join(name.split()[: len(core_tokens(name))]).rstrip(",") if keep else ""
        at = cut.lower().find(key)
        while at >= 0:
            end = at + len(key)
            end += 1 if cut[end:end + 1] == "." else 0
            end += 2 if cut[end:end + 2].lower() in {"'s", "’s"} else 1 if cut[end:end + 1] in {"'", "’"} else 0
            kept = f" {core}{cut[at + len(key):end].lstrip('.')} " if keep else " "
            # a whole word of the text, written otherwise than its kept words (a name without a legal form stays)
            whole = ((at == 0 or not cut[at - 1].isalnum()) and (end == len(cut) or not cut[end].isalnum())
                     and kept.strip() != cut[at:end])
            cut = f"{cut[:at]}{kept}{cut[end:]}" if whole else cut
            at = cut.lower().find(key, at + (len(kept) if whole else 1))
    cut = " ".join(cut.split())
    return cut if cut != " ".join(text.split()) else ""


def match_company(question: str, companies: EntityRegistry | Sequence[str]) -> str:
    """The name of the first known company ``question`` names, or ''. Companies are found by the registry
    only (:meth:`agent.entities.EntityRegistry.mentions`): whole words of a name, a former name, an alias, a
    ticker, or a short form of the name's words ('AMEX'); never a prefix or an ordinary word."""
    found = as_registry(companies).named_in(question)
    return found.name if found else ""


def guess_company(question: str) -> str:
    """A company named in the question when no list is given: "Adobe's", "for 3M?", "Does AMD have"."""
    for m in _COMPANY_GUESS.finditer(question):
        name = (m.group("a") or m.group("b") or m.group("c") or "").strip(" .-")
        words = name.split()
        while words and words[0].lower() in _NOT_COMPANY:
            words = words[1:]
        while words and words[-1].lower() in _NOT_COMPANY:
            words = words[:-1]
        name = " ".join(words)
        if not name or name.lower() in _NOT_COMPANY | FILER_WORDS or canonical(name) is not None or find_periods(name):
            continue
        if words[0].lower() in NOT_NAMES or _opens_label(question[question.find(name, m.start()):], len(name)):
            continue  # 'In which year was Other assets larger?', 'Operating profit': a row label in title case
        if _YEAR_SPAN_RE.fullmatch(name):
            continue  # 'for 2017-2019?': a span of years, no company
        return name
    return ""


def _opens_label(text: str, name_length: int) -> bool:
    """Whether ``text`` opens with a metric's name that runs on past the capitalised words (its first
    ``name_length`` characters), maybe after words that only describe it ('Operating profit larger?', 'Gross
    deferred tax assets exceed'): a row label written in title case, not a company ('Cash America lend?' is one:
    its metric word ends inside the name)."""
    mentions = find_metrics(text[:LABEL_REACH])
    if not mentions or mentions[0].end <= name_length:
        return False
    before = name_tokens(text[: mentions[0].start])
    return all(w in PLAIN_MODIFIERS for w in before)


def find_ticker(question: str) -> str:
    """An explicit ticker: '(MMM)', 'NYSE: MMM', 'ticker MMM' (not metric abbreviations such as '(DPO)')."""
    for m in _TICKER.finditer(question):
        sym = m.group("a") or m.group("b") or m.group("c")
        if sym and canonical(sym) is None and sym not in {"USD", "EUR", "GBP", "GAAP", "FY"}:
            return sym
    return ""


# ---------------------------------------------------------------------------------------------------------
# Relation, numeric need, keywords
# ---------------------------------------------------------------------------------------------------------
def asking_part(question: str) -> str:
    """The sentences of ``question`` that ask (end in '?'), or the whole text when none does, without a clause that
    sets a condition before them: instructions around a question ('DPO is defined as ...', 'round to one decimal',
    'When primarily referencing the income statement, what is ...?') are not what it asks."""
    asked = " ".join(m.group(0) for m in _QUESTION_SENTENCE.finditer(question)) or question
    return _CONDITION_OPENING_RE.sub("", asked, count=1)


def relation_of(question: str) -> Relation:
    """Definition > policy > explanation > trend > comparison > lookup, from cue words.

    Only the sentences that ask (end in '?') are read when there are any, so instructions around a question
    ("DPO is defined as ... change in inventory", "if not, explain why") do not change what it asks.
    """
    question = asking_part(question)
    if _DEFINITION.search(question):
        return Relation.DEFINITION
    if _POLICY.search(question):
        return Relation.POLICY
    if _EXPLANATION.search(question):
        return Relation.EXPLANATION
    if _TREND.search(question):
        return Relation.TREND
    if _COMPARISON.search(question):
        return Relation.COMPARISON
    return Relation.LOOKUP


def without_cause_words(question: str) -> str:
    """``question`` without the words that ask for a cause ('what drove', 'why', 'the reasons for'): what is left
    names what is to be explained."""
    return _EXPLANATION.sub(" ", question)


def _asks_cause(question: str) -> bool:
    """An explanation asked in words ('what caused', 'why', '... driven by?', 'when did ...'); a clause that sets a
    condition before the question ('When primarily referencing the income statement, what is ...?') is no part of
    what it asks (:func:`asking_part`)."""
    return bool(_EXPLANATION.search(asking_part(question)))


# Operations computed over a row's figures ('In which year was X larger?', 'How many years did X exceed $5m?'):
# their answer is a period, but only figures can give it.
_OVER_FIGURES = frozenset(("extreme", PERIODS_MEETING))


def _requires_numeric(question: str, relation: Relation, metrics: list[str]) -> bool:
    if relation is Relation.DEFINITION and not _AMOUNT.search(question):
        return False  # 'how is X calculated?' asks the method, not the figure
    how_much = "how_much" in groups_found(_AMOUNT, question)
    if relation is Relation.EXPLANATION and not how_much and _asks_cause(question):
        return False  # 'what caused the decrease in revenue?' asks the cause, not the decrease
    if _NUMERIC.search(question) or share_of_metric(question) is not None or operations_asked(question) & _OVER_FIGURES:
        return True
    if relation in (Relation.DEFINITION, Relation.POLICY, Relation.EXPLANATION):
        return False
    if not metrics and operations_asked(question) & (COMPUTED - {"ratio"}):
        # 'what was that fluctuation for the s&p 500?': a change or an average of what no metric names is a figure
        # (a 'share' may be stock)
        return True
    if any((f := METRICS[m].formula) is not None and f.kind.value in _NUMERIC_KINDS for m in metrics):
        return True
    quantitative = [m for m in metrics if not METRICS[m].described]
    return bool(quantitative) and (bool(_ASKS_VALUE.search(question)) or not in_question_form(question))


def figure_worded(question: str) -> bool:
    """Whether a question is worded after a figure, though the lexicon may name no metric in it: it names a period
    or asks 'how much' / 'what was the'."""
    return bool(find_periods(question)) or bool(_HOW_MUCH_RE.search(question))


def keywords_of(question: str, exclude: set[str] | None = None) -> list[str]:
    """Content words of a question, lower-cased, in order, without stopwords, periods or excluded words.

    A number that is part of a name stays ('the s&p 500'): it is what tells 'the s&p 500' from 'the s&p
    retail index'."""
    exclude = exclude or set()
    naming = {num for word, nums in name_numbers(question).items() if word not in _STOPWORDS and not is_month(word)
              for num in nums}
    out: dict[str, None] = {}
    for m in _KEYWORD.finditer(question.lower()):
        w = m.group(0).replace("’", "'")
        if w.endswith("'s"):
            w = w[:-2]
        if len(w) < 2 or w in _STOPWORDS or w in exclude or (_PERIOD_TOKEN.match(w) and w not in naming):
            continue
        out[w] = None
    return list(out)


# ---------------------------------------------------------------------------------------------------------
# Periods
# ---------------------------------------------------------------------------------------------------------
def without_span(question: str) -> str:
    """The question without the span of years it counts ('over the past three years' -> 'over the past')."""
    return _SPAN_YEARS.sub(" ", question)


def span_years(question: str) -> int:
    """The number of years a question's span counts ('the three-year average', 'over the past five years'); 0
    when it counts none."""
    m = _SPAN_YEARS.search(question)
    if m is None:
        return 0
    raw = (m.group("n") or m.group("n2") or "").lower()
    n = COUNT_VALUES.get(raw) or (int(raw) if raw.isdigit() else 0)
    return n if 2 <= n <= MAX_AVERAGE_YEARS else 0


# 'What is the value of the S&P 500 in 2018 less 100?', '... less an initial $100 investment?': a figure looked
# up, then a number the user typed taken from it (or added, or divided by), in code.
_TYPED_OP_RE = re.compile(
    rf"\b(?P<op>{TYPED_OPERATOR})\s+(?:an?\s+|and\s+)?(?:assumed\s+)?(?:initial\s+)?"
    r"(?:investment\s+of\s+)?\$?\s*(?!(?:19|20)\d\d\b)(?P<num>\d[\d,]*(?:\.\d+)?)(?:\s+investment)?\s*\??\s*$",
    re.IGNORECASE,
)


_SCHEDULE_CUE_RE = re.compile(r"\b(?:due|matur\w*|payable\s+in|expir\w*|scheduled)\b", re.IGNORECASE)


def typed_number(question: str) -> TypedNumber | None:
    """The arithmetic ``question`` types on the figure it looks up ('less 100'), None when it types none."""
    typed = _TYPED_OP_RE.search(question)
    if typed is None:
        return None
    op = " ".join(typed.group("op").lower().split())
    return TypedNumber(op=op, number=typed.group("num").replace(",", ""), start=typed.start())


def _words_beside(question: str) -> dict[str, list[str]]:
    """For each metric ``question`` names, its content words with that metric's names and the span of years cut
    (its possessives dropped: "Northwind's" is the company's name); under '' with the span alone cut."""
    asked = without_possessive(without_span(question))
    beside = {"": sorted(content_words(asked))}
    mentions = find_metrics(asked)
    for metric in dict.fromkeys(m.canonical for m in mentions):
        rest = asked
        for mention in reversed(mentions):
            if mention.canonical == metric:
                rest = f"{rest[: mention.start]} {rest[mention.end:]}"
        beside[metric] = sorted(content_words(rest))
    return beside


def read_wording(question: str) -> Wording:
    """How ``question`` words what it asks (:class:`agent.schemas.Wording`), read once for every reader after
    the plan."""
    typed = typed_number(question)
    asked = asked_part(question[: typed.start] if typed is not None else question)
    threshold = threshold_asked(question)
    comparison = re.search(rf"\b{COMPARATIVE}", question.split("which", 1)[-1], re.I)
    contrary = {m.canonical: name.lower() for m in find_metrics(question)
                if (name := asked_name(question, m.canonical)) and asks_contrary(name)}
    guess = guess_operation(question)
    return Wording(
        words=sorted(content_words(without_span(asked))),  # the span's count is read into counted_years
        terms=list(dict.fromkeys(w for w in WORD_RE.findall(question.lower()) if w not in STOP_WORDS)),
        topic=sorted(content_words(re.sub(r"['’](?:s\b)?", " ", without_cause_words(question)))),
        beside=_words_beside(question),
        basis=bases_said(asked),
        typed=typed,
        computed=guess.computed,
        threshold=Threshold(comparison=threshold[0], bound=threshold[1]) if threshold is not None else None,
        lowest=bool(comparison and LOWEST.match(comparison.group(0))),
        by_size=bool(comparison and SIZE_WORD.match(comparison.group(0))),
        per_unit=per_unit(question.lower().split()),
        percent=asks_percent(question),
        rate_too=not asks_percent(question) and not guess.alone("change"),
        as_share=bool(AS_SHARE_RE.search(question)),
        schedule=bool(_SCHEDULE_CUE_RE.search(question)),
        share=share_asked(question),
        item_kind=next(iter(choice_words(asked_part(question), "kind")), "item"),
        contrary=contrary,
        periods=list(dict.fromkeys(p.norm for p in find_periods(question))),
        counted_years=span_years(question),
        of_table=_of_table(question),
        predicate=asked_predicate(question),
    )


def _of_table(question: str) -> bool:
    """Whether the table is the subject of the question's verb ('what does the table show?', 'what is the table
    about?'), not where its figure sits ('the units used for the data in the table')."""
    tokens = WORD_RE.findall(question.lower())
    return any(t == "table" and i >= 2 and tokens[i - 1] in ("the", "this") and tokens[i - 2] in ("does", "did", "do",
               "is", "was") for i, t in enumerate(tokens))


def asked_periods(question: str, mentions: list[PeriodMention]) -> list[PeriodMention]:
    """The periods a question asks about. A report date ('as of 12/31/05, what was the debt due between 2008 and
    2009?') before periods that all come after it is when a schedule was drawn up, not a period asked: the
    schedule's own years are."""
    dated = [m for m in mentions if m.kind == "point" and (  # a day ('december 31, 2007'), not 'as of FY2021'
        _AS_OF_RE.search(question[max(0, m.start - AS_OF_REACH) : m.start]) or _AS_OF_LEAD_RE.match(m.surface))]
    rest = [m for m in mentions if m not in dated]
    if dated and rest and all(sort_key(r.norm) > sort_key(d.norm) for d in dated for r in rest):
        return rest
    return with_lone_part(question, with_shared_part(question, mentions))


def written_date(question: str) -> PeriodDate | None:
    """The one period ``question`` writes as a date ('the six months ended March 29, 2025'); None for none or
    several."""
    dated = [p for p in find_periods(question) if p.date]
    if len(dated) != 1:
        return None
    return PeriodDate(date=dated[0].date, kind=dated[0].kind, months=dated[0].months, norm=dated[0].norm,
                      to_date=dated[0].to_date)


def _temporal_scope(
    question: str, mentions: list[PeriodMention], metrics: list[str], relation: Relation
) -> TemporalScope:
    norms = list(dict.fromkeys(p.norm for p in mentions))
    scope_type = "none"
    # Explicit ranges: "FY2018 - FY2020", "from FY2019 through FY2021".
    for a, b in zip(mentions, mentions[1:], strict=False):
        if _RANGE_JOIN.match(question[a.end:b.start]) and granularity(a.norm) == granularity(b.norm):
            norms = list(dict.fromkeys([*norms, *expand_range(a.norm, b.norm)]))
            scope_type = "range"
    years = span_years(question)
    if years and len(norms) == 1:
        if _CHANGE_ASKED.search(without_metrics(question)) or CAGR_RE.search(question):
            # a change over a span of years runs from the span's opening, the close of the year before its first
            # ('the five-year period ended 2017': from the end of 2012 to the end of 2017)
            norms = [norms[0], shift_period(norms[0], -years)]
        else:
            norms = [shift_period(norms[0], -k) for k in range(years)]
    needs_prior = bool(_CHANGE_ASKED.search(without_metrics(question))) or BEFORE in relative_years(question) or any(
        METRICS[m].formula is not None and METRICS[m].formula.needs_prior_period() for m in metrics
    )
    if relation == Relation.TREND and len(norms) == 1:
        # A trend "as of FY2022" reads the years an annual report compares (current and two prior).
        norms += [shift_period(norms[0], -k) for k in range(1, TREND_YEARS)]
    elif needs_prior and len(norms) == 1:
        norms.append(shift_period(norms[0], -1))
    if names_to_date(question):
        # 'YTD Q3 FY26', 'year to date through Q3': the fiscal year's months to that quarter's end (nine)
        norms = [to_date_of(n, 3 * int(n[-1])) or n if granularity(n) == "quarter" else n for n in norms]
    latest = _LATEST.search(question)
    gran = ""
    if norms:
        grans = {granularity(n) for n in norms}
        gran = "quarter" if "quarter" in grans else ("year" if "year" in grans else sorted(grans)[0])
        if scope_type == "none":
            scope_type = "range" if len(norms) > 1 else "point"
    elif latest is not None:
        scope_type = "latest"
        g = next((x for x in latest.groups() if x), "") or ""
        gran = "quarter" if "quarter" in g.lower() else "year"
    norms.sort(key=sort_key, reverse=True)
    return TemporalScope(type=scope_type, periods=norms, granularity=gran, dated=written_date(question),
                         to_date=names_to_date(question) and gran in {"year", ""},
                         opening=bool(_OPENING_RE.search(question)))


# ---------------------------------------------------------------------------------------------------------
# The intent
# ---------------------------------------------------------------------------------------------------------
def _owner_of_parts(question: str, scope: Sequence[ScopeTerm], registry: EntityRegistry) -> str:
    """The one company whose filings print the parts a question names as names ('the operating income of Cloud
    Services'), in an index of several; '' when the parts are no filer's, several filers', or written as an
    abbreviation ('U.S.': a place every filer may report)."""
    owners = set()
    for term in scope:
        at = question.lower().find(term.text.lower())
        written = question[at:at + len(term.text)] if at >= 0 else ""
        if term.kind == "part" and written[:1].isupper() and not written.replace(".", "").isupper():
            owners.add(registry.part_owner(written))
    owners.discard("")  # a part no filer prints ('Devices', an ordinary word) says no company
    return owners.pop() if len(owners) == 1 else ""


def extract_intent(question: str, known_companies: EntityRegistry | Sequence[str] | None = None) -> QueryIntent:
    """The offline Query Intent of a question (deterministic).

    >>> i = extract_intent("What is the FY2018 capital expenditure amount (in USD millions) for 3M?", ["3M"])
    >>> i.metrics, i.temporal_scope.periods, i.company, i.requires_numeric, i.relation.value
    (['capital expenditure'], ['FY2018'], '3M', True, 'lookup')
    """
    q = " ".join((question or "").split())
    registry = as_registry(known_companies) if known_companies else None
    named = registry.mentions(q) if registry else []
    # a company's name is no metric's words ('MGM Resorts International's revenue' asks its revenue, not its
    # international revenue): metrics are read with the names blanked, every offset kept
    unnamed = "".join(" " if any(n.start <= i < n.end for n in named) else ch for i, ch in enumerate(q))
    # a metric the question leaves out ('operating margin excluding restructuring') is not asked
    mentions_m = [m for m in find_metrics(unnamed) if not excluded(q, m.start) and not deducted(q, m, adjacent=True)]
    contributors = contributing_metrics(q, mentions_m)  # 'the Alpine Trails acquisition' is what adds, no metric
    mentions_m = [m for m in mentions_m if m not in contributors]
    unit = asked_measure(q)
    # a quantity asked in a unit of measure ('retail electric sales ..., in GWh') is no amount of money: the
    # question's own words name it, not the lexicon's money metric they spell
    metrics = list(dict.fromkeys(m.canonical for m in mentions_m if not unit or figure_kind(m.canonical) != "money"))
    periods = asked_periods(q, find_periods(q))
    relation = relation_of(q)
    found = named[0].entity if named else None  # the first company named (EntityRegistry.named_in, read once)
    company = found.name if found is not None else ""
    written = [m.surface for m in named if m.entity == found]
    part = ""
    if not company:
        company = guess_company(q)
        if (company and registry is not None and not registry.knows(company)
                and classify_query(q) is QueryKind.FILING):
            # 'What was Asia Pacific revenue?' over one filer's filings, 'What were Zorvexa sales?' over filings of
            # which one prints Zorvexa as a row: a name no filing goes by is a part of that filer, which its
            # figure's own row or heading must name (the gate checks it), never its total; a stock price is any
            # listed company's, never a filer's part
            owner = registry.sole or registry.part_owner(company)
            if owner:
                part, company = company, (owner if not registry.sole else "")
    scope = [*scope_terms(q, company, registry), *(ScopeTerm(text=part, metric=m, kind="name") for m in
                                                     (metrics or [""]) if part)]
    scope = [t for t in scope if not (unit and same_measure(t.text, unit))]  # the unit asked is no part
    scope = [t for t in scope if without_bases(t.text).strip()]  # nor a basis ('at constant currency'): the plan's own
    if not company and not part and registry is not None and not registry.sole:
        company = _owner_of_parts(q, scope, registry)
    if len(metrics) == 1 and not terms_for(scope, metrics[0]) and share_of_metric(q) is None:
        # 'How much did Wingtip's digital channel contribute to net sales?': the contributing part narrows it
        contributed = contributed_part(q, metrics[0], company, registry, contributors)
        scope += [ScopeTerm(text=contributed, metric=metrics[0])] if contributed else []
    entities: list[str] = [company] if company else []
    entities += [s.name for s in find_scope_entities(q) if s.name.lower() != company.lower()]
    exclude = set(name_tokens(company)) if company else set()
    # the lexicon's workforce metric ('headcount', 'number of employees') asks the count of the filer's employees
    counted = counted_thing(q, company) or (WORKFORCE_KEY if metrics == [WORKFORCE_METRIC] and not scope else "")
    topic = topic_of(metrics)
    if topic == "Other":
        topic = topic_from_cues(q)
    return QueryIntent(
        question=question,
        topic=topic,
        entities=list(dict.fromkeys(entities)),
        metrics=metrics,
        relation=relation,
        temporal_scope=_temporal_scope(q, periods, metrics, relation),
        requires_numeric=_requires_numeric(q, relation, metrics) or bool(counted),
        figure_worded=figure_worded(q),
        keywords=keywords_of(q, exclude),
        statements=sorted(statements_named(q)),
        names=question_names(q),
        scope=unique_terms(scope),
        operations=sorted(operations_asked(question or "")),
        wording=read_wording(question or ""),
        scale=asked_scale(q),
        unit=unit,
        total=asks_total(q),
        counted=counted,
        company=company,
        company_written=list(dict.fromkeys(written)),
        search=without_names(q, written, keep=True),
        ticker=find_ticker(q),
        form=find_form(q),
        source="offline",
    )
