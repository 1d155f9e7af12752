"""The trust gate's basis check: a figure is stated only on the basis its plan asks (:mod:`agent.finance.basis`).

What a figure's basis is, is read from its own words, nearest first: its row label and column ('Adjusted EBITDA',
'% Change at CER'); for a sentence's figure, the side its sentence names each figure's basis on ('an increase of 12%
as reported and 10% at constant exchange rates': the 10% is at constant rates, the 12% as reported), else the words
before it; then its table's title and header or its sentence's clause ('Reconciliation of GAAP to adjusted net
income'). The nearest words that say a basis decide it: a row 'Net income (GAAP)' is reported under any title.
"""

from __future__ import annotations

from agent.answer.provenance import chunk_text, naming_words, own_clause, row_label
from agent.answer.reading import EvidenceReader, sentence_span
from agent.answer.records import Check, SubAnswer, formula_operands, operand_read
from agent.finance.basis import (
    Basis,
    bases_in_series,
    bases_said,
    basis_phrase,
    other_than_reported,
    unmet_basis,
)
from agent.finance.numbers import find_numbers
from agent.finance.periods import find_periods


def _sentence_bases(answer: SubAnswer, reader: EvidenceReader | None) -> list[Basis]:
    """For a sentence's figure: the bases its sentence states of it among the figures it lists
    (:func:`agent.finance.basis.bases_in_series`), else those its words before it say."""
    value = answer.value
    window = bases_said(naming_words(answer))
    if reader is None or answer.citation is None or value is None:
        return window
    text = chunk_text(reader, answer.citation.chunk_id)
    if not 0 <= value.start < value.end <= len(text):
        return window
    lo, hi = sentence_span(text, value.start)
    sentence = text[lo:hi]
    dated = [(m.start, m.end) for m in find_periods(sentence)]  # a date is no figure of the series
    spans = [(n.start, n.end) for n in find_numbers(sentence) if not any(a <= n.start < b for a, b in dated)]
    own = next((i for i, (a, b) in enumerate(spans) if a <= value.start - lo < b), None)
    series = bases_in_series(sentence, spans, own) if own is not None else None
    return window if series is None else series


def figure_bases(answer: SubAnswer, reader: EvidenceReader | None) -> tuple[list[Basis], list[Basis]]:
    """(own, near): the bases the figure's own words say, nearest first, and those its row, column or sentence say
    themselves (see the module's docstring); none when no word says one (a figure as reported)."""
    column = answer.value.column if answer.value is not None else ""
    near = _row_bases(answer) if row_label(answer) or answer.named or column else _sentence_bases(answer, reader)
    return (near or bases_said(own_clause(answer, reader))), near


def _row_bases(answer: SubAnswer) -> list[Basis]:
    """The bases a table figure's row label (or the words naming it) and its column say."""
    column = answer.value.column if answer.value is not None else ""
    return bases_said(f"{naming_words(answer)} {column}")


def check_basis(answer: SubAnswer, asked: list[Basis], reader: EvidenceReader | None) -> Check:
    """The figure's basis is the one the plan asks: every basis asked other than the reported one is the figure's
    own, and a figure on another basis answers only a question asking it."""
    if answer.value is None:
        return Check(name="basis", passed=True, detail="no figure")
    if answer.status == "computed" and not answer.named:
        return _formula_basis(answer, asked, reader)
    own, near = figure_bases(answer, reader)
    why = unmet_basis(asked, own, near)
    if why:
        return Check(name="basis", passed=False, detail=why)
    return Check(name="basis", passed=True, detail=f"basis: {', '.join(asked or own) or Basis.REPORTED}")


def _formula_basis(answer: SubAnswer, asked: list[Basis], reader: EvidenceReader | None) -> Check:
    """A figure computed by a formula is on the basis asked when the row or sentence of one of the figures it is
    computed from states each basis asked (the adjusted EBITDA over revenue of an adjusted EBITDA margin) and none
    states a basis not asked: 'adjusted EBITDA' is never the reported operating income plus depreciation, even
    when the operating income is read from a table titled 'Non-GAAP measures'."""
    operands = [(o, *figure_bases(operand_read(answer, o), reader)) for o in formula_operands(answer)]
    if not operands:
        return Check(name="basis", passed=True, detail="no operand")
    wanted = other_than_reported(asked)
    for operand, _, near in operands:
        # an operand on a basis not asked (the adjusted EBITDA of a reported margin) puts the result on it too
        unasked = [b for b in other_than_reported(near) if b not in wanted]
        if unasked and Basis.REPORTED not in near:
            return Check(name="basis", passed=False, detail=(
                f"{operand.label or 'an operand'} is stated {basis_phrase(unasked)}; the question does not ask that "
                "basis"))
    # its own row must say it: a reconciliation's title ('Non-GAAP measures') heads its reported rows too
    missing = [b for b in wanted if not any(b in near for _, _, near in operands)]
    if missing:
        return Check(name="basis", passed=False, detail=(
            f"the question asks it {basis_phrase(missing)}; no figure it is computed from says so"))
    return Check(name="basis", passed=True, detail=f"basis: {', '.join(asked) or Basis.REPORTED}")


def states_bases(answer: SubAnswer, bases: list[Basis]) -> bool:
    """Whether the figure's own row or column states every basis of ``bases`` other than the reported one (none
    asked: False): of two readings of a lookup, the one that does answers it."""
    wanted = other_than_reported(bases)
    return bool(wanted) and set(wanted) <= set(_row_bases(answer))
