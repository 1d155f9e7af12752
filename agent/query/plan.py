"""The plan a question is split into: minimal sub-queries (one company x metric x period each) and the
combinations computed in code over their answers.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Literal

from pydantic import BaseModel, Field

from agent.finance.arithmetic import formula_components
from agent.finance.metrics import METRICS
from agent.query.names import question_names
from agent.schemas import Basis, QueryIntent


class SubQuery(BaseModel):
    """One minimal, self-contained information need, with its own Query Intent and a stable id."""

    id: str = Field(description="stable: company, metric and period slugs, e.g. '3m:revenue:FY2022'")
    question: str
    company: str = ""
    metric: str = Field(default="", description="canonical metric; '' for non-numeric questions")
    period: str = Field(default="", description="normalised period; '' for the latest available")
    intent: QueryIntent = Field(default_factory=QueryIntent)
    operand_of: list[str] = Field(default_factory=list, description="the operations of the plan's combinations "
                                  "that take this figure ('share': it is a numerator or a denominator, an amount)")
    turn_names: list[str] = Field(default_factory=list, description="the proper names the turn it is split from "
                                  "uses: a company the turn names holds for every part of it, so no figure of a "
                                  "company it does not name answers one")

    @property
    def all_names(self) -> list[str]:
        """The proper names the lookup's own words and its turn's use, each once (the company checks read both)."""
        return list(dict.fromkeys([*self.intent.names, *self.turn_names]))

    def asking(self, operation: str) -> SubQuery:
        """The lookup asked for the result of ``operation`` (a change the filing prints is the lookup's own)."""
        return self.model_copy(update={"intent": self.intent.model_copy(update={"operations": [operation]})})


class Combination(BaseModel):
    """An arithmetic step over sub-query answers (or earlier steps), computed in code by the answer step."""

    id: str = Field(description="'c1', 'c2', ... in evaluation order")
    operation: Literal[
        "difference", "change", "percent_change", "cagr", "ratio", "share", "sum", "average", "highest", "lowest"
    ]
    operands: list[str] = Field(description="sub-query or combination ids; old before new for changes")
    metric: str = ""
    label: str = Field(default="", description="what the result is, for people")
    items: list[str] = Field(default_factory=list, description="each operand's name, where the operands are items "
                             "the question names and ranks ('Cloud Services', 'Devices')")
    by_size: bool = Field(default=False, description="a ranking compares sizes ('the larger loss'), not order")


class QueryPlan(BaseModel):
    """A question split into sub-queries plus the combinations that answer it."""

    question: str
    intent: QueryIntent = Field(default_factory=QueryIntent)
    sub_queries: list[SubQuery] = Field(default_factory=list)
    combinations: list[Combination] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="e.g. sub-queries dropped over the cap")
    source: Literal["offline", "llm"] = "offline"
    reason: str = ""

    def with_operands(self) -> QueryPlan:
        """The plan with each sub-query marked with the operations of the combinations that take its figure, and
        with the turn's total: a turn naming its figure a total ('the average total debt in 2018 and 2019') asks a
        total of each of its lookups of one metric, unless a lookup's own words place it ('Asia Pacific as a share of
        total net sales': the whole is the total, the part is one of its components); and with the names the turn
        uses."""
        taken: dict[str, list[str]] = {}
        for combo in self.combinations:
            for op in combo.operands:
                taken.setdefault(op, []).append(combo.operation)
        inherited = (self.intent.total and not any(sq.intent.total for sq in self.sub_queries)
                     and len({sq.metric for sq in self.sub_queries}) <= 1)
        # read off the turn itself, whoever filled its intent (a model's may leave the names out)
        turn_names = question_names(self.question)
        subs = [sq.model_copy(update={
            "operand_of": sorted(set(taken.get(sq.id, []))),
            "intent": _with_basis(sq.intent.model_copy(update={"total": True}) if inherited else sq.intent,
                                  [*self._turn_bases(), *self._component_bases(sq)]),
            "turn_names": turn_names,
        }) for sq in self.sub_queries]
        return self.model_copy(update={"sub_queries": subs})

    def _component_bases(self, sub_query: SubQuery) -> list[Basis]:
        """The bases said of a metric the lookup's formula computes it from ('the interest coverage ratio using
        adjusted EBIT as the numerator'): the lookup is asked on them too, never on the reported component."""
        components = set(formula_components(sub_query.metric)) if sub_query.metric in METRICS else set()
        return [b for sq in self.sub_queries if sq is not sub_query and sq.metric in components
                for b in sq.intent.wording.basis if b not in sub_query.intent.wording.basis]

    def one_change(self, operations: Collection[str]) -> tuple[str, SubQuery, SubQuery] | None:
        """(operation, earlier, later) when the plan's one combination is one of ``operations`` (a change, a
        percentage change) between two dated lookups; None otherwise."""
        if len(self.combinations) != 1:
            return None
        combo = self.combinations[0]
        if combo.operation not in operations or len(combo.operands) != 2:
            return None
        by_id = {sq.id: sq for sq in self.sub_queries}
        earlier, later = (by_id.get(op) for op in combo.operands)
        if earlier is None or later is None or not earlier.period or not later.period:
            return None
        return combo.operation, earlier, later

    def _turn_bases(self) -> list[Basis]:
        """The bases the turn asks that none of its lookups' own words carry: said of the whole turn ('revenue
        growth at constant currency'), not of one metric's name ('adjusted EBITDA and net income'), they hold for
        each lookup."""
        return [b for b in self.intent.wording.basis
                if not any(b in sq.intent.wording.basis for sq in self.sub_queries)]


def _with_basis(intent: QueryIntent, bases: list[Basis]) -> QueryIntent:
    """``intent`` asking ``bases`` too, and searching by their names."""
    if not bases or not intent.metrics and not intent.requires_numeric:
        return intent
    wording = intent.wording.model_copy(update={"basis": list(dict.fromkeys([*intent.wording.basis, *bases]))})
    # retrieval ranks by the lookup's search words: the basis is among them, as the figure's row may print it
    search = " ".join([intent.search, *(b.value for b in bases)]).strip()
    return intent.model_copy(update={"wording": wording, "search": search})
