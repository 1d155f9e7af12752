"""Metric definitions and their formulas: a derived metric (margin, ratio, days, turnover, growth, sum,
difference) is a :class:`Formula` over other canonical metrics, computed in code, never by a model.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from pydantic import BaseModel, Field

from agent.errors import FinragError

DAYS_PER_YEAR = 365.0  # FinanceBench and most textbooks define DSO/DIO/DPO over a 365-day year


PERCENT = 100.0  # margins, growth and rates are quoted in percent


# ---------------------------------------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------------------------------------
class FormulaKind(StrEnum):
    RATIO = "ratio"  # sum(numerator) / sum(denominator) * multiplier
    MARGIN = "margin"  # a share of revenue, in percent
    DIFFERENCE = "difference"  # signed sum of terms, e.g. revenue - cost of sales
    SUM = "sum"  # signed sum of terms, e.g. operating income + D&A
    DAYS = "days"  # 365 * average balance / flow
    TURNOVER = "turnover"  # flow / average balance
    GROWTH = "growth"  # percent change of one metric against the prior period


class FormulaTerm(BaseModel):
    """One input of a formula: a canonical metric, its sign, and whether it is an opening/closing average."""

    metric: str
    sign: int = Field(default=1, description="+1 or -1")
    average: bool = Field(default=False, description="average of this and the prior period's balance")
    change: bool = Field(default=False, description="this period's balance minus the prior period's")

    def describe(self) -> str:
        """'average accounts payable', 'change in inventories', 'revenue'."""
        return f"average {self.metric}" if self.average else f"change in {self.metric}" if self.change else self.metric


class Formula(BaseModel):
    """How a derived metric is computed from other canonical metrics (evaluated in code, never by a model)."""

    kind: FormulaKind
    numerator: list[FormulaTerm]
    denominator: list[FormulaTerm] = Field(default_factory=list)
    multiplier: float = 1.0
    unit: str = Field(default="", description="% | x | days | USD")

    def describe(self) -> str:
        """Human-readable formula, e.g. '(current assets - inventories) / current liabilities'."""

        def side(terms: list[FormulaTerm]) -> str:
            parts: list[str] = []
            for i, t in enumerate(terms):
                name = t.describe()
                if i == 0:
                    parts.append(name if t.sign > 0 else f"-{name}")
                else:
                    parts.append(("+ " if t.sign > 0 else "- ") + name)
            text = " ".join(parts)
            return f"({text})" if len(terms) > 1 and self.denominator else text

        if self.kind is FormulaKind.GROWTH:
            return f"{self.numerator[0].metric} / prior-period {self.numerator[0].metric} - 1"
        body = side(self.numerator)
        if self.denominator:
            body = f"{body} / {side(self.denominator)}"
        if self.multiplier != 1.0:
            body = f"{self.multiplier:g} * {body}"
        return body

    def inputs(self) -> list[str]:
        """The canonical metrics this formula reads, in order, without duplicates."""
        return list(dict.fromkeys(t.metric for t in [*self.numerator, *self.denominator]))

    def needs_prior_period(self) -> bool:
        """True when the formula averages balances or measures growth, so the prior period is needed too."""
        return self.kind is FormulaKind.GROWTH or any(
            t.average or t.change for t in [*self.numerator, *self.denominator]
        )

    def same_as(self, other: Formula) -> bool:
        """True when both compute the same thing: equal multipliers and equal terms on each side, in any order."""

        def key(terms: list[FormulaTerm]) -> list[tuple[str, int, bool, bool]]:
            return sorted((t.metric, t.sign, t.average, t.change) for t in terms)

        return (
            abs(self.multiplier - other.multiplier) < 1e-9
            and key(self.numerator) == key(other.numerator)
            and key(self.denominator) == key(other.denominator)
        )

    def evaluate(
        self,
        values: Mapping[str, float],
        prior: Mapping[str, float] | None = None,
        definitions: Mapping[str, MetricDef] | None = None,
    ) -> float:
        """Compute the metric from component values (same scale throughout); derived inputs are computed too.

        ``values`` holds the period's values by canonical name; ``prior`` the prior period's, needed for
        averaged balances and growth; ``definitions`` (the metric table, :data:`agent.finance.metrics.METRICS`)
        supplies the formulas of derived inputs. Raises :class:`FinragError` naming the first missing input.
        """
        prior = prior or {}
        definitions = definitions or {}

        def value_of(metric: str, current: bool) -> float:
            source = values if current else prior
            if metric in source:
                return float(source[metric])
            info = definitions.get(metric)
            if info is not None and info.formula is not None and info.formula.kind is not FormulaKind.GROWTH:
                # A derived input (gross profit inside gross margin) is computed from the same period.
                formula = info.formula
                return (
                    formula.evaluate(values, prior, definitions)
                    if current
                    else formula.evaluate(prior, None, definitions)
                )
            label = "current-period" if current else "prior-period"
            raise FinragError(f"cannot compute: missing {label} value for '{metric}'")

        def term(t: FormulaTerm) -> float:
            value = value_of(t.metric, True)
            if t.average:
                value = (value + value_of(t.metric, False)) / 2.0
            elif t.change:
                value -= value_of(t.metric, False)
            return t.sign * value

        if self.kind is FormulaKind.GROWTH:
            metric = self.numerator[0].metric
            base = value_of(metric, False)
            if base == 0:
                raise FinragError(f"cannot compute growth of '{metric}': prior-period value is zero")
            return (value_of(metric, True) / base - 1.0) * self.multiplier
        top = sum(term(t) for t in self.numerator)
        if not self.denominator:
            return top * self.multiplier
        bottom = sum(term(t) for t in self.denominator)
        if bottom == 0:
            raise FinragError(f"cannot compute '{self.describe()}': denominator is zero")
        return top / bottom * self.multiplier


class MetricDef(BaseModel):
    """A canonical metric: the names filings and questions use, its topic and, if derived, its formula."""

    canonical: str
    topic: str
    synonyms: list[str] = Field(default_factory=list, description="phrases, matched case-insensitively")
    abbreviations: list[str] = Field(default_factory=list, description="SG&A, PP&E, EPS, ...")
    related: list[str] = Field(default_factory=list, description="close metrics that earn partial credit")
    formula: Formula | None = None
    kind: str = Field(default="metric", description="metric (an amount, a count, a rate) | statement (a financial "
                      "statement's name) | topic (a subject the filing describes in words: risk factors, litigation)")
    part_of: str = Field(default="", description="the company-wide metric this is of one part of (segment revenue "
                         "is a segment's revenue): a part's own table names it with the whole's words ('Net sales')")
    kinds: list[str] = Field(default_factory=list, description="synonyms that name a narrower figure ('senior notes' "
                             "of long-term debt): matched as the metric, but answered only by a figure naming them")

    @property
    def derived(self) -> bool:
        return self.formula is not None

    @property
    def described(self) -> bool:
        """A subject asked about in words, never a figure ('the risk factors', 'its products')."""
        return self.kind == "topic"


# ---------------------------------------------------------------------------------------------------------
# Formula shorthands (keep the table below readable)
# ---------------------------------------------------------------------------------------------------------
def _t(metric: str, sign: int = 1, average: bool = False) -> FormulaTerm:
    return FormulaTerm(metric=metric, sign=sign, average=average)


def _ratio(num: list[FormulaTerm], den: list[FormulaTerm], unit: str = "x", mult: float = 1.0) -> Formula:
    return Formula(kind=FormulaKind.RATIO, numerator=num, denominator=den, unit=unit, multiplier=mult)


def _margin(metric: str) -> Formula:
    return Formula(
        kind=FormulaKind.MARGIN,
        numerator=[_t(metric)],
        denominator=[_t("revenue")],
        multiplier=PERCENT,
        unit="%",
    )


def _diff(a: str, b: str) -> Formula:
    return Formula(kind=FormulaKind.DIFFERENCE, numerator=[_t(a), _t(b, -1)], unit="USD")


def _sum(*terms: FormulaTerm) -> Formula:
    return Formula(kind=FormulaKind.SUM, numerator=list(terms), unit="USD")


def _days(balance: str, flow: str) -> Formula:
    return Formula(
        kind=FormulaKind.DAYS,
        numerator=[_t(balance, average=True)],
        denominator=[_t(flow)],
        multiplier=DAYS_PER_YEAR,
        unit="days",
    )


def _turnover(flow: str, balance: str) -> Formula:
    return Formula(
        kind=FormulaKind.TURNOVER, numerator=[_t(flow)], denominator=[_t(balance, average=True)], unit="x"
    )


def _growth(metric: str) -> Formula:
    return Formula(kind=FormulaKind.GROWTH, numerator=[_t(metric)], multiplier=PERCENT, unit="%")


def _m(
    canonical: str,
    topic: str,
    synonyms: list[str],
    abbreviations: list[str] | None = None,
    related: list[str] | None = None,
    formula: Formula | None = None,
    kind: str = "metric",
    part_of: str = "",
) -> MetricDef:
    return MetricDef(
        canonical=canonical,
        topic=topic,
        synonyms=synonyms,
        abbreviations=abbreviations or [],
        related=related or [],
        formula=formula,
        kind=kind,
        part_of=part_of,
    )
