"""What arithmetic a question asks of its figures, read once for the planner, the reader and the gate.

The question's words name an operation (an average, a change, the period with the highest value, the periods
passing a threshold, the item ranking first, a ratio); where no word list holds the wording, the operation model
(:mod:`agent.query.operations`) reads one. Each kind comes with the words by which a figure read as it stands
already is that result ("Average selling price" is an average), so the gate can tell a lookup from a computation.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from agent.finance.lexicon import MetricMention, without_metrics
from agent.finance.numbers import parse_number
from agent.finance.periods import find_periods
from agent.finance.wording import (
    AS_SHARE,
    CHANGE,
    CHANGE_NOUN,
    FALL,
    RISE,
    TOTAL_RE,
    YEAR_ON_YEAR,
    plain_words,
)
from agent.query.content import content_words
from agent.query.cues import (
    AVERAGE_RE,
    CAGR_RE,
    PART_OF_RE,
    PERCENT_RE,
    asks_percent,
    is_operation_word,
    share_of_metric,
    split_tail,
)
from agent.query.operations import guess_operation
from agent.schemas import AskedShare, NumericValue, QueryIntent

# Comparison words: the first in a 'which year' question says whether the highest or the lowest is asked.
COMPARATIVE = (r"(?:larg(?:er|est)|big(?:ger|gest)|high(?:er|est)|great(?:er|est)|most|more|exceed(?:ed|s)?|better|"
               r"best|maximum|small(?:er|est)|low(?:er|est)|least|less|fewer|worse|worst|minimum)\b")
# Words that rank items against each other ('less' and 'more' are left out: 'EBITDA less capex' is arithmetic).
SUPERLATIVE = (r"(?:larg(?:er|est)|high(?:er|est)|great(?:er|est)|most|best|top|biggest|bigger|small(?:er|est)|"
               r"low(?:er|est)|least|fewest|worse|worst)")
# Kinds of item a statement or a business is made of: 'the largest liability' names one of them, not a figure.
ITEM_KINDS = (r"(?:liabilit(?:y|ies)|assets?|expenses?|costs?|items?|line\s+items?|segments?|regions?|products?|"
              r"customers?|components?|sources?|categor(?:y|ies)|business(?:es)?|markets?|countr(?:y|ies)|drivers?|"
              r"contributors?|risks?|brands?|subsidiar(?:y|ies)|divisions?|geograph(?:y|ies))")
CHOICE = "choice"  # the operation kind of a question asking which item (region, segment) is highest or lowest
THRESHOLD = "threshold"  # the kind of a question asking which items pass a threshold
ITEMS = "items"  # the kind of a question asking which rows a table lists under a heading
PERIODS_MEETING = "periods_meeting"  # the kind of a question asking which (or how many) periods pass a threshold
# A test against a bound: a comparative with 'than', or a verb or preposition that compares ('exceed $5 million',
# 'above 20%', 'at least 1,000'), followed by the bound; or a sign ('negative').
_BOUND = r"(?:[$£€]\s*)?\(?-?\d[\d,]*(?:\.\d+)?"
_TEST = (rf"(?:\b{COMPARATIVE}\s+than|\bexceed(?:ed|s|ing)?|\babove|\bbelow|\bover|\bunder|\bat\s+least|"
         rf"\bat\s+most)\s+(?P<bound>{_BOUND})")
_SIGN_TEST = r"\b(?:negative|positive)\b"
# 'which (of the) (fiscal) ...', 'what are the (financial) ...', 'how many ...': the words that ask for periods
# rather than a figure (the periods are the answer's noun)
_WHICH = r"\b(?:which|what)\s+(?:(?:of|are)\s+the\s+)?(?:(?:fiscal|financial)\s+)?"
_WHICH_OR_HOW_MANY = rf"(?:{_WHICH}|\bhow\s+many\s+(?:of\s+the\s+)?(?:fiscal\s+)?)"
# The low end of a comparison or a test ('the smallest', 'fewer than', 'below $5m', 'negative', 'at most 10').
LOWEST = re.compile(r"(?:small|low|least|less|fewer|worse|worst|minimum|below|under|negative|at\s+most)", re.I)
# Comparatives of size, not of order: 'the larger loss' is the loss of greater size (-4.2 before -1.5).
SIZE_WORD = re.compile(r"(?:larg|big|great|small)", re.I)

_CHOICE_WORDS_RE = re.compile(rf"\b(?:(?P<kind>{ITEM_KINDS})|(?P<superlative>{SUPERLATIVE}))\b", re.IGNORECASE)


def choice_words(text: str, group: str) -> list[str]:
    """The words of ``text`` that name an item's kind (``group`` 'kind') or rank items ('superlative'), in order."""
    return [m.group(group).lower() for m in _CHOICE_WORDS_RE.finditer(text) if m.group(group)]


# A figure named a ratio, share or rate already is one ('Gross margin %', 'expected loss rate', 'portion of ...').
RATIO_NAME_RE = re.compile(r"\b(?:ratio|proportion|portion|fraction|percent\w*|share|margin|rates?|yield)\b|%", re.I)
# A figure named an average already is one ('Average selling price').
AVERAGE_NAME_RE = re.compile(r"\b(?:average|avg|mean)\b", re.I)


# What a question asks to be done with a metric, and the words by which a figure already is that result: a
# figure read as it stands answers "the average X" only when it is itself an average ("Average selling price").
_OPERATIONS: tuple[tuple[str, str, re.Pattern[str], re.Pattern[str] | None], ...] = (
    ("average", "an average", AVERAGE_RE, AVERAGE_NAME_RE),
    (
        "change",
        "a change between periods",
        re.compile(rf"\b(?:{CHANGE_NOUN}|{RISE}|{FALL}|{YEAR_ON_YEAR})\b", re.I),
        re.compile(rf"\b(?:{CHANGE})\b|%|\bpercent\w*", re.I),
    ),
    (
        # 'In which year was X the largest?', 'Which FY has a higher EBITDA?': a period is the answer, and no single
        # figure is it (the never-matching pattern: no row's name carries the comparison).
        "extreme",
        "the period with the highest or lowest value",
        re.compile(rf"{_WHICH}(?:year|period|quarter|fy)\b"
                   rf"(?!.*{_TEST})(?=.*\b{COMPARATIVE}(?!\s+than\b))", re.I),
        None,
    ),
    (
        # 'How many years did X exceed $3,000 thousand?', 'In which year was X negative?': the periods of the row
        # that pass the test, counted; computed in code over the read row's columns.
        PERIODS_MEETING,
        "the periods meeting a threshold",
        re.compile(rf"{_WHICH_OR_HOW_MANY}(?:years?|periods?|quarters?)\b"
                   rf".*(?:{_TEST}|{_SIGN_TEST})", re.I),
        None,
    ),
    (
        # 'Which region had the worst topline performance?', 'Among operations, investing and financing, which
        # brought in the most cash?': a name is the answer (a region, a segment, an activity); one figure never is.
        CHOICE,
        "the item with the highest or lowest value",
        re.compile(rf"(?:\bwhich|\bwhat\s+(?!(?:is|was|are|were)\b)[\w-]+)"
                   rf"(?:\s+(?!(?:fiscal\s+)?(?:years?|periods?|quarters?|fy)\b)[\w'’-]+){{0,4}}?\s+"
                   # the verb that gives the items their figures: any in the past tense ('used', 'generated',
                   # 'reported'), or an auxiliary, or an irregular past ('brought', 'spent')
                   rf"(?:[a-z]+ed|had|has|have|was|were|is|are|did|does|brought|made|saw|grew|rose|fell|spent|paid|"
                   rf"lost|took|drew)\b"
                   rf"(?=.*\b{SUPERLATIVE}\b)"
                   # 'What was the largest liability on the balance sheet?': the superlative of a kind of item
                   rf"|\bwhat\s+(?:is|was|are|were)\s+(?:the\s+)?(?:company's\s+|its\s+)?{SUPERLATIVE}\s+"
                   rf"(?:[\w-]+\s+){{0,2}}?{ITEM_KINDS}\b", re.I),
        None,
    ),
    (
        # 'In which years was X less than 800 million?': the periods meeting a threshold, never one figure (and
        # not computed: the threshold's scale against the table's is a guess).
        THRESHOLD,
        "the periods or items meeting a threshold",
        # 'Are there any product categories that represent more than 20% of revenue?'
        re.compile(rf"\b(?:are|were|is|was)\s+there\s+any\b.*{_TEST}", re.I),
        None,
    ),
    (
        # 'In which years was operating income calculated?': the periods the table gives the row for.
        "periods",
        "the periods reported",
        re.compile(rf"{_WHICH}(?:years|periods)\b(?!.*\b{COMPARATIVE})(?!.*{_TEST})(?!.*{_SIGN_TEST})",
                   re.I),
        None,
    ),
    (
        # 'What are the components of inventories?', 'What are the types of deferred income in the table?': the
        # rows a table lists under a heading are the answer, never one figure.
        ITEMS,
        "the items a table lists",
        # ('What financial items are listed in the table?': of the table in view, 'are the' may go unsaid)
        re.compile(r"^\s*(?:what|which)\s+(?:(?:are|were)\s+the\s+|(?=.*\btable\b))(?:\w+\s+){0,2}?"
                   r"(?:components|types|items|categories|kinds|elements)\b(?!.*\b(?:19|20)\d{2}\b)", re.I),
        None,
    ),
    (
        "ratio",
        "a ratio or share",
        re.compile(rf"\b(?:ratio|proportion|portion|fraction)\b|{AS_SHARE}", re.I),
        RATIO_NAME_RE,
    ),
)


# The items a choice question names, listed after its question ('Which segment had the higher operating income in
# 2024, Cloud Services or Devices?') or before it ('Among operations, investing and financing activities, which
# brought in the most cash?').
_LISTED_AFTER_RE = re.compile(r"\s*(?P<list>[^,?]+(?:,\s*[^,?]+)*?,?\s+(?:or|and)\s+[^,?]+?)\s*\?\s*$", re.I)
_LISTED_BEFORE_RE = re.compile(r"^\s*(?:among|between|of)\s+(?:the\s+)?(?P<list>[^?]+?),\s*(?=(?:which|what)\b)", re.I)
_LIST_JOIN_RE = re.compile(r"\s*,\s*(?:(?:or|and)\s+)?|\s+(?:or|and)\s+", re.I)
RANKED_RE = re.compile(rf"\b(?:{COMPARATIVE})", re.I)
MAX_ITEM_WORDS = 5  # a named item is a segment's or a region's name, not a clause
MAX_NARROWING_WORDS = 4  # 'costs associated with the' links a metric to the one it narrows; more is a clause


def narrows(text: str, a: MetricMention, b: MetricMention) -> bool:
    """Metric ``b``, named after ``a`` in ``text``, says which of ``a``'s figures is meant ('debt issuance costs
    associated with the credit facility', 'interest expense on long-term debt'): two metrics, and between them a few
    words of one clause (no sign, no number) that neither list them ('and', 'or') nor compute with them."""
    gap = text[a.end : b.start]
    words = gap.split()
    return (a.canonical != b.canonical and a.end <= b.start and len(words) <= MAX_NARROWING_WORDS
            and all(w.replace("-", "").replace("'", "").isalpha() for w in words)
            and _LIST_JOIN_RE.search(gap) is None and not any(is_operation_word(w) for w in plain_words(gap)))


def _items(listed: str) -> list[str]:
    """The names of a list ('Cloud Services or Devices', 'operating, investing and financing activities', sharing
    their head); [] when it is no list of two or more names (a clause, a period)."""
    items = [i.strip() for i in _LIST_JOIN_RE.split(listed) if i.strip()]
    if len(items) < 2:
        return []
    head = items[-1].split()[-1]
    if len(items[-1].split()) > 1 and head.islower() and all(len(i.split()) == 1 for i in items[:-1]):
        items = [f"{i} {head}" for i in items[:-1]] + items[-1:]  # 'investing and financing activities'
    if any(len(i.split()) > MAX_ITEM_WORDS or find_periods(i) for i in items):
        return []
    return items


def choice_items(question: str) -> tuple[str, str, list[tuple[str, str]]] | None:
    """The comparative a choice question ranks by, what it ranks, and each item it names with the question as
    asked of it: 'Which segment had the higher operating income in 2024, Cloud Services or Devices?' -> ('higher',
    'higher operating income in 2024', [('Cloud Services', 'What was the operating income of Cloud Services in
    2024?'), ('Devices', ...)]). None when the question asks no choice, names fewer than two items, or an item is
    a period ('2023 or 2024' is a period's question) or a clause."""
    if CHOICE not in operations_asked(question):
        return None
    # the list after a comma or colon that ends the question, the first such that is a list of names
    lists = [(m.start(), _items(found.group("list"))) for m in re.finditer(r"[,:]", question)
             if (found := _LISTED_AFTER_RE.fullmatch(question, m.end())) is not None]
    before = _LISTED_BEFORE_RE.search(question)
    if before is not None:
        lists.append((-1, _items(before.group("list"))))
    at, items = next(((at, items) for at, items in lists if items), (0, []))
    if not items:
        return None
    body = question[:at] if at >= 0 else question[before.end():].rstrip(" ?") if before else ""
    ranked = RANKED_RE.search(body)
    if ranked is None:
        return None
    asked, tail = split_tail(body[ranked.end():])
    asked = asked.strip()
    if not asked:
        return None
    tail = tail.rstrip(" ?")
    return (ranked.group(0).lower(), f"{ranked.group(0).lower()} {asked}{tail}",
            [(i, f"What was the {asked} of {i}{tail}?") for i in items])


_TEST_RE = re.compile(rf"{_TEST}|{_SIGN_TEST}", re.I)


def threshold_asked(question: str) -> tuple[str, NumericValue] | None:
    """The comparison ('>', '>=', '<', '<=') and bound of a question asking which periods pass a test
    ('exceed $3,000 thousand': '>' $3,000 thousand; 'negative': '<' 0); None when it asks none."""
    m = _TEST_RE.search(question)
    if m is None:
        return None
    words = m.group(0)
    lower = bool(LOWEST.match(words))
    inclusive = words.lower().startswith("at ")
    comparison = ("<" if lower else ">") + ("=" if inclusive else "")
    if re.fullmatch(_SIGN_TEST, words, re.I):
        return comparison, NumericValue(text="0", value=0.0)
    bound = parse_number(question[m.start("bound") :].split("?")[0])
    return (comparison, bound) if bound is not None else None


def asked_operation(operations: Collection[str], naming: str) -> str:
    """The operation of the kinds ``operations`` asks (a plan's) that a figure named ``naming`` is not the result
    of, or ''."""
    for kind, what, _, carried in _OPERATIONS:
        if kind in operations and not (carried is not None and carried.search(naming)):
            return what
    return ""


def operations_asked(question: str) -> set[str]:
    """Every operation kind ('average', 'change', 'extreme', 'periods', 'ratio') the question's words ask for; a
    change word inside a metric's own name ('comparable sales growth', a rate of change already) asks none."""
    plain = without_metrics(question)
    return {kind for kind, _, asked, _ in _OPERATIONS if _asks(kind, asked, plain if kind == "change" else question)}


def _asks(kind: str, asked: re.Pattern[str], question: str) -> bool:
    """Whether the question's words ask the operation ``kind`` (its pattern ``asked``); a share word right after a
    metric's name ('APAC revenue share FY24') asks a part's share of that metric, as 'share of revenue' does
    ('revenue per share' divides by shares)."""
    return bool(asked.search(question)) or (kind == "ratio" and share_of_metric(question) is not None)


def operation_description(kind: str) -> str:
    """How an answer names an operation kind ('choice' -> 'the item with the highest or lowest value')."""
    return next((described for k, described, _, _ in _OPERATIONS if k == kind), kind)


def operation_kind(what: str) -> str:
    """The operation kind for a description :func:`asked_operation` returns ('' for '')."""
    return next((kind for kind, described, _, _ in _OPERATIONS if described == what), "")


# The arithmetic the operation model reads, as the answer names it, and the words by which a read figure already is
# that result ('Total operating leases' is a sum; 'Gross margin %' a ratio).
_CARRIED = {kind: carried for kind, _, _, carried in _OPERATIONS}
_MODEL_OPERATIONS: dict[str, tuple[str, re.Pattern[str]]] = {
    "sum": ("a sum", re.compile(r"\b(?:total\w*|sum|combined|aggregate)\b", re.I)),
    "ratio": ("a ratio or share", _CARRIED["ratio"]),
    "average": ("an average", _CARRIED["average"]),
    "change": ("a change between periods", _CARRIED["change"]),
    "percent_change": ("a percentage change", _CARRIED["change"]),
    "cagr": ("a compound annual growth rate", CAGR_RE),
}


def operation_unmet(operation: str, naming: str) -> str:
    """How the answer names ``operation`` (an operation model kind: 'share', 'change', ...) when a figure named by
    the words ``naming`` is not its result ('Gross margin %' is a share already); '' when it is, or for a kind
    the model does not compute."""
    what, carried = _MODEL_OPERATIONS.get("ratio" if operation == "share" else operation, ("", None))
    return what if not (carried is not None and carried.search(naming)) else ""


def model_operation(question: str) -> str:
    """The arithmetic the operation model reads in ``question`` (sum, ratio, change, ...), when it holds arithmetic
    likelier than a lookup; '' otherwise."""
    return guess_operation(question).computed


def operation_asked(question: str) -> str:
    """How the answer names the arithmetic ``question`` asks for: by its words, else by the operation model; ''
    for a lookup."""
    return _operation_described(operations_asked(question), model_operation(question))


def planned_operation(intent: QueryIntent) -> str:
    """How the answer names the arithmetic a plan's ``intent`` asks for (:func:`operation_asked` of its reading)."""
    return _operation_described(intent.operations, intent.wording.computed)


def _operation_described(named: Collection[str], computed: str) -> str:
    if named:
        return operation_description(min(named))
    return _MODEL_OPERATIONS.get(computed, ("", None))[0]


def stated_change_meets(what: str, percent: bool) -> bool:
    """Whether a figure its filing states as a change ('decreased by $932 million'; ``percent``: 'by 13.4%') is the
    arithmetic ``what`` asked (as :func:`operation_unmet_by` names it): any such figure is a change between periods,
    a percentage also the percentage change."""
    return what == _MODEL_OPERATIONS["change"][0] or (percent and what == _MODEL_OPERATIONS["percent_change"][0])


def asks_change(intent: QueryIntent) -> bool:
    """Whether a plan's ``intent`` asks how much a figure moved, by its words or the operation model's reading."""
    return "change" in intent.operations or intent.wording.computed in {"change", "percent_change"}


def operation_unmet_by(intent: QueryIntent, naming: str) -> str:
    """The arithmetic a plan's ``intent`` asks for that a figure named by the words ``naming`` is not the result
    of, by the question's words or else by the operation model ('the percentage constitution of X among Y' asks a
    share in words no list holds); '' when such a figure answers as it is."""
    if intent.operations:
        return asked_operation(intent.operations, naming)
    what, carried = _MODEL_OPERATIONS.get(intent.wording.computed, ("", None))
    return what if carried is not None and not carried.search(naming) else ""


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


# 'the difference between the beginning balance carrying amount of loan receivables and allowance', 'the
# difference of total capital and tier 1 in 2007': two items of one period, the first minus the second.
_DIFFERENCE_OF_RE = re.compile(
    r"\bdifference\s+(?:of|between)\s+(?:the\s+)?(?P<a>[^?]+?)\s+and\s+(?:the\s+)?(?P<b>[^?]+?)"
    r"(?:\s+(?:in|for|as\s+of|at)\s+[^?]*\d{4}[^?]*)?\s*\??$",
    re.IGNORECASE,
)


_ITEM_OPERATION_RE = re.compile(
    r"\b(?:average|mean|change|growth|increase|decrease|percent(?:age)?|ratio|margin)\b", re.IGNORECASE
)  # items that are themselves computed: not two cells to subtract


def share_asked(question: str) -> AskedShare | None:
    """The two figures a question divides, as it words them: 'the ratio of X to Y', 'X as a percentage of Y',
    'what portion of Y was allocated to X'; None when it names no two."""
    difference = _DIFFERENCE_OF_RE.search(question)
    if (
        difference
        and content_words(difference.group("a"))
        and content_words(difference.group("b"))
        and not _ITEM_OPERATION_RE.search(difference.group(0))  # 'the 2019 average X and the 2019 average Y'
    ):
        return AskedShare(part=difference.group("a"), whole=difference.group("b"), subtract=True,
                      percent=asks_percent(question))
    share = next((m for r in _CELL_SHARE_RES if (m := r.search(question))), None)
    if share and content_words(share.group("a")) and content_words(share.group("b")):
        return AskedShare(part=share.group("a"), whole=share.group("b"),
                      percent=bool(PERCENT_RE.search(share.group(0))))
    part_of = PART_OF_RE.search(question)
    if part_of and content_words(part_of.group("a")) and content_words(part_of.group("b")):
        part, whole = part_of.group("a"), part_of.group("b")
        if TOTAL_RE.search(part) and not TOTAL_RE.search(whole):
            # 'the percentage of capital leases in the total liabilities': the total is the whole
            return AskedShare(part=whole, whole=part, percent=True)
        # a part of a whole ('what portion of the purchase price') is asked as a percentage, as filings state it
        return AskedShare(part=part, whole=whole, percent=True, part_names_whole=True)
    return None
