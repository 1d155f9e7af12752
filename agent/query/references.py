"""Follow-ups that compute with earlier answers ('what was the change?', 'including 2015, what is the
total?', 'that times 1000', 'in millions?'): the operation and its operands, resolved in code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.finance.arithmetic import CitedValue
from agent.finance.numbers import MONEY_UNITS
from agent.finance.periods import find_periods, normalise_period, sort_key
from agent.finance.wording import CHANGE_NOUN, COUNT_VALUES, COUNT_WORD, SHARE_RE, TOTAL_RE, plain_words
from agent.query.content import content_words
from agent.query.cues import (
    _RESULT_RE,
    TYPED_NUMBER,
    TYPED_OPERATOR,
    _own_words,
    _subject_question,
    and_list,
    asks_percent,
    metric_label,
    possessive,
)
from agent.query.dialogue import DialogueSlots, Rewrite
from agent.query.operations import COMPUTED, OperationContext, guess_operation, named_operations
from agent.schemas import NumericValue

# A follow-up about the change just computed ('this change as a percentage of that net revenue in 2008').
_THIS_CHANGE_RE = re.compile(
    rf"\b(?:this|that|the\s+same)\s+(?:\S+\s+){{0,2}}?(?:{CHANGE_NOUN})\b",
    re.IGNORECASE,
)


# What an earlier answer is called when a turn computes with it ('that change', 'the result', 'this amount').
_RESULT_NOUN = r"change|difference|value|amount|result|total|sum|number|figure|quotient"
# Arithmetic with a typed number: 'that divided by 1000', 'that less an initial $100 investment', '100000 / 100'.
_CONSTANT_OP_RE = re.compile(
    rf"(?:\b(?:(?:that|this|it)(?:\s+(?:{_RESULT_NOUN}))?|the\s+(?:{_RESULT_NOUN})(?:\s+\w+)?)|"
    r"(?<![\w.,$])(?!(?:19|20)\d\d\b)(?P<left_num>\d[\d,]*(?:\.\d+)?))\s+"
    rf"(?P<op>{TYPED_OPERATOR}|over)\s+(?:an?\s+(?:initial\s+)?)?\$?\s*"
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


NEW_SUBJECT_MIN_WORDS = 2  # a change, share or ratio naming two words no earlier turn used is about new figures


SCALE_STEP = 1e3  # filings step scales by a thousand: an unscaled figure asked in millions was in thousands


_COUNT_WORDS = {**COUNT_VALUES, "both": 2}


# 'these three years', 'the two years', 'all 3 years', 'both years': a total or average over earlier figures.
_SPAN_COUNT_RE = re.compile(
    rf"\b(?:(?:the|these|those|all|last)\s+)?(?P<n>{COUNT_WORD}|both|[2-9])\s+(?:years|periods|quarters|values)\b",
    re.IGNORECASE,
)


_INCLUDING_RE = re.compile(
    r"\b(?:including|adding|plus)\s+(?P<thing>.+?)(?:,\s*(?:what|how)\b.*|\s+what\s+.*)?\??$", re.IGNORECASE
)


# The words that put what follows them under a division ('divided by', 'in relation to').
_DIVISOR = r"\b(?:over|divided\s+by|relative\s+to|in\s+relation\s+to)\b"
_OVER_BASE_RE = re.compile(
    rf"(?:{_DIVISOR}|\bas\s+a\s+(?:share|portion)\s+of)"
    r"\s+(?:the\s+|this\s+|that\s+)?(?:\d{4}|prior|previous|earlier|original|base|initial)\b",
    re.IGNORECASE,
)


# An earlier result named as an operand: 'the prior sum', 'that difference', 'the difference of citi'.
_RESULT_NOUN_RE = re.compile(
    r"\b(?:the|that|this|prior|previous|earlier)\s+(?:(?:prior|previous|earlier)\s+)?"
    r"(?P<noun>sum|difference|average)\b",
    re.IGNORECASE,
)


_RESULT_OPERATIONS = {"sum": ("sum",), "difference": ("change", "difference"), "average": ("average",)}


# Words that relate two figures without naming either ('how much did the first represent in relation to the
# second?').
_RELATION_WORDS = frozenset(
    ("represent", "represents", "represented", "relation", "relative", "compared", "proportion", "portion", "share",
     "ratio", "quotient", "divided", "by", "much", "one", "ones", "figure", "number", "then", "first", "second",
     "former", "latter")
)


_FIRST_SECOND_RE = re.compile(r"\b(?:first|former)\b.*\b(?:second|latter)\b", re.IGNORECASE)


# One period's figure less another's, in the order written.
_LESS_BETWEEN_RE = re.compile(r"\b(?:19|20)\d\d\b.*?\b(?:less|minus)\b.*?\b(?:19|20)\d\d\b", re.IGNORECASE)


_THAT_RE = rf"(?:that|this|it|the\s+(?:{_RESULT_NOUN})|th(?:at|is)\s+(?:[\w-]+\s+){{0,2}}(?:{_RESULT_NOUN}))"


_OP_RE = r"(?P<op>divided\s+by|plus|less|minus)"


# 'what is that divided by total 2007 sales?', 'what is the sum over the value of total assets acquired?' ('over'
# divides only a sum: 'the change over the year' is no division)
_THAT_OP_THING_RE = re.compile(
    rf"\b(?:{_THAT_RE}\s+{_OP_RE}|(?:the|that|this)\s+(?:total\s+)?(?:sum|total)\s+(?P<over>over))\s+"
    r"(?P<thing>[^?]+)",
    re.IGNORECASE,
)


# 'what is the 2008 rider revenue divided by that net change?'
_THING_OP_THAT_RE = re.compile(
    rf"^(?:and\s+|so\s+)?what\s+(?:is|was)\s+(?P<thing>.+?)\s+{_OP_RE}\s+{_THAT_RE}(?:\s+[\w-]+){{0,2}}\s*\??$",
    re.IGNORECASE,
)


# The whole a share divides by, named by a demonstrative: 'of this total', 'in relation to that 2010 price'.
_WHOLE_RE = re.compile(
    r"\b(?:of|in\s+relation\s+to|relative\s+to|compared\s+(?:to|with))\s+(?P<this>this|that|these|those)\s+"
    r"(?P<whole>(?:[\w.-]+\s+){0,3}?[\w.-]+)(?=\s+(?:did|does|do|was|is|were|are|represent)\b|\s*[,?]|\s*$)",
    re.IGNORECASE,
)


# ---------------------------------------------------------------------------------------------------------
# Rewrite: offline twin
# ---------------------------------------------------------------------------------------------------------
def computes_with_last(question: str, slots: DialogueSlots, names_metric: bool) -> bool:
    """True when a turn computes with the last answer's figure ('that divided by 100', 'that in millions',
    'including 2015, what is the total?', 'what is that as a percentage?') rather than asking for a figure
    anew ('and as a percentage of revenue?' names its own metric)."""
    constant = _CONSTANT_OP_RE.search(question)
    if constant is not None and not constant.group("left_num"):
        return True
    if _CONVERT_RE.search(question) or _INCLUDING_RE.search(question):
        return True
    if _THAT_OP_THING_RE.search(question) or _THING_OP_THAT_RE.search(question):
        return True  # 'that divided by total 2007 sales'
    if names_metric or find_periods(question):  # its own metric or periods: a new computation, not the last result
        return False
    return bool(_RESULT_RE.search(question)) and bool(_value_operation(question, slots))


def _value_operation(question: str, slots: DialogueSlots) -> str:
    """The arithmetic a value-referring follow-up asks for ('what was the change?' -> change), as the learned
    operation model reads the turn after what the conversation last computed, else (for a turn naming no figure of
    its own) the likeliest of those its words name ('by how much did it grow?'); '' when it asks for none."""
    last = slots.last_computation.operation if slots.last_computation is not None else ""
    context = OperationContext(follow_up=True, last_operation=last, answers=len(slots.answers))
    # a turn naming nothing of its own ('by how much did it grow, in percent?') asks what its words of arithmetic
    # name, when the model is unsure; one naming a figure ('the total capital') may be asking for that figure
    named = named_operations(question) if not _own_words(question) else []
    operation = guess_operation(question, context).among(COMPUTED, named)
    # the unit asked composes with the operation: a change asked in percent is its rate ('how much, in percent?');
    # a division asked in percent, or of a part of a whole, is a share ('that as a percentage / portion of the total')
    if operation == "change" and asks_percent(question):
        return "percent_change"
    if operation == "ratio" and (asks_percent(question) or SHARE_RE.search(question)):
        return "share"
    return operation


def _named_results(question: str) -> set[str]:
    """The operations of earlier results a follow-up names as operands ('the prior sum' -> {'sum'})."""
    return {op for m in _RESULT_NOUN_RE.finditer(question) for op in _RESULT_OPERATIONS[m.group("noun").lower()]}


def _new_subject_words(question: str, slots: DialogueSlots) -> set[str]:
    """The follow-up's own words that no earlier question or answered figure used: what it asks about anew."""
    known = " ".join(
        [slots.subject, slots.last_question, *slots.last_sub_queries, *slots.metrics]
        + [f"{v.label} {v.citation.quote if v.citation is not None else ''}" for v in slots.last_values]
    ).lower()
    seen = set(plain_words(known))
    return {w for w in _own_words(question) if w not in seen | _RELATION_WORDS and w.rstrip("s") not in seen}


def _whole_is_last(question: str, earlier: CitedValue, last: CitedValue) -> bool:
    """Whether the whole of a share of two earlier answers is the last one. The phrase after 'of' or 'in
    relation to' says which: a period names its figure; 'this/that total' is the larger of the two, as a
    total is of its part; else 'this' points at the nearer (last) answer and 'that' at the earlier one. With
    no such phrase the last answer is the part ('what is that as a percentage of the one before?')."""
    m = _WHOLE_RE.search(question)
    if m is None:
        if _OF_THE_TOTAL_RE.search(question):  # 'that as a percentage of the total': the figure that is a total
            totals = [_is_total(v) for v in (earlier, last)]
            return totals[1] if totals[0] != totals[1] else abs(last.value.value) > abs(earlier.value.value)
        return False
    phrase = m.group("whole")
    named = {p.norm for p in find_periods(phrase)}
    if named and (earlier.value.period in named) != (last.value.period in named):
        return last.value.period in named
    if TOTAL_RE.search(phrase):
        return abs(last.value.value) > abs(earlier.value.value)
    return m.group("this").lower() == "this"


_OF_THE_TOTAL_RE = re.compile(r"\b(?:of|to)\s+(?:the|its|their)\s+(?:[\w-]+\s+){0,2}?total\b", re.IGNORECASE)


def _is_total(value: CitedValue) -> bool:
    """The figure is a total: its own row label (or label) says so."""
    quote = value.citation.quote if value.citation is not None else ""
    return bool(TOTAL_RE.search(quote.split("|", 1)[0] or value.label))


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


# '... in relation to that citi one': 'one' stands for the noun of a result named before it ('this s&p 500 fluctuation').
_ONE_RE = re.compile(r"\b(?:this|that|the)\s+(?P<item>[^,?]+?)\s+one\b", re.IGNORECASE)


def _result_pair(question: str, slots: DialogueSlots) -> tuple[CitedValue, CitedValue] | None:
    """The two earlier changes a follow-up names by their items ('how much did this s&p 500 fluctuation represent
    in relation to that citi one?'), in the order it names them; None unless each item names exactly one."""
    first = _THIS_CHANGE_RE.search(question)
    second = _ONE_RE.search(question, first.end()) if first is not None else None
    if first is None or second is None:
        return None
    computed = [v for v in slots.answers if v.computed and {"change", "difference"} & set(v.label.split())]

    def of(item: str) -> CitedValue | None:
        words = content_words(item)
        found = [v for v in computed if words and words <= content_words(v.label)]
        return found[-1] if len(found) == 1 else None

    a, b = of(" ".join(first.group(0).split()[1:-1])), of(second.group("item"))
    return (a, b) if a is not None and b is not None and a is not b else None


def _reference_rewrite(question: str, slots: DialogueSlots, operation: str) -> Rewrite | None:
    """A follow-up that computes with earlier answers (ConvFinQA): keep references, name the operation.

    None when the figures it needs are not among the earlier answers (the question is then asked afresh).
    """
    if operation not in {"sum", "average"} and len(_new_subject_words(question, slots)) >= NEW_SUBJECT_MIN_WORDS:
        # 'what percentage of the restricted cash was due to proceeds ...', 'in that same period, what was that
        # fluctuation for the nasdaq composite?': new figures, asked anew
        return None
    pair = _result_pair(question, slots) if operation in {"change", "percent_change", "ratio", "share"} else None
    if pair is not None:
        first, second = pair
        if operation == "change":
            text = f"What is {first.value.text} ({first.label}) minus {second.value.text} ({second.label})?"
            refs = [second, first]  # a change is the later operand less the earlier: here the first named less the second
        else:
            operation = "share" if operation == "share" or asks_percent(question) else "ratio"
            relation = "as a percentage of" if operation == "share" else "divided by"
            text = f"What is {first.value.text} ({first.label}) {relation} {second.value.text} ({second.label})?"
            refs = [first, second]
        return Rewrite(original=question, question=text, changed=True, references=refs, operation=operation,
                       carried_over=[f"values: {first.value.text}, {second.value.text}"])
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
    results = _named_results(question)
    if results and operation in {"ratio", "share"}:
        # 'that value divided by the prior sum', 'the ratio of the difference of citi to the s&p 500': the
        # operands are earlier results of that kind; none computed, nothing to divide.
        computed = [v for v in remembered if v.computed]
        named_results = [v for v in computed if any(k in v.label.split() for k in results)]
        if not named_results:
            return None
        answered = [a for a in slots.answers if not a.computed]
        divisor = re.search(_DIVISOR, question, re.I)
        result_noun = _RESULT_NOUN_RE.search(question)
        named_as_divisor = divisor is not None and result_noun is not None and result_noun.start() > divisor.start()
        if len(named_results) == 1 and answered and operation == "ratio" and named_as_divisor:
            # 'that value divided by the prior sum': the last figure answered over the one result named
            part, whole = answered[-1], named_results[0]
            return Rewrite(
                original=question,
                question=f"What is {part.value.text} ({part.label}) divided by {whole.value.text} ({whole.label})?",
                changed=True,
                references=[part, whole],
                operation="ratio",
                carried_over=[f"values: {part.value.text}, {whole.value.text}"],
            )
        remembered = computed
    elif operation not in {"sum", "average"}:
        # Changes, shares and ratios compare reported figures; totals and averages may add up computed ones.
        reported = [v for v in remembered if not v.computed]
        remembered = reported if len(reported) >= 2 else remembered
    pool = _named_values(question, remembered)
    if operation in {"ratio", "share"} and not named and not results and len(slots.answers) >= 2:
        pool = slots.answers[-2:]  # 'this total' and 'that amount': what the last two turns answered with
    if pool is None or len(pool) < 2:
        return None
    if operation in {"change", "percent_change", "cagr"}:
        dated = [v for v in pool if v.value.period and normalise_period(v.value.period) == v.value.period]
        if len(dated) >= 2 and dated[-2].value.period == dated[-1].value.period:
            # two figures of one period: no change over time; the last difference's own operands again (its
            # answer), or two metrics whose difference a change's words would misname
            return None
        if operation == "change" and _LESS_BETWEEN_RE.search(question) and len(pool) == 2:
            new, old = _order_by_question(pool, question)  # 'the 2016 less the 2015 value', as written
        elif len(dated) >= 2:
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
        refs = [pool[-1], pool[-2]] if not _whole_is_last(question, pool[-2], pool[-1]) else [pool[-2], pool[-1]]
        text = f"What is {refs[0].value.text} ({refs[0].label}) as a percentage of {refs[1].value.text} ({refs[1].label})?"
    elif operation == "ratio":
        # 'the first in relation to the second': the earlier answer over the later; else the later over the earlier
        first_second = _FIRST_SECOND_RE.search(question)
        refs = pool[-2:] if first_second else _order_by_question(pool[-2:][::-1], question)
        text = (
            f"What is {who}{metric} in {refs[0].value.period or 'the later period'} relative to "
            f"{refs[1].value.period or 'the earlier period'}?"
        )
    elif operation == "average" and last is not None and last.operation == "sum" and not named:
        refs = list(last.inputs)  # 'the total for the three years', then 'the average during this period'
        periods = and_list([r.value.period for r in refs if r.value.period])
        text = f"What is the average of {who}{metric}" + (f" in {periods}?" if periods else "?")
    else:  # sum / average of the remembered figures ('the total for these three years': the last three read)
        count = _operand_count(question)
        reported = [v for v in pool if not v.computed]
        if count > len(pool):
            return None
        refs = reported[-count:] if len(reported) >= count > 2 else pool[-count:]
        periods = and_list([r.value.period for r in refs if r.value.period])
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
    if _SPAN_COUNT_RE.search(thing) or re.fullmatch(rf"(?:all\s+)?(?:the\s+)?(?:\d|{COUNT_WORD})\s+years", thing):
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


def _last_result(slots: DialogueSlots) -> CitedValue | None:
    """What 'that' refers to: the last computation's result when the last turn computed, else its last figure."""
    last = slots.last_values[-1] if slots.last_values else None
    if slots.last_computation is not None and (last is None or last.computed):
        result = slots.last_computation.result
        last = CitedValue(label=slots.last_computation.metric or "the last result", value=result, computed=True)
    return last


_OPERATIONS_OF = {"divided by": "ratio", "over": "ratio", "plus": "sum", "less": "change", "minus": "change"}


def _operate_rewrite(question: str, slots: DialogueSlots) -> Rewrite | None:
    """'What is that divided by total 2007 sales?', 'that plus the number of shares authorized', 'the 2008 rider
    revenue divided by that net change': the last result and a figure named now, looked up and combined in
    code. None when the turn names no figure of its own (a typed number is :func:`_constant_rewrite`'s)."""
    m = _THAT_OP_THING_RE.search(question) or _THING_OP_THAT_RE.search(question)
    last = _last_result(slots)
    if m is None or last is None:
        return None
    thing = " ".join(m.group("thing").split()).strip(" ,?")
    thing = re.sub(r"^(?:the\s+)?value\s+of\s+", "", thing, flags=re.IGNORECASE)
    if not _own_words(thing) or re.fullmatch(r"[\d,.$%\s]+", thing):
        return None
    op = " ".join((m.group("op") or "over").lower().split())
    operation = _OPERATIONS_OF[op]
    thing_first = m.re is _THING_OP_THAT_RE
    # 'that less X' subtracts X from that (a change from X to that); 'X less that' the reverse.
    read_first = thing_first if operation != "change" else not thing_first
    periods = [p.norm for p in find_periods(thing)]
    change = slots.last_computation
    if (
        change is not None
        and change.operation in {"change", "difference"}
        and operation == "ratio"
        and not thing_first
        and {v.value.period for v in change.inputs} & set(periods)
    ):
        return None  # 'that divided by the 2007 net revenues' after a change: the change over its own base
    when = "" if periods or not slots.periods else f" in {slots.periods[-1]}"
    return Rewrite(
        original=question,
        question=f"What was {thing}{when}?",
        changed=True,
        references=[last],
        operation=operation,
        read_first=read_first,
        carried_over=[f"values: {last.value.text}"],
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
    """Remembered figures, newest last, one per (metric, period) -- or per figure when it has no period. A
    reported figure is also told apart by the row or sentence it was read from and its value: a segment's sales
    and the total's, or 'additions charged to expense' and 'accounts written-off' of one year, are two figures."""
    out: dict[tuple[str, str, str], CitedValue] = {}
    for v in values:
        # Two cells of one row (columns (a) and (c) of a plan's line) are two figures: the value tells them apart.
        source = f"{v.citation.quote}#{v.value.value!r}" if v.citation is not None and not v.computed else ""
        key = (v.metric, source, v.value.period or f"value:{v.value.value!r}")
        out.pop(key, None)
        out[key] = v
    return list(out.values())
