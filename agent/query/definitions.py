"""Definitions a question writes ('DPO is defined as: 365 * (average accounts payable between FY2016 and FY2017)
/ (FY2017 COGS + change in inventory between FY2016 and FY2017)'), read into formulas over canonical metrics.

A question's definition wins over the lexicon's (docs/trust-gate.md, "definition"): when it reads into a
formula, that formula computes the metric; when it names inputs finrag cannot put into a formula, the metric is
refused rather than computed by another definition. The grammar is the arithmetic analysts write: numbers,
``+ - * / ×  ÷``, parentheses, metric names from the lexicon, 'average X' and 'change in X' (this period's balance
and the prior one's), and period words ('FY2017', 'between FY2016 and FY2017'), which the asked period fixes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, Field

from agent.finance.arithmetic import formula_components
from agent.finance.formulas import Formula, FormulaKind, FormulaTerm
from agent.finance.lexicon import find_metrics
from agent.finance.metrics import METRICS
from agent.finance.periods import find_periods

# Where the words that define a metric begin ('ROA is defined as: ...', '... calculated using operating income',
# 'Define working capital ratio as ...'): words after it say how to compute, not what is asked.
DEFINITION_CLAUSE_RE = re.compile(
    r"\b(?:is\s+)?defined\s+as\b|\bdefine\s+\w+(?:\s+\w+){0,4}\s+as\b|"
    r"\bcalculated?\s+(?:\w+\s+){0,4}(?:using|as|from)\b"
    r"|\busing\s+(?:the\s+)?(?:total|unadjusted|line\s+items)\b|\(\s*using\b",
    re.IGNORECASE,
)
_DEFINES_RE = re.compile(r"\b(?:is|are)\s+(?:here\s+)?defined\s+as\b\s*:?|\bdefine\s+", re.IGNORECASE)
# The definition ends with its sentence ('... between FY2016 and FY2017). Round your answer ...').
_SENTENCE_END_RE = re.compile(r"\.\s+(?=[A-Z])|\?|\.\s*$")
# A token of a definition's formula: a number (not one that runs into a word), a word, or an operator (the letter
# 'x' between operands, '365 x AP', is read as a word).
_FORMULA_TOKEN_RE = re.compile(r"(?P<number>(?>\d+(?:\.\d+)?)(?![A-Za-z]))|(?P<word>[A-Za-z]+)|(?P<operator>[-+*/()×÷])")
# Words that join a definition's parts without changing it ('the', 'of', 'between ... and ...').
_FILLER = frozenset(
    ("the", "of", "in", "for", "from", "a", "an", "between", "and", "to", "its", "their", "fiscal", "year", "as",
     "reported", "on", "at", "end", "ending", "balance", "sheet", "statement", "by", "usd", "dollars", "s")
)
_WORD_OPERATORS = {"divided": "/", "over": "/", "multiplied": "*", "times": "*", "plus": "+", "minus": "-",
                   "less": "-"}  # 'total current assets divided by total current liabilities'
_AVERAGE_WORDS = frozenset(("average", "avg", "mean"))
_CHANGE_WORDS = frozenset(("change", "increase", "delta"))


class QuestionDefinition(BaseModel):
    """One definition written in a question: the metric it defines and the formula it reads into."""

    metric: str = Field(description="canonical name of the defined metric")
    text: str = Field(description="the definition as written")
    formula: Formula | None = Field(default=None, description="None when the words do not read into a formula")
    inputs: list[str] = Field(default_factory=list, description="canonical metrics the definition names")


class _Expr(BaseModel):
    """A partial formula while parsing: ``multiplier * (numerator) / (denominator)``; a constant has no terms."""

    multiplier: float = 1.0
    numerator: list[FormulaTerm] = Field(default_factory=list)
    denominator: list[FormulaTerm] = Field(default_factory=list)

    @property
    def constant(self) -> bool:
        return not self.numerator and not self.denominator

    @property
    def linear(self) -> bool:
        return bool(self.numerator) and not self.denominator and self.multiplier == 1.0


class _Unreadable(Exception):
    """The definition's words do not read into a formula finrag can compute."""


def asked_part(question: str) -> str:
    """The question without the definitions it writes: what it asks for."""
    clause = DEFINITION_CLAUSE_RE.search(question)
    return question[: clause.start()] if clause else question


def question_definitions(question: str) -> list[QuestionDefinition]:
    """Every 'X is defined as: ...' in ``question`` whose X is a lexicon metric, read into a formula if it can be."""
    out: list[QuestionDefinition] = []
    for clause in _DEFINES_RE.finditer(question):
        before = [m for m in find_metrics(question[: clause.start()]) if m.canonical in METRICS]
        if clause.group(0).lower().startswith("define"):
            # 'Define working capital ratio as total current assets divided by ...'
            head = re.match(r"\s*(.+?)\s+as\b\s*:?", question[clause.end() :], re.IGNORECASE)
            named = find_metrics(head.group(1)) if head else []
            if not head or not named:
                continue
            defined, start = named[-1].canonical, clause.end() + head.end()
        else:
            if not before:
                continue
            defined, start = before[-1].canonical, clause.end()
        end = _SENTENCE_END_RE.search(question, start)
        text = question[start : end.start() if end else len(question)].strip()
        inputs = [m.canonical for m in find_metrics(text) if m.canonical in METRICS]
        try:
            formula = _formula(text, defined)
        except _Unreadable:
            formula = None
        out.append(QuestionDefinition(metric=defined, text=text, formula=formula, inputs=list(dict.fromkeys(inputs))))
    return out


def _tokens(text: str) -> list[str | FormulaTerm | float]:
    """Operators, numbers and metric terms; period words and filler dropped; anything else is unreadable."""
    mentions = [m for m in find_metrics(text) if m.canonical in METRICS]
    periods = [(p.start, p.end) for p in find_periods(text)]
    out: list[str | FormulaTerm | float] = []
    modifier = ""
    pos = 0
    while pos < len(text):
        ch = text[pos]
        if ch.isspace() or ch in ",:$%":
            pos += 1
            continue
        mention = next((m for m in mentions if m.start == pos), None)
        if mention is not None:
            out.append(FormulaTerm(metric=mention.canonical, average=modifier == "average", change=modifier == "change"))
            modifier, pos = "", mention.end
            continue
        period = next(((a, b) for a, b in periods if a == pos), None)
        if period is not None:
            pos = period[1]
            continue
        token = _FORMULA_TOKEN_RE.match(text, pos)
        if token is None:
            raise _Unreadable(f"'{ch}' is no operator")
        pos = token.end()
        if token.group("number"):
            out.append(float(token.group("number")))
        elif token.group("operator"):
            out.append({"×": "*", "÷": "/"}.get(ch, ch))
        else:
            low = token.group("word").lower()
            if low in _AVERAGE_WORDS:
                modifier = "average"
            elif low in _CHANGE_WORDS:
                modifier = "change"
            elif low == "x" and out and not isinstance(out[-1], str):
                out.append("*")
            elif low in _WORD_OPERATORS:
                out.append(_WORD_OPERATORS[low])
            elif low not in _FILLER:
                raise _Unreadable(f"'{token.group('word')}' is no metric or operator")
    return out


def _formula(text: str, defined: str) -> Formula:
    tokens = _tokens(text)
    expr, rest = _sum(tokens)
    if rest or expr.constant:
        raise _Unreadable("the definition does not read as one formula")
    own = METRICS[defined].formula
    unit = own.unit if own is not None else ("x" if expr.denominator else "USD")
    kind = FormulaKind.RATIO if expr.denominator else FormulaKind.SUM
    if own is not None and own.kind in {FormulaKind.DAYS, FormulaKind.TURNOVER, FormulaKind.MARGIN}:
        kind = own.kind  # the same kind of metric, by the question's terms
    return Formula(kind=kind, numerator=expr.numerator, denominator=expr.denominator, multiplier=expr.multiplier,
                   unit=unit)


def _sum(tokens: Sequence[str | FormulaTerm | float]) -> tuple[_Expr, list[str | FormulaTerm | float]]:
    left, rest = _product(tokens)
    while rest and rest[0] in ("+", "-"):
        sign = 1 if rest[0] == "+" else -1
        right, rest = _product(rest[1:])
        if not (left.linear and right.linear):
            raise _Unreadable("only sums of amounts can be added")
        left = _Expr(numerator=[*left.numerator, *(t.model_copy(update={"sign": t.sign * sign}) for t in right.numerator)])
    return left, list(rest)


def _product(tokens: Sequence[str | FormulaTerm | float]) -> tuple[_Expr, list[str | FormulaTerm | float]]:
    left, rest = _atom(tokens)
    while rest and rest[0] in ("*", "/"):
        op = rest[0]
        right, rest = _atom(rest[1:])
        left = _combine(left, op, right)
    return left, list(rest)


def _combine(left: _Expr, op: str, right: _Expr) -> _Expr:
    if op == "*":
        if right.constant:
            return left.model_copy(update={"multiplier": left.multiplier * right.multiplier})
        if left.constant:
            return right.model_copy(update={"multiplier": left.multiplier * right.multiplier})
        raise _Unreadable("two amounts multiplied")
    if right.constant:
        if right.multiplier == 0:
            raise _Unreadable("division by zero")
        return left.model_copy(update={"multiplier": left.multiplier / right.multiplier})
    if left.denominator or right.denominator or right.multiplier != 1.0:
        raise _Unreadable("a ratio of ratios")
    return _Expr(multiplier=left.multiplier, numerator=left.numerator or [], denominator=right.numerator)


def _atom(tokens: Sequence[str | FormulaTerm | float]) -> tuple[_Expr, list[str | FormulaTerm | float]]:
    if not tokens:
        raise _Unreadable("the definition ends early")
    head, rest = tokens[0], list(tokens[1:])
    if head == "(":
        inner, rest = _sum(rest)
        if not rest or rest[0] != ")":
            raise _Unreadable("unbalanced parentheses")
        return inner, rest[1:]
    if isinstance(head, FormulaTerm):
        return _Expr(numerator=[head]), rest
    if isinstance(head, float):
        return _Expr(multiplier=head), rest
    raise _Unreadable(f"'{head}' where an amount belongs")


def question_formulas(question: str) -> tuple[dict[str, Formula], dict[str, str]]:
    """The question's definitions that differ from the lexicon's formulas, as formulas to compute by; and the
    definitions that cannot be read into one while naming inputs finrag's formula lacks, with why (those
    metrics are refused, not computed by another definition)."""
    formulas: dict[str, Formula] = {}
    unreadable: dict[str, str] = {}
    for d in question_definitions(question):
        own = METRICS[d.metric].formula
        if d.formula is not None:
            if own is None or not (d.formula.same_as(own) or _same_but_percent(d.formula, own)):
                formulas[d.metric] = d.formula
            continue
        ours = set(formula_components(d.metric))
        extra = [m for m in d.inputs if m != d.metric and m not in ours]
        if extra:
            unreadable[d.metric] = (f"the question defines {d.metric} with {', '.join(extra)} in a way finrag cannot "
                                    f"compute ('{d.text}')")
    return formulas, unreadable



def _same_but_percent(theirs: Formula, own: Formula) -> bool:
    """'Net income / average total assets' is finrag's ROA in percent: the x100 is how it is shown, not what."""
    return own.unit == "%" and theirs.model_copy(update={"multiplier": theirs.multiplier * 100}).same_as(own)
