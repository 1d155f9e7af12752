"""The basis a figure is stated on: as reported, adjusted (non-GAAP), at constant currency, organic.

One vocabulary, read the same way from a question (the basis its plan asks) and from what a filing prints around
a figure (its row, column, heading or clause): a question's basis is answered only by a figure whose own words
state it, and a figure stated on another basis than the reported one answers only a question that asks that
basis. A basis is no part of a company (a segment, a region) and no metric: 'revenue growth at constant exchange
rates' asks the revenue growth, on a basis that the reported levels never have.
"""

from __future__ import annotations

import re

from agent.schemas import Basis

# The words of each basis. A basis is said by its own name, never by the amounts it leaves out ('excluding
# restructuring' narrows a metric to a figure of its own, which its row must print).
_SAID_RE = re.compile(
    r"(?:\b(?:on\s+an?|at|in)\s+)?(?:(?P<adjusted>\badjusted\b|\bnon[\s-]?(?:gaap|ifrs)\b|\bcore\b|\bpro[\s-]forma\b|\bexcluding\s+special\s+items\b)"
    r"|(?P<organic>\borganic(?:ally)?\b)"
    r"|(?P<constant>\bconstant[\s-](?:currency|currencies|exchange[\s-]rates?|fx|rates?)\b|\bcer\b"
    r"|\b(?:currency|fx)[\s-]neutral\b|\bex[\s-]fx\b|\blocal[\s-]currency\b"
    r"|\bexcluding\s+(?:the\s+)?(?:(?:impacts?|effects?)\s+(?:of\s+)?)?(?:foreign\s+)?(?:currency|exchange|fx)\b)"
    r"|(?P<reported>\bas[\s-]reported\b|\breported\s+basis\b|\bunadjusted\b|\b(?:u\.\s?s\.\s+)?gaap\b|\bifrs\b))(?:\s+basis\b)?",  # 'on an adjusted basis', 'at constant currency'
    re.IGNORECASE,
)
_GROUPS = {"adjusted": Basis.ADJUSTED, "organic": Basis.ORGANIC, "constant": Basis.CONSTANT_CURRENCY,
           "reported": Basis.REPORTED}


def bases_said(text: str) -> list[Basis]:
    """The bases ``text`` says, in the order of first mention ('Diluted EPS (GAAP)': reported; '% Change at CER':
    constant currency; 'Adjusted EBITDA': adjusted); none for words that say no basis."""
    said: list[Basis] = []
    for m in _SAID_RE.finditer(text or ""):
        basis = _GROUPS[m.lastgroup or ""]
        if basis not in said:
            said.append(basis)
    return said


def nearest_bases(*texts: str) -> list[Basis]:
    """The bases the first of ``texts`` that says any says: a figure's own words, nearest first (its row before
    its table's title: 'Net income (GAAP)' under 'Reconciliation of GAAP to Adjusted Net Income' is reported)."""
    return next((said for text in texts if (said := bases_said(text))), [])


def bases_in_series(text: str, spans: list[tuple[int, int]], index: int) -> list[Basis] | None:
    """The bases a sentence ``text`` states of its figure ``index`` of ``spans`` (each figure's offsets, in order),
    when it names its figures' bases on one side of all of them: after ('an increase of 12% as reported and 10% at
    constant exchange rates': words after its last figure say a basis) or before ('on a reported basis 12% and at
    constant currency 10%': words before its first do). A figure's words on that side reach to the next figure.
    None when neither side or both say one: the sentence is then read as any other."""
    if not 0 <= index < len(spans):
        return None
    before = bool(bases_said(text[: spans[0][0]]))
    after = bool(bases_said(text[spans[-1][1] :]))
    if before == after:
        return None
    if before:
        return bases_said(text[spans[index - 1][1] if index else 0 : spans[index][0]])
    end = spans[index + 1][0] if index + 1 < len(spans) else len(text)
    return bases_said(text[spans[index][1] : end])


def without_bases(text: str) -> str:
    """``text`` with the words that say a basis blanked, with their preposition: what else it says ('% Change at
    CER' -> '% Change ')."""
    return _SAID_RE.sub(" ", text or "")


def other_than_reported(bases: list[Basis]) -> list[Basis]:
    """The bases of ``bases`` that are not the reported one: what a figure must state to answer them."""
    return [b for b in bases if b is not Basis.REPORTED]


def unmet_basis(asked: list[Basis], own: list[Basis], near: list[Basis]) -> str:
    """Why a figure does not answer a question asking the bases ``asked``; '' when it does. ``own`` are the bases
    the figure's words say, nearest first (its row or clause, else its table's title); ``near`` those its row or
    clause says itself. Every basis asked other than the reported one must be the figure's own; a figure whose row
    says another basis answers only a question that asks it, unless the row says it is (also) as reported ('Diluted
    EPS (GAAP)'). A title alone ('Non-GAAP reconciliation') holds for the rows that say no basis of their own, which
    may be either."""
    wanted = other_than_reported(asked)
    missing = [b for b in wanted if b not in own]
    if missing:
        stated = ", ".join(own) if own else "no basis (as reported)"
        return f"the question asks it {basis_phrase(missing)}; the figure's own words say {stated}"
    unasked = [b for b in other_than_reported(near) if b not in wanted]
    if unasked and Basis.REPORTED not in near:
        return f"the figure is stated {basis_phrase(unasked)}; the question does not ask that basis"
    return ""


def basis_phrase(bases: list[Basis]) -> str:
    """'at constant currency', 'on an adjusted and organic basis': the bases as a phrase."""
    at = [f"at {b}" for b in bases if b is Basis.CONSTANT_CURRENCY]
    on = [str(b) for b in bases if b is not Basis.CONSTANT_CURRENCY]
    an = "an" if on and on[0][0] in "aeiou" else "a"
    return " and ".join([*at, *([f"on {an} {' and '.join(on)} basis"] if on else [])])
