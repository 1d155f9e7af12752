"""The table-cell reader: a row label and column header that name the question's own words (both table
orientations, year-in-label rows, schedules, shares of a total, changes and sums between cells), for metrics the
lexicon does not name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.answer.evidence_cells import Cell, named_periods, sentence_cells, table_cells
from agent.answer.provenance import mentioned, spelled_out
from agent.answer.reading import (
    EvidenceReader,
    measured_unit,
    only_periods,
    through_clause,
)
from agent.answer.records import (
    SubAnswer,
    _capital,
    _computed_answer,
    _subject,
    as_stated,
    display_value,
)
from agent.answer.words import (
    ASKING_WORDS,
    EQUITY_WORDS,
    RETRIEVAL_WEIGHT,
    TOTAL_BONUS,
    WHOLE_COLUMN_RE,
    _about,
    _for_company,
    _names_other_number,
    counted_noun,
    named_by,
    opening_balance,
    other_kind_parent,
    owner_row,
    same_root,
    slash_alternatives,
    unasked_part,
)
from agent.finance import arithmetic
from agent.finance.arithmetic import ArithmeticRefusal, CitedValue
from agent.finance.column_periods import names_several_periods
from agent.finance.direction import in_direction, restated_as, turned
from agent.finance.lexicon import deduction_start, figure_kind, find_metrics, label_head, names_per_share
from agent.finance.metrics import METRICS
from agent.finance.numbers import (
    CURRENCIES,
    own_measure,
)
from agent.finance.periods import expand_range, find_periods, is_month, sort_key, without_periods
from agent.finance.wording import CHANGE_RE, SUM_WORD_RE, TOTAL_RE
from agent.ingest.typed_tables import TOTAL_ROW_RE
from agent.query.asked import AVERAGE_NAME_RE, PERIODS_MEETING, RATIO_NAME_RE, asks_change
from agent.query.content import content_words
from agent.query.cues import AVERAGE_RE, asks_percent, possessive, spans_range
from agent.query.operations import guess_operation
from agent.query.plan import SubQuery
from agent.schemas import AskedShare, NumericValue

CELL_MIN_SCORE = 0.5  # a table cell must name at least half the question's words to answer it


CELL_PRECISION_WEIGHT = 0.3  # among cells naming the question equally, the label that says least else wins
LABEL_RECALL_WEIGHT = 0.05  # a tie-break: the row whose own label names the question ('Net financing costs') over
# a row that names it only with its table's title ('Financing costs' under the title 'Net financing costs')
PARENT_PRECISION_WEIGHT = 0.05  # a tie-break: the sub-heading that says least beyond the question (Revenue, not Cost of revenue)


HEADER_NAMED_BONUS = 0.3  # the question writes the cell's column header verbatim ('on 12/14')
COLUMN_NAME_MAX_WORDS = 4  # a column's name ('Network Solutions', 'Gross carrying value'); longer is a sentence
WHOLE_COLUMN_BONUS = 0.05  # a tie-break: the total column of a row printed part by part, when no part is asked


HEADER_MIN_CHARS = 3  # shorter headers ('a', '%') are written by chance


CELL_SAME_ROW_BONUS = 0.2  # the second year of a change comes from the row the first year came from


_CELL_RATIO_RE = re.compile(
    r"\bratio\b|\bdivided\s+by\b|\bin\s+relation\s+to\b|\brepresent\b|\bquotient\b", re.IGNORECASE
)


# Rows naming an amount taken away, which tables may print negative; and labels whose sign carries meaning.
_DEDUCTION_LABEL_RE = re.compile(
    r"\b(?:loss(?:es)?|expenses?|costs?|liabilit(?:y|ies)|debt|deductions?|charges?|outflows?|payments?|"
    r"purchases?|repurchases?|impairments?|depreciation|amortization|allowances?|dividends?|taxes)\b",
    re.IGNORECASE,
)


_SIGNED_LABEL_RE = re.compile(
    r"\bnet\b|\bgains?\b|\bincome\b|\bchanges?\b|\bincreases?\b|\bdecreases?\b|\bbenefits?\b|"
    r"\bprovided\b|\bused\b|\(|/|\bvs\b|\bfrom\b|\bimpact\b|\beffect\b|\bvariance\b",
    re.IGNORECASE,
)


# Questions answered over a row's periods once one of its cells is read (the period with the highest value, the
# periods passing a threshold): the answer step compares the row's columns.
_ROW_OPERATIONS = frozenset({"extreme", PERIODS_MEETING})
# The operations over every period a question names (a change or a ratio takes two).
_OVER_ALL_PERIODS = frozenset({"sum", "average"})


_PARENTHESES_RE = re.compile(r"\([^)]*\)")
_DIVIDED = frozenset({"share", "ratio"})  # the operations whose operands are amounts, divided in code


def _best_cell(
    reader: EvidenceReader,
    words: set[str],
    asked: set[str],
    company: str,
    same_row: str = "",
    question: str = "",
    opening: bool = False,
    change: bool = False,
) -> tuple[float, Cell] | None:
    """The cell whose row label and column header name most of ``words``, in one of the ``asked`` periods (an
    opening balance's row only when the plan asks one: ``opening``; an amount a sentence states as a change only
    when it asks the ``change``).

    Recall of the question's words first, then how little else the label says; ``same_row`` favours the row
    an earlier period was read from (a change reads both years from one row).
    """
    allowed = _for_company(reader, company)
    if company and not any(_about(reader.evidence[i], company) for i in allowed):
        return None  # no table of this company's filings: another company's row is no answer
    cells = table_cells(reader, allowed)
    if question and not RATIO_NAME_RE.search(question):
        # A share or a percentage change printed beside a row's amounts ('Change (%) | 50.7' after '183.2 | 121.6')
        # is not what a question after an amount asks.
        # (A row of percentages with a change in points beside them, 'Load factor | 84.5% | 83.5% | 1.0 pts', is one.)
        cells = [c for c in cells if c.value.unit != "%" or all(n.unit == "%" for n in c.seg.numbers if n.period)]
    per_share = names_per_share(question)
    cells = [c for c in cells if not other_kind_parent(per_share, c.parent)]
    if not asked:  # a schedule's year rows ('2004 | 925005') answer only a question naming the year
        cells = [c for c in cells if not only_periods(c.label)]
    owner = frozenset(content_words(company))
    found = _best_of(cells, reader, words, asked, same_row, question, owner, opening)
    if found is None and asked:
        # No cell of the period names the item: an undated one-column table (a walk from one year's figure
        # to the next) may still carry it; cells that name another period stay out.
        undated = [c for c in cells if not c.periods and len(c.seg.numbers) == 1 and not c.seg.numbers[0].period]
        found = _best_of(undated, reader, words, set(), same_row, question, owner, opening)  # a dated row's 'total' is no year
    deducts = deduction_start(question) >= 0
    named = _hits(reader, found[1], words, deducts) if found is not None else set()
    if asked and (found is None or not words <= named):
        # No table names it all: a sentence may state it for the period ('rental expense was $66.9 million,
        # $57.2 million and $49.0 million in 2010, 2009 and 2008, respectively'). A sentence naming all the
        # question's words the best row names, and more, is the answer: 'total amortization expense on
        # capitalized internal-use software was $2.5 million' over the 'Software' row of the table beside it.
        # A sentence's percentage ('revenue from sales into the United States accounted for 57%') is no amount
        # a row states for the question.
        # A row of percentages read for a question naming no rate ('Loss and LAE ratio' for 'catastrophe losses')
        # leaves a sentence's amount in the running.
        ratio_asked = bool(RATIO_NAME_RE.search(question))
        prose_cells = [c for c in sentence_cells(reader, allowed)
                       if (change or not c.value.change or c.value.unit == "%") and (
                           found is None or (c.value.unit == "%") == (found[1].value.unit == "%")
                           or (found[1].value.unit == "%" and not ratio_asked))]
        prose = _best_of(prose_cells, reader, words, asked, same_row, question, owner, opening)
        if prose is not None and (found is None or _hits(reader, prose[1], words, deducts) > named):
            found = prose
    return found


# Words that place a count in time ('at the end of 2022', 'at fiscal year end'): the period check reads them.
_PERIOD_WORDS = frozenset(["end", "beginning", "close", "year", "fiscal", "period", "quarter", "date"])


def _best_of(cells: Sequence[Cell], reader: EvidenceReader, words: set[str], asked: set[str], same_row: str,
             question: str = "", owner: frozenset[str] = frozenset(), opening: bool = False
             ) -> tuple[float, Cell] | None:
    """The best-scoring cell of ``cells`` (see :func:`_best_cell`), or None below the minimum score; a cell that
    names none of ``words`` but the ``owner``'s (the company's name words) names nothing the figure is."""
    best: tuple[float, Cell] | None = None
    wants_total = bool(TOTAL_RE.search(question))
    deducts = deduction_start(question) >= 0
    counted = counted_noun(question) if question else ""
    owner = owner - content_words(counted)  # the stores of Wingtip Stores are named by the word the company shares
    asked_words = words
    for cell in cells:
        if asked and not (asked & cell.periods):
            continue
        words = _spelled_out(asked_words, cell)
        if counted and cell.prose:
            unit = measured_unit(reader.evidence[cell.seg.ev].text, cell.value.end)
            if unit and not unit.startswith(counted):
                continue  # 'how many employees': '1 million hours' of their training counts hours, not them
        if counted and (_of_an_amount(reader, cell) or cell.prose and cell.value.unit in (*CURRENCIES, "%")
                        or f"per {counted}" in " ".join(cell.label.lower().split())):
            # 'how many stores': the 'Stores' row of a table titled 'Net Sales by Channel' is sales; 'how many
            # shares': an amount, a share ('96.4% leased'), or 'earnings per share', is no count of them
            continue
        if question and _names_other_number(f"{cell.label} {cell.header}", question):
            continue
        if not cell.prose and opening_balance(cell.label, opening):
            continue  # 'how many stores at the end of Q2': never 'Stores at beginning of period'
        if question and unasked_part(reader.evidence[cell.seg.ev], question):
            continue  # one segment's table answers only a question naming that segment (the gate's rule, read first)
        if question and cell.prose and cell.value.part and not mentioned(question, cell.value.part):
            continue  # so does a sentence's figure of a segment ('Personal Lines catastrophe losses were ...')
        if not wants_total and TOTAL_ROW_RE.match(cell.label):
            # 'total capital ( tier 1 and tier 2 )' is the sum of the parts it lists: no answer for one part
            outside = content_words(_PARENTHESES_RE.sub(" ", cell.label))
            if (words & content_words(" ".join(_PARENTHESES_RE.findall(cell.label)))) - outside:
                continue
        # a count's words that place it in time ('Stores at end of period') are its period's, as the question's are
        label_words = content_words(cell.label) - (_PERIOD_WORDS if counted else set()) | (_total_named(cell) & words)
        parent_words = content_words(cell.parent)
        if (words <= parent_words and not words <= label_words and not TOTAL_ROW_RE.match(cell.label)
                and not only_periods(cell.label)):
            continue  # the sub-heading asked ('Purchase obligations:') is the sum of its rows: one row is a part of it
        hits = _hits(reader, cell, words, deducts, owner)
        # a row named by the company's name alone answers only for its stock ('the value of PMI common stock' in a
        # performance table), never for a figure the question names beyond it ('BYHS comps': not its banner's sales)
        if not hits - owner and (cell.prose or not _company_row(reader, cell, hits, owner, whole=True)
                                 or words - owner - hits - EQUITY_WORDS):
            continue
        header_words = content_words(cell.header)
        if (not cell.prose and label_words and len(header_words) <= COLUMN_NAME_MAX_WORDS
                and not (words & (label_words | parent_words)) - header_words
                and not TOTAL_ROW_RE.match(cell.label) and not only_periods(cell.label)):
            # A row that names nothing its column does not, read because its column's name does ('the revenue of
            # Network Solutions' over the 'Subscriber Solutions & Experience' row): the row is a part of what was
            # asked; only a total row is it. (A header line of many words is a sentence, not a column's name.)
            continue
        # 'the value of pmi common stock' in a performance table: the row or column naming the company (or
        # index) is the stock; 'common stock', 'price' and 'value' then name nothing more.
        rest = words - EQUITY_WORDS
        needed = rest if rest and rest != words and rest <= hits else words
        recall = len(hits & needed) / len(needed)
        # a row named by its period alone ('Fiscal 2024' of a roll printed across) is named by its column
        naming = header_words if not cell.prose and only_periods(cell.label) else label_words
        precision = len(named_by(naming, words)) / max(1, len(naming))
        score = (
            recall
            + CELL_PRECISION_WEIGHT * precision
            # 'Software maintenance revenue' under 'Revenue', not the same row under 'Cost of revenue'
            + PARENT_PRECISION_WEIGHT * len(words & parent_words) / max(1, len(parent_words))
            + LABEL_RECALL_WEIGHT * len(words & label_words) / len(words)
            + RETRIEVAL_WEIGHT * reader.rel_score[cell.seg.ev]
            + (CELL_SAME_ROW_BONUS if same_row and cell.label == same_row else 0.0)
            # 'the total capital' is the 'Total capital' row, not a component row naming as many words
            + (TOTAL_BONUS if wants_total and TOTAL_ROW_RE.match(cell.label) else 0.0)
            # (a row named by its period alone is named by it as a column is: 'Fiscal 2024 | Opened')
            + (HEADER_NAMED_BONUS if _names_header(question, cell.header, cell.label)
               or only_periods(cell.label) and _names_header(question, cell.label) else 0.0)
            # 'the revenue from Access & Aggregation' of a row printed by segment and in total: the total column
            # is the whole; a column the question names wins by the words it names
            + (WHOLE_COLUMN_BONUS if WHOLE_COLUMN_RE.match(without_periods(cell.header).strip()) else 0.0)
        )
        if best is None or score > best[0]:
            best = (score, cell)
    if best is None or best[0] < CELL_MIN_SCORE:
        return None
    return best


def _spelled_out(words: set[str], cell: Cell) -> set[str]:
    """``words`` with an acronym asked written as the words of the cell's row that spell it ('cre' of 'CRE loans' as
    'commercial real estate' for that row; see :func:`~agent.answer.provenance.spelled_out`), unless the row writes
    the word itself."""
    label = content_words(cell.label) if not cell.prose else set()
    out = set(words)
    for word in words - label:
        run = spelled_out(word, cell.label) if label else []
        if run:
            out = (out - {word}) | content_words(" ".join(run))
    return out


def _hits(reader: EvidenceReader, cell: Cell, words: set[str], deducts: bool = False,
          owner: frozenset[str] = frozenset()) -> set[str]:
    """The question's ``words`` a cell's own words name: its row label (what the figure is, not what it is taken
    net of, unless the question ``deducts`` too) and column header; once the row names something of its own
    beyond the ``owner``'s name ('MGM China' under 'Capital expenditures' names MGM, not capex), or is the owner,
    its sub-heading
    and its table's title too, which say what it is part of ('ending balance' of a table titled 'changes in gross
    unrecognized tax benefits')."""
    label = cell.label if deducts or cell.prose else label_head(cell.label)
    header = content_words(cell.header)
    # a column named with a word of the company's name ('Business Travel' of Margie's Travel) is a part of it,
    # named by its other words; a column that is the company ('Cadence Design Systems' in a performance graph) is it
    own = content_words(label) | (header if header <= owner else header - owner) | _total_named(cell)
    hits = words & own
    if cell.prose:  # a sentence says what its figure is with a verb ('we repurchased ... for'): a word's other form
        # (not a word that asks how the figure moved: 'the increase in FCC licenses' is no 'licenses increased $15.6')
        hits |= {w for w in words - hits - ASKING_WORDS if any(same_root(w, o) for o in own)}
    else:  # a column or row printed as a participle ('Opened', 'Granted') is the verb the question asks in
        hits |= named_by(words - hits - ASKING_WORDS, own)
    parent_words = content_words(cell.parent)
    # a row labelled by its period only ('2014 | 385,373') is the figure its table's title names, for that period
    if hits - parent_words - owner or (not cell.prose and (_company_row(reader, cell, hits, owner, label=label)
                                                           or only_periods(label))):
        hits |= words & (parent_words | _title_words(reader, cell))
    return hits


# What a question naming nothing but 'the total' asks of a table: its total row. 'Total' is no content word (it
# never narrows a metric), so a typed total row (``TableLine.total``) is said to name this word alone.
TOTAL_NAMED = "total"


def _total_named(cell: Cell) -> set[str]:
    """{:data:`TOTAL_NAMED`} for a cell of a row ingest typed as its table's total, else nothing."""
    return {TOTAL_NAMED} if not cell.prose and cell.seg.row is not None and cell.seg.row.total else set()


def _one_totalled_table(reader: EvidenceReader, company: str) -> bool:
    """Whether the evidence of ``company`` holds exactly one table that prints a total row: 'the total' names that
    one; over several, it names none of them."""
    allowed = _for_company(reader, company)
    return len({seg.ev for seg in reader.segments if seg.ev in allowed and seg.kind == "row"
                and seg.row is not None and seg.row.total}) == 1


def _company_row(reader: EvidenceReader, cell: Cell, hits: set[str], owner: frozenset[str], whole: bool = False,
                 label: str = "") -> bool:
    """A row the company's name names (:func:`owner_row`) that is no part of a total its table prints: a banner
    printed under the company's short name above the table's 'Total' ('Blue Yonder' of Blue Yonder Home Stores) is
    one part of the company, the sum of the rows being the company."""
    if not owner_row(label or cell.label, hits, owner, whole=whole):
        return False
    record = reader.evidence[cell.seg.ev].table
    row = cell.seg.row
    return record is None or row is None or row.total or not any(r.total for r in record.rows)


def _of_an_amount(reader: EvidenceReader, cell: Cell) -> bool:
    """Whether the typed table a cell is read from is titled by an amount metric ('Net Sales by Channel'): its rows
    are amounts of it, whatever they are named after."""
    record = reader.evidence[cell.seg.ev].table
    return (record is not None and not cell.prose
            and any(figure_kind(m.canonical) == "money" for m in find_metrics(record.title)))


def _title_words(reader: EvidenceReader, cell: Cell) -> set[str]:
    """The content words of the title of the typed table a cell is read from; empty for a sentence, text with no
    record, or a title made of the column names ('total cost of shares purchased | average price paid per
    share': it says what each column is, not what every cell is). Such a table is titled by the heading it sits
    under ('Store Count' over 'Stores at beginning of year | Opened | Closed | ...')."""
    record = reader.evidence[cell.seg.ev].table
    if record is None or cell.prose:
        return set()
    if " | " in record.title:
        return content_words(record.section_path[-1]) if len(record.section_path) > 1 else set()
    return content_words(record.title)


def _names_header(question: str, header: str, label: str = "") -> bool:
    """'The value of e*trade financial on 12/14': the question writes a column header as printed, or the name its
    period's group header stands over ('Interest' of 'Three Months Ended September 30, 2025 Interest'), or one of
    the names a slash joins ('Yield/Rate'), in words other than its row ``label``'s ('interest' of 'Total
    interest-earning assets' names the row)."""
    header = header.strip()
    own = without_periods(header).strip(" ,:-")
    names = set(slash_alternatives(own)) - {header}
    row = content_words(label)
    return any(len(name.strip()) >= HEADER_MIN_CHARS and re.search(
        rf"(?<![\w/]){re.escape(name.strip())}(?![\w/])", question, re.IGNORECASE)
        and (name == header or not content_words(name) <= row) for name in [header, *names])


def _schedule_cell(reader: EvidenceReader, asked: set[str], company: str) -> tuple[float, Cell] | None:
    """'What is the amount due in 2015?' over a schedule whose rows are years ('2015 | 1110566'): the one
    figure of the one row of that year, when the question's words name nothing else in the tables."""
    if not asked:
        return None
    allowed = _for_company(reader, company)
    if company and not any(_about(reader.evidence[i], company) for i in allowed):
        return None
    cells = [c for c in table_cells(reader, allowed) if only_periods(c.label) and asked & c.periods]
    rows = {(c.seg.ev, c.seg.start) for c in cells}
    if len(cells) != 1 or len(rows) != 1:
        return None  # several figures for that year: nothing says which one is asked
    return CELL_MIN_SCORE, cells[0]


def _cell_value(cell: Cell, asked: set[str], fallback_period: str, question: str = "") -> NumericValue:
    """The cell's figure with the period it answers: the asked one it states, else its own.

    A row read in a direction the question names ('the net loss' of 'Net income (loss) | (6,557)') is that
    direction's figure (:mod:`agent.finance.direction`). Otherwise a row that names an amount of something
    subtracted ('accumulated other comprehensive losses', 'debt assumed', 'issuance costs') printed as a negative
    is that amount: its magnitude, as the filing's words say it and as a change between two years of it must be
    computed. A row whose sign flips between columns keeps its signs: there the sign means something."""
    common = sorted(asked & cell.periods)
    # A figure under a column of two periods ('2019 and 2018') is that comparison's: no asked year is given to it.
    fallback_period = "" if names_several_periods(cell.value.column) else fallback_period
    period = common[0] if common else (cell.value.period or fallback_period)
    value = cell.value
    signs = {n.value < 0 for n in cell.seg.numbers if n.value}
    directed = in_direction(value.value, cell.label, question, len(signs) > 1) if question else None
    if directed is not None:
        value = turned(value, directed)
    elif (
        value.value < 0
        and signs == {True}
        and _DEDUCTION_LABEL_RE.search(cell.label)
        and not _SIGNED_LABEL_RE.search(cell.label)
    ):
        value = turned(value, -value.value)
    return value.model_copy(update={"period": period})


def _cell_name(cell: Cell) -> str:
    """What the figure is, for people: its row label plus a column header that is not just a period (of a period
    group's sub-column, its own name: 'Yield/Rate' of 'Three Months Ended September 30, 2025 Yield/Rate')."""
    header = cell.header
    if only_periods(header):
        own = without_periods(header).strip(" ,:-")
        header = own if content_words(own) else ""
    # a row labelled by its date alone ('December 31, 2016'): its column names the figure
    dated = bool(named_periods(cell.label)) and not content_words(without_periods(cell.label))
    label = "" if header and dated else cell.label
    return " ".join(x for x in (label, header) if x).strip()


def _shown_name(cell: Cell, question: str = "") -> str:
    """What the figure is, as the answer says it: under its sub-heading ('Cost of revenue: Services'), and in the
    direction the question asks when its row prints the other ('Net income (loss), as a loss'). The gate reads
    :func:`_cell_name` (the row's own words): a sub-heading is a whole the row is part of, not a qualifier."""
    name = _cell_name(cell)
    name = f"{cell.parent}: {name}" if cell.parent and not only_periods(cell.label) else name
    restated = restated_as(cell.label, question)
    return f"{name}, as a {restated}," if restated else name


def _as_quoted(sentence: str) -> str:
    """A sentence as an answer quotes it: without the list marker or the full stop around it."""
    return sentence.lstrip("-•*· ").rstrip(".")


def _whose_name(company: str, part: str, name: str) -> str:
    """A figure's name as an answer states it: whose it is and the part of the company its table is of ("Humongous
    Insurance Holdings, Inc.'s Reinsurance combined ratio"), each unless the name says it already."""
    words = content_words(name)  # the row's label stays as printed: it is the figure's own name
    if part and not content_words(part) <= words:
        name = f"{part} {name}"
    if company and not content_words(company) & words:
        name = f"{possessive(company)} {name}"
    return name


def _cell_answer(base: SubAnswer, sub_query: SubQuery, reader: EvidenceReader) -> SubAnswer | None:
    """The table figure whose row label and column header best name what the question asks, in its period.

    A question naming two periods and a change, percentage change or sum gets it computed in code from the
    two cells. None when no cell names enough of the question.
    """
    words = set(sub_query.intent.wording.words)  # a definition's inputs are no row the question asks
    counted = counted_noun(sub_query.question)
    if counted and any(_about(ev, base.company) for ev in reader.evidence):
        # 'How many stores did Contoso operate at the end of 2022?': the company is its filing's, the period its
        # column's or sentence's; what the figure's own words must name is what is counted and how (also when the
        # company's name says it: the stores of Wingtip Stores).
        words -= (content_words(base.company) - content_words(counted)) | _PERIOD_WORDS
    if not words - ASKING_WORDS and sub_query.intent.total and _one_totalled_table(reader, base.company):
        # 'the total in 2017', 'the change in the total from 2018 to 2019', over one table: its total row
        words = {TOTAL_NAMED}
    if not words:
        return None
    named = list(dict.fromkeys(p.norm for p in find_periods(sub_query.question)))
    if len(named) == 1 and sub_query.intent.wording.counted_years and asks_change(sub_query.intent):
        named = sorted(sub_query.intent.temporal_scope.periods, key=sort_key)  # a span's ends, counted back
    if len(named) >= 2:
        combined = _cell_combination(base, sub_query, reader, words, named)
        if combined is not None or not set(sub_query.intent.operations) & _ROW_OPERATIONS:
            return combined
        # 'Between 2023 and 2024, which year had higher X?': one cell finds the row; the answer compares its periods
    asked = set(named) | ({base.period} if base.period else set())
    share = sub_query.intent.wording.share
    if share is not None:
        return _cell_share(base, sub_query, reader, share, asked)
    found = _best_cell(reader, words, asked, base.company, question=sub_query.question,
                       opening=sub_query.intent.temporal_scope.opening, change=asks_change(sub_query.intent))
    if found is None and (not base.metric or sub_query.intent.wording.schedule):
        found = _schedule_cell(reader, asked, base.company)
    if found is None:
        return None
    score, cell = found
    ev = reader.evidence[cell.seg.ev]
    quote = cell.seg.text
    citation = ev.citation(quote, cell.seg.start, cell.seg.row_label)
    value = _cell_value(cell, asked, base.period, sub_query.question)
    if value.value < 0 and cell.seg.row is not None and cell.seg.row.role == "deducted_gain":
        value = turned(value, -value.value)
    # a figure the plan divides ('gross margin' over revenue) is an amount, whatever a 'margin' may name alone
    divided = bool(set(sub_query.operand_of) & _DIVIDED)
    if (base.metric in METRICS and figure_kind(base.metric) == "money" and value.unit == "%"
            and (divided or not RATIO_NAME_RE.search(sub_query.question))):
        return None  # a share printed beside the amounts ('Percentage of service revenue') is not the amount asked
    period = value.period
    # a part of a company's metric ('Europe' of CONTOSO's revenue) says whose figure of what it is, as the
    # lexicon's reading of the metric does
    whose = base.company or ev.company
    of_part = bool(whose and base.scope and base.metric in METRICS)
    if of_part and figure_kind(base.metric) == "money" and not value.unit and not own_measure(cell.label):
        value = value.model_copy(update={"unit": "USD"})
    shown = as_stated(value)
    target = sub_query.intent.scale
    if target and value.scale not in {target, 1.0} and (not value.unit or value.unit in CURRENCIES):
        shown = display_value(value, "money", target)  # in the scale asked, every digit printed kept
    when = f" in {period}" if period else ""
    name = _shown_name(cell, sub_query.question)
    if name == cell.label and only_periods(name):  # a schedule row is named by its year: the asked metric's
        name = base.metric or (f"{base.company}'s {cell.counts}" if cell.counts and base.company else "the amount")
    if cell.prose:
        # a sentence's figure is named by the plan's metric where it asks one, else stated with the sentence it is
        # in quoted as printed (the evidence, its other figures included): its clause up to the figure is no noun
        # phrase ('we repurchased shares for')
        sentence = (f"{_capital(_subject(whose, base.metric, period, base.scope))} was {shown}" if base.metric else
                    f'{_capital(", ".join(p for p in (whose, period) if p))}: {shown} ("{_as_quoted(quote)}")')
    else:
        sentence = f"{_capital(_whose_name(whose, ev.part, name))}{when} was {shown}"
    if of_part:
        row = "" if name.lower() in {t.lower() for t in base.scope} else f" (row {name!r})"
        sentence = f"{_capital(_subject(whose, base.metric, period, base.scope))} was {shown}{row}"
    return base.model_copy(
        update={
            "status": "found",
            "answer": f"{sentence} {citation.label()}.",
            "value": value,
            "display": shown,
            "quote": quote,
            "citation": citation,
            "citations": [citation],
            "period": period,
            "period_stated": bool(asked & cell.periods) or not asked,
            "confidence": round(min(1.0, score / (1 + CELL_PRECISION_WEIGHT)), 3),
            "named": _cell_name(cell),
            "explanation": (f'sentence figure: "{cell.label}"' if cell.prose else f'table cell: row "{cell.label}"')
            + (f', column "{cell.header}"' if cell.header else "")
            + f'. Source: "{quote}"',
        }
    )


def _names_whole(reader: EvidenceReader, cell: Cell, whole: str) -> bool:
    """A total row stands for the whole when its label or its table's title line names the whole's words."""
    wanted = content_words(TOTAL_RE.sub(" ", whole)) - {"amount", "sum", "value"}
    title = reader.evidence[cell.seg.ev].text.strip().split("\n", 1)[0]
    return wanted <= content_words(f"{cell.label} {title}")


def _names_part(cell: Cell, part: str) -> bool:
    return bool(content_words(part) & content_words(f"{cell.label} {cell.header}"))


def _cell_share(
    base: SubAnswer,
    sub_query: SubQuery,
    reader: EvidenceReader,
    share: AskedShare,
    asked: set[str],
) -> SubAnswer | None:
    """'Nuclear fuel expenses as a percentage of 2016 net revenue', 'the ratio of X to Y': two cells of one
    period, divided in code (a percentage when the question asks for one). None when either is missing.

    ``share.part_names_whole``: the part is worded as a subset of the whole ('what percentage of acres were in
    the US'), so its cell is the one naming the whole's words and the part's together."""
    items, percent, part_names_whole = (share.part, share.whole), share.percent, share.part_names_whole
    if share.subtract and percent:
        return None  # 'the percentage difference between A and B': relative to which of them, the words do not say
    values: list[CitedValue] = []
    sureness: list[float] = []
    cells: list[Cell] = []
    opening = sub_query.intent.temporal_scope.opening
    same_table = False  # the part was found by its own words: it must sit in the whole's table
    for i, part in enumerate(items):
        words = content_words(part)
        if part_names_whole and i == 0:
            words |= content_words(items[1])
        found = _best_cell(reader, words, asked, base.company, question=part, opening=opening)
        if found is not None and part_names_whole and i == 0 and not _names_part(found[1], part):
            found = None  # a cell naming only the whole's words is the whole, not the part
        if found is None and part_names_whole and i == 0:
            # 'what portion of the purchase price was allocated to goodwill': the part is its own row
            # ('goodwill') of the table whose total is the whole, not a row naming both
            found = _best_cell(reader, content_words(part), asked, base.company, question=part, opening=opening)
            same_table = True
        if found is not None and i == 1 and not content_words(found[1].label) & words and not TOTAL_ROW_RE.match(
            found[1].label
        ):
            found = None  # 'the revised purchase price' is no 'receivables' row that only its column ('revised') names
        if found is not None and i == 1 and TOTAL_RE.search(part) and not TOTAL_ROW_RE.match(found[1].label):
            found = None  # 'the total liabilities' is a total row, not one of the items ('other liabilities')
        if found is None and i == 1 and TOTAL_RE.search(part):
            found = _total_cell(reader, cells[0], words)  # 'the total investments amount': the part's 'Total' row
            if found is not None and not _names_whole(reader, found[1], part):
                found = None  # 'the total operating leases' is no 'Total' of every obligation in the table
        if found is None:
            return None
        score, cell = found
        cells.append(cell)
        citation = reader.evidence[cell.seg.ev].citation(cell.seg.text, cell.seg.start, cell.seg.row_label)
        value = _cell_value(cell, asked, "", part)
        if asked and value.period not in asked:
            # an undated row counts for the asked period only when its table names it: never labelled so
            table_periods = {p.norm for p in find_periods(reader.evidence[cell.seg.ev].text)}
            if value.period or not asked & table_periods or names_several_periods(value.column):
                return None  # another period's figure, or a row whose table is not about the asked one
            value = value.model_copy(update={"period": sorted(asked & table_periods)[0]})
        values.append(
            CitedValue(label=f"{_cell_name(cell)} {value.period}".strip(), value=value, citation=citation)
        )
        sureness.append(min(1.0, score / (1 + CELL_PRECISION_WEIGHT)))
    if values[0].citation == values[1].citation and values[0].value.value == values[1].value.value:
        return None  # both parts read the same cell: the question's two items were not told apart
    if same_table and cells[0].seg.ev != cells[1].seg.ev:
        return None
    try:
        if share.subtract:
            comp = arithmetic.difference(values[0], values[1], base.metric)
        else:
            comp = arithmetic.ratio(values[0], values[1], base.metric, as_percent=percent)
    except ArithmeticRefusal:
        return None
    kind = "money" if share.subtract else ("percent" if percent else "ratio")
    answer = _computed_answer(base, comp, kind, sub_query.intent.scale, min(sureness))
    relation = "minus" if share.subtract else ("as a percentage of" if percent else "relative to")
    answer.answer = (
        f"{_capital(values[0].label)} {relation} {values[1].label}: "
        f"{answer.display} (computed: {comp.formula}) "
        + " ".join(dict.fromkeys(c.label() for c in comp.citations()))
        + "."
    )
    return answer


def _total_cell(reader: EvidenceReader, part: Cell, words: set[str]) -> tuple[float, Cell] | None:
    """The 'Total ...' row of the part's own table, in the part's column, when its label names nothing the
    question's whole does not ('total' for 'the total investments amount')."""
    for cell in table_cells(reader, {part.seg.ev}):
        if (
            TOTAL_ROW_RE.match(cell.label)
            and content_words(cell.label) <= words
            and cell.header == part.header
            and cell.periods == part.periods
            and cell.seg.start > part.seg.start
        ):
            return CELL_MIN_SCORE * (1 + CELL_PRECISION_WEIGHT), cell
    return None


def _words_said(cell: Cell, words: set[str]) -> set[str]:
    """The question's ``words`` that say what the cell's figure is: its row's label and sub-heading, or a sentence
    figure's clause (a sentence names its figure after it too: 'we granted 464,888 PSUs'); a month is each figure's
    own ('In October 2018, we granted'), no word of what is asked."""
    text = (through_clause(cell.seg.raw, cell.value.start, cell.value.end) if cell.prose
            else f"{cell.label} {cell.parent}")
    return {w for w in named_by(words, content_words(text)) if not is_month(w)}


def _cell_combination(
    base: SubAnswer, sub_query: SubQuery, reader: EvidenceReader, words: set[str], periods: list[str]
) -> SubAnswer | None:
    """'What was the change in X from 2016 to 2017?', 'the average X for 2018 and 2019': every cell read from one
    row, the arithmetic in code. A change or ratio takes the first two periods named; an average or a sum takes
    them all, and every year between the ends of a span ('from 2017 to 2019')."""
    q = sub_query.question
    percent = asks_percent(q)
    changes = bool(CHANGE_RE.search(q))
    named = {"ratio": bool(_CELL_RATIO_RE.search(q)), "change": changes, "percent_change": changes,
             "sum": bool(SUM_WORD_RE.search(q)), "average": bool(AVERAGE_RE.search(q))}
    # a row's cells are combined only when a word says how; the model settles which, where words disagree
    asked = [op for op, said in named.items() if said]
    operation = guess_operation(q).among(asked, asked)
    if operation == "change" and percent:
        operation = "percent_change"  # the unit asked composes with the operation
    if not operation or (operation == "sum" and percent):
        return None
    if operation in _OVER_ALL_PERIODS:
        ends = sorted(periods, key=sort_key)
        periods = expand_range(ends[0], ends[-1]) if len(ends) == 2 and spans_range(q) else ends
    else:
        periods = periods[:2] if operation == "ratio" else sorted(periods[:2], key=sort_key)
    values: list[CitedValue] = []
    sureness: list[float] = []
    row = ""
    first_said: set[str] = set()  # the question's words the first figure's row or sentence says
    for period in periods:
        found = _best_cell(reader, words, {period}, base.company, same_row=row, question=q,
                           opening=sub_query.intent.temporal_scope.opening)
        if found is None:
            return None
        score, cell = found
        if operation == "average" and AVERAGE_NAME_RE.search(_cell_name(cell)):
            return None  # 'the average price in 2018 and 2019' over an 'Average price' row asks for its figures
        said = _words_said(cell, words)
        if values and not first_said <= said:
            return None  # another row's or sentence's figure of the period: it says less of what is asked
        if not values:
            first_said = said
        row = row or cell.label
        named_row = _cell_name(cell)
        ev = reader.evidence[cell.seg.ev]
        citation = ev.citation(cell.seg.text, cell.seg.start, cell.seg.row_label)
        values.append(
            CitedValue(
                label=f"{_shown_name(cell, q)} {period}",
                metric=base.metric,
                value=_cell_value(cell, {period}, period, q),
                citation=citation,
            )
        )
        sureness.append(min(1.0, score / (1 + CELL_PRECISION_WEIGHT)))
    try:
        if operation == "sum":
            comp = arithmetic.total(values, base.metric)
        elif operation == "average":
            comp = arithmetic.average(values, base.metric)
        elif operation == "ratio":
            comp = arithmetic.ratio(values[0], values[1], base.metric, as_percent=percent)
        elif operation == "percent_change":
            comp = arithmetic.percent_change(values[0], values[1], base.metric)
        else:
            comp = arithmetic.change(values[0], values[1], base.metric)
    except ArithmeticRefusal:
        return None
    kind = "percent" if comp.result.unit == "%" else ("ratio" if operation == "ratio" else "money")
    answer = _computed_answer(base, comp, kind, sub_query.intent.scale, min(sureness))
    answer.named = named_row  # what every operand is, for the gate's closed world
    name = values[0].label.rsplit(" ", 1)[0]
    first, second = values[0].value.period, values[-1].value.period
    listed = ", ".join(v.value.period for v in values[:-1]) + f" and {second}"
    what = {
        "sum": f"Total of {name} in {listed}",
        "average": f"Average of {name} over {listed}",
        "ratio": f"{_capital(name)} in {first} relative to {second}",
        "percent_change": f"Percentage change in {name} from {first} to {second}",
        "change": f"Change in {name} from {first} to {second}",
    }[operation]
    answer.answer = (
        f"{what}: {answer.display} (computed: {comp.formula}) "
        + " ".join(dict.fromkeys(c.label() for c in comp.citations()))
        + "."
    )
    return answer
