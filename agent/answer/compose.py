"""Answer sub-queries from evidence and merge them into one cited answer (offline and language-model twins).

Offline twin (extractive; docs/architecture.md: every language-model step has an offline twin): for a numeric sub-query it
finds the table row or sentence that carries the asked metric and period (rows and sentences as
:class:`agent.answer.reading.EvidenceReader` reads them). Row labels and sentences are matched
to metrics through the lexicon (canonical names, synonyms, abbreviations), periods through the row's period
cells or the sentence's period mentions. Exact labels beat partial ones ("Total revenue" beats "Industrial
Sensors revenue"), statements beat MD&A restatements, a balance-sheet metric prefers the balance sheet over
the cash-flow statement's changes. Scales are converted in code ("in USD millions" vs "(in thousands)").
Derived metrics (margins, ratios, days, turnover, growth, FCF, EBITDA) are computed by :mod:`agent.finance.arithmetic`
from their components. Explanation, definition and policy questions get the best one to three evidence
sentences. Nothing found means an honest "not found in the filings: <what>", never a guess.

:func:`compose_answer` merges sub-answers and computations into one :class:`FinalAnswer` where every figure
carries ``[doc, p. N]``. :func:`llm_answer` is the grounded-prompt twin (multistage_retrieval_reranking 3.7):
the model sees only the evidence, does arithmetic through the calculator tool, and its text goes through
:func:`agent.answer.verify.verify_answer`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from agent.answer.asked_period import in_filer_calendar, to_date_resolved
from agent.answer.cells import _cell_answer
from agent.answer.choice import table_choice
from agent.answer.figure_basis import states_bases
from agent.answer.gate import (
    gate,
    operation_refusal,
    part_refusal,
    refused,
    sanity_failure,
    turn_operation_unmet,
    unmet_operation,
)
from agent.answer.judgement import verdict
from agent.answer.part_sums import summed_part
from agent.answer.printed_change import printed_change
from agent.answer.provenance import row_label
from agent.answer.reading import Evidence, EvidenceReader
from agent.answer.records import (
    NOT_FOUND,
    Check,
    CombinationResult,
    Figure,
    FinalAnswer,
    SubAnswer,
    _capital,
    _computed_answer,
    _not_found,
    _subject,
    inputs_span,
    qualified,
)
from agent.answer.row_periods import (
    TREND,
    over_row_periods,
    periods_answer,
    read_row,
    table_caption,
    table_items,
    table_periods,
)
from agent.answer.stated_rate import stated_rate
from agent.answer.values import _lexicon_answer
from agent.answer.verify import verify_answer
from agent.answer.words import _asks_figure, cited_unasked_part, filing_owner, is_part_row
from agent.entities.names import name_key
from agent.finance import arithmetic
from agent.finance.arithmetic import ArithmeticRefusal, CitedValue, Computation, period_tie, reported_cell
from agent.finance.basis import other_than_reported
from agent.finance.formulas import FormulaKind
from agent.finance.lexicon import figure_kind, find_metrics
from agent.finance.metrics import METRICS
from agent.finance.numbers import MONEY_UNITS
from agent.finance.periods import granularity
from agent.query.asked import (
    CHOICE,
    ITEMS,
    PERIODS_MEETING,
    THRESHOLD,
    operation_description,
    operation_kind,
    operation_unmet,
    planned_operation,
)
from agent.query.content import content_words
from agent.query.cues import NON_NUMERIC_RELATIONS, TYPED_NUMBER, metric_label, possessive
from agent.query.dialogue import Rewrite
from agent.query.plan import Combination, QueryPlan, SubQuery
from agent.query.scope import terms_for
from agent.schemas import Citation, NumericValue, QueryIntent, Relation, TypedNumber

CELL_OVER_PROSE_CONFIDENCE = 0.75  # a table cell naming (nearly) every question word beats a prose restatement


_REMEMBERED_OPERATIONS = frozenset({"change", "difference", "percent_change", "sum", "ratio"})


def answer_sub_query(
    sub_query: SubQuery,
    evidence: Sequence[Evidence],
    reader: EvidenceReader | None = None,
    indexed_companies: Sequence[str] | None = None,
    turn_question: str = "",
) -> SubAnswer:
    """The offline extractive answer to one sub-query over ``evidence`` (never a guess).

    Numeric sub-queries get the figure (read, or computed from components for derived metrics) with its quote
    and citation; explanation, definition and policy sub-queries get the best one to three sentences. Every
    answer passes the trust gate (:func:`agent.answer.gate.gate`) before it is returned; ``indexed_companies``
    (the companies with a filing in the index) lets a refusal say which companies are there; ``turn_question``
    is the question the sub-query was split from (a name it uses must hold for every part).
    """
    reader = reader or EvidenceReader(evidence)
    if sub_query.intent.asks_words and sub_query.intent.requires_numeric:  # the plan's kind: no figure is asked
        sub_query = sub_query.model_copy(update={"intent": sub_query.intent.model_copy(
            update={"requires_numeric": False})})
    sub_query = to_date_resolved(in_filer_calendar(sub_query, reader), reader.evidence)
    answer = _answer_sub_query(sub_query, evidence, reader)
    typed = sub_query.intent.wording.typed
    if typed is not None and answer.value is not None and answer.status in {"found", "text"}:
        answer = _with_typed_number(answer, typed, sub_query.intent.scale)
        # 'less an initial investment of $100' is arithmetic the user typed, no word the figure's row must print
        sub_query = sub_query.model_copy(update={"question": sub_query.question[: typed.start].rstrip() + "?"})
    gated = gate(answer, sub_query, reader, indexed_companies, turn_question)
    return gated if gated.status in {"found", "computed"} or typed is not None else summed_part(
        gated, sub_query, reader, indexed_companies, turn_question)


def _with_typed_number(answer: SubAnswer, typed: TypedNumber, scale: float | None) -> SubAnswer:
    """The figure read, less / plus / divided by the number the question typed, shown in the ``scale`` asked; the
    figure alone when the arithmetic is refused."""
    read = answer.cited_value()
    if read is None:
        return answer
    number = typed.number
    literal = CitedValue(
        label=f"the number {number}",
        value=NumericValue(
            text=number,
            value=float(number),
            scale=read.value.scale,
            unit=read.value.unit if read.value.unit != "%" else "",
        ),
        computed=True,
    )
    op = typed.op
    try:
        if op == "divided by":
            comp, kind = arithmetic.ratio(read, literal, answer.metric), "ratio"
        elif op == "plus":
            comp, kind = arithmetic.total([read, literal], answer.metric), "money"
        else:
            comp, kind = arithmetic.change(literal, read, answer.metric), "money"
    except ArithmeticRefusal:
        return answer
    computed = _computed_answer(answer, comp, kind, scale, answer.confidence)
    labels = " ".join(dict.fromkeys(c.label() for c in comp.citations()))
    computed.answer = (
        f"{read.value.text.strip()} {op} {number}: {computed.display} "
        f"(computed: {comp.formula}) {labels}.\n{answer.answer}"  # then the figure read, as cited
    )
    return computed


def _answer_sub_query(
    sub_query: SubQuery, evidence: Sequence[Evidence], reader: EvidenceReader | None = None
) -> SubAnswer:
    reader = reader or EvidenceReader(evidence)
    intent = sub_query.intent
    metric = sub_query.metric or (intent.metrics[0] if len(intent.metrics) == 1 else "")
    company = sub_query.company or intent.company
    period = sub_query.period or (
        intent.temporal_scope.periods[0] if len(intent.temporal_scope.periods) == 1 else ""
    )
    base = SubAnswer(
        sub_query_id=sub_query.id,
        question=sub_query.question,
        status="not_found",
        answer="",
        metric=metric,
        company=company,
        period=period,
        # what the figure is: its parts, and the basis it is asked on (the gate holds it to both)
        scope=[*(t.text for t in terms_for(intent.scope, metric)), *other_than_reported(intent.wording.basis)],
    )
    if not reader.evidence:
        return _not_found(base, "no evidence was retrieved")
    if (about := table_caption(base, intent, reader)) is not None:
        return about  # 'what does the table show?': what introduces it, quoted
    if not (metric and intent.requires_numeric) or metric not in METRICS or _share_of_two(sub_query, metric):
        cell = _cell_answer(base, sub_query, reader) if _asks_figure(sub_query) else None
        if cell is not None:
            return cell
    answer = _lexicon_answer(base, sub_query, reader, metric, company, period)
    if answer.status not in {"not_found", "found"} or not _asks_figure(sub_query):
        return answer
    # The lexicon's rows may be missing ('2007 net revenue | 442.3' puts the year in the label), or it read
    # prose or a row naming less of the question ('accounts payable' for 'total accounts payable and other
    # current liabilities'): a table cell that names the whole question is then the better reading.
    cell = _cell_answer(base, sub_query, reader)
    if cell is None:
        return answer
    other = _other_metric_named(cell, metric, reader)
    if other and answer.status == "not_found":
        # 'Net income' where the lexicon finds no operating income at all: another metric's row, shown as the closest
        # evidence and never stated for the metric asked
        check = Check(name="metric", passed=False, detail=f"the figure's row {row_label(cell)!r} is {other}, not {metric}")
        return refused(cell, f"{metric} ({check.detail})", cell.answer.strip().rstrip("."), [*cell.checks, check])
    if other:
        return answer  # 'Industrial Sensors revenue' names the segment asked, but it is no operating income
    if answer.status == "not_found":
        return cell
    asked = " ".join([sub_query.question, company, *base.scope])
    if cited_unasked_part(cell, reader, asked) and not cited_unasked_part(answer, reader, asked):
        return answer  # the company's own figure, not a segment's table that words the question more closely
    if base.scope and _names_parts(answer, base.scope) and not _names_parts(cell, base.scope):
        return answer  # 'net sales in Europe': the Europe row, not a total that names more of the words
    if states_bases(answer, intent.wording.basis) and not states_bases(cell, intent.wording.basis):
        return answer  # 'Adjusted net income' for the adjusted figure, however many words the cell's row names
    words = content_words(sub_query.question)
    cell_recall, read_recall = _row_recall(cell, words), _row_recall(answer, words)
    if cell.confidence >= CELL_OVER_PROSE_CONFIDENCE and cell_recall > read_recall:
        return cell
    if (
        not answer.exact_label
        and cell_recall == read_recall > 0
        and _row_precision(cell, words) > _row_precision(answer, words)
    ):
        return cell  # 'pension service cost': the 'service cost' row, not 'net pension cost' naming as many words
    if not answer.period_stated and cell.period_stated and cell.period == answer.period:
        return cell  # the lexicon's row gave no period; the cell's column (or the filing's year) does
    return answer


def _other_metric_named(cell: SubAnswer, metric: str, reader: EvidenceReader) -> str:
    """The lexicon metric the cell's row label names when none it names is ``metric`` or a kind of it: another
    metric's row ('Industrial Sensors revenue' for an operating income; 'Net income attributable to ...' is a kind
    of net income); '' otherwise."""
    named = sorted({m.canonical for m in find_metrics(row_label(cell))})
    row = (reader.row_at(cell.citation.chunk_id, cell.value.start)
           if named and cell.citation is not None and cell.value is not None else None)
    if row is not None and any(m.canonical == metric for m in find_metrics(row.parent)):
        return ""  # the sub-heading it sits under says what it is ('Diluted Earnings Per Common Share:')
    related = set(METRICS[metric].related) if metric in METRICS else set()
    if any(n == metric or metric in n or n in metric or n in related for n in named):
        return ""
    return named[0] if named else ""


def _names_parts(answer: SubAnswer, parts: Sequence[str]) -> bool:
    """The figure's own row is labelled by the part the question narrows it to ('Europe | 1,100' for 'net sales in
    Europe', 'Total Garden' for Garden's): a part's row or its block's total, not a row that mentions the part
    among other words."""
    return bool(row_label(answer)) and is_part_row(row_label(answer), parts)


def _share_of_two(sub_query: SubQuery, metric: str) -> bool:
    """The question divides two figures it names ('what portion of the purchase price was allocated to
    goodwill') while its lexicon metric is one of them, not a ratio: the two cells answer it, not one value."""
    formula = METRICS[metric].formula if metric in METRICS else None
    amount = formula is None or formula.kind in {FormulaKind.DIFFERENCE, FormulaKind.SUM}
    return amount and sub_query.intent.wording.share is not None


def _row_recall(answer: SubAnswer, words: set[str]) -> float:
    """Share of the question's words the label of the figure's table row names (0 for prose: it has no label)."""
    if not row_label(answer) or not words:
        return 0.0
    return len(words & content_words(row_label(answer))) / len(words)


def _row_precision(answer: SubAnswer, words: set[str]) -> float:
    """Share of the label words of the figure's table row that the question uses (0 for prose)."""
    label = content_words(row_label(answer))
    return len(words & label) / len(label) if label else 0.0


# ---------------------------------------------------------------------------------------------------------
# Combining sub-answers, references to earlier turns
# ---------------------------------------------------------------------------------------------------------
def combine(
    plan: QueryPlan, sub_answers: Sequence[SubAnswer], evidence: Sequence[Evidence] = ()
) -> CombinationResult:
    """Run the plan's combinations over the sub-answers' figures, in order (refusals reported, not raised).
    With ``evidence``, operands of one asked company that come from different companies' filings are refused."""
    asked = {sa.sub_query_id: name_key(sa.company) for sa in sub_answers}
    values: dict[str, CitedValue] = {}
    for sa in sub_answers:
        cv = sa.cited_value()
        if cv is not None and sa.sub_query_id:
            values[sa.sub_query_id] = cv
    out = CombinationResult()
    by_id = {sq.id: sq for sq in plan.sub_queries}
    produced: dict[str, Computation] = {}
    for combo in plan.combinations:
        missing = [op for op in combo.operands if op not in values]
        if missing:
            # Name what is missing in words ('Contoso's revenue in FY2023'), never by internal sub-query key.
            named = [
                _subject(sq.company, sq.metric, sq.period) if sq is not None and sq.metric else (combo.label or op)
                for op in missing
                for sq in [by_id.get(op)]
            ]
            out.failed.append(f"{combo.label or combo.operation}: {', '.join(dict.fromkeys(named))} not found")
            continue
        shares = [values[op] for op in combo.operands if op in by_id and values[op].value.unit == "%"]
        if shares and combo.metric and figure_kind(combo.metric) == "money":
            # 'the percentage change in total service revenue' over the 'Percentage of service revenue' row: a share
            # read for an amount is not the amount the metric is (a ratio the plan computed is its own arithmetic)
            out.failed.append(f"{combo.label or combo.operation}: {shares[0].label} is a percentage "
                              f"({shares[0].value.text}), not the amount {combo.metric} is")
            out.misread.update({op: combo.label or combo.operation for op in combo.operands if op in by_id})
            continue
        mixed = _mixed_filings(combo, values, asked, evidence)
        if mixed:
            out.failed.append(f"{combo.label or combo.operation}: {mixed}")
            continue
        try:
            comp = _run(combo, [values[op] for op in combo.operands])
        except ArithmeticRefusal as exc:
            out.failed.append(f"{combo.label or combo.operation}: {exc}")
            continue
        comp.explanation = " ".join(
            filter(None, [combo.label and _capital(combo.label) + ".", comp.explanation])
        )
        comp.steps = [produced[op] for op in combo.operands if op in produced]  # citations flow through
        produced[combo.id] = comp
        out.computations.append(comp)
        out.labels[combo.id] = combo.label
        values[combo.id] = CitedValue(
            label=combo.label or combo.operation, metric=comp.metric, value=comp.result, computed=True
        )
    return out


def _mixed_filings(
    combo: Combination, values: dict[str, CitedValue], asked: dict[str, str], evidence: Sequence[Evidence]
) -> str:
    """Why a combination cannot run when its operands were asked of one company (or none) but read from
    different companies' filings ('SG&A as % of revenue' with Ulta's SG&A and Microsoft's revenue), else ''."""
    if not evidence or len({asked.get(op, "") for op in combo.operands}) > 1:
        return ""  # a comparison of companies the question names
    owners = {filing_owner(evidence, values[op].citation.doc) for op in combo.operands
              if not values[op].computed and values[op].citation is not None}
    if len(owners) > 1:
        return f"its figures come from different companies' filings ({', '.join(sorted(owners))})"
    return ""


def _run(combo: Combination, operands: list[CitedValue]) -> Computation:
    """The combination computed in code; refused (ArithmeticRefusal) when the result fails the sanity bounds."""
    comp = _compute(combo, operands)
    why = sanity_failure(comp)
    if why:
        raise ArithmeticRefusal(why)
    return comp


def _compute(combo: Combination, operands: list[CitedValue]) -> Computation:
    metric = combo.metric
    op = combo.operation
    if op == "difference":
        return arithmetic.difference(operands[0], operands[1], metric)
    if op == "change":
        return arithmetic.change(operands[0], operands[-1], metric)
    if op == "percent_change":
        return arithmetic.percent_change(operands[0], operands[-1], metric)
    if op == "cagr":
        years = arithmetic.years_between(operands[0].value.period, operands[-1].value.period)
        return arithmetic.cagr(operands[0], operands[-1], years, metric)
    if op == "ratio":
        return arithmetic.ratio(operands[0], operands[1], metric)
    if op == "share":
        return arithmetic.share_of_total(operands[0], operands[1], metric)
    if op == "sum":
        return arithmetic.total(operands, metric)
    if op in {"highest", "lowest"}:  # items the question names, each figure named by its item
        named = [o.model_copy(update={"label": item}) for o, item in zip(operands, combo.items, strict=True)]
        return arithmetic.extreme(named, lowest=op == "lowest", metric=metric, by_size=combo.by_size,
                                  signed_order=False)
    return arithmetic.average(operands, metric)


def answer_references(rewrite: Rewrite) -> Computation | None:
    """The arithmetic a follow-up asks on earlier answers ("what was the change?"), computed in code."""
    refs = rewrite.references
    if not rewrite.operation or len(refs) < 2:
        return None
    combo = Combination(
        id="r1",
        operation=rewrite.operation  # type: ignore[arg-type]
        if rewrite.operation in {"change", "percent_change", "cagr", "ratio", "share", "sum", "average"} else "change",
        operands=[],
        metric=refs[0].metric,
        label=rewrite.question,
    )
    return _run(combo, list(refs))


# ---------------------------------------------------------------------------------------------------------
# Composing the final answer
# ---------------------------------------------------------------------------------------------------------
def _table_choice(question: str, sub_answers: Sequence[SubAnswer], evidence: Sequence[Evidence] | None
                  ) -> Computation | None:
    """The first sub-answer's table block ranked as a choice question asks (see :mod:`agent.answer.choice`)."""
    if not evidence or not sub_answers:
        return None
    reader = EvidenceReader(evidence)
    return next((c for sa in sub_answers if (c := table_choice(sa, question, reader)) is not None), None)


def _computation_sentence(comp: Computation, label: str, with_inputs: bool = False) -> tuple[str, Figure]:
    """One computed result as a sentence: what it is, the result, the formula and the sources; ``with_inputs``
    also states a change's two figures with their units and periods ('from 24.60% in FY2021 to 21.61% in
    FY2022'), when they get no line of their own."""
    cites = comp.citations()
    tail = f" {' '.join(dict.fromkeys(c.label() for c in cites))}" if cites else ""  # a page cited once
    head = _capital(label) if label else _capital(comp.metric or comp.operation)
    shown = comp.result.text
    if comp.operation in {"highest", "lowest"}:  # the period (or item) is the answer, as asked; the value why
        shown = f"{comp.item or _plain_period(comp.result.period)} ({comp.result.text})"
    if comp.operation in {"change", "percent_change"} and comp.result.value < 0:
        # a fall is said as one: 'how much did costs decrease by?' is answered '$2,192', not '-$2,192'
        shown = "a decrease of " + arithmetic.display(-comp.result.value, comp.result.unit, comp.result.scale)
    if comp.operation in {"change", "difference"} and comp.result.unit == "%":
        shown = shown.removesuffix("%") + " pp"  # a difference of percentages is in percentage points
    shown = qualified(shown, comp.result)  # computed from a figure the filing gives as approximate
    span = inputs_span(comp) if with_inputs else ""
    sentence = f"{head}: {shown}{span} ({comp.formula}){tail}."
    return sentence, Figure(text=shown, value=comp.result, citations=cites, computed=True, formula=comp.formula)


def _plain_period(period: str) -> str:
    """'FY2019' -> '2019': a fiscal year as a question asking 'in which year' names it; other periods as they are."""
    return period[2:] if granularity(period) == "year" else period


def _asked_operations(
    intent: QueryIntent, sub_answers: Sequence[SubAnswer], evidence: Sequence[Evidence] | None
) -> tuple[list[Computation], list[str], list[SubAnswer], set[str]]:
    """For a question asking an average or a change that no plan step computed: the operation over the read
    row's own period columns (the years the question names, else every year for an average and the latest two
    for a change), in code and cited; a read value that cannot be turned into what was asked is refused. Also
    the sub-queries whose read value became an operand (stated by the formula, not on a line of its own)."""
    computations: list[Computation] = []
    labels: list[str] = []
    kept: list[SubAnswer] = []
    consumed: set[str] = set()
    if not planned_operation(intent):  # the common case: a lookup asked
        if intent.relation is Relation.TREND and not intent.wording.periods and evidence:
            return _trend_over_rows(intent, sub_answers, EvidenceReader(evidence))
        return computations, labels, list(sub_answers), consumed
    kinds = set(intent.operations)
    reader = EvidenceReader(evidence) if evidence else None
    # A typed table's sections, title and period caption, never its column headers ('Change (%)', or a title of
    # them); prose has none
    captions = {e.chunk_id: "" if e.table is None
                else " ".join(t for t in (" > ".join(e.section_path), e.table.title, e.table.period_caption)
                              if "|" not in t)
                for e in evidence or ()}
    computing = intent.relation not in NON_NUMERIC_RELATIONS  # 'what caused the increase?' asks words
    for sa in sub_answers:
        if ITEMS in kinds and reader is not None:
            items = table_items(sa, intent, reader)
            if items is not None:
                kept.append(items)
                continue
        if "periods" in kinds and reader is not None:
            row = read_row(sa, intent, reader) if sa.status == "found" else None
            listed = periods_answer(sa, row, reader) if row is not None else None
            listed = listed or table_periods(sa, intent, reader)
            if listed is not None:
                kept.append(listed)
                continue
        if sa.status == "text" and computing:
            # 'What is the difference between the two rates?' answered by a sentence about the rates: no figure
            # at all is no answer to a computation; the sentence stays as the closest evidence.
            kept.append(operation_refusal(sa, planned_operation(intent), "no figure to compute it from was found"))
            continue
        what = unmet_operation(sa, intent, captions.get(sa.citation.chunk_id, "") if sa.citation else "")
        kind = operation_kind(what)
        row = read_row(sa, intent, reader) if what else None
        comp = over_row_periods(sa, intent, kind, row, reader) if row is not None else None
        # 'how much did X grow': the change's size and its rate, as a lexicon metric's plan computes both
        in_percent = intent.model_copy(update={"wording": intent.wording.model_copy(update={"percent": True})})
        rate = (over_row_periods(sa, in_percent, kind, row, reader)
                if comp is not None and kind == "change" and intent.wording.rate_too and not intent.wording.percent
                else None)
        if comp is not None and kind in {"extreme", PERIODS_MEETING} and any(
            c.formula == comp.formula for c in computations
        ):
            continue  # each year's lookup read the same row: its comparison is stated once
        for done in (comp, rate) if comp is not None else ():
            if done is not None:
                computations.append(done)
                labels.append(_operation_label(done, sa.company, intent))
        if comp is not None:
            if kind in {"extreme", PERIODS_MEETING}:
                continue  # the one read value is no part of the answer ('2024' is; its figure shows in the comparison)
            consumed.add(sa.sub_query_id)  # the read value is an operand: its formula states it
        kept.append(operation_refusal(sa, what) if what and comp is None else sa)
    return computations, labels, kept, consumed


def _trend_over_rows(
    intent: QueryIntent, sub_answers: Sequence[SubAnswer], reader: EvidenceReader
) -> tuple[list[Computation], list[str], list[SubAnswer], set[str]]:
    """A trend asked with no year named: each read figure's row, over its latest years (:func:`over_row_periods`).
    A figure whose row gives fewer years than the question counts is refused ('over the last seven years' of a
    five-year table); one with no years counted stays as read."""
    computations: list[Computation] = []
    labels: list[str] = []
    kept: list[SubAnswer] = []
    consumed: set[str] = set()
    counted = intent.wording.counted_years
    for sa in sub_answers:
        row = read_row(sa, intent, reader) if sa.status == "found" else None
        comp = over_row_periods(sa, intent, TREND, row, reader) if row is not None else None
        if comp is not None:
            computations.append(comp)
            labels.append(_operation_label(comp, sa.company, intent))
            consumed.add(sa.sub_query_id)  # the latest figure is the change's last operand
        elif counted and sa.status == "found":
            # in words: a count the filing does not print would read as an unverified figure
            sa = operation_refusal(sa, "a trend over the years counted", "the row read gives fewer years")
        kept.append(sa)
    return computations, labels, kept, consumed


def _one_figure_per_period(sub_answers: Sequence[SubAnswer]) -> list[SubAnswer]:
    """Sub-answers for different periods, or different items of one metric, that read one and the same figure (same
    quote, same place) are all refused: 'Total debt in FY2007 was 1,181' and 'in FY2008 was 1,181' from one cell
    is right at most once."""
    def cell(sa: SubAnswer) -> tuple[str, int, str, int] | None:
        cited = sa.cited_value() if sa.status != "not_found" else None
        return reported_cell(cited) if cited is not None else None

    def figure(sa: SubAnswer) -> tuple[str, int, str, str] | None:
        """Where and how a figure was read, located or not: two asks reading it read the same figure."""
        if sa.status == "not_found" or sa.value is None or sa.citation is None:
            return None
        return sa.citation.doc, sa.citation.page, sa.citation.quote, f"{sa.value.start}:{sa.value.text}"

    periods: dict[tuple[str, int, str, int], set[str]] = {}
    asks: dict[tuple[tuple[str, int, str, str], str, str], set[str]] = {}  # (figure, period, metric) -> sub-queries
    for sa in sub_answers:
        key = cell(sa)
        if key is not None:
            periods.setdefault(key, set()).add(sa.value.period if sa.value else "")
        read = figure(sa)
        if read is not None and sa.value is not None:
            asks.setdefault((read, sa.value.period, sa.metric), set()).add(sa.sub_query_id)
    cited = [sa.cited_value() if sa.status != "not_found" else None for sa in sub_answers]
    out: list[SubAnswer] = []
    for i, sa in enumerate(sub_answers):
        key = cell(sa)
        shared = periods.get(key, set()) if key is not None else set()
        mine = cited[i]
        ties = [c for j, c in enumerate(cited) if j != i and c is not None and mine is not None and period_tie(mine, c)]
        if len(shared) > 1 and sa.value is not None and sa.citation is not None:
            others = ", ".join(sorted(shared - {sa.value.period}))
            sa = operation_refusal(sa, f"the {sa.value.period or 'asked'} figure",
                                   f"the same figure ({sa.value.text} {sa.citation.label()}) was read for {others} "
                                   "too, so it belongs to one of them at most")
        elif (read := figure(sa)) is not None and sa.value is not None and sa.citation is not None and len(
            asks.get((read, sa.value.period, sa.metric), set())
        ) > 1:
            # two items of one metric ('the International and Foodservice segment') read as one figure were not
            # told apart: it is right for one of them at most
            sa = operation_refusal(sa, "a figure of its own for each item",
                                   f"the same figure ({sa.value.text} {sa.citation.label()}) was read for another "
                                   "item asked too, so it belongs to one of them at most")
        elif ties and sa.value is not None:
            others = ", ".join(sorted({c.value.period for c in ties}))
            sa = operation_refusal(sa, f"the {sa.value.period or 'asked'} figure",
                                   f"{sa.value.text} was also read for {others} from another place; such an exact tie "
                                   "across periods means one of them was read for the wrong period")
        out.append(sa)
    return out


def _operation_label(comp: Computation, company: str, intent: QueryIntent) -> str:
    """What a computation's result is, for people, in the question's own words for its metric."""
    wording = intent.wording
    metric = wording.contrary.get(comp.metric, comp.metric) if comp.metric else ""
    subject = f"{company} {metric}".strip()
    test = wording.threshold if comp.operation == "threshold" else None
    if test is not None:
        return f"periods with {subject} {arithmetic.COMPARISON_WORDS[test.comparison]} {test.bound.text.strip()}"
    if comp.operation == "average":
        return f"average {subject} over {comp.result.period}"
    if comp.operation in {"highest", "lowest"} and comp.item:
        whose = possessive(company) + " " if company else "the "
        if comp.inputs[0].computed:  # each item's change was ranked
            kind = "percentage change" if comp.result.unit == "%" else "change"
            return f"{wording.item_kind} with {whose}{comp.operation} {kind} in {metric} from {comp.result.period}"
        return f"{wording.item_kind} with {whose}{comp.operation} {metric} in {comp.result.period}"
    if comp.operation in {"highest", "lowest"}:
        unit = "year" if granularity(comp.result.period) == "year" else "period"
        return f"{unit} with {possessive(company) + ' ' if company else 'the '}{comp.operation} {metric}"
    kind = "percentage change" if comp.operation == "percent_change" else "change"
    return f"{kind} in {subject} from {comp.result.period}"


def compose_answer(
    plan: QueryPlan,
    sub_answers: Sequence[SubAnswer],
    computations: Sequence[Computation] = (),
    not_found: Sequence[str] = (),
    evidence: Sequence[Evidence] | None = None,
    labels: Sequence[str] = (),
    operands: Collection[str] = (),
) -> FinalAnswer:
    """Merge sub-answers and computations into one answer; every figure carries ``[doc, p. N]``.

    The computed results lead (they answer comparisons and trends directly), then each sub-answer, then what
    was not found. One answer per question: a sub-answer whose figure is an operand of a stated computation
    (``operands``: sub-query ids) gets no line of its own -- the computation's formula states and cites it --
    and stays among the answer's records, for follow-ups and the trace. With ``evidence`` the text is also run
    through :func:`agent.answer.verify.verify_answer`.
    """
    question, intent = plan.question, plan.intent
    sub_answers = _one_figure_per_period(sub_answers)
    picking = sorted(set(intent.operations) & {CHOICE, THRESHOLD})
    ranked = any(c.operation in {"highest", "lowest"} for c in computations)  # items the question named, ranked
    chosen = _table_choice(question, sub_answers, evidence) if picking == [CHOICE] and not ranked else None
    if chosen is not None:
        # 'Which region had the highest revenue?': the rows of one block ranked in code; the sub-queries' figures,
        # read or not found, are no answers of their own (they stay among the records, for follow-ups and the trace).
        computations, labels = [chosen], [_operation_label(chosen, sub_answers[0].company, intent)]
        operands = {*operands, *(sa.sub_query_id for sa in sub_answers)}
    elif picking and not ranked:  # (a ranking of named items answers: each item's figure is its operand)
        # 'Which region had the worst ...?', 'Are there any categories above 20% of revenue?' name items (or
        # periods) meeting a test; finrag compares a row across periods, not rows with each other, so every figure
        # found (read or computed) is evidence, never the answer.
        computations, labels = (), ()
        sub_answers = [
            operation_refusal(sa, operation_description(picking[0]), "finrag compares a row across periods, not "
                              "rows with each other") if sa.status != "not_found" else sa
            for sa in sub_answers
        ]
    elif not computations:  # nothing computed the average or change asked: one read value is no answer
        computations, labels, sub_answers, consumed = _asked_operations(intent, sub_answers, evidence)
        operands = {*operands, *consumed}
    lines: list[str] = []
    figures: list[Figure] = []
    citations: dict[tuple[str, int, str], Citation] = {}
    for i, comp in enumerate(computations):
        label = labels[i] if i < len(labels) else ""
        sentence, figure = _computation_sentence(comp, label, with_inputs=bool(operands))
        lines.append(sentence)
        figures.append(figure)
        for c in figure.citations:
            citations.setdefault((c.doc, c.page, c.quote), c)
    missing = list(not_found)
    for sa in sub_answers:
        if sa.status == "not_found" and chosen is None:
            missing.append(sa.missing or sa.question)
            continue
        if computations and sa.sub_query_id in operands:
            continue
        lines.append(sa.answer)
        for c in sa.citations:
            citations.setdefault((c.doc, c.page, c.quote), c)
        if sa.value is not None:
            figures.append(
                Figure(
                    text=sa.display or sa.value.text,
                    value=sa.value,
                    citations=sa.citations,
                    computed=sa.status == "computed",
                    formula=sa.computations[0].formula if sa.computations else "",
                )
            )
    judged = verdict(question, sub_answers, computations) if lines else ""
    if judged:  # a yes/no question that a computed or read figure decides: the verdict and its rule lead
        lines.insert(0, judged)
    if missing:
        lines.append(f"{NOT_FOUND}: {'; '.join(dict.fromkeys(missing))}.")
        refused = [sa for sa in sub_answers if sa.status == "not_found" and sa.closest and chosen is None]
        if refused:  # what the filings do say, marked as not the figure asked, so a reader can check why
            lines.append(f"Closest evidence (not the figure asked): "
                         f"{'; '.join(dict.fromkeys(sa.closest for sa in refused))}.")
            for sa in refused:  # its link opens the row it was read from
                for c in sa.citations:
                    citations.setdefault((c.doc, c.page, c.quote), c)
    text = "\n".join(lines) if lines else f"{NOT_FOUND}: {question}."
    answer = FinalAnswer(
        question=question,
        text=text,
        citations=list(citations.values()),
        figures=figures,
        not_found=list(dict.fromkeys(missing)),
        # A change read straight from a table ('the change from 2016 to 2017') is what the next turn's 'and
        # the percent change?' works on: it is kept like a planned computation.
        computations=[
            *computations,
            *(c for sa in sub_answers for c in sa.computations if c.operation in _REMEMBERED_OPERATIONS),
        ],
        sub_answers=list(sub_answers),
    )
    if evidence is not None:
        all_comps = [*computations, *(c for sa in sub_answers for c in sa.computations)]
        answer.verification = verify_answer(text, evidence, all_comps)
        answer.text = answer.verification.text
    return answer


def _reference_label(rewrite: Rewrite) -> str:
    refs = rewrite.references
    if any(r.citation is None and r.label.startswith(TYPED_NUMBER) for r in refs):
        return rewrite.question.rstrip(" ?")  # 'What is 385373 (...) divided by 1000' says what was done
    metric = metric_label(refs[0].metric) if refs and refs[0].metric else "the value"
    first, last = refs[0].value.period, refs[-1].value.period
    span = f" from {first} to {last}" if first and last and first != last else ""
    return {
        "change": f"change in {metric}{span}",
        "percent_change": f"percentage change in {metric}{span}",
        "cagr": f"compound annual growth of {metric}{span}",
        "ratio": f"{metric} in {first or 'the first period'} relative to {last or 'the second'}",
        "share": f"{refs[0].value.text.strip()} as a percentage of {refs[-1].value.text.strip()}" if refs else "share",
        "sum": f"total of {metric}",
        "average": f"average of {metric}",
    }.get(rewrite.operation, rewrite.question)


def answer_offline(
    plan: QueryPlan, evidence: Sequence[Evidence], rewrite: Rewrite | None = None
) -> FinalAnswer:
    """The whole offline answer step: each sub-query, the combinations, then the merged, verified answer."""
    if rewrite is not None and len(rewrite.references) == 1 and rewrite.operation:
        return _answer_with_reference(plan, evidence, rewrite)
    if rewrite is not None and rewrite.references and rewrite.operation:
        try:
            comp = answer_references(rewrite)
        except ArithmeticRefusal as exc:
            return compose_answer(plan, [], not_found=[f"{rewrite.question} ({exc})"])
        if comp is not None:
            return compose_answer(
                plan, [], [comp], labels=[_reference_label(rewrite)], evidence=evidence
            )
    reader = EvidenceReader(evidence)
    sub_answers = [answer_sub_query(sq, evidence, reader, turn_question=plan.question) for sq in plan.sub_queries]
    return compose_plan(plan, sub_answers, evidence, rewrite.turn_operation if rewrite is not None else "")


def compose_plan(plan: QueryPlan, sub_answers: Sequence[SubAnswer], evidence: Sequence[Evidence],
                 turn_operation: str = "") -> FinalAnswer:
    """The plan's combinations computed in code over its sub-answers, then one verified answer: the results no
    other step consumes lead. When such a result is built from other steps (the 3-year average of a ratio) and
    cannot be computed, the parts that could be are its closest evidence, never the answer. ``turn_operation``
    is the arithmetic a follow-up asked that its rewritten question lost (:attr:`Rewrite.turn_operation`): a
    plan computing nothing states no read figure as its answer."""
    if turn_operation and not _performs(plan, turn_operation):
        # the plan's own arithmetic (a change of the figures looked up) is not what the turn asked either
        plan = plan.model_copy(update={"combinations": []})
        sub_answers = [_unperformed(sa, turn_operation) for sa in sub_answers]
    combined = combine(plan, sub_answers, evidence)
    stated = (printed_change(plan, sub_answers, evidence, len(combined.computations) == len(plan.combinations))
              or stated_rate(plan, sub_answers, evidence) or _stated_change(plan, combined, evidence))
    if stated is not None:
        plan = plan.model_copy(update={"combinations": []})
        return compose_answer(plan, [stated], (), plan.notes, evidence=evidence or None)
    sub_answers = [part_refusal(sa, combined.misread[sa.sub_query_id])
                   if sa.sub_query_id in combined.misread and sa.status != "not_found" else sa for sa in sub_answers]
    consumed = {op for c in plan.combinations for op in c.operands}
    steps = {c.id for c in plan.combinations}
    unbuilt = [c for c in plan.combinations
               if c.id not in consumed and c.id not in combined.labels and steps & set(c.operands)]
    share_unplanned = _share_unplanned(plan, combined.computations)
    if unbuilt or share_unplanned:
        whole = share_unplanned or unbuilt[0].label or unbuilt[0].operation
        refused = [part_refusal(sa, whole) if sa.status != "not_found" else sa for sa in sub_answers]
        final = compose_answer(plan, refused, (), combined.failed + plan.notes, evidence=evidence or None)
    else:
        done = [c for c in plan.combinations if c.id in combined.labels]
        order = sorted(range(len(done)), key=lambda i: done[i].id in consumed)
        final = compose_answer(
            plan,
            sub_answers,
            [combined.computations[i] for i in order],
            combined.failed + plan.notes,
            evidence=evidence or None,
            labels=[combined.labels[done[i].id] for i in order],
            operands=_operands_not_asked(plan, done),
        )
    if not final.text.strip():
        final = final.model_copy(update={"text": f"{NOT_FOUND}: {plan.question}."})
    return final


# Operations that answer one another: a share is a ratio in percent, a percentage change a change's rate.
_SAME_ARITHMETIC = ({"share", "ratio"}, {"change", "percent_change"})


def _stated_change(plan: QueryPlan, combined: CombinationResult, evidence: Sequence[Evidence]) -> SubAnswer | None:
    """The change of one metric the plan computes between two periods, read where the filing states it ('Net
    revenues ... increased by $1.8 billion in 2017'), when a level it needs is not found: the later period's
    lookup asked for its change. None when the plan computes anything else, or every change it asks was computed."""
    combos = plan.combinations
    if (not evidence or not combos or len(combined.computations) == len(combos)
            or any(c.operation not in {"change", "percent_change"} or len(c.operands) != 2 for c in combos)
            or len({tuple(c.operands) for c in combos}) != 1 or all(c.operation == "percent_change" for c in combos)):
        return None
    later = next((sq for sq in plan.sub_queries if sq.id == combos[0].operands[-1]), None)
    if later is None:
        return None
    asked = later.model_copy(update={"intent": later.intent.model_copy(update={"operations": ["change"]})})
    answer = answer_sub_query(asked, evidence)
    return answer if answer.status == "found" and answer.value is not None and answer.value.change else None


def _performs(plan: QueryPlan, operation: str) -> bool:
    """Whether one of the plan's combinations computes ``operation`` (or its kin, :data:`_SAME_ARITHMETIC`)."""
    kin = next((group for group in _SAME_ARITHMETIC if operation in group), {operation})
    return any(c.operation in kin for c in plan.combinations)


def _unperformed(sa: SubAnswer, operation: str) -> SubAnswer:
    """A sub-answer of a follow-up asking ``operation`` of figures the conversation named: a figure read as it
    stands is refused (kept as the closest evidence) unless its words say it is that result; so is a sentence."""
    if sa.status == "text":
        what = operation_unmet(operation, "")
        return operation_refusal(sa, what, "no figure to compute it from was found") if what else sa
    what = turn_operation_unmet(sa, operation)
    return operation_refusal(sa, what, "the turn computes it with figures of the conversation, and only single "
                             "reported values were found") if what else sa


def _share_unplanned(plan: QueryPlan, computations: Sequence[Computation]) -> str:
    """'The average % of net revenue for cost of net revenue': a question asking a share or ratio whose plan
    computed none, over amounts (not percentages), would state an average of amounts as the share; what it asks for
    then, else ''."""
    if not plan.intent.wording.as_share or not computations:
        return ""
    if any(c.operation in {"share", "ratio"} for c in plan.combinations):
        return ""
    if not all(c.result.unit in MONEY_UNITS or not c.result.unit for c in computations):
        return ""  # the figures are percentages or ratios already (a '% of revenue' column, a current ratio)
    return operation_description("ratio")


def _operands_not_asked(plan: QueryPlan, done: Sequence[Combination]) -> set[str]:
    """The sub-queries whose figures only feed the arithmetic the question asks for ('what was the change in
    revenue from 2023 to 2024?' asks the change, stated with its formula); none when the question asks for the
    figures themselves ('compare revenue in 2023 and 2024', 'how did capex change?'): the operation model reads
    no arithmetic in it. A question whose arithmetic reads a period it does not name ('revenue growth in 2024'
    reads 2023 too) asks for the result: the figures are its inputs, stated in its sentence; so does one whose
    words ask a share or a ratio ('what share of revenue did R&D account for?'), or that ranks items it names
    ('which segment had the higher operating income, Cloud Services or Devices?'): no comparison is made of one.
    A period the plan added that no step consumes ('sales growth from 2022 to 2024' reads 2023 for a growth of
    2024) was never asked."""
    if not done:
        return set()
    operands = {op for c in done for op in c.operands}
    named = set(plan.intent.wording.periods)
    derived = {sq.id for sq in plan.sub_queries if sq.period and sq.period not in named}
    result_asked = (derived & operands or any(c.operation in {"share", "ratio", "highest", "lowest"} for c in done)
                    or plan.intent.wording.computed)
    return operands | derived if result_asked else derived


def _answer_with_reference(plan: QueryPlan, evidence: Sequence[Evidence], rewrite: Rewrite) -> FinalAnswer:
    """'Including 2015, what becomes this total?': the new figure read from the evidence, then combined in code
    with the earlier result the rewrite carries."""
    reader = EvidenceReader(evidence)
    sub_answers = [answer_sub_query(sq, evidence, reader, turn_question=plan.question) for sq in plan.sub_queries]
    read = next((v for a in sub_answers if (v := a.cited_value()) is not None), None)
    what = f"the {rewrite.operation} with {rewrite.references[0].value.text.strip()}"
    if read is None:
        # Sentences about the figure are no figure to compute with: refused, kept as the closest evidence.
        refused = [operation_refusal(sa, what, "no figure to compute it with was found") if sa.status == "text"
                   else sa for sa in sub_answers]
        return compose_answer(plan, refused, evidence=evidence)
    combo = Combination(id="r1", operation=rewrite.operation, operands=[], metric=read.metric,  # type: ignore[arg-type]
                        label=rewrite.original)
    try:
        comp = _run(combo, [read, rewrite.references[0]] if rewrite.read_first else [rewrite.references[0], read])
    except ArithmeticRefusal as exc:
        refused = [operation_refusal(sa, what, str(exc)) if sa.status in {"text", "found"} else sa for sa in sub_answers]
        return compose_answer(plan, refused, evidence=evidence)
    first, second = comp.inputs[0], comp.inputs[-1]
    if rewrite.operation in {"change", "percent_change"} and first.value.period and second.value.period:
        kind = "Change" if rewrite.operation == "change" else "Percentage change"
        label = f"{kind} from {first.value.period} to {second.value.period}"
    else:
        label = f"{_capital(rewrite.operation)} with {read.label}"
    return compose_answer(plan, sub_answers, [comp], labels=[label], evidence=evidence)
