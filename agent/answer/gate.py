"""The trust gate: field-level checks every stated figure passes before it is shown (DESIGN "The trust gate").

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
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import takewhile

from agent.answer.reading import (
    TOTAL_ROW_RE,
    Evidence,
    EvidenceReader,
    clause_at,
    naming_context,
    only_periods,
    record_naming,
)
from agent.answer.records import NOT_FOUND, Check, SubAnswer, _capital
from agent.answer.words import (
    _QUALIFIERS,
    _WIDE,
    ASKING_WORDS,
    EQUITY_WORDS,
    OUTLOOK,
    _content_words,
    asked_qualifiers,
    counted_noun,
    negated_words,
    unasked_column,
    unasked_part,
    unnamed_modifiers,
)
from agent.entities import EntityRegistry, as_registry
from agent.entities.names import (
    FILER_WORDS,
    NOT_NAMES,
    abbreviates,
    name_key,
    name_tokens,
    names_company,
    opening_verbs,
    same_name,
)
from agent.finance.arithmetic import Computation
from agent.finance.lexicon import canonical, find_metrics
from agent.finance.metrics import METRICS
from agent.finance.numbers import MONEY_UNITS, SCALE_NAMES, find_numbers
from agent.finance.periods import find_periods, period_year, sort_key
from agent.query.asked import operation_unmet_by
from agent.query.cues import NON_NUMERIC_RELATIONS, possessive
from agent.query.definitions import asked_part
from agent.query.plan import SubQuery
from agent.query.scope import STOP_WORDS, terms_for
from agent.schemas import ScopeTerm

SHARE_BOUND = 100.0  # a part of a whole (a share, a mix) lies within +-100 % of it
MARGIN_MAX = 100.0  # profit never exceeds the revenue it is a margin of
MARGIN_MIN = -1000.0  # a loss ten times revenue is possible for a tiny-revenue company, beyond that a scale slip
GROWTH_BOUND = 10_000.0  # a hundredfold change in one period is a scale slip, not a growth rate
RATIO_BOUND = 10_000.0  # x-multiples (coverage, turnover, leverage) beyond this are unit errors
DAYS_BOUND = 3_650.0  # ten years of days payable / receivable / inventory is a unit error
OPERAND_SPREAD = 1_000.0  # two operands of one metric a thousandfold apart: one lost its scale
PER_SHARE_TOPIC = "Per Share"  # the lexicon's topic of per-share metrics (EPS, dividends per share)
_PER_UNIT_RE = re.compile(r"\bper (?:common |ordinary )?(?:share|unit|unitholder|ads)\b", re.IGNORECASE)
UNSCALED_MONEY_MAX = 1e5  # a statement row in plain dollars below this is a table that lost its scale line
FILING_LOOKBACK_YEARS = 2  # a 10-K discusses its own year and the two before it (three years of statements)
# A run of capitalised words: a name the question uses ("Home Depot", "Frito-Lay North America", "Chevron's").
_NAME_RE = re.compile(r"(?<![\w&.-])([A-Z][\w&.-]*(?:\s+(?:&\s+)?[A-Z][\w&.-]*)*)(?:['’]s?)?")
MIN_NAME_KEY = 3  # a 'name' of one or two letters ('Q', 'US') is no company

CLOSEST_HEADINGS = 2  # headings shown with a refused figure: its section and the part it sits under
_LABEL_WINDOW_WORDS = 8  # words before a figure in a sentence that say what it is


def same_company(a: str, b: str, registry: EntityRegistry | None = None) -> bool:
    """True when two company names (or a name and a document's company) denote one company: one entity of
    the registry (any of its names or tickers), or without a registry one name key."""
    if not a or not b:
        return False
    return registry.same(a, b) if registry is not None else same_name(a, b)


def _doc_company(reader: EvidenceReader, doc: str) -> str:
    for ev in reader.evidence:
        if ev.doc_name == doc and ev.company:
            return ev.company
    return ""


def _names(text: str, company: str, registry: EntityRegistry | None = None) -> bool:
    """``text`` names ``company`` as whole words (by any of its names, with a registry)."""
    return registry.named_by(text, company) if registry is not None else names_company(text, company)


def _chunk_text(reader: EvidenceReader, chunk_id: str) -> str:
    return " ".join(ev.text for ev in reader.evidence if ev.chunk_id == chunk_id)


def _page_text(reader: EvidenceReader | None, answer: SubAnswer) -> str:
    """The text of every evidence item on the figure's page: its table, and the sentences around it that say what
    the table is ('Revenue by geographic area was as follows')."""
    if reader is None or answer.citation is None:
        return ""
    cited = next((ev for ev in reader.evidence if ev.chunk_id == answer.citation.chunk_id), None)
    if cited is None:
        return ""
    return " ".join(ev.text for ev in reader.evidence if ev.doc_name == cited.doc_name and ev.page == cited.page)


def owned_by(doc: str, owner: str, company: str, registry: EntityRegistry | None = None) -> bool:
    """The document belongs to ``company``: its recorded company agrees, or (none recorded) its name does."""
    if owner:
        return same_company(owner, company, registry)
    return _names(doc.replace("_", " "), company, registry)


def _row_label(answer: SubAnswer) -> str:
    return answer.quote.split("|", 1)[0] if "|" in answer.quote else ""


def question_names(question: str) -> list[str]:
    """Proper names a question uses ('Chevron', 'Home Depot', 'Frito-Lay North America'): capitalised runs that
    are no question word, statement, measure, period or lexicon metric, nor a verb opening the question."""
    out: list[str] = []
    verbs = opening_verbs(question)
    for m in _NAME_RE.finditer(question):
        words = [w.group(0) for w in re.finditer(r"\S+", m.group(1))
                 if m.start(1) + w.start() not in verbs and w.group(0).lower().strip(".,") not in NOT_NAMES]
        name = " ".join(words).strip(" .,-")
        if len(name_key(name)) < MIN_NAME_KEY or find_periods(name) or canonical(name) is not None:
            continue
        if name_key(name) in FILER_WORDS:
            continue  # 'the Group's revenue': the filer's own
        if all(canonical(w) is not None or find_periods(w) for w in words):
            continue
        out.append(name)
    return out


def _unknown_name(
    question: str, answer: SubAnswer, reader: EvidenceReader, registry: EntityRegistry | None
) -> str:
    """A name the question uses that is neither an indexed company nor mentioned on the cited pages, or ''. A
    segment's or product's name is often printed as the heading of the figure's page, not in its table."""
    cites = answer.citations or ([answer.citation] if answer.citation else [])
    chunks = {c.chunk_id for c in cites}
    pages = {(ev.doc_name, ev.page) for ev in reader.evidence if ev.chunk_id in chunks}
    cited = [ev for ev in reader.evidence if (ev.doc_name, ev.page) in pages]
    seen = " ".join([answer.quote, *(f"{ev.doc_name.replace('_', ' ')} {ev.company} {ev.text}" for ev in cited)])
    for name in question_names(question):
        if registry is not None and registry.knows(name):
            continue
        if not _mentioned(seen, name):
            return name
    return ""


def _mentioned(text: str, name: str) -> bool:
    """``text`` writes ``name``, its last word perhaps as an adjective or plural ('Europe' in 'European')."""
    words = name_tokens(name)
    return bool(words) and re.search(r"\b" + r"\W+".join(map(re.escape, words)) + r"\w*", text, re.IGNORECASE) is not None


def check_company(
    answer: SubAnswer,
    reader: EvidenceReader,
    indexed: EntityRegistry | Sequence[str] | None,
    question: str = "",
) -> Check:
    """Every cited document belongs to the asked company; an unindexed company is said so."""
    registry = as_registry(indexed) if indexed is not None else None
    known = f" (indexed companies: {', '.join(registry)})" if registry else ""
    asked = answer.company
    if not asked:
        stranger = _unknown_name(question, answer, reader, registry)
        if stranger:
            return Check(name="company", passed=False, detail=(
                f"the question names {stranger}, which no indexed filing is and the evidence does not mention{known}"))
        return Check(name="company", passed=True, detail="no company named")
    if (registry is None or registry.resolve(asked) is None) and answer.value is not None and _covers(
        _provenance(answer, reader), asked
    ):
        # A name no filing is, which the figure's own row, table or section names: a segment or a subsidiary.
        return Check(name="company", passed=True, detail=f"the figure's own row, table or section names {asked}")
    if _names(_row_label(answer), asked, registry):
        return Check(name="company", passed=True, detail=f"the figure's row names {asked}")
    if registry and registry.complete and registry.resolve(asked) is None:
        return Check(name="company", passed=False, detail=f"no filing of {asked} is indexed{known}")
    cites = answer.citations or ([answer.citation] if answer.citation else [])
    for cite in cites:
        owner = _doc_company(reader, cite.doc)
        if not owner and _names(_chunk_text(reader, cite.chunk_id), asked, registry):
            continue  # the filing's company is not recorded, and its own text names the asked one
        if not owned_by(cite.doc, owner, asked, registry):
            whose = f"{possessive(owner)} filing" if owner else f"{cite.doc}, whose company is not recorded"
            return Check(name="company", passed=False, detail=f"the figure comes from {whose}, not {asked}'s")
    return Check(name="company", passed=True, detail=f"cited filings are {possessive(asked)}")


def _periods_of(comp: Computation) -> list[str]:
    return [i.value.period for i in comp.inputs if i.value.period]


def _chunk_periods(answer: SubAnswer, reader: EvidenceReader) -> set[str]:
    """The periods the figure's evidence chunk names (its table header, its label years)."""
    chunk = answer.citation.chunk_id if answer.citation else ""
    return {m.norm for m in find_periods(_chunk_text(reader, chunk))}


_DOC_YEAR_RE = re.compile(r"(?:^|_)((?:19|20)\d\d)(?:Q[1-4])?(?:_|$)")  # 'BOEING_2022_10K', 'PFIZER_2023Q2_10Q'


def _filing_year(ev: Evidence) -> int | None:
    """The fiscal year of an evidence item's filing: its recorded period, else the year its name carries."""
    if ev.filing_period:
        return period_year(ev.filing_period)
    m = _DOC_YEAR_RE.search(ev.doc_name)
    return int(m.group(1)) if m else None


def _passage_period(answer: SubAnswer, asked: str, reader: EvidenceReader) -> Check:
    """Quoted passages answer a dated question when they name its year or their filing covers it."""
    year = period_year(asked)
    if year is None or not answer.passages:
        return Check(name="period", passed=True, detail="no figure")
    for passage in answer.passages:
        if any(period_year(m.norm) == year for m in find_periods(passage.text)):
            return Check(name="period", passed=True, detail=f"the passage names {year}")
        ev = next((e for e in reader.evidence if e.chunk_id == passage.citation.chunk_id), None)
        filed = _filing_year(ev) if ev is not None else None
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


def _naming_words(answer: SubAnswer) -> str:
    """The words that say what the figure is: its row label, or the words just before it in its sentence."""
    if answer.named:
        return answer.named
    label = _row_label(answer)
    if label:
        return label
    if answer.value is None or not answer.quote:
        return ""
    at = answer.quote.find(answer.value.text.strip()) if answer.value.text.strip() else -1
    if at < 0:
        return ""
    return " ".join(answer.quote[:at].split()[-_LABEL_WINDOW_WORDS:])


def _figure_context(answer: SubAnswer, reader: EvidenceReader | None) -> str:
    """The words that say what the answer's figure is, wider than its label (see :func:`naming_context`)."""
    text = _chunk_text(reader, answer.citation.chunk_id) if reader is not None and answer.citation else ""
    at = answer.value.start if answer.value is not None else -1
    if not text or not 0 <= at < len(text):
        return _row_label(answer) or answer.quote
    row = reader.row_at(answer.citation.chunk_id, at) if reader is not None and answer.citation else None
    if row is not None and answer.value is not None and reader is not None:
        own = record_naming(reader.evidence[row.ev], row, answer.value, _row_label(answer))
        if own is not None:
            return own
    parent = row.parent if row is not None else ""  # the sub-heading the row sits under ('Cost of revenue:')
    return " ".join(x for x in (naming_context(text, at, _row_label(answer)), parent) if x)


def _own_clause(answer: SubAnswer, reader: EvidenceReader | None) -> str:
    """The words that are the figure's own: a row's label with its table's title and header, a sentence
    figure's clause (see :func:`clause_at`)."""
    if _row_label(answer):
        return _figure_context(answer, reader)
    text = _chunk_text(reader, answer.citation.chunk_id) if reader is not None and answer.citation else ""
    value = answer.value
    if not text or value is None or not 0 <= value.start < value.end <= len(text):
        return _figure_context(answer, reader)
    return clause_at(text, value.start, value.end)


def _names_counted(counted: str, metric: str, context: str) -> bool:
    """The figure's words name what the question counts: the word itself, or, when the word is a name of the
    answer's metric ('employees'), another of the lexicon's names for it ('we employed approximately ...')."""
    if counted in _content_words(context):
        return True
    if not metric or metric not in {canonical(counted), canonical(f"{counted}s")}:
        return False
    return any(m.canonical == metric for m in find_metrics(context))


def check_metric(
    answer: SubAnswer, question: str, reader: EvidenceReader | None = None, turn_question: str = ""
) -> Check:
    """The words naming the figure carry no restricting qualifier (region, adjusted) the question lacks, and
    name the qualifiers the question puts on its metric ('fuel surcharge revenue' is not 'revenue')."""
    if answer.status != "found":
        return Check(name="metric", passed=True, detail=f"metric: {answer.metric or 'as asked'}")
    words = _naming_words(answer)
    counted = counted_noun(question)
    if counted and not _names_counted(counted, answer.metric, _figure_context(answer, reader)):
        # 'The number of gas customers' is not answered by a figure whose words never say customers (net gas revenue).
        return Check(name="metric", passed=False, detail=f"the question counts {counted}s; the figure's words do not")
    if answer.metric:
        # A sentence may name the qualifier anywhere ('fuel surcharge programs ... freight revenue of $2.6 billion').
        missing = unnamed_modifiers(question, answer.metric, _figure_context(answer, reader), answer.company)
        if missing:
            return Check(name="metric", passed=False,
                         detail=f"the question asks for {' '.join(missing)} {answer.metric}; the figure's "
                                f"words do not say {' '.join(missing)}")
    # The question's own restriction ('employees in the United States') must be the figure's too: named by its
    # row and table, or by the clause of its sentence, never only elsewhere in the sentence. A company's name
    # ('U.S. Bancorp', 'Frito-Lay North America' as a segment) is no restriction of the question's.
    own_question = re.sub(re.escape(answer.company), " ", question, flags=re.IGNORECASE) if answer.company else question
    # An expectation asked anywhere in the turn ('what does X expect for 2023 ...') holds for each of its parts,
    # whose split questions are written without it; a region or an adjustment belongs to its own part only.
    turn_outlook = [q for q in asked_qualifiers(turn_question) if q[0] == OUTLOOK]
    asked_all = list(dict.fromkeys([*asked_qualifiers(own_question), *turn_outlook]))
    if asked_all:
        own_kinds = {kind for kind, _ in asked_qualifiers(f"{words} {_own_clause(answer, reader)}")}
        for kind, term in asked_all:
            if kind not in own_kinds:
                return Check(name="metric", passed=False,
                             detail=f"the question asks about '{term}' ({kind}); the figure's own words do not say so")
    other = _other_kind_of_metric(answer.metric, words, question)
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
            f"the figure's row {movement!r} is a movement of its table's roll-forward, not the {answer.metric} "
            "balance (its beginning and ending rows are)"))
    asked_kinds = {kind for kind, _ in [*asked_qualifiers(question), *turn_outlook]}
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


def _sentence_metric(answer: SubAnswer, reader: EvidenceReader | None) -> str:
    """For a figure read from a sentence: the metric the sentence names when it names metrics of the lexicon but
    never the one asked nor one of its kind ('The net income in the third quarter included a gain from legal
    settlement of $13.3 million' is no revenue figure); '' otherwise. A sentence is a figure's row: it must say
    what the figure is."""
    if reader is None or _row_label(answer) or answer.metric not in METRICS or answer.citation is None:
        return ""
    if answer.value is None or reader.row_at(answer.citation.chunk_id, answer.value.start) is not None:
        return ""  # a table row's figure: its row, column and headings say what it is
    named = {m.canonical for m in find_metrics(_figure_context(answer, reader))}
    # a metric of the asked one's kind names it loosely ('cash flow provided by operations' for operating cash flow)
    if not named or answer.metric in named or any(METRICS[m].topic == METRICS[answer.metric].topic for m in named):
        return ""
    return sorted(named)[0]


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
    """The label of the figure's row when a balance metric was read from a movement of a roll-forward (a table
    printing two balance rows or more, its beginning and ending ones: 'Additions during period' of accumulated
    depreciation), else ''. A question naming the movement's own words asks the movement ('the net decrease in
    cash and cash equivalents')."""
    if (reader is None or answer.citation is None or answer.value is None or answer.metric not in METRICS
            or METRICS[answer.metric].topic != "Balance Sheet"):
        return ""
    row = reader.row_at(answer.citation.chunk_id, answer.value.start)
    if row is None or _BALANCE_ROW_RE.search(row.label) or _content_words(row.label) <= _content_words(question):
        return ""
    balances = [seg.label for seg in reader.segments if seg.kind == "row" and seg.numbers
                and reader.evidence[seg.ev].chunk_id == answer.citation.chunk_id and _BALANCE_ROW_RE.search(seg.label)]
    return row.label if len(balances) >= 2 else ""


PASSAGE_FIGURE_COVER = 0.6  # a figure question answered in words: the words must name most of what it asks


def _unasked_column(answer: SubAnswer, reader: EvidenceReader | None, asked: str) -> str:
    """The named column of a read table figure the question does not name (see :func:`unasked_column`)."""
    if reader is None or answer.citation is None or answer.value is None or answer.status != "found":
        return ""
    ev = next((e for e in reader.evidence if e.chunk_id == answer.citation.chunk_id), None)
    return unasked_column(ev, answer.value, asked) if ev is not None else ""


def _provenance(answer: SubAnswer, reader: EvidenceReader | None) -> str:
    """Everything that says what the figure is: its row label with its table's title and header, its
    sentence's own clause, and the section headings its chunk sits under."""
    sections = ""
    if reader is not None and answer.citation:
        ev = next((e for e in reader.evidence if e.chunk_id == answer.citation.chunk_id), None)
        sections = " ".join(ev.section_path) if ev is not None else ""
    return " ".join([answer.named, _naming_words(answer), _figure_context(answer, reader),
                     _own_clause(answer, reader), sections])


def _covers(provenance: str, name: str) -> bool:
    """The figure's provenance names ``name``: its words (the last one perhaps as an adjective or plural:
    'Europe' in 'European'), or an acronym's words ('RSUs' for 'restricted stock units')."""
    if _mentioned(provenance, name):
        return True
    acronym = name.rstrip("s")
    if len(acronym) < 2 or not (acronym.isupper() and acronym.isalpha()):
        return False
    letters = acronym.lower()
    words = [w for w in name_tokens(provenance) if w not in {"and", "of", "the"}]
    # One letter per word: the acronym's initials over as many words as it has letters.
    return any(abbreviates(letters, words[i : i + len(letters)]) for i in range(len(words) - len(letters) + 1))


ROOT_CHARS = 6  # letters two forms of a word share ('operat-ed', 'franch-isees'); 'curren-t/-cy' is the price
MIN_ROOT_CHARS = 4  # shorter words are compared whole


_NET_CHANGE_RE = re.compile(r"\bnet(?=\s+(?:chang|increas|decreas|differen)\w*)", re.IGNORECASE)


def _uncovered_words(answer: SubAnswer, question: str, provenance: str, table: str) -> list[str]:
    """For a figure read from a table cell because its row and column share words with the question (no lexicon
    metric vouches for it): the question's words that neither the figure's provenance nor its page (``table``: the
    table's title, header and rows and the sentences beside it: a word printed there may be a heading the row sits
    under, or the table's subject) names; a metric the question names is named by the page when the page names that
    metric in any of the lexicon's words. 'Long-term deferred revenue' is not the 'Revenue' row of a page that never
    says deferred."""
    if not answer.named or answer.exact_label or only_periods(answer.named):
        return []  # a schedule's year row ('2015 | 1,110') is the asked metric's by the schedule's own reading
    question = re.sub(r"['’]s\b", "", asked_part(question))
    question = _NET_CHANGE_RE.sub(" ", question)  # 'the net change in X' asks X's change, not a 'net' X
    printed = f"{provenance} {table}"
    metrics = {m.canonical for m in find_metrics(printed)}
    vouched = " ".join(m.surface for m in find_metrics(question) if m.canonical in metrics)
    company = set(_content_words(answer.company)) if answer.company else set()
    asked = _content_words(question) - company - ASKING_WORDS - EQUITY_WORDS - _content_words(vouched)
    own = _content_words(printed)
    return sorted(w for w in asked - own if not any(_same_root(w, o) for o in own))


# 'per basic share', 'per common stock share', 'per employee', 'per barrel': the words after 'per' up to a function
# or asking word ('per share the lowest', 'per barrel of oil'); the last of them is what the amount is divided by.
_RATE_RE = re.compile(r"\bper\s+((?:[a-z]+\s*){1,3})", re.IGNORECASE)
_TIME_UNITS = frozenset({"year", "annum", "cent", "month", "quarter", "week", "day", "hour"})  # averages, not rates
_SHARE_WORDS = frozenset({"share", "unit", "ads", "unitholder"})  # what a per-share metric divides by


def _unmet_rate(answer: SubAnswer, question: str, provenance: str) -> str:
    """What the question divides its amount by ('per share', 'per employee') when the figure's own words (row,
    column, title, clause, metric) never say it: a total is no answer to a per-share question ('dividends paid
    $41 million' for 'the cash dividend paid per common share'); '' when the figure is such a rate, or none is
    asked."""
    m = _RATE_RE.search(asked_part(question))
    if m is None:
        return ""
    words = list(takewhile(lambda w: w.lower() not in STOP_WORDS and _stem_word(w) not in ASKING_WORDS,
                           m.group(1).split()))
    unit = _stem_word(words[-1]) if words else ""
    if not unit or unit in _TIME_UNITS:
        return ""
    definition = METRICS.get(answer.metric)
    if unit in _SHARE_WORDS and definition is not None and definition.topic == PER_SHARE_TOPIC:
        return ""
    own = _content_words(f"{provenance} {answer.metric}")
    if unit in own or (unit in _SHARE_WORDS and ({"eps", *_SHARE_WORDS} & own)):
        return ""
    return unit


def _stem_word(word: str) -> str:
    """``word`` as :func:`_content_words` spells it ('shares' -> 'share')."""
    return next(iter(_content_words(word)), word.lower())


def _same_root(a: str, b: str) -> bool:
    """Two forms of one word ('operate' and 'operated', 'franchise' and 'franchisees'): they share their first
    :data:`ROOT_CHARS` letters, or the shorter whole."""
    n = min(ROOT_CHARS, len(a), len(b))
    return n >= MIN_ROOT_CHARS and a[:n] == b[:n] and (n == ROOT_CHARS or n == min(len(a), len(b)))


_TOTAL_ASKED_RE = re.compile(r"\btotal\b", re.IGNORECASE)
_PERIOD_COLUMN_RE = re.compile(r"\b(?:19|20)\d{2}\s*:")  # '2019: 11,569': a linearised cell under a year column
_DATED_TAIL_RE = re.compile(r"\s+(?:as\s+(?:of|at)|at|for)\b.*$", re.IGNORECASE)


def _total_not_read(answer: SubAnswer, question: str, reader: EvidenceReader | None) -> str:
    """'The total accrued liabilities' answered from a row that is no total ('Accrued compensation') while the
    figure's own table has a total row naming what the question asks ('Total accrued liabilities'), or only one
    bare 'Total' row: that row's label, else ''. A component is never stated as the total its table prints."""
    if reader is None or answer.citation is None or not _TOTAL_ASKED_RE.search(question):
        return ""
    row = _naming_words(answer)
    if not row or _TOTAL_ASKED_RE.search(row):
        return ""
    shown = answer.value.text.strip() if answer.value is not None else ""
    if shown and re.search(rf"\btotal\b[^|:]*:\s*{re.escape(shown)}", answer.quote, re.IGNORECASE):
        return ""  # the figure is in the table's 'Total' column: the row's own total ('total operating leases due')
    asked = _content_words(question) - ASKING_WORDS - _content_words(answer.company)  # what it names, not how it asks
    totals = [seg for seg in reader.segments
              if seg.kind == "row" and seg.numbers and TOTAL_ROW_RE.match(seg.label)
              and reader.evidence[seg.ev].chunk_id == answer.citation.chunk_id]
    # the figure's row is named with the sub-heading it sits under ('Onsite projects' under 'Clinical delivery:')
    own = (reader.row_at(answer.citation.chunk_id, answer.value.start)
           if answer.value is not None and answer.status == "found" else None)
    row = f"{row} {own.parent}" if own is not None else row
    # A question narrowing its metric to a part the figure's row names ('the total revenue from risk solutions') is
    # answered by that part's row.
    extra = asked - _content_words(answer.metric)
    own_part = bool(extra) and extra <= _content_words(row)
    for seg in totals:
        named = _content_words(_DATED_TAIL_RE.sub("", seg.label.strip()))  # 'Total as of December 31,' is bare
        # A named total the question's words name and the figure's row (with its metric) does not ('Total current
        # provision' for a 'Provision for income taxes' row); or the one bare 'Total' of a table whose columns are
        # periods (in a schedule by maturity, 'the total X due' is the row's own 'Total' column).
        lacking = named - _content_words(row) - _content_words(answer.metric)
        bare = not named and not own_part and len(totals) == 1 and bool(_PERIOD_COLUMN_RE.search(answer.quote))
        if (named and named <= asked and lacking) or bare:
            return seg.label.strip()
    return ""


def check_scope(
    answer: SubAnswer,
    question: str,
    reader: EvidenceReader | None,
    registry: EntityRegistry | None,
    scope: Sequence[ScopeTerm] = (),
    turn_question: str = "",
) -> Check:
    """Closed world for what the question narrows its figure to: every proper name it uses that is no indexed
    company (a segment, a region, a product, a counterparty), and every part its plan reads after the metric
    ('revenue from software maintenance'), must be named by the figure's own provenance; a company's total never
    answers for a part the filing gives no figure of."""
    # A figure computed from one table row's cells (a change, an average over its years) is that row's as much as
    # a read one: the same closed world holds for it.
    from_cells = answer.status == "computed" and bool(answer.named)
    if (answer.status != "found" and not from_cells) or answer.value is None:
        return Check(name="scope", passed=True, detail="no figure")
    provenance = _provenance(answer, reader)
    cited = {c.chunk_id for c in (answer.citations or ([answer.citation] if answer.citation else []))}
    filers = " ".join(f"{ev.doc_name.replace('_', ' ')} {ev.company}" for ev in (reader.evidence if reader else [])
                      if ev.chunk_id in cited)
    named = _content_words(provenance)
    parts = [t.text for t in terms_for(scope, answer.metric)]
    for name in dict.fromkeys([*question_names(question), *parts]):
        if answer.company and (same_company(name, answer.company, registry) or names_company(answer.company, name)):
            continue
        if _mentioned(filers, name):
            continue  # the company whose filing the figure is from (named by the filing, not by the figure)
        if registry is not None and registry.knows(name):
            continue  # a company: the company check's
        proper = name[:1].isupper()
        if (proper and not _covers(provenance, name)) or (not proper and not _content_words(name) <= named):
            whose = f" for {answer.company}" if answer.company else ""
            return Check(name="scope", passed=False,
                         detail=f"the filing gives {answer.metric or 'this figure'}{whose}, not for {name}")
    row = (reader.row_at(answer.citation.chunk_id, answer.value.start)
           if reader is not None and answer.citation is not None else None)
    own = " ".join(x for x in (row.parent if row is not None else "", _naming_words(answer)) if x)
    negated = negated_words(asked_part(question), own)
    if negated:
        return Check(name="scope", passed=False, detail=(
            f"the figure found is {own!r}, the opposite of the {' '.join(negated)} asked"))
    rate = _unmet_rate(answer, question, provenance)
    if rate:
        return Check(name="scope", passed=False, detail=(
            f"the question asks for an amount per {rate}; the figure found is {_naming_words(answer).strip()!r}, "
            f"whose words say no per {rate}"))
    uncovered = _uncovered_words(answer, question, provenance, _page_text(reader, answer))
    if uncovered:
        return Check(name="scope", passed=False, detail=(
            f"the figure found is {answer.named!r}; its row, column and table do not say {' '.join(uncovered)}"))
    # 'the average total X in 2018 and 2019' is split into lookups of X: the turn's 'total' holds for each, when the
    # turn names one metric only
    one_metric = len({m.canonical for m in find_metrics(turn_question)}) <= 1
    total = _total_not_read(answer, f"{question} {turn_question}" if one_metric else question, reader)
    if total:
        return Check(name="scope", passed=False, detail=(
            f"the question asks for the total; the figure's row is {_naming_words(answer).strip()!r}, and its table's total "
            f"row is {total!r}"))
    asked = " ".join([question, answer.company, *(t.text for t in scope)])
    column = _unasked_column(answer, reader, asked)
    if column:
        return Check(name="scope", passed=False, detail=(
            f"the filing gives {answer.metric or 'this figure'} column by column; the figure found is under "
            f"{column!r}, which the question does not name"))
    for ev in (reader.evidence if reader else []):
        part = unasked_part(ev, asked) if ev.chunk_id in cited else ""
        if part:
            whose = f"{possessive(answer.company)} " if answer.company else "the company's "
            return Check(name="scope", passed=False, detail=(
                f"the filing gives {answer.metric or 'this figure'} part by part; the figure found is {possessive(part)}, "
                f"not {whose}as a whole"))
    return Check(name="scope", passed=True, detail="every part the question names is the figure's own")


def check_words_answer(answer: SubAnswer, sub_query: SubQuery) -> Check:
    """A question after an amount that found only sentences passes when they name most of what it asks (the
    sentence then holds the figure in its own words); sentences about something else are no answer to it."""
    intent = sub_query.intent
    if not intent.requires_numeric or intent.relation in NON_NUMERIC_RELATIONS:
        return Check(name="form", passed=True, detail="answered in words")
    asked = _content_words(asked_part(sub_query.question))
    said = _content_words(" ".join(p.text for p in answer.passages))
    cover = len(asked & said) / len(asked) if asked else 1.0
    if cover >= PASSAGE_FIGURE_COVER:
        return Check(name="form", passed=True, detail=f"the passage names {cover:.0%} of what is asked")
    missing = ", ".join(sorted(asked - said))
    return Check(name="form", passed=False,
                 detail=f"the question asks for a figure; the passages found state none and do not name {missing}")


def check_scale(answer: SubAnswer) -> Check:
    """The figure's scale is known (or the figure is no amount of money)."""
    v = answer.value
    if v is None or (v.unit and v.unit not in MONEY_UNITS) or answer.status != "found" or not _row_label(answer):
        return Check(name="scale", passed=True, detail="scale as stated")
    definition = METRICS.get(answer.metric)
    per_unit = (definition is not None and definition.topic == PER_SHARE_TOPIC) or _PER_UNIT_RE.search(
        f"{answer.metric} {_row_label(answer)}"
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


def check_sanity(answer: SubAnswer) -> Check:
    """Derived values lie within the bounds their kind allows."""
    for comp in answer.computations:
        why = sanity_failure(comp)
        if why:
            return Check(name="sanity", passed=False, detail=why)
    return Check(name="sanity", passed=True, detail="within bounds" if answer.computations else "read, not derived")


def _closest(answer: SubAnswer, reader: EvidenceReader) -> str:
    """The rejected figure as the closest evidence, with its own company and period."""
    if answer.value is None or answer.citation is None:
        return ""
    owner = _doc_company(reader, answer.citation.doc)
    who = f"{possessive(owner)} " if owner else ""
    when = f" for {answer.value.period}" if answer.value.period else ""
    what = answer.metric or "the figure"
    shown = answer.display or answer.value.text.strip()
    # What the figure itself is of: its row and the headings it sits under ('Operating profit' under 'Aerospace').
    ev = next((e for e in reader.evidence if e.chunk_id == answer.citation.chunk_id), None)
    row = answer.named.split(" | ")[0].strip() if answer.named else ""
    under = " > ".join(ev.section_path[-CLOSEST_HEADINGS:]) if ev is not None and ev.section_path else ""
    if ev is not None and ev.part:
        who = f"{possessive(owner)} {ev.part} " if owner else f"{ev.part}: "
    said = ", ".join(part for part in (f"row '{row}'" if row else "", f"under {under}" if under else "") if part)
    return f"{who}{what}{when}: {shown}{f' ({said})' if said else ''} {answer.citation.label()}"


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
    checks = [check_company(answer, reader, registry, f"{sub_query.question} {turn_question}")]
    if answer.value is None and answer.passages:
        # Words answer a question over a span of years ('changes forecast for FY2008') when they cover its last.
        scope = sub_query.intent.temporal_scope.periods
        asked_period = asked_period or (max(scope, key=sort_key) if scope else "")
        checks.append(check_period(answer, asked_period, reader))
    if answer.value is not None:
        checks += [
            check_period(answer, asked_period, reader),
            check_metric(answer, sub_query.question, reader, turn_question),
            check_scope(answer, sub_query.question, reader, registry, sub_query.intent.scope, turn_question),
            check_scale(answer),
            check_sanity(answer),
        ]
    if answer.status == "text" and answer.passages:
        checks.append(check_words_answer(answer, sub_query))
    blocking = [c for c in checks if not c.passed and c.name != "scale"]
    if not blocking:
        out = answer.model_copy(update={"checks": checks})
        if any(c.name == "scale" and not c.passed for c in checks):
            out.answer = out.answer.rstrip() + " (The table states no scale; the figure is shown as written.)"
            out.confidence = round(min(out.confidence, 0.5), 3)
        return out
    # A company with no filing indexed gets no closest evidence: any figure would be another company's.
    closest = "" if any("is indexed" in c.detail for c in blocking) else _closest(answer, reader)
    reasons = "; ".join(c.detail for c in blocking)
    return _refused(answer, f"{_subject_of(answer, asked_period)} ({reasons})", closest, checks)


def _refused(answer: SubAnswer, missing: str, closest: str, checks: list[Check]) -> SubAnswer:
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


def unmet_operation(answer: SubAnswer, question: str, caption: str = "") -> str:
    """For a figure read as it stands: the average, change, sum or ratio the question asks for that the figure is
    not (its row, sentence and table ``caption`` do not say it is one, as "Average selling price" does); ''
    when the figure answers as it is. The question's words name the operation, or else the operation model reads
    one: 'the percentage constitution of X among Y' asks a share in words no list holds."""
    if answer.status != "found" or answer.value is None:
        return ""
    return operation_unmet_by(question, f"{_operation_words(answer)} {answer.metric} {caption}")


def _operation_words(answer: SubAnswer) -> str:
    """The words that may say a read figure already is a result (an average, a change): its row label, or in a
    sentence the words before it back to the figure before it. In 'revenue increased by 13% to RMB200 billion' the
    increase is the 13%'s; the 200 billion is the level it rose to."""
    naming = _naming_words(answer)
    if answer.named or _row_label(answer):
        return naming
    before = find_numbers(naming)
    return naming[before[-1].end :] if before else naming


def operation_refusal(
    answer: SubAnswer, what: str, why: str = "only single reported values were found to compute it from"
) -> SubAnswer:
    """The read figure refused as the answer to a question asking for ``what`` (an average, a change, a ratio),
    and kept as the closest evidence."""
    check = Check(name="metric", passed=False, detail=f"the question asks for {what}; {why}")
    missing = f"{what} of {answer.metric or 'the figure asked'} ({check.detail})"
    return _refused(answer, missing, answer.answer.strip().rstrip("."), [*answer.checks, check])


def part_refusal(answer: SubAnswer, whole: str) -> SubAnswer:
    """A part of a figure built from several (one year of a three-year average) refused because ``whole`` could
    not be computed: the part is kept as the closest evidence, never stated as the answer."""
    check = Check(name="metric", passed=False, detail=f"{whole} could not be computed from the parts found")
    return _refused(answer, check.detail, answer.answer.strip().rstrip("."), [*answer.checks, check])


def _subject_of(answer: SubAnswer, period: str) -> str:
    who = f"{possessive(answer.company)} " if answer.company else ""
    when = f" for {period}" if period else ""
    if answer.value is None and not answer.metric:  # a question answered in words
        return f"an answer{f' about {answer.company}' if answer.company else ''}{when}"
    what = (answer.metric or "the figure asked") + (f" ({', '.join(answer.scope)})" if answer.scope else "")
    return _capital(f"{who}{what}{when}") if who else f"{what}{when}"
