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

The self-contained turn is then split into sub-queries by :mod:`agent.query.decompose`. The wording cues both steps
read (change, share, sum, average ...) live here. :func:`classify_query` tells the router whether a question
needs filings, market data or no evidence at all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from agent.entities import EntityRegistry, as_registry
from agent.finance.lexicon import canonical, find_metrics
from agent.finance.periods import find_periods, shift_period, sort_key, without_periods
from agent.llm import schemas as llm_schemas
from agent.llm.models import UsageLog, structured_call
from agent.llm.prompts import echoes_prompt, rewrite_messages
from agent.query.cues import (
    _DEMONSTRATIVE_RE,
    _REFERENCE_RE,
    _RESULT_RE,
    CHANGE_RE,
    COMPARE_RE,
    FOLLOW_UP_FILLER,
    NEXT_YEAR_RE,
    NON_NUMERIC_RELATIONS,
    OPERATION_WORDS,
    PART_OF_RE,
    PRIOR_YEAR_RE,
    SHARE_RE,
    _join,
    _own_words,
    _subject_question,
    asks_percent,
    lookup_question,
    margin_metric,
    metric_label,
    possessive,
    scale_hint,
    subject_phrase,
)
from agent.query.dialogue import DialogueSlots, Rewrite, Turn, slots_from_intent
from agent.query.intent import asked_periods, extract_intent
from agent.query.kind import _COMPANY_PRONOUN_RE, _SMALL_TALK_RE
from agent.query.references import (
    _OVER_BASE_RE,
    _SPAN_COUNT_RE,
    _THIS_CHANGE_RE,
    _WHOLE_RE,
    _constant_rewrite,
    _convert_rewrite,
    _including_rewrite,
    _new_subject_words,
    _operate_rewrite,
    _reference_rewrite,
    _value_operation,
    computes_with_last,
)
from agent.schemas import QueryIntent, Relation

_FOLLOW_UP_OPENER_RE = re.compile(r"^\s*(?:and|so|also|what about|how about|what of|then)\b", re.IGNORECASE)




_CHANGE_OR_TOTAL_RE = re.compile(
    r"\b(?:change|difference|variation|variance|increase|decrease|growth|decline|fluctuation|sum|total)\b", re.I
)


BARE_FOLLOW_UP_MAX_WORDS = 1  # one stray word ('then', 'ok') still leaves the turn a bare period follow-up


_BARE_MARGIN_RE = re.compile(r"\bmargins?\b", re.IGNORECASE)


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
    known_companies: EntityRegistry | Sequence[str] = (),
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
    known_companies = as_registry(known_companies)  # one registry for every reading below
    question = " ".join(question.split())
    intent = extract_intent(question, known_companies)
    own = slots_from_intent(intent, known_companies)
    has_history = bool(history) or bool(slots.metrics or slots.company or slots.last_values)
    if has_history and slots.last_refused and computes_with_last(question, slots, bool(intent.metrics)):
        return _unresolved(question, intent, slots)
    constant = _constant_rewrite(question, slots) or _convert_rewrite(question, slots)
    if constant is not None:  # 'what is that divided by 1000?': arithmetic with a typed number, in code
        constant.slots = slots.model_copy(deep=True) if has_history else own
        constant.intent = extract_intent(constant.question, known_companies)
        constant.intent.requires_numeric = True
        return constant
    including = (
        _including_rewrite(question, slots) or _operate_rewrite(question, slots) or _change_since_rewrite(question, slots)
    )
    if including is not None:  # 'including 2015, what becomes this total?': a new figure plus the last total
        including.slots = slots.model_copy(deep=True)
        including.intent = extract_intent(including.question, known_companies)
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
    # 'how much does the 2011 total revenue represent in relation to the 2010 one?': both figures were answered.
    over_remembered = (
        bool(q_metrics)
        and set(q_metrics) <= set(slots.metrics)
        and len({p.norm for p in find_periods(question)}) >= 2
        and all(any(v.value.period == p.norm and not v.computed for v in slots.last_values)
                for p in find_periods(question))
    )
    # 'what was that amount as a portion of this adjusted cash flow?': both operands are earlier answers.
    over_demonstrative = (
        bool(q_metrics) and set(q_metrics) <= set(slots.metrics) and bool(_WHOLE_RE.search(question))
        and len(slots.answers) >= 2
    )
    if (
        not q_metrics or over_earlier or over_base or over_remembered or over_demonstrative
        or _THIS_CHANGE_RE.search(question) or _BOTH_ANSWERS_RE.search(question)
    ) and not q_companies:
        operation = _value_operation(question, slots)
        if operation and (slots.last_values or slots.last_computation):
            ref = _reference_rewrite(question, slots, operation)
            if ref is not None:
                ref.slots = slots.model_copy(deep=True)
                ref.intent = extract_intent(ref.question, known_companies)
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
    part_of = PART_OF_RE.search(question)
    if (
        q_metrics
        and share
        and slots.metrics
        and not find_metrics(question[: share.start()])
        and (part_of is None or _whole_is_earlier(part_of.group("b"), slots))
    ):
        base = slots.metrics[0]
        periods = q_periods or list(slots.periods)
        if not q_periods:
            carried += [f"period: {p}" for p in slots.periods]
        carried.append(f"metric: {base}")
        who = possessive(companies[0]) + " " if companies else "the "
        when = f" in {_join(periods)}" if periods else ""
        part, whole = metric_label(base), _join([metric_label(m) for m in q_metrics])
        if part_of is not None:  # 'what percentage of this price was dedicated to goodwill?': goodwill is the part
            part, whole = whole, part
        text = f"What was {who}{part} as a percentage of {whole}{when}?"
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
                _own_subject_question(question, slots, q_periods)
                or _with_period(slots.last_question, question, q_periods)
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
            _own_subject_question(question, slots, q_periods)
            or _with_period(slots.last_question, question, q_periods)
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
        text = lookup_question(companies[0] if companies else "", q_metrics, periods, hint, subject_phrase(question))
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


def _unresolved(question: str, intent: QueryIntent, slots: DialogueSlots) -> Rewrite:
    """A follow-up computing with 'that' when the last answer stated no figure: nothing to compute with."""
    return Rewrite(
        original=question, question=question, intent=intent, slots=slots.model_copy(deep=True),
        unresolved="the last answer gave no figure for this question to compute with",
    )


def _bare_follow_up(question: str) -> bool:
    """True for a turn that names only a period around filler ('and in 2007?', 'and what were they in 2014?',
    'and the specific value for 2010 again?'): it asks the last question again for another period."""
    words = [w for w in re.findall(r"[a-z]+", without_periods(question).lower()) if w not in FOLLOW_UP_FILLER]
    return len(words) <= BARE_FOLLOW_UP_MAX_WORDS


# 'the combined total of securities between those two numbers': the operands are the last two answers, whatever
# the lexicon reads in the turn's other words.
_BOTH_ANSWERS_RE = re.compile(
    r"\b(?:those|these)\s+two\s+(?:numbers|values|figures|amounts|answers)\b|\bbetween\s+(?:them|those|these)\s*[?,]",
    re.IGNORECASE,
)


_RELATIVE_WORDS = ("before", "after", "ago", "last", "this", "current", "preceding")  # 'the year before'


def _own_subject_question(question: str, slots: DialogueSlots, periods: Sequence[str]) -> str:
    """'And in the year before, what was the average price paid per share?': a follow-up that names its own
    subject keeps it, in the period it resolves to; '' when it names nothing the last question did not."""
    subject = subject_phrase(question)
    if not subject or len(periods) != 1:
        return ""
    said = set(_own_words(subject)) - set(_RELATIVE_WORDS)
    known = " ".join([slots.last_question, slots.last_lookup, slots.subject]).lower()
    if said <= set(re.findall(r"[a-z&]{2,}", known)):
        return ""  # 'what was the 2011 price?' re-asks the subject asked before
    return _subject_question(subject, question, periods)


def _whole_is_earlier(whole: str, slots: DialogueSlots) -> bool:
    """'this price', 'that total': the whole of a part-of question is the earlier turn's figure when it names
    nothing beyond what the earlier turns named ('the revised purchase price' after 'prepaid expenses' is not)."""
    words = set(_own_words(whole)) - {"total", "amount", "value"}
    known = set(re.findall(r"[a-z&]{2,}", " ".join([slots.subject, slots.last_question, *slots.metrics]).lower()))
    return words <= known


def _change_since_rewrite(question: str, slots: DialogueSlots) -> Rewrite | None:
    """'And by what amount did it change since 2013?' after 'what was the price performance of pmi in 2014?': the
    last figure's subject in the one period the turn names, looked up now, and the change between the two in
    code (old to new, whichever the turn names). None when the turn names anything new or that period's
    figure was already answered (the remembered figures then serve)."""
    named = list(dict.fromkeys(p.norm for p in find_periods(question)))
    last = slots.last_values[-1] if slots.last_values else None
    if (
        len(named) != 1
        or last is None
        or last.computed
        or not last.value.period
        or last.value.period == named[0]
        or slots.last_refused
        or not CHANGE_RE.search(question)
        or _THIS_CHANGE_RE.search(question)  # 'this change as a percentage of ...' refers to a change made
        or _new_subject_words(CHANGE_RE.sub(" ", question), slots)
        or any(v.value.period == named[0] for v in slots.last_values)
    ):
        return None
    lookup = _with_period(slots.last_lookup, question, named)
    if not lookup:
        return None
    return Rewrite(
        original=question,
        question=lookup,
        changed=True,
        references=[last],
        operation="percent_change" if asks_percent(question) else "change",
        read_first=sort_key(named[0]) < sort_key(last.value.period),  # the period named now is the older one
        carried_over=[f"values: {last.value.text}"],
    )


def _with_period(last_question: str, question: str, periods: Sequence[str]) -> str:
    """The last question with its one period replaced by the new one, keeping the user's wording of the metric
    ('what was the net cash provided by operating activities in 2013?' + 'and in 2012?'), or its two periods by
    two new ones ('... between 2008 and 2009?' + 'and between 2007 and 2008?'); '' when the counts differ."""
    before = asked_periods(last_question, find_periods(last_question))
    if not periods or len(before) != len(periods) or len(periods) > 2:
        return ""
    if len(periods) == 2 and (before[0].norm == before[1].norm or not _bare_follow_up(question)):
        return ""  # two periods swap only into a question comparing two, for a turn that names nothing else
    now = find_periods(question)
    said = [m.surface for m in now] if [m.norm for m in now] == list(periods) else list(periods)
    text = last_question
    for old, new_text in reversed(list(zip(before, said, strict=True))):  # 'between 2008 and 2009' -> 2007, 2008
        text = text[: old.start] + new_text + text[old.end :]
    return text[:1].upper() + text[1:]


def _finish(
    original: str,
    text: str,
    carried: list[str],
    slots: DialogueSlots,
    intent: QueryIntent,
    known_companies: EntityRegistry | Sequence[str],
) -> Rewrite:
    changed = text != original
    final_intent = extract_intent(text, known_companies) if changed else intent
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


def rewrite_drift(offline: Rewrite, rewritten: str, known_companies: EntityRegistry | Sequence[str] = ()) -> str | None:
    """Why a model's rewrite cannot be used, or None: it must keep every period and the company the offline
    reading of the turn found (a rewrite that moves FY2018 to FY2022 asks another question)."""
    if not rewritten.strip():
        return "empty rewrite"
    if echoes_prompt(rewritten):
        return "the rewrite repeats the prompt"
    periods = {m.norm for m in find_periods(rewritten)}
    lost = [p for p in offline.intent.temporal_scope.periods if p not in periods]
    if lost:
        return f"the rewrite drops the period {', '.join(lost)}"
    company = offline.intent.company
    if company:
        registry = as_registry(known_companies or [company])
        entity = registry.resolve(company)
        named = {m.entity.entity_id for m in registry.mentions(rewritten)}
        if not (entity is not None and entity.entity_id in named) and not registry.named_by(rewritten, company):
            return f"the rewrite drops the company {company}"
    return None


def rewrite_llm(
    question: str,
    history: Sequence[Turn],
    slots: DialogueSlots,
    *,
    model: BaseChatModel | None,
    usage: UsageLog | None = None,
    known_companies: EntityRegistry | Sequence[str] = (),
) -> Rewrite:
    """Language-model twin of :func:`rewrite` (prompt with the conversation); falls back to the offline twin.

    The model only rewords the question. References to earlier figures and the operation on them come from
    the offline twin either way: a model never carries numbers from one turn to the next.
    """
    known_companies = as_registry(known_companies)  # one registry for every reading below
    offline = rewrite(question, history, slots, known_companies)
    if model is None or offline.standalone or not history:
        # Small talk, generic definitions and a conversation's first turn have nothing to resolve: the question
        # stays as asked, with its own scale, rounding and statement instructions.
        return offline

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
        check=lambda out: rewrite_drift(offline, out.question, known_companies),
    )
    if result.source == "offline":
        return offline.model_copy(update={"reason": result.reason})
    out = result.value
    intent = extract_intent(out.question, known_companies)
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
