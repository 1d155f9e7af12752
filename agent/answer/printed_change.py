"""A change the filing prints in a column of its own ('% Change', '% Change at CER', '2019 vs 2018'), read for a
change the plan asks.

A release prints each line's growth beside its two periods, often on a basis no two printed levels give (at
constant exchange rates, organic). A change column compares the two periods its label names, else the two period
columns of one duration nearest to its left. For a change asked of one row between those periods, the column read
is the one on the basis the plan asks (:mod:`agent.finance.basis`: '% Change at CER' answers a change asked at
constant exchange rates or at constant currency, and never one asked on no basis, which the plain '% Change'
answers) whose other words the question asks, all of them (an acronym is read both ways). Where the plan asks a basis
a change column states, the printed change is the answer even when the two levels could be computed, since they are
reported figures; otherwise it answers only when the change could not be computed. The figure goes through the same
trust gate as any other.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.answer.gate import gate
from agent.answer.provenance import spelled_out
from agent.answer.reading import Evidence, EvidenceReader, Segment
from agent.answer.records import SubAnswer, read_change
from agent.answer.words import ASKING_WORDS
from agent.finance.basis import bases_said, other_than_reported, without_bases
from agent.finance.periods import find_periods, sort_key, without_periods
from agent.ingest.typed_tables import CHANGE_LABEL_RE, PERCENT_LABEL_RE
from agent.query.content import content_words
from agent.query.cues import is_operation_word
from agent.query.plan import QueryPlan, SubQuery
from agent.query.scope import PLAIN_MODIFIERS
from agent.schemas import Basis, NumericValue, TableColumn, TableRecord

_PERCENT_COLUMN = {"change": False, "percent_change": True}  # operation -> the column prints a percentage


def compared_periods(record: TableRecord, index: int) -> tuple[str, str] | None:
    """The (earlier, later) periods the change column ``index`` of ``record`` compares: the two its label names
    among the table's period columns, else the two period columns of one duration nearest to its left; None when
    neither reading gives two."""
    columns = record.columns
    periods = [c for c in columns if c.kind == "period" and c.period and not c.part]
    named = {m.norm for m in find_periods(columns[index].label)}
    pair = list(dict.fromkeys(c.period for c in periods if c.period in named))
    if len(pair) != 2:
        nearest: list[TableColumn] = []
        for column in reversed([c for c in columns[:index] if c in periods]):
            if not nearest or (column.months == nearest[0].months and column.period != nearest[0].period):
                nearest.append(column)
            if len(nearest) == 2:
                break
        pair = [c.period for c in nearest]
    if len(pair) != 2:
        return None
    earlier, later = sorted(pair, key=sort_key)
    return earlier, later


def label_words(label: str) -> set[str]:
    """What a change column's label names beyond a change, its periods and its basis ('excluding divestitures' of
    '% Change excluding divestitures'; nothing of '% Change at CER', whose basis :func:`column_bases` reads)."""
    # what ingest reads a change column and its percentage by says no basis
    return content_words(PERCENT_LABEL_RE.sub(" ", CHANGE_LABEL_RE.sub(" ", without_bases(without_periods(label)))))


def column_bases(label: str) -> set[Basis]:
    """The bases other than the reported one a change column's label says ('% Change at CER': constant currency)."""
    return set(other_than_reported(bases_said(label)))


def _asked(word: str, asked: set[str], written: str) -> bool:
    """Whether the question asks ``word`` of a column's label: among its content words ``asked``, or spelled out by
    its words as ``written``."""
    return word in asked or bool(spelled_out(word, written))


def _row_segments(reader: EvidenceReader, answer: SubAnswer) -> list[Segment]:
    """The typed table rows printing the label of the row the lookup's answer (read or refused) cites, the cited
    one first: a release prints 'Total revenues' in its statement and again beside its growth."""
    citation = answer.citation
    if citation is None or not citation.row:
        return []
    rows = [seg for seg in reader.segments if seg.row is not None and seg.label.lower() == citation.row.lower()]
    return sorted(rows, key=lambda seg: reader.evidence[seg.ev].chunk_id != citation.chunk_id)


def _change_cell(seg: Segment, record: TableRecord, periods: tuple[str, str], percent: bool, bases: set[Basis],
                 asked: set[str], beyond: set[str], written: str) -> tuple[NumericValue, TableColumn, bool] | None:
    """The row's figure under the change column comparing ``periods`` on the ``bases`` the plan asks (none: as
    reported) whose other words the question asks, all of them, and that with the row names every word the turn
    asks ``beyond`` its lookup and its basis (the plain column when it asks none), with its column and whether the
    column names a basis or words of its own."""
    best: tuple[NumericValue, TableColumn, bool] | None = None
    row = content_words(f"{seg.label} {seg.parent}")  # the lookup may leave the row's part to its scope ('Halvora')
    for i, column in enumerate(record.columns):
        if column.kind != "change" or (column.unit == "%") != percent or compared_periods(record, i) != periods:
            continue
        own = label_words(column.label)
        named = own | {w for b in own for w in content_words(" ".join(spelled_out(b, written)))}
        if (column_bases(column.label) != bases or not all(_asked(w, asked, written) for w in own)
                or not beyond <= named | row):
            continue
        figures = [n for n in seg.numbers if n.column == column.label and not n.period]
        if len(figures) != 1:
            continue
        qualified = bool(own or bases)
        if best is None or (qualified and not best[2]):
            best = (figures[0], column, qualified)
    return best


def printed_change(plan: QueryPlan, sub_answers: Sequence[SubAnswer], evidence: Sequence[Evidence],
                   computed: bool) -> SubAnswer | None:
    """The change the plan asks of one metric between two periods, read from a change column of the row its later
    lookup cites and gated; None when the plan asks anything else, the row prints no change column for those
    periods on the basis asked, or (``computed``: the change could be computed from the levels) the column read
    names no basis the question asks, or the gate refuses the figure."""
    change = plan.one_change(_PERCENT_COLUMN)
    answers = {sa.sub_query_id: sa for sa in sub_answers}
    if change is None or change[2].id not in answers:
        return None
    operation, earlier, later = change
    reader = EvidenceReader(evidence)
    asked = {*plan.intent.wording.words, *later.intent.wording.words}
    beyond = _beyond_lookup(plan, later)
    written = " ".join(plan.intent.wording.terms)
    bases = set(other_than_reported(later.intent.wording.basis))  # the turn's, carried to its lookups by the plan
    for seg in _row_segments(reader, answers[later.id]):
        ev = reader.evidence[seg.ev]
        found = _change_cell(seg, ev.table, (earlier.period, later.period), _PERCENT_COLUMN[operation],
                             bases, asked, beyond, written) if ev.table is not None else None
        if found is not None and (found[2] or not computed):
            value, column, _ = found
            read = _answer(answers[later.id], later, earlier.period, seg, ev, value, column, operation)
            gated = gate(read, later.asking(operation), reader)
            return gated if gated.status == "found" else None
    return None


def _beyond_lookup(plan: QueryPlan, later: SubQuery) -> set[str]:
    """What the turn asks of its figure beyond its lookup's words, as the plan read both: 'constant exchange rates'
    of 'total revenue growth at constant exchange rates', which the lookup ('What was total revenue in FY2025Q3?')
    leaves out. Not the metric's own name however worded, the company's, the arithmetic, nor a plain modifier."""
    wording = plan.intent.wording
    turn = set(wording.beside.get(later.metric, wording.words)) & content_words(without_bases(" ".join(wording.terms)))
    company = content_words(" ".join([plan.intent.company, *plan.intent.company_written, later.company]))
    return {w for w in turn - set(later.intent.wording.words) - ASKING_WORDS - PLAIN_MODIFIERS - company
            if not is_operation_word(w)}


def _answer(base: SubAnswer, sub_query: SubQuery, earlier: str, seg: Segment, ev: Evidence, value: NumericValue,
            column: TableColumn, operation: str) -> SubAnswer:
    """The change as read: the row's figure under the change column, of the later period, cited to its row."""
    changed = value.model_copy(update={"change": True, "period": sub_query.period})
    whose = f"{base.company}'s " if base.company else ""
    kind = "percentage change" if operation == "percent_change" else "change"
    what = f"{whose}{seg.label}, {kind} from {earlier} to {sub_query.period} as printed ('{column.label}')"
    return read_change(base, sub_query, changed, seg.text, ev.citation(seg.text, value.start, seg.label), what,
                       f'table cell: row "{seg.label}", column "{column.label}". Source: "{seg.text}"',
                       named=f"{seg.label} {column.label}")
