"""Answers read from a table's layout: over one row's periods (the years it gives, the average or change over its
year columns, the year with the highest value, the years passing a threshold), the years a whole table gives, and
the rows a table lists under a heading. Computed in code from the rows read, cited.
"""

from __future__ import annotations

from agent.answer.gate import sanity_failure
from agent.answer.passages import PASSAGE_MIN_WORDS
from agent.answer.reading import EvidenceReader, Segment
from agent.answer.records import SubAnswer, _capital
from agent.answer.words import ASKING_WORDS
from agent.finance import arithmetic
from agent.finance.arithmetic import ArithmeticRefusal, CitedValue, Computation
from agent.finance.numbers import MONEY_UNITS
from agent.finance.periods import find_periods, granularity, period_year
from agent.ingest.typed_tables import TOTAL_ROW_RE
from agent.query.asked import (
    PERIODS_MEETING,
)
from agent.query.content import WORD_RE, content_words
from agent.query.cues import and_list
from agent.query.intent import TREND_YEARS
from agent.query.scope import AMOUNT_NOUNS
from agent.schemas import Citation, NumericValue, QueryIntent, TableRecord

TREND = "trend"  # the kind of a trend asked with no year named (see :func:`over_row_periods`)
TABLE_WORDS_NAMED = 0.5  # the share of a question's words a table must print to be the one it asks the years of


def read_row(sa: SubAnswer, intent: QueryIntent, reader: EvidenceReader | None) -> Segment | None:
    """The table row the figure was read from, when the question (the plan's ``intent``) names that row and nothing
    else."""
    if reader is None or sa.citation is None or sa.value is None:
        return None
    if len(intent.operations) > 1:
        return None  # 'the change in the average ...' asks two steps; one row's columns answer neither alone
    row = reader.row_at(sa.citation.chunk_id, sa.value.start)
    if row is None:
        return None
    # Only a question that names this row and what its table is about ('the change in current deferred income' of
    # a 'Current' row under a sentence about deferred income): a word that names another row or column of the page
    # ('duration', another row's name), or that the page never prints, asks for something these columns do not hold.
    named = content_words(f"{row.label} {row.parent} {sa.metric} {sa.company}") | ASKING_WORDS
    # "Northwind's" is the company's name; the question's own names of the metric ('capex') and the span of years it
    # counts ('the last three years') name this row's figures too
    beside = intent.wording.beside
    extra = set(beside.get(sa.metric, beside.get("", []))) - named
    if not extra or (extra <= AMOUNT_NOUNS and row.row is not None and row.row.role == "expense"):
        return row  # 'purchased transportation costs': a line of the operating expenses is a cost, as the gate reads it
    ev = reader.evidence[row.ev]
    on_page = {i for i, e in enumerate(reader.evidence) if e.doc_name == ev.doc_name and e.page == ev.page}
    page = [reader.evidence[i] for i in sorted(on_page)]
    others = {w for seg in reader.segments if seg.kind == "row" and seg is not row and seg.ev in on_page
              for w in content_words(seg.label)}
    headers = content_words(" ".join(c.label for e in page if e.table is not None for c in e.table.columns))
    subject = content_words(" ".join(e.text for e in page)) - others - headers
    if "average" in intent.operations and subject & _AVERAGE_WORDS:
        return None  # 'weighted-average assumptions': the table's figures already are the averages asked
    return row if extra <= subject else None


_AVERAGE_WORDS = frozenset({"average", "mean"})


def _row_years(sa: SubAnswer, row: Segment, same_kind: bool = False) -> dict[int, NumericValue]:
    """The row's fiscal-year values in the read figure's unit and scale, by year; with ``same_kind``, its values of
    the read figure's kind of period instead (each year's second quarter for a second quarter's change year over
    year). A half or a quarter is never a year ('Q2 FY25 | Q2 FY24 | H1 FY25 | H1 FY24')."""
    by_year: dict[int, NumericValue] = {}
    if sa.value is None:
        return by_year
    unit = sa.value.unit
    kind = sa.value.period[len("FY2025"):] if sa.value.period and same_kind else ""  # 'Q2' of 'FY2025Q2'; a year
    for n in row.numbers:
        year = period_year(n.period) if n.period and n.period[len("FY2025"):] == kind else None
        # A money row printed without a sign: the read figure was given its currency; its neighbours share it.
        same_unit = n.unit == unit or (not n.unit and unit in MONEY_UNITS)
        if year is not None and same_unit and n.scale == sa.value.scale:
            by_year.setdefault(year, n.model_copy(update={"unit": unit}))
    return by_year


def periods_answer(sa: SubAnswer, row: Segment, reader: EvidenceReader) -> SubAnswer | None:
    """'In which years was X reported?': the fiscal years the row gives, cited; no figure is stated. None when
    the row's columns name no years."""
    years = sorted(_row_years(sa, row), reverse=True)
    if not years:
        return None
    cite = reader.evidence[row.ev].citation(row.text, row.start, row.row_label)
    text = f"{_capital(sa.metric or row.label)} is reported for {and_list([str(y) for y in years])} {cite.label()}."
    return sa.model_copy(update={"answer": text, "value": None, "display": "", "citations": [cite]})


def table_periods(sa: SubAnswer, intent: QueryIntent, reader: EvidenceReader) -> SubAnswer | None:
    """'Which years does the table provide information for X?' with no one row read: the fiscal years of the
    table whose words name most of what the question asks about (the best-ranked table when it names nothing),
    cited; None when no table names it, or when the figure was refused for another company."""
    if _refused_for_company(sa):
        return None
    tables = _tables(reader)
    words = _naming(set(intent.wording.words) - ASKING_WORDS, intent, reader)

    def named(i: int) -> int:
        return len(words & content_words(reader.evidence[i].text))

    best = max(tables, key=lambda i: (named(i), reader.rel_score[i]), default=None)
    if best is None or (words and named(best) < len(words) * TABLE_WORDS_NAMED):
        return None
    rows = [seg for seg in reader.segments if seg.ev == best and seg.kind == "row" and seg.numbers]
    periods = {n.period for seg in rows for n in seg.numbers if n.period}
    if not periods:  # years set as sub-headings ('December 31, 2019' over one block, 'December 31, 2018' over the next)
        periods = {p.norm for line in _heading_lines(reader.evidence[best].table) for p in find_periods(line)}
    years = sorted({y for p in periods if "Q" not in p and (y := period_year(p)) is not None}, reverse=True)
    if not years or not rows:
        return None
    cite = reader.evidence[best].citation(rows[0].text, rows[0].start, rows[0].row_label)
    return _listed(sa, f"The table gives figures for {and_list([str(y) for y in years])} {cite.label()}.", cite)


def table_caption(sa: SubAnswer, intent: QueryIntent, reader: EvidenceReader) -> SubAnswer | None:
    """'What does the table show?', 'What does the table represent?': a question about the table in view that names
    nothing a table prints, asks for no rows or years and computes nothing is answered with what introduces the
    best-ranked table: the sentences of its page that name a table or end in a colon (its lead-in), else its title;
    quoted and cited, no figure stated. None for any other question."""
    asked = set(intent.wording.words)
    if not intent.wording.of_table or intent.operations or intent.metrics or asked & _ITEM_WORDS:
        return None
    best = _best_table(reader)
    if best is None or (asked - ASKING_WORDS) & _printed_by_tables(reader):
        return None
    ev = reader.evidence[best]
    leads = [seg for seg in reader.segments if seg.kind == "sentence" and "|" not in seg.text
             and (reader.evidence[seg.ev].doc_name, reader.evidence[seg.ev].page) == (ev.doc_name, ev.page)
             and ("table" in WORD_RE.findall(seg.text.lower()) or seg.text.rstrip().endswith(":"))
             and len(seg.text.split()) >= PASSAGE_MIN_WORDS]  # 'Comprised of:' says nothing of what it lists
    if leads:
        cite = reader.evidence[leads[0].ev].citation(leads[0].text, leads[0].start, leads[0].row_label)
        quote = " ".join(seg.text.strip() for seg in leads)
    elif ev.table is not None and ev.table.title and "|" not in ev.table.title:  # a title, not a header line
        quote = ev.table.title
        cite = ev.citation(quote, 0, "")
    else:
        return None
    return _listed(sa, f'The table is introduced as: "{quote}" {cite.label()}.', cite)


def _heading_lines(record: TableRecord | None) -> list[str]:
    """A typed table's title, period caption and column headers, and its label-only lines (its sub-headings): the
    periods they print are the table's own."""
    if record is None:
        return []
    return [record.title, record.period_caption, *(c.label for c in record.columns),
            *(r.label for r in record.rows if not r.cells)]


def over_row_periods(
    sa: SubAnswer, intent: QueryIntent, kind: str, row: Segment, reader: EvidenceReader | None
) -> Computation | None:
    """The asked average, change or highest/lowest period over the fiscal-year columns of the read row. A ``TREND``
    asked with no year named ('how has capex trended over the last three years?') is the change from the first to
    the last of the row's latest years: as many as the question counts, else the years an annual report compares."""
    if reader is None or kind not in {"average", "change", "extreme", PERIODS_MEETING, TREND} or sa.value is None:
        return None
    wording = intent.wording
    if kind == "average" and (wording.per_unit or granularity(sa.period) not in {"", "year"}):
        # an average per quarter within a half, or of a quarter 'and the one before': not the row's years
        return None
    by_year = _row_years(sa, row, same_kind=kind == "change")
    asked = sorted({y for p in wording.periods if (y := period_year(p)) is not None})
    if len(asked) == 1 and kind not in {"extreme", PERIODS_MEETING}:
        asked = [asked[0] - 1, asked[0]]  # 'the 2019 average' / 'the change in 2019': that year and the one before
    counted = wording.counted_years
    if not asked and counted:
        if len(by_year) < counted:
            return None  # 'the three-year average' of a row giving two years: a year is missing
        asked = sorted(by_year)[-counted:]  # 'over the last three years' of a five-year table: its latest three
    years = [y for y in (asked or sorted(by_year)) if y in by_year]
    if kind == "change":
        years = years[-2:]
    elif kind == TREND:
        years = years[-(counted or TREND_YEARS):]
    if len(years) < 2 or (asked and len(years) < len(asked)):
        return None
    ev = reader.evidence[row.ev]
    cite = ev.citation(row.text, row.start, row.row_label)
    metric = sa.metric or row.label
    values = [CitedValue(label=f"{metric} {by_year[y].period}", metric=sa.metric, value=by_year[y], citation=cite)
              for y in years]
    try:
        if kind == PERIODS_MEETING:
            test = wording.threshold
            if test is None:
                return None
            comp = arithmetic.meeting(values, test.bound, test.comparison, metric=metric)
        elif kind == "extreme":
            comp = arithmetic.extreme(values, lowest=wording.lowest, by_size=wording.by_size, metric=metric)
        else:
            if kind == "average":
                comp = arithmetic.average(values, metric)
            elif kind == TREND:
                comp = arithmetic.change(values[0], values[-1], metric)
            elif wording.percent and not all(v.value.unit == "%" for v in values):
                comp = arithmetic.percent_change(*values, metric)  # 'the percentage change in X' of amounts
            else:
                comp = arithmetic.change(*values, metric)
    except ArithmeticRefusal:
        return None
    return None if sanity_failure(comp) else comp


# Words that ask for a table's rows rather than name them ('the components of', 'the types of ... in the table').
_ITEM_WORDS = frozenset(content_words("components component types type items item categories kinds elements "
                                       "making make made up factored listed shown"))


def table_items(sa: SubAnswer, intent: QueryIntent, reader: EvidenceReader) -> SubAnswer | None:
    """'What are the components of inventories?': the labels of the rows a table lists under the sub-heading (else
    the table title) that prints at least half of what the question names, totals left out, cited; None when no
    heading names it, or when the figure was refused for another company."""
    if _refused_for_company(sa):
        return None
    words = set(intent.wording.words) - ASKING_WORDS - _ITEM_WORDS
    words = _naming(words, intent, reader)
    block = named_block(words, reader, TABLE_WORDS_NAMED) if words else _whole_table(reader)
    if block is None:
        return None
    ev, parent, rows = block
    labels = list(dict.fromkeys(seg.label.strip() for seg in rows))
    if len(labels) < 2:
        return None
    cite = reader.evidence[ev].citation(rows[0].text, rows[0].start, rows[0].row_label)
    return _listed(sa, f"{_capital(parent or 'The table')} lists {and_list(labels)} {cite.label()}.", cite)


def _tables(reader: EvidenceReader) -> list[int]:
    """The evidence indices that hold a typed table."""
    return [i for i, ev in enumerate(reader.evidence) if ev.table is not None]


def _best_table(reader: EvidenceReader) -> int | None:
    """The best-ranked table of the evidence: the table in view when a question names none of its words."""
    return max(_tables(reader), key=lambda i: reader.rel_score[i], default=None)


def _printed_by_tables(reader: EvidenceReader) -> set[str]:
    """The content words the evidence's tables print."""
    return content_words(" ".join(reader.evidence[i].text for i in _tables(reader)))


def _naming(words: set[str], intent: QueryIntent, reader: EvidenceReader) -> set[str]:
    """Of a question about the table in view, ``words`` less those no table prints: those ask rather than name
    ('which financial years' information is shown in the table', 'the financial items'); with none left, the
    question is about the best-ranked table. Any other question keeps its words."""
    return words & _printed_by_tables(reader) if "table" in intent.wording.terms else words


def _whole_table(reader: EvidenceReader) -> tuple[int, str, list[Segment]] | None:
    """The best-ranked table's rows as one block ('' sub-heading), totals left out; None without a table."""
    best = _best_table(reader)
    if best is None:
        return None
    rows = [seg for seg in reader.segments if seg.ev == best and seg.kind == "row" and seg.numbers
            and not TOTAL_ROW_RE.match(seg.label)]
    return best, "", rows


def named_block(words: set[str], reader: EvidenceReader, share: float) -> tuple[int, str, list[Segment]] | None:
    """The block of table rows whose heading (its sub-heading, else its table's title lines, total row and the
    words its rows share) prints at least ``share`` of ``words``: (evidence index, sub-heading, its rows with totals
    and a row repeating the sub-heading left out). None when no heading prints enough."""
    if not words:
        return None
    blocks = row_blocks(reader)

    def named(key: tuple[int, str]) -> float:
        ev, parent = key
        return len(words & _heading_words(parent, reader.evidence[ev].text, blocks[key])) / len(words)

    best = max(blocks, key=lambda k: (named(k), bool(k[1]), reader.rel_score[k[0]]), default=None)
    if best is None or named(best) < share:
        return None
    rows = [seg for seg in blocks[best] if not TOTAL_ROW_RE.match(seg.label)
            and seg.label.strip().lower() != best[1].strip().lower()]
    return best[0], best[1], rows


def row_blocks(reader: EvidenceReader) -> dict[tuple[int, str], list[Segment]]:
    """The table rows of the evidence by block: (evidence index, sub-heading) -> its rows; a whole table is the
    block of sub-heading '' (it holds the rows of every block)."""
    blocks: dict[tuple[int, str], list[Segment]] = {}
    for seg in reader.segments:
        if seg.kind == "row" and seg.numbers and seg.label:
            blocks.setdefault((seg.ev, seg.parent), []).append(seg)
            if seg.parent:
                blocks.setdefault((seg.ev, ""), []).append(seg)
    return blocks


def _heading_words(parent: str, text: str, rows: list[Segment]) -> set[str]:
    """What names a block of rows: its sub-heading; a whole table is named by its title lines, its total row ('Total
    inventories') and the words most of its rows share ('... revenue')."""
    if parent:
        return content_words(parent)
    words = content_words(" ".join(text.splitlines()[:2]))
    words |= content_words(" ".join(seg.label for seg in rows if TOTAL_ROW_RE.match(seg.label)))
    shared = [content_words(seg.label) for seg in rows]
    counts: dict[str, int] = {}
    for label_words in shared:
        for w in label_words:
            counts[w] = counts.get(w, 0) + 1
    return words | {w for w, n in counts.items() if 2 * n >= len(shared) >= 2}


def _refused_for_company(sa: SubAnswer) -> bool:
    """The read figure was refused as another company's: nothing of its table answers for the asked one."""
    return any(c.name == "company" and not c.passed for c in sa.checks)


def _listed(sa: SubAnswer, text: str, cite: Citation) -> SubAnswer:
    """``sa`` answered in words read from a table's layout (its years, its rows), cited; no figure is stated."""
    return sa.model_copy(update={"status": "text", "answer": text, "value": None, "display": "", "missing": "",
                                 "closest": "", "citation": cite, "citations": [cite]})
