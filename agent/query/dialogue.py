"""Conversation records: a finished turn, the slots carried to follow-ups, a turn made self-contained, and how
the slots move on after an answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from agent.entities import EntityRegistry
from agent.finance.arithmetic import CitedValue, Computation
from agent.finance.periods import find_periods, without_periods
from agent.query.cues import chronological, intent_companies, subject_phrase
from agent.query.operations import asks_words
from agent.query.plan import QueryPlan
from agent.schemas import Basis, QueryIntent


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
    basis: list[Basis] = Field(default_factory=list, description="the bases the last turn asked its metrics on "
                               "(agent.finance.basis): a follow-up that inherits the metric inherits them")
    periods: list[str] = Field(default_factory=list, description="normalised periods, chronological")
    form: str = ""
    last_question: str = Field(default="", description="the last turn's rewritten question")
    last_sub_queries: list[str] = Field(
        default_factory=list, description="the last turn's sub-query questions"
    )
    last_values: list[CitedValue] = Field(
        default_factory=list, description="figures of recent answers, newest last"
    )
    answers: list[CitedValue] = Field(
        default_factory=list,
        description="the figure each recent turn answered with (its first computation, else its first figure), "
        "newest last: what 'the first', 'the second', 'this' and 'that' point at",
    )
    last_lookup: str = Field(
        default="", description="the last question that asked for one figure in one period ('and 2007 again?')"
    )
    last_computation: Computation | None = None
    subject: str = Field(
        default="", description="what the last figure question asked about, in the user's words ('rental expense')"
    )
    last_refused: bool = Field(
        default=False, description="the last turn stated no figure: a follow-up's 'that' has nothing to refer to"
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
    turn_operation: str = Field(
        default="",
        description="the arithmetic a follow-up's own words ask (share, ratio, change, percent_change, average, "
        "cagr), read once from the turn as typed: an answer that performs none of it answers less than was asked",
    )
    read_first: bool = Field(
        default=False,
        description="with one reference: the figure looked up now is the first operand ('X divided by that')",
    )
    source: Literal["offline", "llm"] = "offline"
    reason: str = Field(default="", description="why the offline twin answered, when a model was configured")
    unresolved: str = Field(
        default="", description="why the turn's reference to an earlier answer cannot be resolved (it gave no figure)"
    )
    standalone: Literal["", "small_talk", "definition"] = Field(
        default="",
        description="a turn that inherits nothing from the conversation: small talk or a generic definition",
    )


def slots_from_intent(intent: QueryIntent, known_companies: EntityRegistry | Sequence[str] = ()) -> DialogueSlots:
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
    # A turn asking for words ('what drove the change?') leaves the figures where they were: the next turn's 'that'
    # still points at the last figure answered.
    words = rewrite.standalone != "small_talk" and not values and not computations and asks_words(rewrite.original)
    asked = find_periods(rewrite.question)
    single = len(asked) == 1 and not rewrite.references
    new.last_lookup = rewrite.question if single and rewrite.standalone != "small_talk" else slots.last_lookup
    # Arithmetic on earlier answers names no new subject ('the change in the value from 2008 to 2009').
    asks_anew = rewrite.standalone != "small_talk" and not rewrite.references
    new.subject = (subject_phrase(rewrite.question) if asks_anew else "") or slots.subject
    # A period the turn wrote as a date is named in the answering filer's calendar ('the six months ended August 2,
    # 2025' is fiscal 2025's first half to a filer naming its years by the year they began): later turns count
    # from the period answered ('the same period last year').
    answered = {v.value.period for v in values if v.value.period}
    if (len(new.periods) == 1 and len(answered) == 1 and answered != set(new.periods)
            and any(p.date for p in asked)):
        new.periods = sorted(answered)
    remembered = [*slots.last_values, *values][-keep_values:]
    new.last_values = remembered
    if rewrite.standalone != "small_talk" and not words:
        headline = (
            CitedValue(label=" ".join(x for x in (computations[0].metric or _item_of(computations[0]),
                                                  computations[0].operation, computations[0].result.period) if x),
                       metric=computations[0].metric, value=computations[0].result, computed=True)
            if computations
            else (values[0] if values else None)
        )
        new.answers = [*slots.answers, headline][-keep_values:] if headline is not None else []
    # A computation stays the reference for 'as a %?' until another is made or the subject changes. Of a turn's
    # computations, 'that' is the one its answer leads with (the change, before the growth rate derived from it).
    same_subject = new.metrics == slots.metrics or not new.metrics
    new.last_computation = (
        computations[0] if computations else (slots.last_computation if same_subject else None)
    )
    if words:
        new.answers, new.last_refused = list(slots.answers), slots.last_refused
    elif rewrite.standalone != "small_talk":
        new.last_refused = not values and not computations
    return new


def _item_of(computation: Computation) -> str:
    """What a computation with no metric was computed for: the words its inputs' labels share, periods left out
    ('citi' of 'citi FY2012' and 'citi FY2017'), so that a later turn can name the result by it ('that citi one')."""
    labels = [without_periods(i.label).split() for i in computation.inputs]
    if not labels:
        return ""
    return " ".join(w for w in labels[0] if all(w in other for other in labels[1:]))
