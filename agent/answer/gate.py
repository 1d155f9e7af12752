"""The trust gate: field-level checks every stated figure passes before it is shown (docs/trust-gate.md).

A figure found (or computed) for a sub-query is stated only when, checked against the question:

- **company**: every document it cites belongs to the asked company (recorded company or document name,
  one entity of the company registry, :mod:`agent.entities`); a company with no indexed filing is said so, with the companies
  that are indexed. A name the index does not know passes only when the figure's own table row names it (a
  segment or subsidiary line of the filer); a competitor mentioned in another company's prose never does;
- **period**: the figure's own column or sentence period is the asked one (a quarter never answers a year,
  nor the reverse); a figure whose row states no period of its own does not answer a dated question;
- **metric**: the words that name the figure carry no restricting qualifier the question lacks (U.S. vs
  worldwide, a region, adjusted / non-GAAP / organic), and name the qualifiers the question puts on its metric
  ('fuel surcharge revenue' is not answered by 'revenue'): the row with its table's title, or its sentence;
- **form**: a question after a figure answered only in words passes when those words name most of what it asks;
- **scale**: the scale is known from the table, the statement header or the document; a figure without one is
  shown as written and says so;
- **sanity**: a derived value lies within bounds its kind allows (a share of a whole within +-100 %, a margin
  at most 100 %, days and ratios within reach), and no arithmetic mixes operands a thousandfold apart or a
  scaled amount with a small figure from a table that states no scale (:func:`sanity_failure`, which every
  planned computation and follow-up passes too).

A failed check turns the answer into an honest refusal that says what is missing and shows the closest
evidence with its own company and period. The checks travel with the answer (``SubAnswer.checks``) into the
``--json`` output, the audit trace and the evaluation results.

This module runs the checks in order; the company check lives in :mod:`agent.answer.companies`, the scope check
in :mod:`agent.answer.closed_world`, and what says what a figure is (its row, column, headings, clause) in
:mod:`agent.answer.provenance`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.answer.closed_world import PER_SHARE_TOPIC, check_scope, unsaid_qualifiers
from agent.answer.companies import check_company, doc_company, names_absent_company
from agent.answer.figure_basis import check_basis
from agent.answer.provenance import chunk_text, figure_context, last_sentence, naming_words, row_label
from agent.answer.reading import EvidenceReader
from agent.answer.records import NOT_FOUND, Check, SubAnswer, _capital
from agent.answer.words import (
    _QUALIFIERS,
    _WIDE,
    ASKING_WORDS,
    OUTLOOK,
    asked_qualifiers,
    counted_noun,
    named_by,
    opening_balance,
    unnamed_modifiers,
)
from agent.entities import EntityRegistry, as_registry
from agent.finance.arithmetic import Computation
from agent.finance.column_periods import names_several_periods
from agent.finance.lexicon import canonical, figure_kind, find_metrics, is_percentage_metric
from agent.finance.metrics import METRICS
from agent.finance.numbers import (
    MONEY_UNITS,
    SCALE_NAMES,
    find_numbers,
    is_measure,
    same_measure,
    stated_measure,
)
from agent.finance.periods import find_periods, period_year, sort_key, without_periods
from agent.query.asked import operation_unmet, operation_unmet_by, stated_change_meets
from agent.query.content import content_words
from agent.query.cues import NON_NUMERIC_RELATIONS, possessive
from agent.query.plan import SubQuery
from agent.query.scope import NAME_JOINERS, STOP_WORDS, operation_word, terms_for
from agent.schemas import NumericValue, QueryIntent

SHARE_BOUND = 100.0  # a part of a whole (a share, a mix) lies within +-100 % of it
MARGIN_MAX = 100.0  # profit never exceeds the revenue it is a margin of
CLOSEST_DIGITS = 24  # characters of a figure too long to read shown as the closest evidence
MARGIN_MIN = -1000.0  # a loss ten times revenue is possible for a tiny-revenue company, beyond that a scale slip
GROWTH_BOUND = 10_000.0  # a hundredfold change in one period is a scale slip, not a growth rate
RATIO_BOUND = 10_000.0  # x-multiples (coverage, turnover, leverage) beyond this are unit errors
DAYS_BOUND = 3_650.0  # ten years of days payable / receivable / inventory is a unit error
OPERAND_SPREAD = 1_000.0  # two operands of one metric a thousandfold apart: one lost its scale
_PER_UNIT_RE = re.compile(r"\bper (?:common |ordinary )?(?:share|unit|unitholder|ads)\b", re.IGNORECASE)
UNSCALED_MONEY_MAX = 1e5  # a statement row in plain dollars below this is a table that lost its scale line
FILING_LOOKBACK_YEARS = 2  # a 10-K discusses its own year and the two before it (three years of statements)
CLOSEST_HEADINGS = 2  # headings shown with a refused figure: its section and the part it sits under


def _periods_of(comp: Computation) -> list[str]:
    return [i.value.period for i in comp.inputs if i.value.period]


def _chunk_periods(answer: SubAnswer, reader: EvidenceReader) -> set[str]:
    """The periods the figure's evidence chunk names (its table header, its label years)."""
    chunk = answer.citation.chunk_id if answer.citation else ""
    return {m.norm for m in find_periods(chunk_text(reader, chunk))}


def _passage_period(answer: SubAnswer, asked: str, reader: EvidenceReader) -> Check:
    """Quoted passages answer a dated question when they name its year or their filing covers it."""
    year = period_year(asked)
    if year is None or not answer.passages:
        return Check(name="period", passed=True, detail="no figure")
    for passage in answer.passages:
        if any(period_year(m.norm) == year for m in find_periods(passage.text)):
            return Check(name="period", passed=True, detail=f"the passage names {year}")
        ev = next((e for e in reader.evidence if e.chunk_id == passage.citation.chunk_id), None)
        filed = ev.filing_year if ev is not None else None
        if filed is None or 0 <= filed - year <= FILING_LOOKBACK_YEARS:
            return Check(name="period", passed=True, detail=f"the filing covers {asked}")
    return Check(name="period", passed=False, detail=f"the quoted filings do not cover {asked}")


def check_period(answer: SubAnswer, asked: str, reader: EvidenceReader) -> Check:
    """The figure's own period is the asked one."""
    if not asked:
        shown = answer.value.period if answer.value is not None else ""
        return Check(name="period", passed=True, detail=f"no period named; shown for {shown or 'its own period'}")
    if answer.value is None:
        return _passage_period(answer, asked, reader)
    if answer.status != "computed" and names_several_periods(answer.value.column):
        return Check(name="period", passed=False,
                     detail=f"the figure is under '{answer.value.column}', a column of no single period ({asked} asked)")
    if answer.status in {"found", "text"} and not answer.period_stated:
        # A row of a walk or roll-forward table states no period of its own; its table must name the asked one.
        if asked in _chunk_periods(answer, reader):
            return Check(name="period", passed=True, detail=f"the figure's table is about {asked}")
        return Check(name="period", passed=False, detail=f"the figure's row or sentence states no period ({asked} asked)")
    got = answer.value.period
    if answer.status == "computed" and answer.computations:
        own = {p for c in answer.computations for p in _periods_of(c)}
        if own and asked not in own and got != asked:
            return Check(name="period", passed=False, detail=f"computed from {', '.join(sorted(own))}, not {asked}")
        return Check(name="period", passed=True, detail=f"computed for {asked}")
    if got != asked:
        return Check(name="period", passed=False, detail=f"the figure is for {got or 'an unstated period'}, not {asked}")
    return Check(name="period", passed=True, detail=f"period matched: {asked}")


def _names_counted(counted: str, metric: str, context: str) -> bool:
    """The figure's words name what the question counts: the word itself, or, when the word is a name of the
    answer's metric ('employees'), another of the lexicon's names for it ('we employed approximately ...')."""
    # 'earnings per share' is a rate per share, never a count of shares
    words = context.split()
    context = " ".join(w for i, w in enumerate(words) if "per" not in {w.lower(), words[i - 1].lower() if i else ""})
    if counted in content_words(context):
        return True
    if not metric or metric not in {canonical(counted), canonical(f"{counted}s")}:
        return False
    return any(m.canonical == metric for m in find_metrics(context))


def _totals(answer: SubAnswer, reader: EvidenceReader | None) -> str:
    """The total rows of the table the figure is read from ('Total members'): what its rows count."""
    if reader is None or answer.citation is None or answer.value is None:
        return ""
    row = reader.row_at(answer.citation.chunk_id, answer.value.start)
    table = reader.evidence[row.ev].table if row is not None else None
    return " ".join(r.label for r in table.rows if r.total) if table is not None else ""


def check_unit(answer: SubAnswer, unit: str) -> Check:
    """A quantity the plan asks in a unit of measure ('..., in GWh') is stated only from a figure in that unit: an
    amount of money or a figure of another unit is no answer to it."""
    own = answer.value.unit if answer.value is not None else ""
    # a row or column that names the unit ('Total energy consumption (MWh)') states its figures in it
    own = own or stated_measure(f"{row_label(answer)} {answer.value.column if answer.value is not None else ''}")
    # a ratio computed in code names the unit of an operand ('the net MW in relation to the generation in GWh')
    if not unit or same_measure(own, unit) or (answer.status == "computed" and own in {"x", "%"}):
        return Check(name="metric", passed=True, detail=f"unit: {unit or own or 'as printed'}")
    return Check(name="metric", passed=False,
                 detail=f"the question asks for {unit}; the figure is {f'in {own}' if own else 'in no unit of measure'}")


def check_metric(
    answer: SubAnswer, question: str, reader: EvidenceReader | None = None, turn_question: str = "",
    written: Sequence[str] = (),
) -> Check:
    """The words naming the figure carry no restricting qualifier (region, adjusted) the question lacks, and
    name the qualifiers the question puts on its metric ('fuel surcharge revenue' is not 'revenue'). The company's
    name, as the plan read it written (``written``), qualifies nothing ('Tailwind Traders International's')."""
    if answer.status != "found":
        return Check(name="metric", passed=True, detail=f"metric: {answer.metric or 'as asked'}")
    words = naming_words(answer)
    unit = answer.value.unit if answer.value is not None else ""
    if answer.metric in METRICS and figure_kind(answer.metric) == "money" and is_measure(unit):
        # 'Residential | 18,420' of a table in megawatt hours: a quantity of its unit, never an amount of money
        return Check(name="metric", passed=False, detail=f"the figure counts {unit}; {answer.metric} is an amount")
    counted = counted_noun(question)
    if counted and not _names_counted(counted, answer.metric, f"{figure_context(answer, reader)} {_totals(answer, reader)}"):
        # 'The number of gas customers' is not answered by a figure whose words never say customers (net gas revenue).
        return Check(name="metric", passed=False, detail=f"the question counts {counted}s; the figure's words do not")
    if answer.metric:
        # A sentence may name the qualifier anywhere ('fuel surcharge programs ... freight revenue of $2.6 billion').
        missing = unnamed_modifiers(question, answer.metric, figure_context(answer, reader), answer.company)
        if missing:
            return Check(name="metric", passed=False,
                         detail=f"the question asks for {' '.join(missing)} {answer.metric}; the figure's "
                                f"words do not say {' '.join(missing)}")
    # The question's own restriction ('employees in the United States') must be the figure's too: named by its
    # row and table, or by the clause of its sentence, never only elsewhere in the sentence. A company's name
    # ('U.S. Bancorp', 'Frito-Lay North America' as a segment) is no restriction of the question's.
    # An expectation asked anywhere in the turn ('what does X expect for 2023 ...') holds for each of its parts,
    # whose split questions are written without it; a region or an adjustment belongs to its own part only.
    turn_outlook = [q for q in asked_qualifiers(turn_question) if q[0] == OUTLOOK]
    qualified = asked_qualifiers(question, [answer.company, *written])
    asked_all = list(dict.fromkeys([*qualified, *turn_outlook]))
    unsaid = unsaid_qualifiers(asked_all, answer, reader)
    if unsaid:
        kind, term = unsaid[0]
        return Check(name="metric", passed=False,
                     detail=f"the question asks about '{term}' ({kind}); the figure's own words do not say so")
    governor = _governed_metric(answer.metric, words, f"{question} {turn_question}") if answer.metric else ""
    if governor:
        return Check(name="metric", passed=False,
                     detail=f"the figure's words name the {governor.lower()} of {answer.metric}, not {answer.metric}")
    asked_of = _asked_governor(answer.metric, question) or _asked_governor(answer.metric, turn_question)
    if asked_of and reader is not None:
        # the company's own name is no thing asked of the metric ('how much did Tasmanian spend on buybacks')
        unsaid = (_governor_words(asked_of) - content_words(figure_context(answer, reader))
                  - content_words(answer.company))
        # only a thing the filing prints ('exchange rate', 'reduction in force'); a word of the question's own
        # ('the nominal difference in EBITDA', 'the movement in revenue') names no line of it
        printed = content_words(" ".join(ev.text for ev in reader.evidence))
        if unsaid and unsaid <= printed:
            return Check(name="metric", passed=False, detail=(
                f"the question asks the {asked_of.lower()} of {answer.metric}; the figure's words do not say "
                f"{' '.join(sorted(unsaid))}"))
    metric_words = _metric_words(answer, words, reader)
    # a part of a turn's question may name the metric its figure is counted under ('Capital expenditure on R&D')
    names = [m.surface for m in find_metrics(question) if m.canonical == answer.metric]
    other = "" if metric_words != words and _writes_asked(metric_words, names, content_words(question)) else (
        _other_kind_of_metric(answer.metric, metric_words, f"{question} {turn_question}"))
    if other:
        return Check(name="metric", passed=False,
                     detail=f"the figure's row is {other} ({METRICS[other].topic}), not {answer.metric}")
    spoken = _sentence_metric(answer, reader)
    if spoken:
        return Check(name="metric", passed=False,
                     detail=f"the figure's sentence is about {spoken}; it never names {answer.metric}")
    movement = _movement_row(answer, reader, f"{question} {turn_question}")
    if movement:
        return Check(name="metric", passed=False, detail=(
            f"the figure's row {movement!r} is a movement of its table's roll-forward, not the "
            f"{f'{answer.metric} balance' if answer.metric else 'balance the table is about'} (its beginning and "
            "ending rows are)"))
    asked_kinds = {kind for kind, _ in [*qualified, *turn_outlook]}
    for kind, pattern in _QUALIFIERS:
        # A restricting qualifier of the question's own ('U.S. revenue') allows the figure's; 'worldwide' does not.
        asked = kind in asked_kinds
        for m in pattern.finditer(words):
            term = m.group(0)
            if _WIDE.fullmatch(term) or asked:
                continue
            return Check(
                name="metric", passed=False, detail=f"the figure is qualified '{term}' ({kind}); the question is not"
            )
    return Check(name="metric", passed=True, detail=f"metric matched: {answer.metric or 'as asked'}")


def _metric_words(answer: SubAnswer, words: str, reader: EvidenceReader | None) -> str:
    """The words that name the figure's metric: its own (a row's label, a sentence's words before it), or the
    sub-heading naming a per-share figure that the row sits under (its label names what is divided); for a row that
    names a part and no metric ('Cloud Platforms'), the sub-heading it sits under when that names one ('Operating
    Income:'), else its table's title and header ('Unearned revenue by segment')."""
    row = (reader.row_at(answer.citation.chunk_id, answer.value.start)
           if reader is not None and answer.citation is not None and answer.value is not None else None)
    parent = find_metrics(row.parent) if row is not None and row.parent else []
    if row is not None and any(figure_kind(m.canonical) == "per_share" for m in parent):
        return row.parent  # 'Diluted Earnings Per Common Share' over 'Net income attributable to X': per share
    if not words.strip() or find_metrics(words) or reader is None:
        return words
    return row.parent if parent else figure_context(answer, reader)


def _writes_asked(words: str, names: Sequence[str], asked: set[str]) -> bool:
    """Whether ``words`` print one of the question's own ``names`` for its metric with no word before it that the
    question (its content words ``asked``) lacks: 'Deferred income tax expense (benefit):' for 'deferred income tax
    expense', however the lexicon splits either; never 'Unearned revenue by segment' for 'revenue'."""
    low = words.lower()
    for name in names:
        at = low.find(name.lower())
        if at >= 0:
            before = low[:at].split()
            if not before or before[-1].strip("(),.:;") in asked:
                return True
    return False


def _sentence_metric(answer: SubAnswer, reader: EvidenceReader | None) -> str:
    """For a figure read from a sentence: the metric the sentence names when it names metrics of the lexicon but
    never the one asked nor one of its kind ('The net income in the third quarter included a gain from legal
    settlement of $13.3 million' is no revenue figure); '' otherwise. A sentence is a figure's row: it must say
    what the figure is."""
    if reader is None or row_label(answer) or answer.metric not in METRICS or answer.citation is None:
        return ""
    if answer.value is None or reader.row_at(answer.citation.chunk_id, answer.value.start) is not None:
        return ""  # a table row's figure: its row, column and headings say what it is
    named = {m.canonical for m in find_metrics(figure_context(answer, reader))}
    # a metric of the asked one's kind names it loosely ('cash flow provided by operations' for operating cash flow)
    if not named or answer.metric in named or any(METRICS[m].topic == METRICS[answer.metric].topic for m in named):
        return ""
    return sorted(named)[0]


# Words before a preposition that say how a quantity is measured, not what it is ('the carrying amount of goodwill',
# 'net book value of property'): the quantity is still the metric after them.
MEASURE_WORDS = frozenset(content_words("carrying book fair total sum level aggregate net gross principal face "
                                         "outstanding"))
# A preposition (with the article after it) that makes the metric after it the object of another noun: 'a loss on
# disposal of fixed assets', 'depreciation expense related to property and equipment', 'effect ... on cash'.
_PREPOSITIONS = r"of|on|in|for|from|related\s+to|relating\s+to|attributed\s+to"
_ARTICLE = r"(?:(?:the|our|its|their)\s+)?$"
# A bare 'to' by its group: in a question it joins the two terms of a ratio ('the ratio of inventory reserves to
# accrued compensation'), not a noun and its object.
_GOVERNING_RE = re.compile(rf"\s(?:{_PREPOSITIONS}|(?P<to>to))\s+{_ARTICLE}", re.IGNORECASE)
GOVERNOR_WORDS = 3  # words of the noun before the preposition ('depreciation expense', 'exchange rate changes')
MODIFIER_WORDS = 3  # words of the metric's own between the preposition and it ('of license and subscription revenue')
# Participles that place a noun inside the metric after them ('(gains)/losses included in net income', 'amounts
# recognized in other comprehensive income'): the noun is what the words name, the metric where it is counted.
_LOCATING_PARTICIPLES = frozenset(("included", "recognized", "recognised", "recorded", "reported", "reflected",
                                   "presented", "reclassified", "charged", "credited"))
_AUXILIARIES = frozenset(("was", "were", "is", "are", "be", "been", "being", "has", "have", "had"))
_GOVERNOR_STOP_RE = re.compile(r"[^A-Za-z'’&/-]")  # a number, a bracket or punctuation ends the noun


def _governed_metric(metric: str, naming: str, question: str) -> str:
    """The noun whose object the asked metric is in the words naming the figure, when those words name the
    metric only so and the question does not ask that noun: 'we recorded a loss on disposal of fixed assets of
    $0.01 million' is a loss, not property and equipment; 'Effect of exchange rate changes on cash' is no cash
    balance. '' when a mention of the metric heads its own phrase, or the noun only says how it is measured."""
    mentions = [m for m in find_metrics(naming) if m.canonical == metric]
    if not mentions:
        return ""
    asked = content_words(question) | ASKING_WORDS | MEASURE_WORDS
    governors: list[str] = []
    for m in mentions:
        governor = _governor_before(naming, m.start)
        if governor is None:
            return ""  # the metric heads its phrase
        if not content_words(governor) - asked:
            return ""  # 'the increase in cash', 'the carrying amount of goodwill', or a noun the question asks
        governors.append(governor)
    return governors[0]


def _governor_before(text: str, start: int, bare_to: bool = True) -> str | None:
    """The noun (up to :data:`GOVERNOR_WORDS` words) whose object the phrase at offset ``start`` of ``text`` is
    ('a loss on disposal of' -> 'disposal'); None when no preposition governs it, '' when nothing stands before.
    ``bare_to``: whether a bare 'to' governs (in a question it joins a ratio's terms)."""
    before = text[:start]
    prep = _GOVERNING_RE.search(f" {before}")
    shorter = before.rstrip()
    for _ in range(MODIFIER_WORDS if prep is None and text[start:start + 1].islower() else 0):
        # the metric's own modifiers between the preposition and it ('Cost of license and subscription revenue'),
        # written in lower case, as the metric is: a capital starts a phrase of its own after a heading or name
        head, _, word = shorter.rpartition(" ")
        if not (word in NAME_JOINERS or word.isalpha() and word.islower() and word not in STOP_WORDS):
            break
        shorter = head
        prep = _GOVERNING_RE.search(f" {shorter} ")
        if prep is not None:
            before = f"{shorter} "
            break
    if prep is None or (prep.group("to") and not bare_to):
        return None
    words: list[str] = []
    # '(gains)/losses' is a noun written with brackets; a bracket standing alone ends the noun
    tokens = [re.sub(r"[()]", "", t) if re.search(r"[A-Za-z]", t) else t
              for t in before[: max(0, prep.start() - 1)].split()]
    for word in reversed(tokens):
        # a locating participle is part of the noun's phrase ('(gains)/losses included in', 'gains recognized in')
        stop = word.lower() in STOP_WORDS and word.lower() not in _LOCATING_PARTICIPLES
        if len(words) == GOVERNOR_WORDS or _GOVERNOR_STOP_RE.search(word) or stop:
            break
        words.insert(0, word)
    ahead = tokens[len(tokens) - len(words) - 1].lower() if len(tokens) > len(words) else ""
    return "" if ahead in _AUXILIARIES else " ".join(words)  # 'cash was used for': a verb's phrase, no noun


def _governor_words(governor: str) -> set[str]:
    """The words of a governing noun that name a thing, not an operation or a measure ('exchange rate' of
    'exchange rate changes'; nothing of 'the percentage change', 'the carrying amount')."""
    return {w for w in content_words(governor) - ASKING_WORDS - MEASURE_WORDS if not operation_word(w)}


def _asked_governor(metric: str, question: str) -> str:
    """The noun the question asks of its metric when every mention of the metric is that noun's object: 'the
    effect of exchange rate changes on cash and cash equivalents' asks the effect, not cash. '' when the metric
    heads its own phrase somewhere, or the noun only asks an operation or a measure of it ('the change in cash',
    'the carrying amount of goodwill')."""
    mentions = [m for m in find_metrics(question) if m.canonical == metric] if metric and question else []
    governors = [_governor_before(question, m.start, bare_to=False) for m in mentions]
    if not governors or any(g is None or not _governor_words(g) for g in governors):
        return ""
    return governors[0] or ""


def _other_kind_of_metric(metric: str, naming: str, question: str) -> str:
    """The lexicon metric the figure's own words name when it is another kind of quantity than the one asked (a
    balance for an expense: 'Accumulated depreciation' for depreciation; 'Revenue' for deferred revenue): its
    topic differs and its words name nothing of the asked topic, nor does the question name it. '' otherwise."""
    if metric not in METRICS:
        return ""
    named = {m.canonical for m in find_metrics(naming)} - {metric}
    if not named or any(METRICS[m].topic == METRICS[metric].topic for m in named):
        return ""
    if metric in {m.canonical for m in find_metrics(naming)}:
        return ""
    asked = {m.canonical for m in find_metrics(question)}
    return next((m for m in sorted(named) if m not in asked), "")


# A roll-forward's balance rows ('Balance, beginning of period', 'Ending balance', 'Balance December 31, 2005').
_BALANCE_ROW_RE = re.compile(r"\b(?:balances?|beginning|end|ending|opening|closing)\b", re.IGNORECASE)


def _movement_row(answer: SubAnswer, reader: EvidenceReader | None, question: str) -> str:
    """The label of the figure's row when a balance was read from a movement of a roll-forward (a table printing
    two balance rows or more, its beginning and ending ones: 'Additions during period' of accumulated
    depreciation, 'Gross increases ... prior year tax positions' of unrecognized tax benefits), else ''. The
    balance is a lexicon balance-sheet metric, whose movement a question asks by naming all its row's words ('the
    net decrease in cash and cash equivalents'), or, for a figure read from cells with no lexicon metric, the
    table's subject, whose movement a question asks by naming a word of its row that neither the table's title nor
    its balance rows print ('the gross increases ...')."""
    if reader is None or answer.citation is None or answer.value is None:
        return ""
    if answer.metric in METRICS and METRICS[answer.metric].topic != "Balance Sheet":
        return ""  # a flow (an expense, a cash flow) is a roll-forward's movement by its nature
    row = reader.row_at(answer.citation.chunk_id, answer.value.start)
    if row is None or _BALANCE_ROW_RE.search(row.label):
        return ""
    balances = [seg.label for seg in reader.segments if seg.kind == "row" and seg.numbers
                and reader.evidence[seg.ev].chunk_id == answer.citation.chunk_id and _BALANCE_ROW_RE.search(seg.label)]
    if len(balances) < 2:
        return ""
    asked = content_words(question)
    if answer.metric in METRICS:
        return "" if content_words(row.label) <= asked else row.label
    ev = reader.evidence[row.ev]
    subject = content_words(" ".join([ev.table.title if ev.table is not None else "", *balances]))
    movement = content_words(row.label) - subject
    # the movement asked by its verb ('how many stores did X open': 'Stores opened')
    return row.label if movement and not named_by(movement, asked) else ""


PASSAGE_FIGURE_COVER = 0.6  # a figure question answered in words: the words must name most of what it asks


def check_words_answer(answer: SubAnswer, sub_query: SubQuery) -> Check:
    """A question after an amount that found only sentences passes when they name most of what it asks (the
    sentence then holds the figure in its own words); sentences about something else are no answer to it."""
    intent = sub_query.intent
    if not intent.requires_numeric or intent.relation in NON_NUMERIC_RELATIONS:
        return Check(name="form", passed=True, detail="answered in words")
    asked = set(intent.wording.words)
    said = content_words(" ".join(p.text for p in answer.passages))
    cover = len(asked & said) / len(asked) if asked else 1.0
    if cover >= PASSAGE_FIGURE_COVER:
        return Check(name="form", passed=True, detail=f"the passage names {cover:.0%} of what is asked")
    missing = ", ".join(sorted(asked - said))
    return Check(name="form", passed=False,
                 detail=f"the question asks for a figure; the passages found state none and do not name {missing}")


def check_scale(answer: SubAnswer) -> Check:
    """The figure's scale is known (or the figure is no amount of money)."""
    v = answer.value
    if v is None or (v.unit and v.unit not in MONEY_UNITS) or answer.status != "found" or not row_label(answer):
        return Check(name="scale", passed=True, detail="scale as stated")
    definition = METRICS.get(answer.metric)
    per_unit = (definition is not None and definition.topic == PER_SHARE_TOPIC) or _PER_UNIT_RE.search(
        f"{answer.metric} {row_label(answer)}"
    )
    if per_unit:  # '$3.00' per share is dollars as written: 'in millions, except per share amounts'
        return Check(name="scale", passed=True, detail="a per-share amount, in units")
    if v.scale == 1.0 and v.unit in MONEY_UNITS and 0 < abs(v.value) < UNSCALED_MONEY_MAX:
        return Check(name="scale", passed=False, detail="the table states no scale: shown as written")
    return Check(name="scale", passed=True, detail=f"in {SCALE_NAMES[v.scale]}s" if v.scale in SCALE_NAMES else "in units")


def _bounds(comp: Computation) -> tuple[float, float, str] | None:
    op, unit = comp.operation, comp.result.unit
    if op == "share":  # a part of its own total; 'X as a percent of Y' between two items is no share
        return -SHARE_BOUND, SHARE_BOUND, "a share of a whole"
    if op == "margin" or ("margin" in comp.metric and unit == "%"):
        return MARGIN_MIN, MARGIN_MAX, "a margin"
    if op in {"percent_change", "cagr"}:
        return -GROWTH_BOUND, GROWTH_BOUND, "a growth rate"
    if unit == "%":  # one item as a percent of another: a hundredfold is a scale slip
        return -GROWTH_BOUND, GROWTH_BOUND, "a percentage"
    if unit == "days":
        return -DAYS_BOUND, DAYS_BOUND, "a number of days"
    if unit == "x":
        return -RATIO_BOUND, RATIO_BOUND, "a ratio"
    return None


def _spread(comp: Computation) -> str:
    """Why two operands of one metric cannot be combined (a thousandfold apart), or ''."""
    # A share of a whole a thousandth of it rounds to 0.00 %: a scale is missing on one of its operands too.
    if comp.operation not in {"change", "difference", "percent_change", "cagr", "sum", "average", "share"}:
        return ""
    sizes = [abs(i.value.absolute) for i in comp.inputs if not i.computed and i.value.absolute]
    if len(sizes) >= 2 and max(sizes) / min(sizes) >= OPERAND_SPREAD:
        return "its operands are a thousandfold apart (a scale is missing on one of them)"
    return ""


def _unreconciled(comp: Computation) -> str:
    """Why amounts of money cannot be combined: one states its scale ('$13 million') and another is a small
    figure from a table that states none ('587'), so which scale it is in is a guess; else ''."""
    money = [i.value for i in comp.inputs if not i.computed and i.value.unit in MONEY_UNITS]
    unscaled = [v for v in money if v.scale == 1.0 and 0 < abs(v.value) < UNSCALED_MONEY_MAX]
    scaled = [v for v in money if v.scale > 1.0]
    if unscaled and scaled:
        return (f"{unscaled[0].text.strip()} states no scale and {scaled[0].text.strip()} is in "
                f"{SCALE_NAMES.get(scaled[0].scale, 'another scale')}s: their scales cannot be reconciled")
    return ""


def sanity_failure(comp: Computation) -> str:
    """Why a derived value (or a step feeding it) must not be stated: operands a thousandfold apart or a result
    out of the bounds its kind allows; '' when it is sane. Every computation passes here before it is stated."""
    for step in [comp, *comp.steps]:
        why = _unreconciled(step) or _spread(step)
        if why:
            return f"{step.formula}: {why}"
        bounds = _bounds(step)
        if bounds is None:
            continue
        low, high, what = bounds
        if not low <= step.result.value <= high:
            return f"{step.formula}: {step.result.value:,.1f}{step.result.unit} is out of bounds for {what}"
    return ""


def _unreadable(answer: SubAnswer) -> NumericValue | None:
    """The figure the answer states or computes with that was printed with more digits than a number holds."""
    stack = list(answer.computations)
    values = [answer.value] if answer.value is not None else []
    while stack:
        comp = stack.pop()
        values += [i.value for i in comp.inputs]
        stack += comp.steps
    return next((v for v in values if not v.readable), None)


def check_sanity(answer: SubAnswer) -> Check:
    """Derived values lie within the bounds their kind allows; every figure used can be read as a number; a margin
    read off a row lies within a margin's bounds too."""
    if _unreadable(answer) is not None:
        return Check(name="sanity", passed=False,
                     detail="the filing prints the figure with more digits than a number can hold")
    # A margin read off a row holds the bounds a computed one does: many filers print their gross profit, in dollars,
    # as 'Gross margin | 5,215', which is no margin (a rate past 100 %, a tax rate, may be one).
    value = answer.value
    if (answer.status == "found" and value is not None and value.unit in {"%", ""} and "margin" in answer.metric
            and is_percentage_metric(answer.metric) and not MARGIN_MIN <= value.value <= MARGIN_MAX):
        return Check(name="sanity", passed=False, detail=(
            f"{answer.metric} is quoted in percent; the figure printed under its name is out of bounds for a margin: "
            "an amount"))
    for comp in answer.computations:
        why = sanity_failure(comp)
        if why:
            return Check(name="sanity", passed=False, detail=why)
    return Check(name="sanity", passed=True, detail="within bounds" if answer.computations else "read, not derived")


def _closest(answer: SubAnswer, reader: EvidenceReader) -> str:
    """The rejected figure as the closest evidence, with its own company and period, named by what it is: its own
    row when it has one ('Cash and cash equivalents at end of year'), never the metric it was refused for."""
    if answer.value is None or answer.citation is None:
        return ""
    owner = doc_company(reader, answer.citation.doc)
    who = f"{possessive(owner)} " if owner else ""
    when = f" for {answer.value.period}" if answer.value.period else ""
    shown = answer.display or answer.value.text.strip()
    if not answer.value.readable:  # as printed, cut short: its value was never read
        shown = f"{answer.value.text.strip()[:CLOSEST_DIGITS]}... (as printed, too long to read)"
    # What the figure itself is of: its row and the headings it sits under ('Operating profit' under 'Aerospace').
    ev = next((e for e in reader.evidence if e.chunk_id == answer.citation.chunk_id), None)
    # a read figure's table row; a computed one is none of its operands' rows
    row = answer.named or (row_label(answer) if answer.status == "found" else "")
    what = f"'{row}'" if row else answer.metric or "the figure"
    under = " > ".join(ev.section_path[-CLOSEST_HEADINGS:]) if ev is not None and ev.section_path else ""
    if ev is not None and ev.part:
        who = f"{possessive(owner)} {ev.part} " if owner else f"{ev.part}: "
    cited = answer.citation.label()
    if answer.status == "computed" and answer.computations and not answer.named:
        under = f"computed: {answer.computations[0].formula}"  # a formula's result sits under no one heading
        cited = " ".join(dict.fromkeys(c.label() for c in answer.citations or [answer.citation]))
    elif under:
        under = f"under {under}"
    return f"{who}{what}{when}: {shown}{f' ({under})' if under else ''} {cited}"


def gate(
    answer: SubAnswer,
    sub_query: SubQuery,
    reader: EvidenceReader,
    indexed_companies: EntityRegistry | Sequence[str] | None = None,
    turn_question: str = "",
) -> SubAnswer:
    """``answer`` with its checks; a figure that fails one becomes a refusal naming what is missing.
    ``turn_question`` is the question the sub-query was split from: a name it uses holds for every part."""
    if answer.status == "not_found":
        return answer
    asked_period = sub_query.period or (
        sub_query.intent.temporal_scope.periods[0] if len(sub_query.intent.temporal_scope.periods) == 1 else ""
    )
    registry = as_registry(indexed_companies) if indexed_companies is not None else None
    part_names = [t.text for t in terms_for(sub_query.intent.scope, answer.metric) if t.kind == "name"]
    checks = [check_company(answer, reader, registry, sub_query.all_names, part_names)]
    if answer.value is None and answer.passages:
        # Words answer a question over a span of years ('changes forecast for FY2008') when they cover its last.
        scope = sub_query.intent.temporal_scope.periods
        asked_period = asked_period or (max(scope, key=sort_key) if scope else "")
        checks.append(check_period(answer, asked_period, reader))
    if answer.value is not None:
        checks += [
            check_period(answer, asked_period, reader),
            check_metric(answer, sub_query.question, reader, turn_question, sub_query.intent.company_written),
            check_basis(answer, sub_query.intent.wording.basis, reader),
            check_scope(answer, sub_query.question, reader, registry, sub_query.intent.scope, turn_question,
                        sub_query.intent.total, sub_query.intent.names, sub_query.intent.wording.predicate,
                        sub_query.intent.wording.basis, sub_query.intent.company_written),
            check_scale(answer),
            check_sanity(answer),
            check_unit(answer, sub_query.intent.unit),
        ]
        if row_label(answer) and opening_balance(row_label(answer), sub_query.intent.temporal_scope.opening):
            checks.append(Check(name="metric", passed=False, detail=(
                f"the figure's row {row_label(answer)!r} is the opening balance of its period, which the question "
                "does not ask")))
    if answer.status == "text" and answer.passages:
        checks.append(check_words_answer(answer, sub_query))
    blocking = [c for c in checks if not c.passed and c.name != "scale"]
    if not blocking:
        out = answer.model_copy(update={"checks": checks})
        if any(c.name == "scale" and not c.passed for c in checks):
            out.answer = out.answer.rstrip() + " (The table states no scale; the figure is shown as written.)"
            out.confidence = round(min(out.confidence, 0.5), 3)
        return out
    # A company with no filing indexed gets no closest evidence: any figure would be another company's; and that
    # is the reason, whatever else the figure found lacks.
    absent = [c for c in blocking if names_absent_company(c)]
    closest = "" if absent else _closest(answer, reader)
    reasons = "; ".join(c.detail for c in absent or blocking)
    return refused(answer, f"{_subject_of(answer, asked_period)} ({reasons})", closest, checks)


def refused(answer: SubAnswer, missing: str, closest: str, checks: list[Check]) -> SubAnswer:
    """``answer`` turned into a refusal: what is missing, the figure offered only as the closest evidence."""
    text = f"{NOT_FOUND}: {missing}." + (f" Closest evidence: {closest}." if closest else "")
    return answer.model_copy(
        update={
            "status": "not_found",
            "answer": text,
            "missing": missing,
            "closest": closest,
            "value": None,
            "display": "",
            "confidence": 0.0,
            "checks": checks,
        }
    )


def unmet_operation(answer: SubAnswer, intent: QueryIntent, caption: str = "") -> str:
    """For a figure read as it stands: the average, change, sum or ratio the question asks for that the figure is
    not (its row, sentence and table ``caption`` do not say it is one, as "Average selling price" does); ''
    when the figure answers as it is. The plan's ``intent`` names the operation, by the question's words or else
    the operation model's reading: 'the percentage constitution of X among Y' asks a share in words no list
    holds."""
    if answer.status != "found" or answer.value is None:
        return ""
    what = operation_unmet_by(intent, _result_words(answer, caption))
    return "" if answer.value.change and stated_change_meets(what, answer.value.unit == "%") else what


def turn_operation_unmet(answer: SubAnswer, operation: str, caption: str = "") -> str:
    """For a figure read as it stands in a follow-up whose own words ask ``operation`` (a share of an earlier
    answer, its change) that the rewritten question lost: how the answer names that operation, unless the
    figure's row, sentence or table ``caption`` say it already is its result; '' when it answers."""
    if answer.status != "found" or answer.value is None or not operation:
        return ""
    return operation_unmet(operation, _result_words(answer, caption))


def _result_words(answer: SubAnswer, caption: str) -> str:
    """The words that may say a read figure already is the result of an operation: its own, its column's name, its
    metric's name and its table's ``caption``."""
    # the column a figure sits under names it too ('Average Balance' over a quarter's deposits)
    column = without_periods(answer.value.column) if answer.value is not None else ""
    return f"{_operation_words(answer)} {column} {answer.metric} {caption}"


def _operation_words(answer: SubAnswer) -> str:
    """The words that may say a read figure already is a result (an average, a change): its row label, or in a
    sentence the words before it back to the figure before it or the sentence's start. In 'revenue increased by 13%
    to RMB200 billion' the increase is the 13%'s; the 200 billion is the level it rose to."""
    naming = naming_words(answer)
    if answer.named or row_label(answer):
        return naming
    naming = last_sentence(naming)  # 'reduced waste. Shorewood net sales of $670 million': the waste fell, not sales
    before = find_numbers(naming)
    return naming[before[-1].end :] if before else naming


def operation_refusal(
    answer: SubAnswer, what: str, why: str = "only single reported values were found to compute it from"
) -> SubAnswer:
    """The read figure refused as the answer to a question asking for ``what`` (an average, a change, a ratio),
    and kept as the closest evidence."""
    check = Check(name="metric", passed=False, detail=f"the question asks for {what}; {why}")
    missing = f"{what} of {answer.metric or 'the figure asked'} ({check.detail})"
    return refused(answer, missing, answer.answer.strip().rstrip("."), [*answer.checks, check])


def part_refusal(answer: SubAnswer, whole: str) -> SubAnswer:
    """A part of a figure built from several (one year of a three-year average) refused because ``whole`` could
    not be computed: the part is kept as the closest evidence, never stated as the answer."""
    check = Check(name="metric", passed=False, detail=f"{whole} could not be computed from the parts found")
    return refused(answer, check.detail, answer.answer.strip().rstrip("."), [*answer.checks, check])


def _subject_of(answer: SubAnswer, period: str) -> str:
    who = f"{possessive(answer.company)} " if answer.company else ""
    when = f" for {period}" if period else ""
    if answer.value is None and not answer.metric:  # a question answered in words
        return f"an answer{f' about {answer.company}' if answer.company else ''}{when}"
    what = (answer.metric or "the figure asked") + (f" ({', '.join(answer.scope)})" if answer.scope else "")
    return _capital(f"{who}{what}{when}") if who else f"{what}{when}"
