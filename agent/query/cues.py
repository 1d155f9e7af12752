"""Wording cues the rewrite and the decomposition both read: what a turn asks for (change, share, average,
CAGR, comparison, prior or next year), how a metric and a company are named back to the user, and the user's own
subject phrase.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.entities import EntityRegistry, as_registry
from agent.finance.formulas import FormulaKind
from agent.finance.lexicon import MetricMention, find_metrics
from agent.finance.metrics import METRICS
from agent.finance.periods import DURATION_MONTHS, find_periods, sort_key, weeks_months, without_periods
from agent.finance.wording import (
    CHANGE,
    CHANGE_NOUN,
    CHANGE_RE,
    COUNT_WORD,
    RESPECTIVE_RE,
    SCALE_ASKED_RE,
    SHARE_NOUN,
    SHARE_RE,
    SUM_WORD,
    SUM_WORD_RE,
    TOTAL_RE,
    groups_found,
    plain_words,
)
from agent.schemas import QueryIntent, Relation

# Words that make a turn lean on earlier ones: pronouns, and the openers of an elliptical follow-up ('and ...', 'what
# about ...') by their group.
_REFERENCE_RE = re.compile(
    r"\b(?:that|this|it|its|those|these|them|their|they|the same|same|then|again|previous|prior|above)\b"
    r"|(?P<opener>^\s*(?:and|so|also|what about|how about|and what about|what of|then)\b)",
    re.IGNORECASE,
)


# The arithmetic a question types with a number ('less 100', 'divided by 1000'). Never 'times': 'that times 1000'
# re-scales a figure as often as it multiplies it, and the two disagree on every figure computed from it after.
TYPED_OPERATOR = r"divided\s+by|less|minus|plus"
TYPED_NUMBER = "the number"  # label prefix of a number the user typed (no citation: it is not from a filing)


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
    rf"(?:(?:net\s+|total\s+|overall\s+)?(?:percent(?:age)?\s+)?(?:{CHANGE_NOUN}|sum|total|average)\s+(?:in|of|for)\s+"
    r"(?:the\s+)?)?"
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


_NOT_NOUN = r"(?!(?:from|to|in|between|of|for|over|during|and|as|at|by|on)\b)"  # a noun phrase ends before these


_DEMONSTRATIVE_RE = re.compile(
    rf"\b(?:that|this|those|these|the\s+same)\s+(?:{_NOT_NOUN}[a-z&-]+\s+){{0,2}}{_NOT_NOUN}[a-z&-]+", re.I
)


# Words of arithmetic and comparison besides the change words: a remainder of only these names no figure ('the
# percent change').
_ARITHMETIC_WORDS = frozenset(
    (
        *("net", "percent", "percentage", "sum", "total", "average", "ratio", "between", "two", "three", "both"),
        *("all", "years", "over", "rate", "portion", "proportion", "share", "much", "many"),
    )
)


def is_operation_word(word: str) -> bool:
    """Whether a (lower-case) word names arithmetic or a change ('grew', 'percent', 'total'), not a figure."""
    return word in _ARITHMETIC_WORDS or bool(CHANGE_RE.fullmatch(word))


# Words that only link a follow-up's periods and arithmetic ('over the subsequent year, from 2009 to 2010').
LINK_WORDS = frozenset(
    (
        *("from", "to", "between", "over", "subsequent", "following", "next", "year", "period", "did", "does"),
        *("do", "precedent", "preceding", "prior", "previous", "earlier", "later", "same", "since", "by"),
    )
)


SUBJECT_MAX_WORDS = 20  # longer remainders are whole sentences, not the name of a figure


COMPARE_RE = re.compile(
    r"\bcompar\w*|\bversus\b|\bvs\.?(?=\s)|\bagainst\b|\brelative to\b|\bhigher than\b|\blower than\b|"
    r"\bbigger than\b|\bsmaller than\b|\bmore than\b|\bless than\b",
    re.IGNORECASE,
)


CAGR_RE = re.compile(r"\bcagr\b|\bcompound(?:ed)?\s+annual", re.IGNORECASE)


# 'growth' alone is quoted as a rate, as analysts and filings quote it ('NOI growth of 3.9%', 'what's the growth?')
PERCENT_RE = re.compile(rf"%|\bpercent(?:s|age)?\b|\bgrowth\b|\brate\s+of\s+(?:{CHANGE})\b", re.I)


# 'What percentage of undeveloped acres were in the US?', 'what portion of total debt is due within a year?',
# 'what portion of the purchase price was allocated to goodwill?' (any participle: attributed, dedicated, ...):
# the whole first, then what the part is; the part's cell must name both.
# 'what share of revenue came from X': any verb of being or coming links the whole to its part
PART_OF_RE = re.compile(
    r"\bwhat\s+(?:was\s+the\s+|is\s+the\s+)?(?:percent(?:age)?|portion|proportion|share|fraction)\s+of\s+"
    r"(?:the\s+)?(?P<b>[^?]+?)\s+(?:(?:that\s+)?(?:was|were|is|are|came|comes|come|went|goes|go)\s+"
    r"(?:made\s+(?:up\s+)?of\s+|due\s+to\s+|"
    r"[a-z]+(?:ed|able)\s+(?:to|for|by)\s+|in\s+)?|(?:due|[a-z]+(?:ed|able))\s+to\s+|in\s+)(?P<a>[^?]+)",
    re.IGNORECASE,
)


# 'the change in that percentage of the bbb/baa': the percentage is the figure that changes (in points), not
# how the change is expressed.
PERCENT_MEASURED_RE = re.compile(
    rf"\b(?:{CHANGE})\s+in\s+(?:the\s+|that\s+|this\s+)?(?:{SHARE_NOUN})\b",
    re.IGNORECASE,
)


def asks_percent(question: str, percent_re: re.Pattern[str] = PERCENT_RE) -> bool:
    """Whether the question wants its result as a percentage: a percent cue that is not the figure measured."""
    return bool(percent_re.search(PERCENT_MEASURED_RE.sub(" ", question)))




# 'the three-year average', 'from 2017 to 2019', 'between 2017 and 2019', '2017 through 2019', '2017 - 2019',
# '2017-2019': the ends of a span, every year between them asked.
_SPAN_RE = re.compile(rf"\b(?:\d+|{COUNT_WORD})[- ]year\b|\bfrom\b.*\bto\b|\bbetween\b.*\band\b|\bthrough\b|\s-\s|–|"
                      r"\b(?:19|20)\d{2}-(?:19|20)\d{2}\b", re.IGNORECASE)


def spans_range(question: str) -> bool:
    """The question's periods are the ends of a span ('from 2017 to 2019', 'the three-year average'), not a list:
    an average or a sum over them takes every period between."""
    return bool(_SPAN_RE.search(question))


# "Weighted average" names a metric (weighted average exercise price), never an average to compute.
AVERAGE_RE = re.compile(r"(?<!weighted )\baverage\b|\bmean\b", re.IGNORECASE)


SUM_RE = re.compile(rf"\b(?:total|cumulative|{SUM_WORD})\b", re.I)




def share_of_metric(question: str) -> tuple[tuple[int, int], MetricMention] | None:
    """Where a question asks a share of a metric, and the metric it is a share of (the whole): the first named after
    its share words ('what share of net interest income'), or the one a share word follows right after its name
    ('APAC revenue share FY24'; 'revenue per share' divides by shares); None for no share, or a share of no metric
    ('each share of Class B stock')."""
    share = SHARE_RE.search(question)
    mentions = find_metrics(question)
    whole = next((m for m in mentions if m.start >= share.end()), None) if share else None
    if share is not None and whole is not None:
        return share.span(), whole
    for mention in mentions:
        word = question[mention.end:].split(maxsplit=1)[:1]
        if word and SHARE_RE.fullmatch(f"{word[0].strip('?,.;:')} of"):
            start = question.index(word[0], mention.end)
            return (start, start + len(word[0])), mention
    return None


# A period named relative to the one in view, the relation word before or after the noun, by its group: the one
# before ('the prior year', 'the year prior', 'a year earlier', 'the period before', 'a year ago') or after ('the
# following year', 'a year later').
_RELATIVE_YEAR_RE = re.compile(
    r"\b(?:(?P<before>prior|previous|preceding|last|earlier)|(?P<after>following|next|subsequent|later))\s+"
    r"(?:fiscal\s+)?(?:year|period)\b|\b(?:year|period)\s+(?:(?P<ago>before|prior|earlier|ago)|(?P<later>after|later))\b",
    re.IGNORECASE,
)
BEFORE, AFTER = -1, 1  # the years by which a relative period is shifted
_SHIFTS = {"before": BEFORE, "ago": BEFORE, "after": AFTER, "later": AFTER}  # the groups of _RELATIVE_YEAR_RE


HALF_YEAR_MONTHS = 6
FULL_YEAR_MONTHS = 12


def months_named(text: str) -> int:
    """The months of a span to date ``text`` names without its year ('the six months', 'the first half', 'the 26
    weeks'); 0 when none ('half of that' is arithmetic)."""
    words = [w.strip("?,.!;:()'\"") for w in text.lower().split()]
    for word, following in zip(words, words[1:], strict=False):
        if word in DURATION_MONTHS and following.startswith("month") or (word, following) == ("first", "half"):
            return DURATION_MONTHS.get(word, HALF_YEAR_MONTHS)
        if following.startswith("week") and (months := weeks_months(word)) < FULL_YEAR_MONTHS:
            return months  # 'the 26 weeks' of a 52/53-week calendar
    return 0


def relative_years(text: str) -> set[int]:
    """The shifts of the periods ``text`` names relative to the one in view: {BEFORE} for 'the year prior', {AFTER}
    for 'the following year', both or neither."""
    return {_SHIFTS[group] for group in groups_found(_RELATIVE_YEAR_RE, text)}




NON_NUMERIC_RELATIONS = frozenset({Relation.EXPLANATION, Relation.DEFINITION, Relation.POLICY})


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
# 'that', 'this', 'the change': the result of the last answer.
_RESULT_RE = re.compile(rf"\b(?:that|this|the\s+(?:net\s+)?(?:{CHANGE_NOUN}))\b", re.I)


def possessive(company: str) -> str:
    """'3M' -> "3M's", 'Northwind Instruments' -> "Northwind Instruments'"."""
    return f"{company}'" if company.endswith("s") else f"{company}'s"


def and_list(items: Sequence[str]) -> str:
    """'a, b and c': the non-empty items as a sentence lists them."""
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


# What may stand between the periods of one list ('2019, 2018 and 2017', 'fiscal 2018 and 2019').
_PERIOD_JOIN_RE = re.compile(r"(?:\s*(?:,|\band\b|&|\bor\b)\s*)*", re.IGNORECASE)
# The words that lead into a list of periods, dropped with it ('for the years ended ...', 'as of ...').
_PERIOD_LEAD_RE = re.compile(
    r"\b(?:in|for|of|at|during|as\s+(?:of|at))(?:\s+the)?(?:\s+(?:fiscal\s+)?(?:years?|periods?))?\s*$", re.IGNORECASE
)
# 'respective' / 'respectively' pair a list's figures with its periods; one period asked has no pairing.


_SPACE_BEFORE_MARK_RE = re.compile(r"\s+([?.,])")


def _tidy(text: str) -> str:
    """The text without spaces before its punctuation ('in 2019 ?' -> 'in 2019?')."""
    return _SPACE_BEFORE_MARK_RE.sub(r"\1", text)


def _is_word(token: str) -> bool:
    return token[:1].isalnum() or token[:1] == "_"


def one_period_question(question: str, period: str) -> str:
    """The question as asked of one period of the list it names ('What was X in 2019 and 2018 respectively?' ->
    'What was X in FY2019?'); '' when its periods are no single list (scattered, or one period)."""
    found = find_periods(question)
    if len(found) < 2:
        return ""
    if not all(_PERIOD_JOIN_RE.fullmatch(question[a.end : b.start]) for a, b in zip(found, found[1:], strict=False)):
        return ""
    if spans_range(question):
        return ""  # 'between 2018 and 2019' names the ends of a span, not a list
    head = _PERIOD_LEAD_RE.sub("", question[: found[0].start].rstrip()).rstrip()
    text = RESPECTIVE_RE.sub(" ", f"{head} in {period}{question[found[-1].end :]}")
    return _tidy(" ".join(text.split()))


# Words that bound a listed item: what stands before the list ('the', 'of', a verb) and after it ('for 2017').
_ITEM_BOUNDARY = frozenset({
    "the", "a", "an", "of", "for", "in", "at", "on", "from", "by", "to", "during", "as", "with", "under", "between",
    "is", "are", "was", "were", "what", "how", "much", "many", "did", "does", "do", "has", "have", "had", "its",
    "their", "company", "company's", "group's", "values", "value", "amounts", "amount", "balances", "balance",
    "respective", "respectively", "each", "both",
})
_ITEM_TOKEN_RE = re.compile(r"[\w'’&$.%-]+|,|\S")


def _joined(tokens: Sequence[tuple[str, int, int]], ids: Sequence[int]) -> str:
    return " ".join(tokens[i][0] for i in ids)


def item_questions(question: str) -> list[str]:
    """The question as asked of each item of the list it names, when it asks for them respectively ('What are the
    respective sales and purchases for 2017?' -> 'What are the sales for 2017?', 'What are the purchases for
    2017?'). Items that share a head are given it ('municipal and corporate bonds' -> 'municipal bonds',
    'corporate bonds'); a plural or a name stands alone ('inventories and other accrued liabilities'). [] when the
    question lists no items this way: no 'respective(ly)', a list of periods, or an 'and' inside a metric's name
    ('research and development')."""
    if not RESPECTIVE_RE.search(question):
        return []
    text = " ".join(RESPECTIVE_RE.sub(" ", question).split())
    tokens = [(m.group(0), m.start(), m.end()) for m in _ITEM_TOKEN_RE.finditer(text)]
    joins = [i for i, (t, _, _) in enumerate(tokens) if t.lower() == "and"]
    inside_names = [(m.start, m.end) for m in find_metrics(text)]
    periods = [(p.start, p.end) for p in find_periods(text)]
    for j in joins:
        at = tokens[j][1]
        if any(a < at < b for a, b in inside_names):
            continue  # 'depreciation and amortization' is one name
        if j + 1 >= len(tokens) or j == 0 or any(a <= tokens[j + 1][1] < b or a <= tokens[j - 1][1] < b
                                                 for a, b in periods):
            continue  # a list of periods is one_period_question's
        right: list[int] = []
        k = j + 1
        while k < len(tokens) and tokens[k][0].lower() not in _ITEM_BOUNDARY and _is_word(tokens[k][0]):
            right.append(k)
            k += 1
        left_items: list[list[int]] = [[]]
        k = j - 1
        while k >= 0:
            word = tokens[k][0]
            if word == ",":
                left_items.insert(0, [])
            elif word.lower() in _ITEM_BOUNDARY or not _is_word(word):
                break
            else:
                left_items[0].insert(0, k)
            k -= 1
        left_items = [item for item in left_items if item]
        if not right or not left_items:
            continue
        first = left_items[0]
        last_left = tokens[left_items[-1][-1]][0]
        head = right[1:]
        shared = (
            bool(head)
            and len(left_items[-1]) == 1
            and not last_left.lower().endswith("s")
            and tokens[right[-1]][0][:1].islower()
        )
        if shared:
            prefix = first[:-1] if len(left_items) == 1 else []
            conjuncts = [[item[-1]] for item in left_items] + [[right[0]]]
            items = [_joined(tokens, prefix + c + head) for c in conjuncts]
        else:
            items = [_joined(tokens, item) for item in left_items] + [_joined(tokens, right)]
        start, end = tokens[first[0]][1], tokens[right[-1]][2]
        out = [_tidy(f"{text[:start]}{item}{text[end:]}") for item in items]
        return out if len(out) >= 2 else []
    return []


# An operation over two items the question names ('the difference in fair value between purchased technology and
# trademarks', 'the sum of net bookings and in-game net bookings', 'the ratio of current to non-current deferred
# revenue'): the words that ask it, what stands between them and the items (what both items are a figure of), and
# the word that joins the items.
_ITEM_OPERATIONS: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("difference", re.compile(r"\b(?:difference|gap)\b(?P<ctx>(?:\s+(?!between\b)[\w'’&,().%-]+){0,8}?)\s+between\s+",
                              re.I), "and"),
    # ('the total of X and Y segment revenue' names one row: 'total' is a row's word, 'sum' an operation's)
    ("sum", re.compile(r"\b(?:sum|combined\s+(?:value|amount))\s+of\s+(?:the\s+)?", re.I), "and"),
    ("ratio", re.compile(r"\bratio\s+of\s+(?:the\s+)?", re.I), "to"),
)
# Words after the items that say when or in what they are read ('in 2019', 'as at 31 December 2019', 'for fiscal
# 2018'): they belong to both items' questions ('from' only before a date: 'revenue from customer A' is an item).
_ITEM_TAIL_RE = re.compile(r"\s+(?:in|for|as\s+(?:at|of)|at|during|on|from(?=\s+\w*\s*\d)|of\s+fiscal|of\s+(?:fy|19|20))"
                           r"(?![\w-]).*$|\s*[?.]\s*$", re.I)


def split_tail(text: str) -> tuple[str, str]:
    """``text`` split before the words that say when or in what it is read ('operating income in 2024' ->
    ('operating income', ' in 2024')); the tail is '' when there are none."""
    tail = _ITEM_TAIL_RE.search(text)
    return (text[: tail.start()], text[tail.start():]) if tail else (text, "")


_LEADING_ARTICLE_RE = re.compile(r"^(?:the|its|their)\s+", re.I)
# An item that points back ('this value', 'the one in Jersey City') is an earlier answer's, or asks a step of its own
# ('goodwill divided by total assets'): the references' and the operations' to read, not a row's.
_NOT_AN_ITEM_RE = re.compile(r"\b(?:this|that|these|those|it|one|ones|divided|multiplied|times|over)\b", re.I)


def operation_items(question: str) -> tuple[str, list[tuple[str, str]]] | None:
    """The operation a question asks over two items it names, and each item with the question as asked of it, in
    the order named: 'What was the difference in the gross carrying value between trade names and non-compete
    agreements in 2019?' -> ('difference', [('trade names', 'What was the gross carrying value of trade names in
    2019?'), ('non-compete agreements', 'What was the gross carrying value of non-compete agreements in 2019?')]).

    None when it names no two such items: the 'and' of a metric's name ('research and development'), a span of
    periods ('between 2018 and 2019'), or an item that points back or asks an operation of its own ('this value',
    'the average X')."""
    for operation, opens, join in _ITEM_OPERATIONS:
        m = opens.search(question)
        if m is None:
            continue
        rest = question[m.end():]
        tail = _ITEM_TAIL_RE.search(rest)
        listed, after = (rest[: tail.start()], rest[tail.start():]) if tail else (rest, "")
        names = [(n.start, n.end) for n in find_metrics(listed)]
        for j in re.finditer(rf"\s+{join}\s+", listed, re.I):
            if any(a < j.start() < b for a, b in names) or listed[: j.start()].count("(") > listed[: j.start()].count(")"):
                continue  # 'research and development' is one name
            items = [listed[: j.start()].strip(" ,"), listed[j.end():].strip(" ,")]
            if not all(items) or any(find_periods(i) or re.search(r"\b(?:years?|fy|periods?)\b", i, re.I)
                                     for i in items):
                return None  # 'between 2018 and 2019': the ends of a span, not two items
            if any(rx.search(i) for i in items
                   for rx in (AVERAGE_RE, CHANGE_RE, CAGR_RE, PERCENT_RE, SUM_WORD_RE, _NOT_AN_ITEM_RE)):
                return None  # 'the difference between the average X and the average Y': two steps, not one
            context = re.sub(r"^\s*(?:in|of|for)?\s*(?:the\s+)?", "", m.group("ctx") if "ctx" in m.groupdict() else "")
            head = f"{context.strip()} of " if context.strip() else ""
            tail_text = after.rstrip(" ?.")
            named = _shared_tail([_LEADING_ARTICLE_RE.sub("", i) for i in items])
            return operation, [(i, f"What was the {head}{i}{tail_text}?") for i in named]
        return None
    return None


def _shared_tail(items: list[str]) -> list[str]:
    """Two items sharing the words after the second's first ('1-90 and 91-180 days past due', 'domestic and
    international discount rates'): the first, one word naming nothing by itself, takes them too."""
    first, second = items[0].split(), items[1].split()
    tail = second[1:]
    if len(first) != 1 or not tail or find_metrics(items[0]) or not all(w.islower() for w in tail):
        return items
    return [f"{items[0]} {' '.join(tail)}", items[1]]


def lookup_question(
    company: str, metrics: Sequence[str], periods: Sequence[str], hint: str = "", wording: str = ""
) -> str:
    """'What was Acme's revenue in FY2023?': a self-contained lookup. ``wording`` is the user's own name for the
    figure, kept when it says more than the lexicon's names ('the adjusted consolidated cash flow', not 'the cash
    flow': the row the user means)."""
    names = [metric_label(m) for m in metrics]
    said = set(plain_words(wording)) - FOLLOW_UP_FILLER
    named = set(plain_words(" ".join(names)))
    if len(metrics) == 1 and said > named:
        names = [_LEADING_ARTICLE_RE.sub("", wording.strip())]
    subject = f"{possessive(company)} {and_list(names)}" if company else f"the {and_list(names)}"
    when = f" in {and_list(periods)}" if periods else ""
    verb = "was" if periods else "is"
    tail = f" ({hint})" if hint else ""
    return f"What {verb} {subject}{when}{tail}?"


def chronological(periods: Sequence[str]) -> list[str]:
    return sorted(dict.fromkeys(p for p in periods if p), key=sort_key)


def scale_hint(question: str) -> str:
    m = SCALE_ASKED_RE.search(question)
    return m.group(0).strip("() ") if m else ""


_SCALE_OF_WORD = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}


def asks_total(question: str) -> bool:
    """Whether a question's words name its figure a total ('total debt', 'the total'): a whole, never a component."""
    return bool(TOTAL_RE.search(question or ""))


def asked_scale(question: str) -> float | None:
    """The scale a question asks the answer in ('in USD millions' -> 1e6); None when it names none."""
    m = SCALE_ASKED_RE.search(question or "")
    return _SCALE_OF_WORD[m.group("scale").lower()] if m else None


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
def companies_in(question: str, known_companies: EntityRegistry | Sequence[str]) -> list[str]:
    """Every known company the question names, in the order it names them ('3M ... and Microsoft'), once each."""
    return list(dict.fromkeys(m.entity.name for m in as_registry(known_companies).mentions(question)))


def intent_companies(intent: QueryIntent, known_companies: EntityRegistry | Sequence[str]) -> list[str]:
    """Companies a question names: all known ones in order, else the intent's routing company."""
    named = companies_in(intent.question, known_companies) if known_companies else []
    if intent.company and intent.company not in named:
        named.insert(0, intent.company)
    return named


def subject_phrase(question: str) -> str:
    """What a figure question asks about, in its own words: 'what was the net change in rental expense for
    operating leases from 2008 to 2009?' -> 'rental expense for operating leases'. The question words, the
    arithmetic ('the change in'), periods and scale hints are dropped; '' when nothing that names a figure
    is left ('what was the value in 2008?', 'what is that as a percentage?')."""
    text = without_periods(question.strip().rstrip("?.! "))
    text = SCALE_ASKED_RE.sub(" ", text)
    text = _SUBJECT_PERIOD_GLUE_RE.sub(" ", text)
    text = _SUBJECT_HEAD_RE.sub("", " ".join(text.split()).lstrip(" ,;:"))
    text = _SUBJECT_TAIL_RE.sub("", text).strip(" ,;:")
    words = [w for w in plain_words(text) if w not in FOLLOW_UP_FILLER and not is_operation_word(w)]
    if not words or _REFERENCE_RE.search(text) or len(text.split()) > SUBJECT_MAX_WORDS:
        return ""
    return text


def _own_words(question: str) -> list[str]:
    """The words of a follow-up that could name a figure: not periods, filler, arithmetic or pronouns."""
    rest = _DEMONSTRATIVE_RE.sub(" ", without_periods(question))  # 'that performance price' names the earlier subject again
    rest = _REFERENCE_RE.sub(" ", rest)
    return [
        w
        for w in plain_words(rest)
        if w not in FOLLOW_UP_FILLER | LINK_WORDS and not is_operation_word(w)
    ]


def _subject_question(subject: str, question: str, periods: Sequence[str]) -> str:
    """'What was the rental expense in 2008?' from the last subject and the one period a follow-up names; ''
    without a subject or with several periods."""
    if not subject or len(periods) != 1:
        return ""
    now = find_periods(question)
    when = now[0].surface if len(now) == 1 and now[0].norm == periods[0] else periods[0]
    return f"What was the {subject} in {when}?"


_YES_NO_RE = re.compile(r"^\s*(?:is|are|was|were|does|do|did|has|have|had|can)\b", re.IGNORECASE)


def is_yes_no(question: str) -> bool:
    """A polar question ('Is X capital-intensive?', 'Has X paid dividends?'): figures decide its yes or no."""
    return bool(_YES_NO_RE.match(question))
