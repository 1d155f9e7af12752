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

import contextlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from agent.entities import EntityRegistry, as_registry
from agent.entities.names import name_key
from agent.finance.basis import bases_said, without_bases
from agent.finance.lexicon import find_metrics
from agent.finance.periods import (
    find_periods,
    shift_period,
    sort_key,
    to_date_of,
    without_periods,
)
from agent.finance.wording import CHANGE_NOUN, CHANGE_RE, SHARE_RE, plain_words, year_on_year
from agent.llm import schemas as llm_schemas
from agent.llm.models import UsageLog, structured_call
from agent.llm.prompts import echoes_prompt, rewrite_messages
from agent.query.asked import operation_asked
from agent.query.content import content_words
from agent.query.cues import (
    _DEMONSTRATIVE_RE,
    _REFERENCE_RE,
    _RESULT_RE,
    AFTER,
    BEFORE,
    COMPARE_RE,
    FOLLOW_UP_FILLER,
    NON_NUMERIC_RELATIONS,
    PART_OF_RE,
    _own_words,
    _subject_question,
    and_list,
    asks_percent,
    is_operation_word,
    lookup_question,
    margin_metric,
    metric_label,
    months_named,
    possessive,
    relative_years,
    scale_hint,
    share_of_metric,
    subject_phrase,
)
from agent.query.dialogue import DialogueSlots, Rewrite, Turn, slots_from_intent
from agent.query.intent import asked_periods, extract_intent
from agent.query.kind import _COMPANY_PRONOUN_RE, _SMALL_TALK_RE, asks_definition
from agent.query.operations import asks_words
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
from agent.query.scope import scope_terms, share_part
from agent.query.utterance import plain_question
from agent.schemas import QueryIntent, Relation

_CHANGE_OR_TOTAL_RE = re.compile(
    rf"\b(?:{CHANGE_NOUN}|sum|total)\b", re.I
)


BARE_FOLLOW_UP_MAX_WORDS = 1  # one stray word ('then', 'ok') still leaves the turn a bare period follow-up


_BARE_MARGIN_RE = re.compile(r"\bmargins?\b", re.IGNORECASE)


def _relative_period(question: str, slots: DialogueSlots) -> list[str]:
    if not slots.periods:
        return []
    latest = slots.periods[-1]
    shifts = relative_years(question)
    try:
        if shifts:
            return [shift_period(latest, years=BEFORE if BEFORE in shifts else AFTER)]
    except ValueError:
        return []
    # 'and for the six months?' after a second quarter: the half year to that quarter's end
    spanned = to_date_of(latest, months_named(question))
    return [spanned] if spanned and spanned != latest else []


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

    The steps run in order and the first that recognises the turn rewrites it: :data:`_TURN_STEPS` read the
    turn alone, :data:`_CARRY_STEPS` also what it inherits; :func:`_fill_missing` takes every other turn.
    """
    registry = as_registry(known_companies)
    asked = " ".join(question.split())
    plain = plain_question(asked, registry)
    turn = _Turn.read(plain, history, slots, registry)
    done = _with_turn_basis(_rewritten(turn), asked, slots)
    done.turn_operation = _turn_operation(turn, done)
    return done if plain == asked else done.model_copy(update={"original": asked, "changed": True})


def _with_turn_basis(done: Rewrite, asked: str, slots: DialogueSlots) -> Rewrite:
    """``done`` with the bases the turn asks in its reading, kept in its slots: its own words' ('what was its
    adjusted net income?'), which its English rewrite may have lost, else the last turn's when it inherits the
    last turn's metric ('and in Q3 2024?' after an adjusted figure). They are the plan's, whatever the rewritten
    question says."""
    own = bases_said(asked)
    inherited = any(c.startswith("metric:") for c in done.carried_over)
    bases = list(dict.fromkeys([*done.intent.wording.basis, *(own or (slots.basis if inherited else []))]))
    wording = done.intent.wording.model_copy(update={"basis": bases})
    return done.model_copy(update={"intent": done.intent.model_copy(update={"wording": wording}),
                                   "slots": done.slots.model_copy(update={"basis": bases})})


def _turn_operation(turn: _Turn, done: Rewrite) -> str:
    """The arithmetic a follow-up's own words ask that its rewritten question no longer asks and no reference to an
    earlier answer carries: what its answer must still perform (the composer refuses a figure read as it stands
    for it); '' for a first turn, a turn kept as asked, and one that computes with earlier answers."""
    if not turn.has_history or not done.changed or done.references or done.unresolved or done.standalone:
        return ""
    operation = _value_operation(turn.question, turn.slots) or _last_result_named(turn)
    # a total asked of ('and what was the total of those sales?') is printed as often as it is added up
    if operation == "sum" or operation_asked(done.question):
        return ""
    return operation


def _last_result_named(turn: _Turn) -> str:
    """The operation of the last computation when the turn names its result by a demonstrative ('this percentage',
    'that change' in another year): the turn asks for that arithmetic again; '' otherwise."""
    last = turn.slots.last_computation
    if last is None:
        return ""
    named = [m.group(0) for m in _DEMONSTRATIVE_RE.finditer(turn.question)]
    percent = last.result.unit == "%" and any(asks_percent(phrase) for phrase in named)
    return last.operation if percent or _THIS_CHANGE_RE.search(turn.question) else ""


def _rewritten(turn: _Turn) -> Rewrite:
    for step in _TURN_STEPS:
        if (done := step(turn)) is not None:
            return done
    carry = _Carry.of(turn)
    for carry_step in _CARRY_STEPS:
        if (done := carry_step(turn, carry)) is not None:
            return done
    return _fill_missing(turn, carry)


@dataclass(frozen=True)
class _Turn:
    """One turn as read once: its words, its own slots and the conversation's."""

    question: str
    slots: DialogueSlots
    known: EntityRegistry
    intent: QueryIntent
    own: DialogueSlots
    has_history: bool
    periods: list[str]  # the periods it names, or a relative one ('the year prior') resolved on the slots
    referring: bool  # it points back ('its', 'that', 'the same')

    @classmethod
    def read(cls, question: str, history: Sequence[Turn], slots: DialogueSlots, known: EntityRegistry) -> _Turn:
        question = " ".join(question.split())
        intent = extract_intent(question, known)
        own = slots_from_intent(intent, known)
        return cls(
            question=question, slots=slots, known=known, intent=intent, own=own,
            has_history=bool(history) or bool(slots.metrics or slots.company or slots.last_values),
            periods=own.periods or _relative_period(question, slots),
            referring=bool(_REFERENCE_RE.search(question)),
        )

    def finish(self, text: str, carried: list[str], new_slots: DialogueSlots) -> Rewrite:
        return _finish(self.question, text, carried, new_slots, self.intent, self.known)

    def computed(self, rewritten: Rewrite, slots: DialogueSlots) -> Rewrite:
        """A rewrite that computes: its slots, its question's own intent, a figure required."""
        rewritten.slots = slots
        rewritten.intent = extract_intent(rewritten.question, self.known)
        rewritten.intent.requires_numeric = True
        return rewritten


@dataclass(frozen=True)
class _Carry:
    """What a follow-up inherits: the companies, metrics and periods it will ask about and the slots it took."""

    metrics_named: list[str]  # the turn's own metrics ('and its margin?' names the last metric's margin)
    companies: list[str]
    metrics: list[str]
    carried: list[str]  # 'slot: value' taken from the conversation
    hint: str  # the scale the turn asks in

    @classmethod
    def of(cls, turn: _Turn) -> _Carry:
        slots, own = turn.slots, turn.own
        named, carried = list(turn.intent.metrics), []
        # 'and its margin?': the margin of the previous metric (EBITDA -> EBITDA margin), from the lexicon.
        if not named and not own.companies and slots.metrics and _BARE_MARGIN_RE.search(turn.question):
            margin = margin_metric(slots.metrics[0])
            if margin:
                named = [margin]
                carried.append(f"metric: {slots.metrics[0]}")
        if own.companies and not named:
            carried += [f"metric: {m}" for m in slots.metrics]
        if not own.companies and slots.company:
            carried.append(f"company: {slots.company}")
        if not named and slots.metrics and not own.companies:
            carried += [f"metric: {m}" for m in slots.metrics]
        return cls(
            metrics_named=named,
            companies=own.companies or ([slots.company] if slots.company else []),
            metrics=named or list(slots.metrics),
            carried=carried,
            hint=scale_hint(turn.question),
        )

    def slots_for(self, turn: _Turn, metrics: list[str], periods: list[str], companies: list[str] | None = None
                  ) -> DialogueSlots:
        """The turn's own slots with the companies, metrics and periods it asks about."""
        chosen = self.companies if companies is None else companies
        return turn.own.model_copy(
            update={"company": chosen[0] if chosen else "", "companies": chosen, "metrics": metrics,
                    "periods": periods}
        )


# ---------------------------------------------------------------------------------------------------------
# Steps that read the turn alone
# ---------------------------------------------------------------------------------------------------------
def _refers_to_nothing(turn: _Turn) -> Rewrite | None:
    """'what is that divided by 100?' after an answer that stated no figure: nothing to compute with."""
    slots = turn.slots
    if turn.has_history and slots.last_refused and (
        computes_with_last(turn.question, slots, bool(turn.intent.metrics)) or _bare_operation(turn)
    ):
        return _unresolved(turn.question, turn.intent, slots)
    return None


def _bare_operation(turn: _Turn) -> bool:
    """'so what was the percentage change?': arithmetic naming no figure, company or period of its own, which
    computes with what the turn before asked (an older computation is no operand of it)."""
    q = turn.question
    return not (turn.intent.metrics or turn.own.companies or turn.periods or _own_words(q)) and bool(
        _value_operation(q, turn.slots))


def _with_typed_number(turn: _Turn) -> Rewrite | None:
    """'what is that divided by 1000?', 'what is that in millions?': arithmetic with a typed number, in code."""
    done = _constant_rewrite(turn.question, turn.slots) or _convert_rewrite(turn.question, turn.slots)
    if done is None:
        return None
    return turn.computed(done, turn.slots.model_copy(deep=True) if turn.has_history else turn.own)


def _with_new_figure(turn: _Turn) -> Rewrite | None:
    """'including 2015, what becomes this total?', 'that less the 2008 value', 'the change since 2010': a new
    figure with the last result."""
    q, slots = turn.question, turn.slots
    done = _including_rewrite(q, slots) or _operate_rewrite(q, slots) or _change_since_rewrite(q, slots)
    return None if done is None else turn.computed(done, slots.model_copy(deep=True))


def _standalone_turn(turn: _Turn) -> Rewrite | None:
    """Small talk and generic definitions inherit nothing."""
    kind = _standalone_kind(turn.question, turn.intent, turn.slots)
    if not kind:
        return None
    return _standalone(turn.question, turn.intent, turn.slots if turn.has_history else turn.own, kind)


def _first_turn(turn: _Turn) -> Rewrite | None:
    """Nothing to inherit: the question as asked."""
    return None if turn.has_history else turn.finish(turn.question, [], turn.own)


def _on_earlier_answers(turn: _Turn) -> Rewrite | None:
    """Arithmetic on earlier answers ('what was the change?', 'what is that as a %?'), when the turn names no
    company and either no metric or only the ones those answers read."""
    q, slots, metrics = turn.question, turn.slots, list(turn.intent.metrics)
    if turn.own.companies or asks_words(q):
        return None  # 'what drove the change?' asks the filing's words about it: nothing to compute
    known = bool(metrics) and set(metrics) <= set(slots.metrics)
    # 'the total pension service cost in the two years' re-names the metric the earlier answers read.
    over_earlier = known and bool(_SPAN_COUNT_RE.search(q))
    # 'what is that divided by the 2007 net revenues?' after a change: the change over its own base year.
    over_base = (
        known
        and slots.last_computation is not None
        and slots.last_computation.operation in {"change", "difference"}
        and bool(_RESULT_RE.search(q) and _OVER_BASE_RE.search(q))
    )
    # 'how much does the 2011 total revenue represent in relation to the 2010 one?': both figures were answered.
    named_periods = find_periods(q)
    over_remembered = (
        known
        and len({p.norm for p in named_periods}) >= 2
        and all(any(v.value.period == p.norm and not v.computed for v in slots.last_values) for p in named_periods)
    )
    # 'what was that amount as a portion of this adjusted cash flow?': both operands are earlier answers.
    over_demonstrative = known and bool(_WHOLE_RE.search(q)) and len(slots.answers) >= 2
    if not (
        not metrics or over_earlier or over_base or over_remembered or over_demonstrative
        or _THIS_CHANGE_RE.search(q) or _BOTH_ANSWERS_RE.search(q)
    ):
        return None
    operation = _value_operation(q, slots)
    if not operation or not (slots.last_values or slots.last_computation):
        return None
    done = _reference_rewrite(q, slots, operation)
    return None if done is None else turn.computed(done, slots.model_copy(deep=True))


_TURN_STEPS = (_refers_to_nothing, _with_typed_number, _with_new_figure, _standalone_turn, _first_turn,
               _on_earlier_answers)


# ---------------------------------------------------------------------------------------------------------
# Steps that read what the turn inherits
# ---------------------------------------------------------------------------------------------------------
def _company_added(turn: _Turn, carry: _Carry) -> Rewrite | None:
    """A new company next to the previous one ('and Microsoft?'): a comparison when the turn says so, else a
    switch; or the company a turn naming none was asked about ('Fourth Coffee' after 'which company?'). The metric
    and periods carry over."""
    slots, q_companies = turn.slots, turn.own.companies
    if not (q_companies and not carry.metrics_named and slots.metrics and slots.company not in q_companies):
        return None
    carried = list(carry.carried)
    periods = turn.periods or list(slots.periods)
    if not turn.periods:
        carried += [f"period: {p}" for p in slots.periods]
    if slots.company and COMPARE_RE.search(turn.question):
        both = list(dict.fromkeys([slots.company, *q_companies]))
        text = (
            f"Compare {and_list([possessive(c) for c in both])} "
            f"{and_list([metric_label(m) for m in slots.metrics])}"
            f"{' in ' + and_list(periods) if periods else ''}."
        )
        carried.append(f"company: {slots.company}")
        return turn.finish(text, carried, carry.slots_for(turn, list(slots.metrics), periods, both))
    text = lookup_question(q_companies[0], slots.metrics, periods, carry.hint)
    return turn.finish(text, carried, turn.own.model_copy(update={"metrics": list(slots.metrics), "periods": periods}))


def _share_of_named_metric(turn: _Turn, carry: _Carry) -> Rewrite | None:
    """'and as a percentage of revenue?': the previous metric over the named one, same company and period."""
    q, slots = turn.question, turn.slots
    share, part_of = SHARE_RE.search(q), PART_OF_RE.search(q)
    asked = share_of_metric(q)
    company = carry.companies[0] if carry.companies else ""
    if asked is not None and share_part(q, asked[1].canonical, asked[0], asked[1].start, company):
        return None  # 'what share of revenue came from Asia Pacific?' names its own part: no earlier figure is it
    if not (
        carry.metrics_named
        and share
        and slots.metrics
        and not find_metrics(q[: share.start()])
        and (part_of is None or _whole_is_earlier(part_of.group("b"), slots))
    ):
        return None
    base = slots.metrics[0]
    carried = list(carry.carried)
    periods = turn.periods or list(slots.periods)
    if not turn.periods:
        carried += [f"period: {p}" for p in slots.periods]
    carried.append(f"metric: {base}")
    who = possessive(carry.companies[0]) + " " if carry.companies else "the "
    when = f" in {and_list(periods)}" if periods else ""
    part, whole = metric_label(base), and_list([metric_label(m) for m in carry.metrics_named])
    if part_of is not None:  # 'what percentage of this price was dedicated to goodwill?': goodwill is the part
        part, whole = whole, part
    text = f"What was {who}{part} as a percentage of {whole}{when}?"
    return turn.finish(text, carried, carry.slots_for(turn, [base, *carry.metrics_named], periods))


def _new_period(turn: _Turn, carry: _Carry) -> Rewrite | None:
    """Only a new period ('what about 2022?'): company and metric carry over."""
    slots, periods = turn.slots, turn.periods
    if not (periods and not carry.metrics_named and slots.metrics):
        return None
    carried, companies = list(carry.carried), carry.companies
    if len(slots.companies) > 1 and not turn.own.companies:
        names = and_list([metric_label(m) for m in slots.metrics])
        text = f"Compare {and_list([possessive(c) for c in slots.companies])} {names} in {and_list(periods)}."
        companies = list(slots.companies)
        carried.append(f"company: {', '.join(slots.companies[1:])}")
    else:
        text = (
            _own_subject_question(turn.question, slots, periods)
            or _with_period(slots.last_question, turn.question, periods)
            or _subject_question(slots.subject, turn.question, periods)
            or lookup_question(companies[0] if companies else "", carry.metrics, periods, carry.hint)
        )
    return turn.finish(text, carried, carry.slots_for(turn, carry.metrics, periods, companies))


def _new_period_of_unnamed_subject(turn: _Turn, carry: _Carry) -> Rewrite | None:
    """Only a new period after a question about something the lexicon does not name ('what was the equipment
    rents payable in 2008?' then 'and in 2007?'): the last question, its period swapped."""
    q, slots, periods = turn.question, turn.slots, turn.periods
    if not (periods and not carry.metrics_named and not turn.own.companies and not slots.metrics
            and _bare_follow_up(q)):
        return None
    text = (
        _own_subject_question(q, slots, periods)
        or _with_period(slots.last_question, q, periods)
        or _with_period(slots.last_lookup, q, periods)
        or _subject_question(slots.subject, q, periods)
    )
    if not text:
        return None
    new_slots = turn.own.model_copy(update={"company": carry.companies[0] if carry.companies else "",
                                            "companies": carry.companies, "periods": periods})
    return turn.finish(text, [*carry.carried, "question: the last one"], new_slots)


def _new_periods_of_last_arithmetic(turn: _Turn, carry: _Carry) -> Rewrite | None:
    """New periods for the arithmetic just done on something the lexicon does not name ('and from 2009 to 2010,
    what was that change?' after 'the change in rental expense from 2008 to 2009'): the subject carries."""
    q, slots = turn.question, turn.slots
    if not (turn.periods and not carry.metrics_named and not turn.own.companies and slots.subject
            and not _own_words(q)):
        return None
    op = _CHANGE_OR_TOTAL_RE.search(q)
    if op is None:
        return None
    named = next(
        (d for d in _DEMONSTRATIVE_RE.finditer(q) if not is_operation_word(d.group(0).split()[-1].lower())), None
    )
    if named is not None:  # 'the change in that performance price': the subject in its place
        text = f"{q[: named.start()]}the {slots.subject}{q[named.end():]}"
    else:
        text = f"{q[: op.end()]} in {slots.subject}{q[op.end():]}"
    new_slots = turn.own.model_copy(update={"company": carry.companies[0] if carry.companies else "",
                                            "companies": carry.companies, "periods": turn.periods})
    return turn.finish(text, [*carry.carried, f"subject: {slots.subject}"], new_slots)


def _new_metric(turn: _Turn, carry: _Carry) -> Rewrite | None:
    """Only a new metric ('and net income?', 'what about its margin?'): company and period carry over."""
    q = turn.question
    follow_up = turn.referring or len(q.split()) <= 6  # an opener ('and ...') refers too
    if not (carry.metrics_named and not turn.own.companies and not turn.periods and follow_up
            and turn.intent.relation not in NON_NUMERIC_RELATIONS):
        return None
    periods = list(turn.slots.periods)
    carried = [*carry.carried, *(f"period: {p}" for p in periods)]
    text = lookup_question(carry.companies[0] if carry.companies else "", carry.metrics_named, periods, carry.hint,
                           subject_phrase(q))
    return turn.finish(text, carried, carry.slots_for(turn, carry.metrics_named, periods))


def _new_basis(turn: _Turn, carry: _Carry) -> Rewrite | None:
    """Only a basis for the last figure ('and at constant exchange rates?', 'what about on an adjusted basis?'):
    the last question is asked again on it, its arithmetic, company, metric and periods kept (the plan reads the
    basis from the question's words)."""
    slots = turn.slots
    opener = _REFERENCE_RE.match(turn.question)
    rest = (turn.question[opener.end("opener"):] if opener and opener.group("opener") else turn.question).strip(" ?.!,")
    if not slots.last_question or not bases_said(rest) or content_words(without_bases(rest)):
        return None
    last = " ".join(without_bases(slots.last_question).split()).rstrip(" ?.!,")  # the new basis replaces the last's
    text = f"{last} {rest}?"
    return turn.finish(text, [*carry.carried, f"question: {slots.last_question}"], slots.model_copy())


def _new_part(turn: _Turn, carry: _Carry) -> Rewrite | None:
    """Only a new part of the last figure ('and in Europe?', 'what about the aerospace segment?'): company,
    metric and periods carry over and the part narrows the metric -- when the scope reader reads it as a part of
    that metric (a name the question capitalises may leave out its preposition: 'and the Americas?')."""
    slots = turn.slots
    if carry.metrics_named or turn.own.companies or turn.periods or len(slots.metrics) != 1:
        return None
    opener = _REFERENCE_RE.match(turn.question)
    part = turn.question[opener.end("opener"):] if opener and opener.group("opener") else turn.question
    part = part.strip(" ?.!,")
    metric = metric_label(slots.metrics[0])
    phrases = [part, f"in {part}"] if turn.intent.entities else [part]
    phrase = next((p for p in phrases if p and scope_terms(f"What was {metric} {p}?", slots.company)), "")
    if not phrase:
        return None
    who = f"{possessive(slots.company)} " if slots.company else "the "
    when = f" in {and_list(slots.periods)}" if slots.periods else ""
    carried = [*carry.carried, *(f"period: {p}" for p in slots.periods)]
    text = f"What was {who}{metric} {phrase}{when}?"
    return turn.finish(text, carried, carry.slots_for(turn, list(slots.metrics), list(slots.periods)))


def _new_part_of_unnamed_subject(turn: _Turn, carry: _Carry) -> Rewrite | None:
    """Only a new part after a question about something the lexicon does not name ("What were Southridge's
    Commercial Lines net premiums written in 2024?" then 'and Personal Lines?'): the last question, the part of
    the company it named swapped for the one the turn names, when both are parts its filings print."""
    slots = turn.slots
    if (carry.metrics_named or turn.own.companies or turn.periods or slots.metrics or not slots.company
            or not slots.last_question):
        return None
    opener = _REFERENCE_RE.match(turn.question)
    part = turn.question[opener.end("opener"):] if opener and opener.group("opener") else turn.question
    part = re.sub(r"^\s*(?:in|for|the)\s+", "", part.strip(" ?.!,"), flags=re.IGNORECASE)
    if slots.company not in turn.known.part_owners(part):
        return None
    entity = turn.known.resolve(slots.company)
    named = [found for p in (entity.parts if entity is not None else ())
             if (found := re.search(rf"(?<!\w){re.escape(p)}(?!\w)", slots.last_question, re.IGNORECASE))]
    if len(named) != 1 or name_key(named[0].group()) == name_key(part):
        return None
    at = named[0]
    text = f"{slots.last_question[: at.start()]}{part}{slots.last_question[at.end():]}"
    new_slots = turn.own.model_copy(update={"company": slots.company, "companies": carry.companies,
                                            "periods": list(slots.periods)})
    return turn.finish(text, [*carry.carried, "question: the last one", f"part: {part}"], new_slots)


_CARRY_STEPS = (_new_basis, _company_added, _share_of_named_metric, _new_period, _new_period_of_unnamed_subject,
                _new_periods_of_last_arithmetic, _new_metric, _new_part, _new_part_of_unnamed_subject)


def _fill_missing(turn: _Turn, carry: _Carry) -> Rewrite:
    """Any other follow-up: only what is missing is filled -- the company when the turn refers to it or names
    none, the periods when it refers back and asks for a figure."""
    q, slots = turn.question, turn.slots
    if not turn.intent.metrics and turn.intent.relation is Relation.EXPLANATION and len(slots.metrics) == 1:
        q = _about_subject(q, slots)  # 'why did it rise?' asks about the last figures' metric, not the company
    text, carried, periods = q, list(carry.carried), turn.periods
    if not turn.own.companies and slots.company and (turn.referring or turn.intent.relation not in {Relation.DEFINITION}):
        replaced = _COMPANY_PRONOUN_RE.sub(
            lambda m: possessive(slots.company) if m.group(0).lower().endswith(("its", "their", "'s")) else slots.company,
            q,
            count=1,
        )
        text = replaced if replaced != q else f"{q.rstrip(' ?.')} for {slots.company}?"
    else:
        carried = [c for c in carried if not c.startswith("company:")]
    if not turn.periods and slots.periods and turn.referring and turn.intent.requires_numeric:
        text = f"{text.rstrip(' ?.')} in {and_list(slots.periods)}?"
        carried += [f"period: {p}" for p in slots.periods]
        periods = list(slots.periods)
    carried = [c for c in carried if not c.startswith("metric:") or not carry.metrics_named]
    new_slots = carry.slots_for(turn, carry.metrics, periods or turn.own.periods, carry.companies or turn.own.companies)
    return turn.finish(text, carried, new_slots)


# What an explanation follow-up asks to be explained, by its group: a movement ('the change', 'the decline') or,
# failing one, a pronoun.
_EXPLAINED_RE = re.compile(
    rf"(?P<movement>\bthe\s+(?:{CHANGE_NOUN}|improvement|deterioration)\b)|(?P<pronoun>\b(?:it|that|this)\b)",
    re.IGNORECASE,
)


def _about_subject(text: str, slots: DialogueSlots) -> str:
    """An explanation follow-up made to say what it explains, the metric the last figures measured over their
    periods: 'what drove the change?' -> 'what drove the change in operating margin from FY2023 to FY2024?',
    'why did it rise?' -> 'why did operating margin rise in FY2024?'."""
    periods = sorted({v.value.period for v in slots.answers if v.value.period and not v.computed} or set(slots.periods),
                     key=sort_key)
    when = (f" from {periods[0]} to {periods[-1]}" if len(periods) > 1 else f" in {periods[0]}" if periods else "")
    # the metric in the words the user gave it ('net sales', not the lexicon's 'revenue'): the filing's words
    said = next((m.surface for m in find_metrics(slots.subject) if m.canonical == slots.metrics[0]), "")
    subject = said.lower() or metric_label(slots.metrics[0])
    found = list(_EXPLAINED_RE.finditer(text))
    movement = next((m for m in found if m.group("movement")), None)
    if movement is not None:
        return f"{text[: movement.end()]} in {subject}{when}{text[movement.end():]}"
    pronoun = next((m for m in found if m.group("pronoun")), None)
    if pronoun is not None:
        return f"{text[: pronoun.start()]}{subject}{text[pronoun.end():].rstrip(' ?.')}{when}?"
    return f"{text.rstrip(' ?.')} in {subject}{when}?"


def _unresolved(question: str, intent: QueryIntent, slots: DialogueSlots) -> Rewrite:
    """A follow-up computing with 'that' when the last answer stated no figure: nothing to compute with."""
    return Rewrite(
        original=question, question=question, intent=intent, slots=slots.model_copy(deep=True),
        unresolved="the last answer gave no figure for this question to compute with",
    )


def _bare_follow_up(question: str) -> bool:
    """True for a turn that names only a period around filler ('and in 2007?', 'and what were they in 2014?',
    'and the specific value for 2010 again?'): it asks the last question again for another period."""
    words = [w for w in plain_words(without_periods(question), 1) if w not in FOLLOW_UP_FILLER]
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
    if not subject or len(periods) != 1 or months_named(subject):
        return ""  # 'and for the six months?' names a span, not a subject
    said = set(_own_words(subject)) - set(_RELATIVE_WORDS)
    known = " ".join([slots.last_question, slots.last_lookup, slots.subject]).lower()
    if said <= set(plain_words(known)):
        return ""  # 'what was the 2011 price?' re-asks the subject asked before
    return _subject_question(subject, question, periods)


def _whole_is_earlier(whole: str, slots: DialogueSlots) -> bool:
    """'this price', 'that total': the whole of a part-of question is the earlier turn's figure when it names
    nothing beyond what the earlier turns named ('the revised purchase price' after 'prepaid expenses' is not)."""
    words = set(_own_words(whole)) - {"total", "amount", "value"}
    known = set(plain_words(" ".join([slots.subject, slots.last_question, *slots.metrics])))
    return words <= known


def _change_since_rewrite(question: str, slots: DialogueSlots) -> Rewrite | None:
    """'And by what amount did it change since 2013?' after 'what was the price performance of pmi in 2014?': the
    last figure's subject in the one period the turn names, looked up now, and the change between the two in
    code (old to new, whichever the turn names). None when the turn names anything new or that period's
    figure was already answered (the remembered figures then serve)."""
    named = list(dict.fromkeys(p.norm for p in find_periods(question)))
    last = slots.last_values[-1] if slots.last_values else None
    if not named and last is not None and last.value.period and year_on_year(question):
        # 'how much did that grow y/y?': since the same period a year before
        with contextlib.suppress(ValueError):
            named = [shift_period(last.value.period, years=-1)]
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
    return _with_turn_basis(Rewrite(
        original=question,
        question=out.question,
        carried_over=out.carried_over,
        changed=out.changed or out.question != question,
        intent=intent,
        slots=new_slots,
        references=offline.references,
        operation=offline.operation,
        turn_operation=offline.turn_operation,
        source="llm",
    ), question, slots)
