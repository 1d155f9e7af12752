"""Which figure each ``[doc, p. N]`` link of an answer backs, so the viewer boxes that figure and its checks.

An answer that states a change and both years' figures cites one page four times; the links differ by the figure
written before each. Every link is matched to the figure stated just before it in its sentence: a figure read
from the filing (its row, column, printed text and checks) or a computed one (its formula, and each operand
with its own citation).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from agent.answer.records import Check, FinalAnswer
from agent.answer.verify import CITATION_RE, answer_figures, numbers_match
from agent.finance.arithmetic import Computation
from agent.ingest.prose import split_sentences
from agent.schemas import Citation, NumericValue


class CitedFigure(BaseModel):
    """A figure as the filing prints it, where, and the trust gate's checks of it."""

    doc: str
    page: int = Field(description="1-based page")
    quote: str = ""
    figure: str = Field(default="", description="the figure as the filing writes it, e.g. '(437)'")
    chunk: str = Field(default="", description="the chunk it was read from (the viewer boxes its row by it)")
    period: str = ""
    checks: list[Check] = Field(default_factory=list)


class FigureLink(BaseModel):
    """One ``[doc, p. N]`` link of the answer text and the figure behind it."""

    at: int = Field(description="offset of the link in the answer text")
    text: str = Field(default="", description="the figure as the answer states it ('$437 million')")
    cited: CitedFigure
    computed: bool = False
    formula: str = ""
    operands: list[CitedFigure] = Field(default_factory=list, description="each input of a computed figure")


class _Stated(BaseModel):
    value: NumericValue
    cited: CitedFigure


def _cited(c: Citation, printed: str, period: str, checks: Sequence[Check]) -> CitedFigure:
    return CitedFigure(doc=c.doc, page=c.page, quote=c.quote, figure=printed, chunk=c.chunk_id, period=period,
                       checks=list(checks))


CiteKey = tuple[str, int, str]  # (doc, page, quote): two rows of one page are two sources


def cite_key(c: Citation) -> CiteKey:
    """What tells one cited span from another."""
    return (c.doc, c.page, c.quote)


def citation_checks(final: FinalAnswer) -> dict[CiteKey, list[Check]]:
    """The trust-gate checks of the figure each citation of the answer backs (the first sub-answer citing it)."""
    checks: dict[CiteKey, list[Check]] = {}
    for sa in final.sub_answers:
        for c in sa.citations:
            checks.setdefault(cite_key(c), list(sa.checks))
    return checks


def _sources(final: FinalAnswer) -> tuple[list[_Stated], list[Computation]]:
    stated: list[_Stated] = []
    comps: list[Computation] = list(final.computations)
    for sa in final.sub_answers:
        if sa.status == "found" and sa.value is not None and sa.citation is not None:
            stated.append(_Stated(value=sa.value, cited=_cited(sa.citation, sa.value.text.strip(),
                                                              sa.value.period or sa.period, sa.checks)))
        comps += sa.computations
    return stated, comps


def _operands(comp: Computation, checks: dict[CiteKey, list[Check]]) -> list[CitedFigure]:
    return [_cited(used.citation, used.value.text.strip(), used.value.period, checks.get(cite_key(used.citation), []))
            for used in comp.all_inputs() if used.citation is not None and not used.computed]


def _signed(shown: str, result: NumericValue) -> str:
    """A computed figure as the viewer heads it: with its sign, which the answer may say in words ('a decrease of
    9.86%' is -9.86%)."""
    negative = result.value < 0 and not shown.lstrip().startswith(("-", "(", "−"))
    return f"-{shown.strip()}" if negative else shown


def figure_links(final: FinalAnswer) -> list[FigureLink]:
    """Every citation link of ``final.text``, each with the figure it backs."""
    text = final.text
    stated, comps = _sources(final)
    checks = citation_checks(final)
    figures = answer_figures(text)
    sentences = split_sentences(text)
    links: list[FigureLink] = []
    previous_end = 0
    for m in CITATION_RE.finditer(text):
        doc, page = m.group("doc").strip(), int(m.group("page"))
        start = max([s for s, _ in sentences if s <= m.start()] or [0])
        start = max(start, previous_end)
        since_last_link = text[previous_end : m.start()]
        previous_end = m.end()
        before = [f for f in figures if start <= f.start and f.end <= m.start()]
        link = _link(m.start(), doc, page, before, stated, comps, checks)
        if not link.cited.quote:  # words, or a refusal's closest evidence: the span this link cites
            cite = _quoted_before(final.citations, doc, page, since_last_link)
            if cite is not None:
                link.cited = _cited(cite, _printed_in(cite.quote, before), "", checks.get(cite_key(cite), []))
        links.append(link)
    return links


def _squashed(text: str) -> str:
    return " ".join(text.split()).lower()


def _quoted_before(citations: Sequence[Citation], doc: str, page: int, before: str) -> Citation | None:
    """Of the citations of one page, the one whose quote the answer prints right before the link (each of two
    quoted sentences of one page boxes its own); else the page's first."""
    here = [c for c in citations if c.doc == doc and c.page == page]
    said = _squashed(before)
    quoted = [c for c in here if c.quote and _squashed(c.quote)[:80] in said]
    return (quoted or here or [None])[0]


def _printed_in(quote: str, before: Sequence[NumericValue]) -> str:
    """The figure of ``quote`` that the answer states before the link (the closest evidence's '$4,812 million'
    is the row's '4,812'), when exactly one is; '' otherwise (a quoted sentence is boxed whole)."""
    printed = [n for n in answer_figures(quote) if any(numbers_match(f, n) for f in before)]
    return printed[0].text.strip() if len({n.text for n in printed}) == 1 else ""


def _link(
    at: int,
    doc: str,
    page: int,
    before: Sequence[NumericValue],
    stated: Sequence[_Stated],
    comps: Sequence[Computation],
    checks: dict[CiteKey, list[Check]],
) -> FigureLink:
    here = [s for s in stated if s.cited.doc == doc and s.cited.page == page]
    for fig in before:
        for s in here:
            if numbers_match(fig, s.value):
                return FigureLink(at=at, text=fig.text, cited=s.cited)
        for comp in comps:
            if numbers_match(fig, comp.result):
                operands = _operands(comp, checks)
                first = next((o for o in operands if o.doc == doc and o.page == page), None)
                cited = first or CitedFigure(doc=doc, page=page)
                return FigureLink(at=at, text=_signed(fig.text, comp.result), cited=cited, computed=True,
                                  formula=comp.formula, operands=operands)
    if here:  # a link after words, not a figure ('... as the filing explains [doc, p. 3]')
        return FigureLink(at=at, cited=here[0].cited)
    return FigureLink(at=at, cited=CitedFigure(doc=doc, page=page))
