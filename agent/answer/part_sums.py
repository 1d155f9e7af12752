"""A company's part printed only segment by segment: 'international net sales' of a table that prints U.S. and
International under each segment's heading, each segment's total, and the company's total. The company's
international figure is the sum of the segments' International rows -- computed in code and cited row by row, and
only when the table shows that its segments make up the whole: every segment prints the part once, and the
segments' totals add up to the company's total row, which names the metric asked, in the period asked. Anything
less is no sum of the part, and the question stays refused."""

from __future__ import annotations

from collections.abc import Sequence

from agent.answer.gate import gate
from agent.answer.reading import Evidence, EvidenceReader
from agent.answer.records import SubAnswer, _capital, _computed_answer, _subject
from agent.answer.words import name_words
from agent.finance import arithmetic
from agent.finance.arithmetic import ArithmeticRefusal, CitedValue
from agent.finance.lexicon import figure_kind, find_metrics
from agent.finance.numbers import decimals_of
from agent.query.plan import SubQuery
from agent.schemas import Citation, NumericValue, TableLine

PART_SUM_CONFIDENCE = 0.8  # each operand is a row the question's part names exactly, in a table that adds up


def summed_part(refused: SubAnswer, sub_query: SubQuery, reader: EvidenceReader,
                indexed_companies: Sequence[str] | None = None, turn_question: str = "") -> SubAnswer:
    """The sub-query's figure summed over the segments (:func:`part_across_segments`) when it passes the trust gate,
    else the ``refused`` answer as it is."""
    summed = part_across_segments(refused, sub_query, reader)
    summed = gate(summed, sub_query, reader, indexed_companies, turn_question) if summed is not None else None
    return summed if summed is not None and summed.status == "computed" else refused


def part_across_segments(read: SubAnswer, sub_query: SubQuery, reader: EvidenceReader) -> SubAnswer | None:
    """The company's figure of the one part the plan asks (``ScopeTerm`` of kind 'part'), summed over the segments
    of a table that prints it per segment (see the module docstring), for the sub-query the answer ``read`` was
    refused for; None when no table of the evidence shows it."""
    # the sub-query's own fields, nothing of the figure refused
    fields = read.model_dump(include={"sub_query_id", "question", "metric", "company", "period", "scope"})
    base = SubAnswer(**fields, status="not_found", answer="")
    parts = [t for t in sub_query.intent.scope if t.kind == "part" and t.metric == base.metric]
    if (len(parts) != 1 or len(sub_query.intent.scope) != 1 or not base.period or not base.metric
            or figure_kind(base.metric) != "money"):
        return None
    part = name_words(parts[0].text)
    for rows in _whole_tables(reader, base.company).values():
        found = _part_rows(rows, part, base.metric, base.period)
        if found is None:
            continue
        values, whole = found
        try:
            comp = arithmetic.total(values, base.metric)
        except ArithmeticRefusal:
            continue
        answer = _computed_answer(base, comp, "money", sub_query.intent.scale, PART_SUM_CONFIDENCE)
        answer.named = f"{parts[0].text} of {whole}"  # what the figure is: the part of the company's total row
        operands = " + ".join(f"'{v.label}'" for v in values)
        cites = " ".join(dict.fromkeys(c.label() for c in comp.citations()))
        answer.answer = (f"{_capital(_subject(base.company, base.metric, base.period, base.scope))} was "
                         f"{answer.display} (computed: {operands} = {comp.formula}; the filing prints it segment by "
                         f"segment) {cites}.")
        return answer
    return None


def _whole_tables(reader: EvidenceReader, company: str) -> dict[str, list[tuple[Evidence, TableLine]]]:
    """Each table of the evidence whose every row the evidence holds (a table split over chunks joined), of the
    company asked and of no part, its rows in order, each with the evidence it is read from."""
    found: dict[str, dict[int, tuple[Evidence, TableLine]]] = {}
    sizes: dict[str, int] = {}
    for ev in reader.evidence:
        record = ev.table
        if record is None or record.part or (company and ev.company and ev.company != company):
            continue
        sizes[record.table_id] = record.n_rows
        found.setdefault(record.table_id, {}).update(
            {record.first_row + i: (ev, row) for i, row in enumerate(record.rows)})
    return {table_id: [rows[i] for i in sorted(rows)] for table_id, rows in found.items()
            if len(rows) == sizes[table_id]}


def _part_rows(rows: Sequence[tuple[Evidence, TableLine]], part: set[str], metric: str,
               period: str) -> tuple[list[CitedValue], str] | None:
    """The part's row of each segment of a table, as cited operands, and the label of the company's total row,
    when the table shows its segments make up the company's total of ``metric`` in ``period``; None otherwise."""
    lines = [r for _, r in rows]
    segments = [r.label for r in lines if r.heading and not r.parent]
    whole = [r for r in lines if r.total and not r.parent
             and any(m.canonical == metric for m in find_metrics(r.label))]
    if len(segments) < 2 or len(whole) != 1:
        return None
    totals, values = [], []
    for segment in segments:
        own = [(ev, r) for ev, r in rows if r.parent == segment and not r.heading]
        named = [(ev, r) for ev, r in own if not r.total and name_words(r.label) == part]
        closing = [r for _, r in own if r.total]
        if len(named) != 1 or len(closing) != 1:
            return None  # a segment that prints the part twice, or not at all, or no total: no sum of the part
        ev, row = named[0]
        figure, total = _figure(row, period), _figure(closing[0], period)
        if figure is None or total is None:
            return None
        totals.append(total)
        # an amount of a statement writing no currency sign is in USD, as the lexicon's reading of it says
        figure = figure if figure.unit else figure.model_copy(update={"unit": "USD"})
        values.append(CitedValue(label=f"{segment}: {row.label}", metric=metric, value=figure,
                                 citation=_citation(ev, row)))
    company_total = _figure(whole[0], period)
    if company_total is None or not _adds_up(totals, company_total):
        return None  # the segments are not the whole (another segment, or eliminations, left out)
    return values, whole[0].label


def _figure(row: TableLine, period: str) -> NumericValue | None:
    """The row's one figure of ``period``, or None."""
    figures = [f for c in row.cells for f in c.figures if f.period == period]
    return figures[0] if len(figures) == 1 else None


def _adds_up(parts: Sequence[NumericValue], whole: NumericValue) -> bool:
    """Whether ``parts`` add up to ``whole`` to the decimals the table prints."""
    if any(p.scale != whole.scale for p in parts):
        return False
    places = max(decimals_of(n.text) for n in [*parts, whole])
    return abs(sum(p.value for p in parts) - whole.value) <= 0.5 * 10 ** -places * len(parts)


def _citation(ev: Evidence, row: TableLine) -> Citation:
    """The citation of a row of ``ev``'s table: its line of the chunk's text, at its offset."""
    lines = ev.text.split("\n")
    if 0 <= row.chunk_line < len(lines):
        offset = sum(len(line) + 1 for line in lines[: row.chunk_line])
        return ev.citation(lines[row.chunk_line], offset, row.label)
    return ev.citation(row.label, 0, row.label)
