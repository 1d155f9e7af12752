"""What an answer is made of: sub-answers, figures, the final answer, and how a figure is displayed (currency, scale,
rounding) so every stated number keeps its unit, scale, sign and period.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field, computed_field

from agent.answer.verify import Verification
from agent.finance import arithmetic
from agent.finance.arithmetic import CitedValue, Computation
from agent.finance.numbers import (
    CURRENCIES,
    SCALE_NAMES,
    SUBUNITS,
    currency_of,
    decimals_of,
    find_numbers,
    format_number,
    is_measure,
    nil_cell,
)
from agent.query.cues import metric_label, possessive
from agent.query.plan import SubQuery
from agent.schemas import Citation, NumericValue

NOT_FOUND = "Not found in the filings"  # how every honest miss starts, so people and evals can spot it


COMPUTED_CONFIDENCE_FLOOR = 0.5  # a computation is as sure as its least sure input, but never below this


ROUNDED_DECIMALS = {1e9: 1, 1e6: 0, 1e3: 0}  # how a converted figure is quoted: $4.6 billion, $303 million




class Passage(BaseModel):
    """A quoted evidence sentence with its citation (extractive answers)."""

    text: str
    citation: Citation


class Check(BaseModel):
    """One trust-gate check of a stated figure (:mod:`agent.answer.gate`): passed, or why not."""

    name: Literal["company", "period", "metric", "basis", "scope", "scale", "sanity", "form"]
    passed: bool
    detail: str = ""


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
    named: str = Field(
        default="", description="what the filing calls the figure: its row label and column header, when read so"
    )
    exact_label: bool = Field(
        default=False, description="the figure's row label is a name of the metric itself, not a partial match"
    )
    checks: list[Check] = Field(default_factory=list, description="the trust gate's checks of the figure")
    closest: str = Field(default="", description="a refused figure, with its own company and period")
    scope: list[str] = Field(default_factory=list, description="the parts the question narrows the figure to "
                             "('aerospace'), named wherever the answer says what the figure is")

    def cited_value(self) -> CitedValue | None:
        """The figure as a computation input (None when there is no figure)."""
        if self.value is None:
            return None
        label = " ".join(x for x in (self.company, self.metric, *self.scope, self.period) if x) or self.question
        return CitedValue(
            label=label, metric=self.metric, value=self.value, citation=self.citation, computed=self.status == "computed"
        )


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

    @computed_field  # type: ignore[prop-decorator]
    @property
    def confidence(self) -> float:
        """How sure the stated figures are: the least sure one's confidence; 0 when nothing was stated."""
        stated = [sa.confidence for sa in self.sub_answers if sa.status != "not_found"]
        return round(min(stated), 3) if stated else 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def checks(self) -> list[Check]:
        """Every trust-gate check of the sub-answers' figures, in sub-query order."""
        return [c for sa in self.sub_answers for c in sa.checks]

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
    misread: dict[str, str] = Field(
        default_factory=dict, description="sub-query id -> the combination its figure was not fit for (a share "
        "read for an amount): the figure is closest evidence, never stated"
    )


# ---------------------------------------------------------------------------------------------------------
# Display
# ---------------------------------------------------------------------------------------------------------
def as_stated(value: NumericValue) -> str:
    """A cell's figure as printed, with the unit and scale its table states around it: 'Change (%) | 50.7' is
    50.7%, '14,250' under "£'000" is £14,250 thousand, '38,295' of a table in GWh 38,295 GWh; a dash is nil."""
    shown = value.text.strip()
    if nil_cell(shown) is not None:
        return f"nil (printed '{shown}')"
    if value.unit == "%":
        return shown if "%" in shown else f"{shown}%"
    if value.unit in SUBUNITS:
        return f"{shown} {value.unit}"
    if value.unit in CURRENCIES and not currency_of(shown):
        shown = f"{CURRENCIES[value.unit]}{shown}"
    scaled = any(n.scale != 1.0 for n in find_numbers(shown))  # '1.2 million', '5k': the cell writes its own
    if value.scale in SCALE_NAMES and value.unit not in {"x", "bps"} and not scaled:
        shown = f"{shown} {SCALE_NAMES[value.scale]}"
    return f"{shown} {value.unit}" if is_measure(value.unit) else shown


def display_value(n: NumericValue, kind: str, target_scale: float | None = None) -> str:
    """A figure for people, converted to ``target_scale`` when the question asked for one, with the words the
    filing qualifies it by ('less than $300 million', 'approximately $120 million'); a range with both its ends
    ('1.74%–1.94%')."""
    shown = _display_figure(n, kind, target_scale)
    if n.high is not None:
        shown = f"{shown}\u2013{_display_figure(n.model_copy(update={'value': n.high, 'high': None}), kind, target_scale)}"
    return qualified(shown, n)


def qualified(shown: str, n: NumericValue) -> str:
    """``shown``, the figure ``n`` as displayed, after the words the filing qualifies it by ('less than')."""
    return f"{n.bound} {shown}" if n.bound else shown


def _display_figure(n: NumericValue, kind: str, target_scale: float | None) -> str:
    if kind in {"percent"} or n.unit in {"%", "bps", "x", "days"}:
        return arithmetic.display(n.value, n.unit or ("%" if kind == "percent" else ""), 1.0)
    if kind in {"ratio", "days"}:
        return arithmetic.display(n.value, "x" if kind == "ratio" else "days", 1.0)
    if kind == "per_share":  # in the currency the figure's table or sentence states; none invented
        return format_number(n.value, n.unit, 1.0, 2)
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
        return format_number(value, n.unit if n.unit == "shares" or is_measure(n.unit) else "", scale, decimals)
    exact = format_number(value, n.unit, scale, decimals)
    places = ROUNDED_DECIMALS.get(scale)
    if target_scale and scale == target_scale and places is not None and decimals > places:
        # Converted to the scale asked for: shown rounded the way analysts quote it, the digits the filing
        # reported kept beside it ('$4.6 billion ($4.625 billion)').
        rounded = format_number(round(value, places), n.unit, scale, places)
        if rounded != exact:
            return f"{rounded} ({exact})"
    return exact


def _subject(company: str, metric: str, period: str, parts: Sequence[str] = ()) -> str:
    """What a figure is: '<company>'s <metric> (<parts>) in <period>'."""
    who = f"{possessive(company)} " if company else ""
    of = f" ({', '.join(parts)})" if parts else ""
    when = f" in {period}" if period else ""
    return f"{who}{metric_label(metric)}{of}{when}"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _not_found(base: SubAnswer, what: str) -> SubAnswer:
    what = what.rstrip(" ?.")
    return base.model_copy(
        update={"status": "not_found", "missing": what, "confidence": 0.0, "answer": f"{NOT_FOUND}: {what}."}
    )


def _computed_answer(
    base: SubAnswer, comp: Computation, kind: str, target_scale: float | None, sureness: float
) -> SubAnswer:
    cites = comp.citations()
    labels = " ".join(dict.fromkeys(c.label() for c in cites))
    units = f", {comp.operand_units()}" if comp.operand_units() else ""
    shown = display_value(comp.result, kind, target_scale)
    period = comp.result.period or base.period
    sentence = (
        f"{_capital(_subject(base.company, base.metric, period, base.scope))} was {shown} "
        f"(computed: {comp.formula}{units}) {labels}."
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


def inputs_span(comp: Computation) -> str:
    """', from 24.60% in FY2021 to 21.61% in FY2022' for a change over two periods; '' for other arithmetic."""
    if comp.operation not in {"change", "percent_change"} or len(comp.inputs) != 2:
        return ""
    old, new = comp.inputs
    if not (old.value.period and new.value.period):
        return ""
    def shown(v: CitedValue) -> str:  # as the formula uses it: a spending row's '(228)' is spent, so 228
        return qualified(arithmetic.display(arithmetic.as_used(v), v.value.unit, v.value.scale), v.value)
    return f", from {shown(old)} in {old.value.period} to {shown(new)} in {new.value.period}"


def formula_operands(answer: SubAnswer) -> list[CitedValue]:
    """The figures a formula computed ``answer`` from, as read from the filing (a share or ratio of two items is
    the items'; computed operands are left out)."""
    return [i for c in answer.computations if c.operation == "derived" for i in c.all_inputs()
            if i.citation is not None and not i.computed]


def operand_read(answer: SubAnswer, operand: CitedValue) -> SubAnswer:
    """``answer`` as if ``operand`` had been read whole: the figure the gate checks the way it checks a read one."""
    assert operand.citation is not None
    return answer.model_copy(update={
        "status": "found", "metric": operand.metric, "value": operand.value, "citation": operand.citation,
        "citations": [operand.citation], "named": "", "quote": operand.citation.quote, "computations": [],
    })


def read_change(base: SubAnswer, sub_query: SubQuery, value: NumericValue, quote: str, citation: Citation,
                what: str, explanation: str, named: str | None = None) -> SubAnswer:
    """``base`` answered by a change the filing prints (a change column's cell, a sentence's rate) for the later
    lookup ``sub_query``: ``what`` it is, then the figure as printed, cited; ``named`` the words naming it, when
    they are not ``base``'s."""
    shown = as_stated(value)
    sentence = f"{what}: {shown}"
    return base.model_copy(update={**({} if named is None else {"named": named}),
        "status": "found",
        "answer": f"{sentence[0].upper()}{sentence[1:]} {citation.label()}.",
        "value": value,
        "display": shown,
        "quote": quote,
        "citation": citation,
        "citations": [citation],
        "period": sub_query.period,
        "period_stated": True,
        "confidence": 1.0,
        "checks": [],
        "missing": "",
        "closest": "",
        "explanation": explanation,
    })
