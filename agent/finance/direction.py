"""Which way a figure reads: a loss is a negative income, a tax benefit a negative tax expense.

Filings name one quantity in either direction ('Net income (loss)', 'Net loss', 'Income tax benefit (expense)')
and print a one-direction row the way their house style has it: 'Net loss | (204,969)' and 'Net loss | 204,969'
both state a loss of 204,969. Questions ask in one direction too ('the net loss in 2016', 'the income tax
benefit'). A figure is stated in the direction the question names, so that 'the net loss' is never answered
'net income -6,557' and 'the change in net loss' is the change of the loss.

The reading of a row, by what its label names outside parentheses (else inside):

- both directions ('Net income (loss)', 'Income tax benefit (expense)'): the sign is meaningful, a positive
  figure is the direction named first outside parentheses;
- one direction only ('Net loss', 'Net income'): a primary row's sign is meaningful (a negative income is a
  loss); a contrary row's parentheses are presentation, the figure is its magnitude, unless the row prints both
  signs (then a plain figure is the other direction).

A question naming both directions ('provision for (benefit from) income taxes') asks the signed figure: as a row
naming both prints it, else in the direction the question names first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from agent.finance.lexicon import find_metrics
from agent.schemas import NumericValue

# The contrary word of a pair, the words it is the contrary of, and a word the text must hold for the pair to
# be a direction at all: a loss of an income, profit, earnings or gain; a tax benefit of a tax expense or
# provision ('employee benefits expense' names no direction).
CONTRARY_WORDS: dict[str, frozenset[str]] = {
    "loss": frozenset({"income", "profit", "earnings", "gain"}),
    "benefit": frozenset({"expense", "provision"}),
}
_CONTEXT: dict[str, str] = {"benefit": "tax"}

Direction = Literal["primary", "contrary", ""]

_WORD_RE = re.compile(r"[a-z]+")
_PARENS_RE = re.compile(r"\([^()]*\)")
# Parentheses that name a scale, a note or a footnote, never a direction ('(in millions)', '(note 4)', '(a)').
_NOT_DIRECTION_RE = re.compile(r"^\(\s*(?:in\s|note|[a-z0-9]\s*\)$|\d)", re.IGNORECASE)
_CLOSED_RE = re.compile(r"[^()]*\)\s*[\w-]*")  # the rest of a parenthesis and the word after it
_SIGN_RE = re.compile(r"[()\-−–]")


def _singular(word: str) -> str:
    if word.endswith(("sses", "xes")):
        return word[:-2]  # 'losses', 'taxes'
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]  # 'benefits', 'gains', 'expenses' -> 'expense'
    return word


def _words(text: str, contrary: str) -> list[str]:
    """The text's words that can name a direction of the pair: none when the pair's context word is absent;
    'income' of 'income tax' names the tax, not a direction."""
    words = [_singular(w) for w in _WORD_RE.findall(text.lower())]
    context = _CONTEXT.get(contrary)
    if context and context not in words:
        return []
    return [w for i, w in enumerate(words) if not (w == "income" and words[i + 1 : i + 2] == ["tax"])]


def _first_direction(words: Sequence[str], contrary: str) -> Direction:
    for w in words:
        if w == contrary:
            return "contrary"
        if w in CONTRARY_WORDS[contrary]:
            return "primary"
    return ""


def _names_both(words: Sequence[str], contrary: str) -> bool:
    return contrary in words and bool(CONTRARY_WORDS[contrary] & set(words))


def _pair(*texts: str) -> str:
    """The contrary word the texts name (the first text first), '' when none does."""
    for text in texts:
        for contrary in CONTRARY_WORDS:
            if contrary in _words(text, contrary):
                return contrary
    return ""


def asked_direction(text: str, contrary: str) -> Direction:
    """The direction a question's (or a metric's) words name: 'contrary' for 'net loss', 'primary' for 'net
    income' and 'net income (loss)' (a question naming both asks the signed figure), '' for neither."""
    words = _words(text, contrary)
    if _names_both(words, contrary):
        return "primary"
    return _first_direction(words, contrary)


def label_direction(label: str, contrary: str) -> tuple[Direction, bool]:
    """The direction a row's figures are printed in, and whether their sign is meaningful (the label names
    both directions, or only the primary one)."""
    outside = _words(_PARENS_RE.sub(" ", label), contrary)
    words = _words(label, contrary)
    first = _first_direction(outside, contrary) or _first_direction(words, contrary)
    signed = _names_both(words, contrary) or first == "primary"
    return first, signed


def _signed_by_parentheses(label: str) -> bool:
    """'Provision for (recovery of) credit losses': a label that names another direction in parentheses prints
    a meaningful sign whatever that direction's word is."""
    return any(
        _WORD_RE.search(g.lower()) and not _NOT_DIRECTION_RE.search(g) for g in _PARENS_RE.findall(label)
    )


def in_direction(value: float, label: str, asked: str, mixed_signs: bool = False) -> float | None:
    """``value`` as printed on a row (or in a clause) named ``label``, in the direction ``asked`` names;
    ``mixed_signs``: the row prints both positive and negative figures. None when the label or the question
    names neither direction of a pair (the value is read as printed)."""
    contrary = _pair(asked, label)
    if not contrary:
        return None
    want = asked_direction(asked, contrary)
    printed, signed = label_direction(label, contrary)
    if not want or not printed:
        return None
    if _names_both(_words(asked, contrary), contrary):
        # A question naming both directions ('provision for (benefit from) income taxes') asks the signed figure:
        # as a row naming both prints it, else in the direction the question names first
        if _names_both(_words(label, contrary), contrary):
            return None
        want = label_direction(asked, contrary)[0]
    if printed == "contrary" and not (signed or _signed_by_parentheses(label)):
        value = -value if mixed_signs else abs(value)  # a loss row's parentheses are presentation
    return value if printed == want else (-value if value else 0.0)


def asks_contrary(text: str) -> str:
    """The contrary word ('loss', 'benefit') a question's words ask in, '' when it asks the primary direction
    or neither."""
    for contrary in CONTRARY_WORDS:
        if asked_direction(text, contrary) == "contrary":
            return contrary
    return ""


def restated_as(label: str, question: str) -> str:
    """The contrary word ('loss') when ``question`` asks a figure in that direction and the row ``label`` prints
    the other one first ('Net income (loss)'): the answer says the figure is restated. '' otherwise."""
    contrary = asks_contrary(question)
    return contrary if contrary and label_direction(label, contrary)[0] == "primary" else ""


def asked_name(question: str, metric: str) -> str:
    """The words ``question`` names ``metric`` with ('net loss' for net income), '' when it does not name it. A
    name that stops inside parentheses runs to the word after them ('Net (loss) income', not 'Net (loss')."""
    for m in find_metrics(question):
        if m.canonical == metric:
            if m.surface.count("(") <= m.surface.count(")"):
                return m.surface
            rest = _CLOSED_RE.match(question, m.end)
            return m.surface + (rest.group(0) if rest else "")
    return ""


def shown_name(question: str, metric: str) -> str:
    """What a figure of ``metric`` is called in the answer to ``question``: the question's own words when they
    ask the contrary direction ('net loss'), else the metric."""
    name = asked_name(question, metric)
    return name.lower() if name and asks_contrary(name) else metric


def turned(n: NumericValue, value: float) -> NumericValue:
    """``n`` holding ``value`` (its magnitude, or the magnitude negated), its text written to match."""
    if value == n.value:
        return n
    digits = _SIGN_RE.sub("", n.text).strip()
    return n.model_copy(update={"value": value, "text": digits if value >= 0 else f"-{digits}"})
