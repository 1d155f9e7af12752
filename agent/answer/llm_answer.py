"""The grounded-prompt answer (multistage_retrieval_reranking 3.7): the model sees only the evidence, does
arithmetic through the calculator tool, and its text goes through :func:`agent.answer.verify.verify_answer`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel

from agent.answer.companies import names_absent_company, owned_by
from agent.answer.reading import (
    Evidence,
    EvidenceReader,
)
from agent.answer.records import Figure, FinalAnswer
from agent.answer.verify import CITATION_RE, FigureCheck, verify_answer
from agent.finance.arithmetic import Computation
from agent.finance.periods import find_periods, period_year, quarters_of
from agent.llm.models import UsageLog, calculator, text_call
from agent.llm.prompts import answer_messages, echoes_prompt
from agent.llm.schemas import EvidenceBlock
from agent.schemas import Citation, NumericValue


# ---------------------------------------------------------------------------------------------------------
# Language-model twin
# ---------------------------------------------------------------------------------------------------------
def evidence_blocks(evidence: Sequence[Evidence]) -> list[EvidenceBlock]:
    """Evidence as prompt blocks, each with the label it must be cited by."""
    return [
        EvidenceBlock(label=ev.citation().label(), text=ev.text, source=ev.source, chunk_id=ev.chunk_id)
        for ev in evidence
    ]


def _calculator_computations(calls: Sequence[object]) -> list[Computation]:
    out: list[Computation] = []
    for call in calls:
        if getattr(call, "name", "") != "calculator" or not getattr(call, "ok", False):
            continue
        try:
            value = float(getattr(call, "output", ""))
        except ValueError:
            continue
        expression = str(getattr(call, "arguments", ""))
        m = re.search(r'"expression"\s*:\s*"([^"]*)"', expression)
        formula = f"{m.group(1) if m else expression} = {call.output}"  # type: ignore[attr-defined]
        out.append(
            Computation(
                operation="calculator",
                inputs=[],
                formula=formula,
                result=NumericValue(text=str(call.output), value=value),
            )
        )  # type: ignore[attr-defined]
    return out


def llm_answer(
    question: str,
    evidence: Sequence[Evidence],
    *,
    model: BaseChatModel | None,
    fallback: FinalAnswer,
    usage: UsageLog | None = None,
    computations: Sequence[Computation] = (),
) -> FinalAnswer:
    """Grounded answer by the language model (evidence only, calculator for arithmetic), then verified.

    ``fallback`` is the offline twin's answer, returned when no model is configured or the model fails twice.
    Every figure of the model's text must appear in its cited evidence or be a calculator / code computation,
    belong to an asked period, and be given by the gated offline answer (:func:`unconfirmed_figures`); otherwise
    the offline answer (itself through the trust gate) is returned and ``reason`` says why. A company
    the index has no filing of is refused before any prompt; the model sees only the asked companies' filings.
    """
    if model is None:
        return fallback
    # The trust gate holds for the model too: a company with no filing is refused before any prompt, the model
    # sees only the asked companies' filings, and an answer stating a figure no evidence supports is not shown.
    absent = [c for c in fallback.checks if names_absent_company(c)]
    if absent:
        return fallback.model_copy(update={"reason": f"trust gate: {absent[0].detail}"})
    asked = {sa.company for sa in fallback.sub_answers if sa.company}
    if asked:
        evidence = [e for e in evidence if any(owned_by(e.doc_name, e.company, c) for c in asked)]
        if not evidence:
            return fallback.model_copy(update={"reason": "trust gate: no evidence from the asked company's filings"})
    result = text_call(
        model,
        answer_messages(question, evidence_blocks(evidence)),
        fallback=lambda: fallback.text,
        step="answer",
        usage=usage,
        tools=[calculator],
    )
    if result.source == "offline":
        return fallback.model_copy(update={"reason": result.reason})
    calc = _calculator_computations(result.tool_calls)
    comps = [*computations, *calc]
    if echoes_prompt(result.text):
        return fallback.model_copy(update={"reason": "trust gate: the model's reply repeats its prompt"})
    verification = verify_answer(result.text, evidence, comps)
    if not verification.checks and any(sa.metric for sa in fallback.sub_answers):
        return fallback.model_copy(update={"reason": "trust gate: the model stated no figure for a figure question"})
    if verification.unsupported:
        return fallback.model_copy(update={
            "reason": "trust gate: the model stated figures its evidence does not support: "
            + ", ".join(verification.unsupported)
        })
    off_period = other_period_figures(question, verification.checks, evidence)
    if off_period:
        return fallback.model_copy(update={
            "reason": "trust gate: the model stated figures of another period than asked: " + "; ".join(off_period)
        })
    unconfirmed = unconfirmed_figures(verification.checks, fallback, calc)
    if unconfirmed:
        return fallback.model_copy(update={
            "reason": "trust gate: the model stated figures the gated reading of the evidence does not give: "
            + ", ".join(unconfirmed)
        })
    figures = [
        Figure(
            text=c.text,
            value=c.value,
            citations=_label_citations(c.cited, evidence),
            computed=c.basis == "computation",
            formula=c.support if c.basis == "computation" else "",
        )
        for c in verification.checks
        if c.supported
    ]
    cites: dict[tuple[str, int], Citation] = {}
    for f in figures:
        for c in f.citations:
            cites.setdefault((c.doc, c.page), c)
    return FinalAnswer(
        question=question,
        text=verification.text,
        citations=list(cites.values()),
        figures=figures,
        not_found=[],
        computations=comps,
        sub_answers=list(fallback.sub_answers),
        verification=verification,
        source="llm",
    )


CALCULATOR_CONSTANTS = frozenset({1.0, 2.0, 3.0, 4.0, 12.0, 100.0, 365.0, 1000.0})  # halves, years, percent, days
FIGURE_MATCH_REL = 0.005  # a model's rounding of a gated figure ('$4.8 billion' for 4,812 million) still matches it


def _gated_values(answer: FinalAnswer) -> list[NumericValue]:
    """Every figure the gated offline answer stands behind: what it states, and the operands it computed with."""
    values = [f.value for f in answer.figures]
    comps = [*answer.computations, *(c for sa in answer.sub_answers for c in sa.computations)]
    while comps:
        comp = comps.pop()
        values += [comp.result, *(i.value for i in comp.inputs)]
        comps += comp.steps
    values += [v.value for v in answer.cited_values()]
    return values


def _matches(value: NumericValue, gated: Sequence[NumericValue]) -> bool:
    def close(a: float, b: float) -> bool:
        return abs(abs(a) - abs(b)) <= FIGURE_MATCH_REL * max(abs(a), abs(b), 1e-12)

    return any(close(value.value, g.value) or close(value.absolute, g.absolute) for g in gated)


def unconfirmed_figures(
    checks: Sequence[FigureCheck], fallback: FinalAnswer, calculations: Sequence[Computation] = ()
) -> list[str]:
    """The model's figures that the gated offline answer does not give (a figure it states, an operand it used,
    or a calculator result over such figures): the trust gate's company, period, metric and scale checks hold
    for what a model says only through that reading. A refused question leaves a model no figure to state."""
    gated = _gated_values(fallback)
    confirmed_calcs = [  # a calculator result counts when each of its operands is a gated figure or a constant
        c.result for c in calculations
        if all(x in CALCULATOR_CONSTANTS or _matches(NumericValue(text=n, value=x), gated)
               for n in re.findall(r"\d[\d,]*\.?\d*", c.formula.split("=", 1)[0])
               for x in [float(n.replace(",", ""))])
    ]
    out: list[str] = []
    for check in checks:
        if not check.supported:
            continue
        pool = gated if check.basis == "evidence" else [*gated, *confirmed_calcs]
        if not _matches(check.value, pool):
            out.append(check.text)
    return out


def other_period_figures(question: str, checks: Sequence[FigureCheck], evidence: Sequence[Evidence]) -> list[str]:
    """The model's figures whose every reading in their supporting chunk belongs to a period the question does
    not ask ('$581 million' from a quarter's column for a fiscal-year question): the period check of the trust
    gate, applied to figures a model states. A year before an asked one is allowed (changes and averages read
    it); a figure the evidence prints without a period is left to the verifier."""
    asked = [p.norm for p in find_periods(question)]
    if not asked:
        return []
    allowed = {(y, len(quarters_of(p))) for p in asked if (y := period_year(p)) is not None}
    allowed |= {(y - 1, n) for y, n in allowed}
    reader = EvidenceReader(evidence)
    out: list[str] = []
    for check in checks:
        if not check.supported or check.basis != "evidence":
            continue
        readings = [
            n.period
            for seg in reader.segments
            if reader.evidence[seg.ev].chunk_id == check.support
            for n in seg.numbers
            if abs(abs(n.value) - abs(check.value.value)) < 1e-9 or abs(abs(n.absolute) - abs(check.value.absolute)) < 1e-6
        ]
        if not readings or "" in readings:
            continue
        if not any((period_year(p), len(quarters_of(p))) in allowed for p in readings):
            out.append(f"{check.text} is for {', '.join(sorted(set(readings)))}, not {', '.join(asked)}")
    return out


def _label_citations(label: str, evidence: Sequence[Evidence]) -> list[Citation]:
    m = CITATION_RE.match(label or "")
    if m is None:
        return []
    doc, page = m.group("doc").strip(), int(m.group("page"))
    ev = next((e for e in evidence if e.doc_name == doc and e.page + 1 == page), None)
    return [Citation(doc=doc, page=page, chunk_id=ev.chunk_id if ev else "")]
