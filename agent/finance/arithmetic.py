"""Finance arithmetic in code, never by a language model: every result is a :class:`Computation`.

Each operation keeps unit, scale, sign and period, writes its formula as text ("875 - 437 = 438") and carries
its inputs with their citations, so the answer can show where every figure came from and the verifier can
accept a computed figure that appears in no filing. Operations refuse with :class:`ArithmeticRefusal` (one
clear reason) when inputs cannot be combined honestly: different currencies, money against percentages, a
zero base, a negative start for CAGR. Scales of the same unit are converted exactly (thousands to millions).

Sign conventions of filings are handled explicitly. Cash outflows (capital expenditure, dividends paid,
repurchases) are printed in parentheses in cash-flow statements, so ``(437)`` parses as -437; a formula such
as free cash flow = cash from operations - capital expenditure needs the outflow's magnitude, 875 - 437 = 438,
not 875 - (-437). Those metrics are read as magnitudes and the explanation says so.

Derived metrics (margins, ratios, days, turnover, growth) follow the formulas of :mod:`agent.finance.lexicon`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence

from pydantic import BaseModel, Field

from agent.errors import FinragError
from agent.finance.formulas import Formula, FormulaKind, FormulaTerm
from agent.finance.lexicon import metric_info
from agent.finance.metrics import METRICS
from agent.finance.numbers import (
    CURRENCIES,
    MONEY_UNITS,
    SCALE_NAMES,
    decimals_of,
    find_numbers,
    format_number,
)
from agent.finance.periods import granularity, period_year, quarters_of
from agent.schemas import Citation, NumericValue

# Metrics whose figures are amounts spent or written off: filings print them as negatives (cash-flow outflows, the
# contra-assets 'Less accumulated depreciation', 'Allowance for doubtful accounts') or positives (expense lines) depending on the statement; every
# formula means the amount itself, so the magnitude is used.
SPENDING_METRICS: frozenset[str] = frozenset(
    {
        "capital expenditure",
        "dividends paid",
        "share repurchases",
        "debt repayment",
        "acquisitions",
        "cost of goods sold",
        "operating expenses",
        "selling general and administrative expense",
        "general and administrative expense",
        "sales and marketing expense",
        "research and development expense",
        "interest expense",
        "depreciation and amortization",
        "depreciation",
        "accumulated depreciation",
        "allowance for credit losses",
        "amortization of intangible assets",
        "restructuring costs",
    }
)
UNSCALED_UNITS: frozenset[str] = frozenset({"%", "bps", "x", "days"})
PERCENT = 100.0  # percentages are stored as percent (12.5), never as fractions (0.125)
# Display precision of results (the value itself keeps full precision; the verifier rounds to what is shown).
PERCENT_DECIMALS = 2  # two decimals: -12.14%, not -12.1% (benchmarks and filings quote growth to hundredths)
RATIO_DECIMALS = 2  # ratios and turnover are quoted to two decimals
RATIO_SIGNIFICANT_DIGITS = 3  # a ratio below one is shown to three significant digits (0.0939x)
DAYS_DECIMALS = 1  # DSO / DIO / DPO are quoted to one decimal
FORMULA_DECIMALS = 2  # operands shown in a formula (the arithmetic itself keeps full precision)
FORMULA_DECIMALS_SMALL = 4  # operands below 1 (fractions, per-share cents) need more places to be readable
MONEY_DECIMALS_MAX = 2  # sums of rounded table figures need no more than cents of the stated scale


class ArithmeticRefusal(FinragError):
    """Inputs that cannot be combined without guessing (units, zero or negative bases, missing components)."""


class CitedValue(BaseModel):
    """A figure used in a computation: what it measures, the number as read, and where it came from."""

    label: str = Field(description="what the figure is, e.g. 'capital expenditure FY2024'")
    metric: str = Field(default="", description="canonical metric name, when known")
    value: NumericValue
    citation: Citation | None = None
    computed: bool = Field(
        default=False, description="the result of an earlier computation, not a reported figure"
    )


class Computation(BaseModel):
    """One code-computed figure: operation, cited inputs, the formula as text and the result."""

    operation: str = Field(
        description="change | percent_change | cagr | ratio | margin | average | sum | "
        "difference | share | derived"
    )
    metric: str = Field(default="", description="the metric the result measures, e.g. 'free cash flow'")
    inputs: list[CitedValue]
    formula: str = Field(description="the arithmetic as written for people, e.g. '875 - 437 = 438'")
    result: NumericValue
    explanation: str = ""
    steps: list[Computation] = Field(default_factory=list, description="sub-computations of derived inputs")
    item: str = Field(default="", description="highest | lowest of items of one period: the item ranking first "
                      "(a row's label, 'Americas'); '' when periods were compared")

    def all_inputs(self) -> Iterator[CitedValue]:
        """Every input, then every input of each sub-computation, in order."""
        yield from self.inputs
        for step in self.steps:
            yield from step.all_inputs()

    def citations(self) -> list[Citation]:
        """Every input citation, including those of sub-computations, without duplicates."""
        seen: dict[tuple[str, int, str], Citation] = {}  # two rows of one page are two sources
        for step in self.steps:
            for c in step.citations():
                seen.setdefault((c.doc, c.page, c.quote), c)
        for i in self.inputs:
            if i.citation is not None:
                seen.setdefault((i.citation.doc, i.citation.page, i.citation.quote), i.citation)
        return list(seen.values())

    def operand_units(self) -> str:
        """The currency and scale the formula's operands are written in ('$ in millions'), when every reported
        operand shares one; '' otherwise (the result carries its own unit and scale)."""
        units = {(i.value.unit, i.value.scale) for i in self.inputs if not i.computed}
        if len(units) != 1:
            return ""
        unit, scale = units.pop()
        symbol = CURRENCIES.get(unit, "").strip()
        name = SCALE_NAMES.get(scale, "")
        return f"{symbol} in {name}s" if symbol and name else ""

    def all_results(self) -> list[NumericValue]:
        """This result and the results of every sub-computation (what the verifier may accept)."""
        out = [self.result]
        for step in self.steps:
            out.extend(step.all_results())
        return out


# ---------------------------------------------------------------------------------------------------------
# Units and scales
# ---------------------------------------------------------------------------------------------------------
def _unit_kind(unit: str) -> str:
    if unit in MONEY_UNITS:
        return "money"
    return unit or "plain"


def _common_unit(values: Sequence[CitedValue], operation: str) -> str:
    """The unit shared by ``values`` for an additive operation; refuse mixes that would need a guess.

    A plain number ('') adopts the unit of the others: tables print '$' on the first and total rows only, so
    '2,695' under '$4,812' in an '(in millions)' table is dollars. Percentages never mix with other units.
    """
    units = {v.value.unit for v in values}
    named = units - {""}
    if len(named) > 1:
        listing = ", ".join(f"{v.label}: {v.value.unit or 'plain number'}" for v in values)
        raise ArithmeticRefusal(f"cannot {operation} figures in different units ({listing})")
    unit = next(iter(named), "")
    if "" in units and unit in {"%", "bps"}:
        raise ArithmeticRefusal(f"cannot {operation} a percentage with a plain number")
    return unit


def _common_scale(values: Sequence[CitedValue]) -> float:
    """The largest stated scale among the inputs: results read in millions rather than thousands. Every
    computation passes here, so here one reported cell used twice, and a limit read as a figure, are refused."""
    _distinct_cells(values)
    _figures_not_limits(values)
    return max((v.value.scale or 1.0) for v in values)


def _figures_not_limits(values: Sequence[CitedValue]) -> None:
    """Refuse an input the filing gives only as a limit ('less than $300 million'), or prints with more digits than
    a number holds: any arithmetic on it would state a figure the filing never gives."""
    unreadable = next((v for v in values if not v.value.readable), None)
    if unreadable is not None:
        raise ArithmeticRefusal(f"{unreadable.label} is printed with more digits than a number can hold")
    limit = next((v for v in values if v.value.is_bound), None)
    if limit is not None:
        raise ArithmeticRefusal(
            f"{limit.label} is given only as a limit ({limit.value.bound} {limit.value.text}"
            f"{f' {limit.citation.label()}' if limit.citation else ''}), no figure to compute with"
        )


def reported_cell(v: CitedValue) -> tuple[str, int, str, int] | None:
    """Where a reported figure was read (document, page, quote, offset); None for a computed or unlocated one."""
    if v.computed or v.citation is None or v.value.start < 0:
        return None
    return v.citation.doc, v.citation.page, v.citation.quote, v.value.start


TIE_DIGITS = 4  # two periods printing the same 4+ significant digits is a misread period, not a coincidence


def significant_digits(text: str) -> int:
    """Digits that carry information in a printed figure ('16,026' -> 5, '2.6' -> 2, '1,200' -> 2)."""
    return len(re.sub(r"\D", "", text).strip("0"))


def period_tie(a: CitedValue, b: CitedValue) -> bool:
    """Two reported figures of one metric for different periods, printed with the same many digits but read from
    different places: one of them was read for the wrong period ('net income 16,026' for 2018 and 2019). Two
    figures of one row or sentence, each under its own period ('Share capital | 4,127 | 4,127'), print a true tie."""
    return (
        not a.computed
        and not b.computed
        and a.metric == b.metric
        and bool(a.value.period)
        and bool(b.value.period)
        and a.value.period != b.value.period
        and a.value.value == b.value.value
        and significant_digits(a.value.text) >= TIE_DIGITS
        and not _one_line(a, b)
    )


def _one_line(a: CitedValue, b: CitedValue) -> bool:
    """Both figures were read at two places of one quoted row or sentence of one page."""
    at, bt = reported_cell(a), reported_cell(b)
    return at is not None and bt is not None and at[:3] == bt[:3] and at != bt


def _distinct_cells(values: Sequence[CitedValue]) -> None:
    """Refuse operands that are one reported cell read twice (same quote, same place): two periods or two
    metrics that resolved to one figure mean one of them was not found, and '83,656 / 83,656 = 1.00x' or a
    change of 0 would be a wrong number."""
    seen: dict[tuple[str, int, str, int], CitedValue] = {}
    for v in values:
        key = reported_cell(v)
        if key is None:
            continue
        if key in seen:
            raise ArithmeticRefusal(
                f"{seen[key].label} and {v.label} were both read from the same figure ({v.value.text} "
                f"{v.citation.label()}); one of them is not in the evidence"
            )
        tie = next((w for w in seen.values() if period_tie(w, v)), None)
        if tie is not None:
            raise ArithmeticRefusal(
                f"{tie.label} and {v.label} are both {v.value.text}, read from different places; such an exact tie "
                "across periods means one of them was read for the wrong period"
            )
        seen[key] = v


def _in_scale(v: CitedValue, scale: float) -> float:
    if v.value.unit in UNSCALED_UNITS:
        return v.value.value  # a margin, multiple or day count is the same number in any money scale
    return v.value.value * (v.value.scale or 1.0) / scale


# Expenses whose sign carries meaning (a tax benefit, net interest income) but that a statement may print as a
# deduction: the row's own words say which ('Provision for income taxes | (411)' under 'Income before income
# taxes | 1,797' is an expense of 411; '(Benefit from) provision for income taxes | (45)' is a benefit).
DEDUCTION_ROWS: dict[str, re.Pattern[str]] = {
    "income tax expense": re.compile(r"\bbenefit", re.IGNORECASE),
    "interest expense": re.compile(r"\bbenefit|\bincome\b", re.IGNORECASE),
}


def _is_spending(v: CitedValue) -> bool:
    if v.metric in SPENDING_METRICS:
        return True
    other_sign = DEDUCTION_ROWS.get(v.metric)
    if other_sign is None or v.value.value >= 0 or v.citation is None or "|" not in v.citation.quote:
        return False
    label, cells = v.citation.quote.split("|", 1)
    if len({n.value < 0 for n in find_numbers(cells) if n.value}) > 1:
        return False  # 'Federal | 3 | (13) | 26' under 'Deferred tax expense (benefit)': the sign flips, so it means
    return not other_sign.search(label)  # the table row names an expense only


def _magnitude_note(values: Sequence[CitedValue]) -> str:
    flipped = [v for v in values if _is_spending(v) and v.value.value < 0]
    if not flipped:
        return ""
    names = "; ".join(f"{v.label} is reported as {v.value.text}" for v in flipped)
    return f"{names}, a cash outflow or expense shown as a negative; its magnitude is used."


def _operand(v: CitedValue, scale: float) -> float:
    """The value used in arithmetic: in the common scale, as a magnitude for spending metrics."""
    x = _in_scale(v, scale)
    return abs(x) if _is_spending(v) else x


def as_used(v: CitedValue) -> float:
    """The value as arithmetic uses it, in its own scale: a spending metric's '(228)' is 228."""
    return _operand(v, v.value.scale or 1.0)


# ---------------------------------------------------------------------------------------------------------
# Formatting
# ---------------------------------------------------------------------------------------------------------
def _num(x: float) -> str:
    """A number inside a formula: thousands separators, no float noise, parentheses for negatives."""
    if math.isclose(x, round(x), abs_tol=1e-9):
        body = f"{abs(round(x)):,}"
    else:
        places = FORMULA_DECIMALS if abs(x) >= 1 else FORMULA_DECIMALS_SMALL
        body = f"{abs(x):,.{places}f}".rstrip("0").rstrip(".")
    return f"({body})" if x < 0 else body


def _decimals(unit: str, value: float) -> int:
    if unit == "%":
        return PERCENT_DECIMALS
    if unit == "days":
        return DAYS_DECIMALS
    if unit == "" and float(value).is_integer():
        return 0  # a difference of plain whole figures (counts, amounts of a table that states no unit): '19'
    if unit in {"x", ""}:
        if 0 < abs(value) < 1:  # 0.0939x, not 0.09x: a small ratio keeps its significant digits
            return max(RATIO_DECIMALS, RATIO_SIGNIFICANT_DIGITS - 1 - math.floor(math.log10(abs(value))))
        return RATIO_DECIMALS
    return _amount_decimals(value)


def _amount_decimals(value: float) -> int:
    """An amount shows the decimals it has (none for a whole number), at most MONEY_DECIMALS_MAX."""
    if float(value).is_integer():
        return 0
    return min(MONEY_DECIMALS_MAX, max(1, len(f"{value:.6f}".rstrip("0").split(".")[1])))


def display(value: float, unit: str, scale: float = 1.0, written: int = 0) -> str:
    """A result as people read it: '$438 million', '44.0%', '1.35x', '51.9 days'; an amount shows at least the
    ``written`` decimals of its inputs ('$3.00' less '$2.30' is '$0.70')."""
    decimals = _decimals(unit, value)
    if unit in MONEY_UNITS:
        decimals = max(decimals, min(written, MONEY_DECIMALS_MAX))
    if unit == "days":
        return f"{format_number(value, '', 1.0, decimals)} days"
    if unit == "" and scale > 1.0:
        # an amount in a stated scale ('(in millions)') from a table that names no currency: '84 million', never
        # a bare '84.00' that reads as a ratio and loses the scale
        return format_number(value, "", scale, _amount_decimals(value))
    if unit == "":
        return format_number(value, "", 1.0, decimals)
    return format_number(value, unit, scale, decimals)


def _result(value: float, unit: str, scale: float, period: str, inputs: Sequence[CitedValue]) -> NumericValue:
    """A computed figure; approximate when any of its ``inputs`` is ('approximately $120 million')."""
    if not math.isfinite(value):
        raise ArithmeticRefusal("the result is not a finite number")
    bound = "approximately" if any(v.value.is_approximate for v in inputs) else ""
    same_scale = {v.value.scale or 1.0 for v in inputs} == {scale}
    written = max((decimals_of(v.value.text) for v in inputs), default=0) if same_scale else 0
    return NumericValue(text=display(value, unit, scale, written), value=value, scale=scale, unit=unit, period=period,
                        bound=bound)


def _period_span(values: Sequence[CitedValue]) -> str:
    periods = list(dict.fromkeys(v.value.period for v in values if v.value.period))
    if not periods:
        return ""
    return periods[0] if len(periods) == 1 else f"{periods[0]} to {periods[-1]}"


# ---------------------------------------------------------------------------------------------------------
# Basic operations
# ---------------------------------------------------------------------------------------------------------
def difference(a: CitedValue, b: CitedValue, metric: str = "") -> Computation:
    """``a - b`` in a common unit and scale (e.g. one company's revenue minus another's)."""
    unit = _common_unit([a, b], "subtract")
    scale = _common_scale([a, b])
    x, y = _operand(a, scale), _operand(b, scale)
    r = x - y
    note = _magnitude_note([a, b])
    if unit == "%":
        note = (note + " " if note else "") + "A difference of percentages is in percentage points."
    return Computation(
        operation="difference",
        metric=metric,
        inputs=[a, b],
        formula=f"{_num(x)} - {_num(y)} = {_num(r)}",
        result=_result(r, unit, scale, _period_span([a, b]), [a, b]),
        explanation=note.strip(),
    )


def _same_span(values: Sequence[CitedValue], operation: str) -> None:
    """Refuse a change or an average over figures of spans of different lengths: a half year or nine months (never
    a point in time) beside a quarter or a year is no movement of one figure ('474,520' for FY2025H1 against
    '241,660' for FY2025Q2), and their mean measures nothing."""
    dated = [v for v in values if v.value.period]
    spans = {granularity(v.value.period) for v in dated}
    if len(spans) > 1 and {"half", "nine_months"} & spans:
        listing = ", ".join(f"{v.label} ({v.value.period})" for v in dated)
        raise ArithmeticRefusal(f"cannot {operation} {listing}: they cover spans of different lengths")


def change(old: CitedValue, new: CitedValue, metric: str = "") -> Computation:
    """The change from ``old`` to ``new`` (new - old), e.g. FY2023 to FY2024."""
    _same_span([old, new], "compare")
    comp = difference(new, old, metric)
    comp.operation = "change"
    comp.inputs = [old, new]
    comp.result.period = _period_span([old, new])
    return comp


def percent_change(old: CitedValue, new: CitedValue, metric: str = "") -> Computation:
    """Growth from ``old`` to ``new`` in percent: (new - old) / |old| x 100; when both are negative (a deduction,
    an allowance or a loss printed in parentheses both years) the growth of their size, (|new| - |old|) / |old|."""
    _same_span([old, new], "compare")
    _common_unit([old, new], "compare")
    scale = _common_scale([old, new])
    x, y = _operand(old, scale), _operand(new, scale)
    if x == 0:
        raise ArithmeticRefusal(f"cannot compute a percent change: {old.label} is zero")
    note = _magnitude_note([old, new])
    if x < 0 and y < 0:
        # A valuation allowance of (15,916) then (19,911) grew by a quarter; (new - old) / |old| would say -25%.
        x, y = -x, -y
        note = " ".join([note, "Both figures are negative as printed; the percent change is of their size."]).strip()
    r = (y - x) / abs(x) * PERCENT
    result = _result(r, "%", 1.0, _period_span([old, new]), [old, new])
    return Computation(
        operation="percent_change",
        metric=metric,
        inputs=[old, new],
        formula=f"({_num(y)} - {_num(x)}) / {_num(abs(x))} × 100 = {result.text}",
        result=result,
        explanation=note,
    )


def cagr(start: CitedValue, end: CitedValue, years: float, metric: str = "") -> Computation:
    """Compound annual growth rate in percent: ((end / start) ** (1 / years) - 1) x 100."""
    _common_unit([start, end], "compare")
    scale = _common_scale([start, end])
    x, y = _operand(start, scale), _operand(end, scale)
    if years <= 0:
        raise ArithmeticRefusal("CAGR needs a positive number of years between the two periods")
    if x <= 0 or y <= 0:
        raise ArithmeticRefusal("CAGR is undefined when the start or end value is zero or negative")
    r = ((y / x) ** (1.0 / years) - 1.0) * PERCENT
    result = _result(r, "%", 1.0, _period_span([start, end]), [start, end])
    return Computation(
        operation="cagr",
        metric=metric,
        inputs=[start, end],
        formula=f"(({_num(y)} / {_num(x)}) ^ (1 / {years:g}) - 1) × 100 = {result.text}",
        result=result,
        explanation=_magnitude_note([start, end]),
    )


def ratio(
    numerator: CitedValue, denominator: CitedValue, metric: str = "", as_percent: bool = False
) -> Computation:
    """``numerator / denominator`` (as a multiple, or in percent with ``as_percent``), scales made equal."""
    units = {_unit_kind(numerator.value.unit), _unit_kind(denominator.value.unit)}
    if "%" in units and units != {"%"}:
        raise ArithmeticRefusal("cannot divide a percentage by an amount (or an amount by a percentage)")
    if {
        numerator.value.unit,
        denominator.value.unit,
    } <= MONEY_UNITS and numerator.value.unit != denominator.value.unit:
        raise ArithmeticRefusal(
            f"cannot divide {numerator.value.unit} by {denominator.value.unit} without an exchange rate"
        )
    scale = _common_scale([numerator, denominator])
    x, y = _operand(numerator, scale), _operand(denominator, scale)
    if y == 0:
        raise ArithmeticRefusal(f"cannot divide by zero: {denominator.label} is zero")
    r = x / y * (PERCENT if as_percent else 1.0)
    unit = "%" if as_percent else "x"
    result = _result(r, unit, 1.0, _period_span([numerator, denominator]), [numerator, denominator])
    tail = " × 100" if as_percent else ""
    return Computation(
        operation="ratio",
        metric=metric,
        inputs=[numerator, denominator],
        formula=f"{_num(x)} / {_num(y)}{tail} = {result.text}",
        result=result,
        explanation=_magnitude_note([numerator, denominator]),
    )


def margin(part: CitedValue, revenue: CitedValue, metric: str = "") -> Computation:
    """``part`` as a percentage of revenue (gross, operating, net margin)."""
    comp = ratio(part, revenue, metric, as_percent=True)
    comp.operation = "margin"
    return comp


def share_of_total(part: CitedValue, total: CitedValue, metric: str = "") -> Computation:
    """``part`` as a percentage of ``total`` (a segment's share of revenue, capex as % of revenue)."""
    comp = ratio(part, total, metric, as_percent=True)
    comp.operation = "share"
    return comp


def total(values: Sequence[CitedValue], metric: str = "") -> Computation:
    """The sum of ``values`` in a common unit and scale."""
    if not values:
        raise ArithmeticRefusal("nothing to add up")
    unit = _common_unit(values, "add")
    scale = _common_scale(values)
    xs = [_operand(v, scale) for v in values]
    r = sum(xs)
    return Computation(
        operation="sum",
        metric=metric,
        inputs=list(values),
        formula=" + ".join(_num(x) for x in xs) + f" = {_num(r)}",
        result=_result(r, unit, scale, _period_span(values), values),
        explanation=_magnitude_note(values),
    )


def average(values: Sequence[CitedValue], metric: str = "") -> Computation:
    """The arithmetic mean of ``values`` (e.g. a three-year average margin)."""
    if not values:
        raise ArithmeticRefusal("nothing to average")
    _same_span(values, "average")
    unit = _common_unit(values, "average")
    scale = _common_scale(values)
    xs = [_operand(v, scale) for v in values]
    r = sum(xs) / len(xs)
    result = _result(r, unit, scale, _period_span(values), values)
    return Computation(
        operation="average",
        metric=metric,
        inputs=list(values),
        formula=f"({' + '.join(_num(x) for x in xs)}) / {len(xs)} = {result.text}",
        result=result,
        explanation=_magnitude_note(values),
    )


def extreme(values: Sequence[CitedValue], lowest: bool = False, metric: str = "", by_size: bool = False,
            signed_order: bool = True) -> Computation:
    """The value (and so the period, or the item when all are of one period) that is highest, or ``lowest``,
    among ``values`` in a common unit and scale ('in which year was X the largest?', 'which region had the
    highest revenue?'); a tie has no answer. ``by_size``: the question compares sizes ('larger', 'smallest'), so
    figures that are all negative (losses, outflows, falls) are compared by their size: the larger loss is -4.2,
    not -1.5. Without ``signed_order``, figures that are all negative are not ranked by order either: which
    item 'used the most cash' or had 'the highest' outflow is the larger in size to one reader and the less
    negative to another."""
    if len(values) < 2:
        raise ArithmeticRefusal("a comparison needs at least two values")
    if not by_size and not signed_order and all(v.value.value < 0 for v in values):
        raise ArithmeticRefusal("every figure is negative, so the highest may mean the largest in size or the "
                                "least negative; ask for the larger or the smaller")
    unit = _common_unit(values, "compare")
    scale = _common_scale(values)
    xs = [_operand(v, scale) for v in values]
    sized = by_size and all(x < 0 for x in xs)
    keys = [abs(x) if sized else x for x in xs]
    best_key = min(keys) if lowest else max(keys)
    if keys.count(best_key) > 1:
        raise ArithmeticRefusal("two values are the same")
    winner = values[keys.index(best_key)]
    best = xs[keys.index(best_key)]
    by_item = len({v.value.period for v in values}) == 1

    def name(v: CitedValue) -> str:
        return v.label if by_item else v.value.period or v.label

    others = " ".join(f"{'>' if not lowest else '<'} {name(v)} {_num(x)}"
                      for v, x, _ in sorted(zip(values, xs, keys, strict=True), key=lambda p: p[2], reverse=not lowest)
                      if v is not winner) + (" in size" if sized else "")
    return Computation(
        operation="lowest" if lowest else "highest",
        metric=metric,
        inputs=list(values),
        formula=f"{name(winner)} {_num(best)} {others}",
        item=winner.label if by_item else "",
        result=_result(best, unit, scale, winner.value.period, [winner]),
        explanation=_magnitude_note(values),
    )


COMPARISON_WORDS = {">": "above", ">=": "at least", "<": "below", "<=": "at most"}


def meeting(values: Sequence[CitedValue], bound: NumericValue, comparison: str, metric: str = "") -> Computation:
    """The periods among ``values`` whose figure is ``comparison`` ('>', '>=', '<', '<=') ``bound`` ('how many
    years did X exceed $3,000 thousand?', 'in which year was X negative?'); the result is how many do.

    The bound is compared in absolute terms when the values state their scale; a table that states none is read
    in the scale the question writes (the question's author read that table), and the answer says so.
    """
    if len(values) < 2:
        raise ArithmeticRefusal("a threshold over periods needs at least two periods")
    if comparison not in COMPARISON_WORDS:
        raise ArithmeticRefusal(f"unknown comparison {comparison!r}")
    _figures_not_limits(values)
    units = {v.value.unit for v in values} - {""}
    if bound.unit == "%" and units != {"%"} or bound.unit != "%" and "%" in units or len(units) > 1:
        raise ArithmeticRefusal("the threshold and the figures are in different units")
    unscaled = all((v.value.scale or 1.0) == 1.0 for v in values) and (bound.scale or 1.0) > 1.0
    limit = bound.value if unscaled or bound.unit == "%" else bound.value * (bound.scale or 1.0)
    def level(v: CitedValue) -> float:
        return v.value.value if unscaled or bound.unit == "%" else v.value.value * (v.value.scale or 1.0)
    test = {">": limit.__lt__, ">=": limit.__le__, "<": limit.__gt__, "<=": limit.__ge__}[comparison]
    passed = [v for v in values if test(level(v))]
    negation = {">": "<=", ">=": "<", "<": ">=", "<=": ">"}[comparison]
    formula = "; ".join(
        f"{v.value.period or v.label} {v.value.text.strip()} {comparison if v in passed else negation} "
        f"{bound.text.strip()}" for v in values
    )
    note = (f"The table states no scale; its figures are read in the question's ({bound.text.strip()})."
            if unscaled else "")
    def named(v: CitedValue) -> str:
        return re.sub(r"^FY(\d{4})$", r"\1", v.value.period) or v.label  # 'in which year': 2019, as asked
    listing = " and ".join(named(v) for v in passed) if passed else "none"
    # Which, then how many: both ways it is asked; no parentheses, which a financial reader takes for a negative.
    text = f"{listing}: {len(passed)} of {len(values)}, {_period_span(values)}"
    result = NumericValue(text=text, value=float(len(passed)), unit="", scale=1.0, period=_period_span(values))
    return Computation(operation="threshold", metric=metric, inputs=list(values), formula=formula, result=result,
                       explanation=note)


# ---------------------------------------------------------------------------------------------------------
# Derived metrics from the lexicon's formulas
# ---------------------------------------------------------------------------------------------------------
class _Side(BaseModel):
    value: float
    text: str
    inputs: list[CitedValue]
    steps: list[Computation]


def derive(
    metric: str,
    values: Mapping[str, CitedValue],
    prior: Mapping[str, CitedValue] | None = None,
    period: str = "",
    formulas: Mapping[str, Formula] | None = None,
) -> Computation:
    """Compute a derived metric (gross margin, FCF, current ratio, DSO, ROE ...) from cited components.

    ``values`` holds the period's component figures by canonical metric name; ``prior`` the prior period's,
    needed for averaged balances (ROA, ROE, DSO, inventory turnover) and growth. A component that is itself
    derived (gross profit inside gross margin) is computed first when it is not given, and kept as a step.
    When ``prior`` lacks an averaged balance the period-end balance is used and the explanation says so.
    ``formulas`` replaces the lexicon's formula of any metric involved (a definition the question writes).
    Raises :class:`ArithmeticRefusal` naming the missing component.
    """
    info = metric_info(metric)
    formulas = formulas or {}
    formula = formula_of(info.canonical, formulas)
    if formula is None:
        raise ArithmeticRefusal(f"'{info.canonical}' is a reported figure, not a derived metric")
    return _derive(info.canonical, formula, values, prior or {}, period, formulas)


def formula_of(metric: str, formulas: Mapping[str, Formula] | None = None) -> Formula | None:
    """The formula a metric is computed by: the one given in ``formulas`` (the question's), else the lexicon's."""
    if formulas and metric in formulas:
        return formulas[metric]
    info = METRICS.get(metric)
    return info.formula if info is not None else None


def formula_components(metric: str, formulas: Mapping[str, Formula] | None = None) -> list[str]:
    """Every metric ``metric`` is computed from, through its inputs' formulas too (``formulas`` first)."""
    out: dict[str, None] = {}
    todo = [metric]
    while todo:
        formula = formula_of(todo.pop(), formulas)
        for name in formula.inputs() if formula is not None else ():
            if name != metric and name not in out:
                out[name] = None
                todo.append(name)
    return list(out)


def _derive(
    name: str,
    formula: Formula,
    values: Mapping[str, CitedValue],
    prior: Mapping[str, CitedValue],
    period: str,
    formulas: Mapping[str, Formula],
) -> Computation:
    if formula.kind is FormulaKind.GROWTH:
        base = formula.numerator[0].metric
        old, new = (
            _component(base, prior, {}, "prior-period", formulas),
            _component(base, values, prior, "current-period", formulas),
        )
        comp = _as_input_growth(name, old, new)
        return comp
    notes: list[str] = []
    all_values = [*values.values(), *prior.values()]
    money = _common_money(all_values)
    scale = _common_scale(all_values) if all_values else 1.0
    top = _side(formula.numerator, values, prior, scale, notes, formulas)
    if formula.denominator:
        bottom = _side(formula.denominator, values, prior, scale, notes, formulas)
        if bottom.value == 0:
            raise ArithmeticRefusal(f"cannot compute {name}: the denominator ({formula.describe()}) is zero")
        raw = top.value / bottom.value * formula.multiplier
        unit = _formula_unit(formula, money)
        out_scale = 1.0 if unit in {"%", "x", "days", ""} else scale
        result = _result(raw, unit, out_scale, period, all_values)
        mult = f"{formula.multiplier:g} × " if formula.multiplier not in (1.0, PERCENT) else ""
        tail = " × 100" if formula.multiplier == PERCENT else ""
        text = f"{mult}{_wrap(top)} / {_wrap(bottom)}{tail} = {result.text}"
        inputs, steps = [*top.inputs, *bottom.inputs], [*top.steps, *bottom.steps]
    else:
        raw = top.value * formula.multiplier
        unit = _formula_unit(formula, money)
        out_scale = scale if unit in MONEY_UNITS or unit == "" and formula.unit == "USD" else 1.0
        result = _result(raw, unit, out_scale, period, all_values)
        text = (
            f"{top.text} = {_num(raw)}"
            if out_scale != 1.0 or unit in MONEY_UNITS
            else f"{top.text} = {result.text}"
        )
        inputs, steps = top.inputs, top.steps
    magnitude = _magnitude_note(inputs)
    explanation = " ".join(filter(None, [f"{name} = {formula.describe()}.", magnitude, *notes]))
    return Computation(
        operation="derived",
        metric=name,
        inputs=_dedupe(inputs),
        formula=text,
        result=result,
        explanation=explanation,
        steps=steps,
    )


def _as_input_growth(name: str, old: CitedValue | Computation, new: CitedValue | Computation) -> Computation:
    steps = [c for c in (old, new) if isinstance(c, Computation)]
    a, b = _as_cited(old), _as_cited(new)
    comp = percent_change(a, b, name)
    comp.operation, comp.steps = "derived", steps
    return comp


def _as_cited(item: CitedValue | Computation) -> CitedValue:
    if isinstance(item, CitedValue):
        return item
    return CitedValue(
        label=f"{item.metric} {item.result.period}".strip(),
        metric=item.metric,
        value=item.result,
        computed=True,
    )


def _common_money(values: Sequence[CitedValue]) -> str:
    money = {v.value.unit for v in values if v.value.unit in MONEY_UNITS}
    if len(money) > 1:
        raise ArithmeticRefusal(f"components are in different currencies: {', '.join(sorted(money))}")
    return next(iter(money), "")


def _formula_unit(formula: Formula, money: str) -> str:
    if formula.unit == "USD":
        return money  # a difference or sum of amounts keeps their currency ('' when none was printed)
    return formula.unit


def _wrap(side: _Side) -> str:
    return f"({side.text})" if any(op in side.text for op in (" + ", " - ", " / ")) else side.text


def _component(
    metric: str,
    source: Mapping[str, CitedValue],
    prior: Mapping[str, CitedValue],
    which: str,
    formulas: Mapping[str, Formula],
) -> CitedValue | Computation:
    """A component's cited value, or its computation when it is itself derived and not given."""
    if metric in source:
        return source[metric]
    formula = formula_of(metric, formulas)
    if formula is not None and formula.kind is not FormulaKind.GROWTH:
        try:
            return _derive(metric, formula, source, prior, _period_of(source), formulas)
        except ArithmeticRefusal as exc:
            raise ArithmeticRefusal(f"missing {which} value for '{metric}' ({exc})") from None
    raise ArithmeticRefusal(f"missing {which} value for '{metric}'")


def _period_of(source: Mapping[str, CitedValue]) -> str:
    return next((v.value.period for v in source.values() if v.value.period), "")


def _term_value(
    term: FormulaTerm,
    values: Mapping[str, CitedValue],
    prior: Mapping[str, CitedValue],
    scale: float,
    notes: list[str],
    formulas: Mapping[str, Formula],
) -> tuple[float, str, list[CitedValue], list[Computation]]:
    current = _component(term.metric, values, prior, "current-period", formulas)
    inputs: list[CitedValue] = []
    steps: list[Computation] = []
    cur_cited = _as_cited(current)
    if isinstance(current, Computation):
        steps.append(current)
    else:
        inputs.append(current)
    x = _operand(cur_cited, scale)
    if not (term.average or term.change):
        return x, _num(x), inputs, steps
    try:
        before = _component(term.metric, prior, {}, "prior-period", formulas)
    except ArithmeticRefusal:
        if term.change:
            raise ArithmeticRefusal(f"missing prior-period value for '{term.metric}' (its change is asked)") from None
        notes.append(
            f"No prior-period {term.metric} was available, so the period-end balance is used "
            "instead of the average."
        )
        return x, _num(x), inputs, steps
    before_cited = _as_cited(before)
    if isinstance(before, Computation):
        steps.append(before)
    else:
        inputs.append(before)
    y = _operand(before_cited, scale)
    if term.change:
        return x - y, f"({_num(x)} - {_num(y)})", inputs, steps
    return (x + y) / 2.0, f"({_num(x)} + {_num(y)}) / 2", inputs, steps


def _side(
    terms: list[FormulaTerm],
    values: Mapping[str, CitedValue],
    prior: Mapping[str, CitedValue],
    scale: float,
    notes: list[str],
    formulas: Mapping[str, Formula],
) -> _Side:
    total_value, parts, inputs, steps = 0.0, [], [], []
    for i, term in enumerate(terms):
        x, text, ins, sts = _term_value(term, values, prior, scale, notes, formulas)
        total_value += term.sign * x
        if i == 0:
            parts.append(text if term.sign > 0 else f"-{text}")
        else:
            parts.append(("+ " if term.sign > 0 else "- ") + text)
        inputs.extend(ins)
        steps.extend(sts)
    return _Side(value=total_value, text=" ".join(parts), inputs=inputs, steps=steps)


def _dedupe(values: Sequence[CitedValue]) -> list[CitedValue]:
    out: dict[tuple[str, str, float], CitedValue] = {}
    for v in values:
        out.setdefault((v.metric, v.value.period, v.value.value), v)
    return list(out.values())


def needs_prior_period(metric: str, formulas: Mapping[str, Formula] | None = None) -> bool:
    """True when a derived metric, or any metric it is computed from, averages balances, takes a change or
    measures growth (``formulas`` before the lexicon's)."""
    return any(
        (f := formula_of(m, formulas)) is not None and f.needs_prior_period()
        for m in [metric, *formula_components(metric, formulas)]
    )


def years_between(start_period: str, end_period: str) -> float:
    """Years between two normalised fiscal periods ('FY2019', 'FY2022' -> 3; a quarter counts 0.25)."""

    def as_years(period: str) -> float:
        year = period_year(period)
        if year is None:
            raise ArithmeticRefusal(f"cannot read a fiscal year from period '{period}'")
        quarters = quarters_of(period)
        return year + (max(quarters) - 4) / 4.0 if len(quarters) == 1 else float(year)

    return as_years(end_period) - as_years(start_period)
