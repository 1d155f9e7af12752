"""The closed world of the trust gate's scope check: every part a question narrows its figure to (a segment, a
region, a product, a counterparty, a rate, a total, a named column) must be named by the figure's own provenance
(row label and its sub-heading, column header, table title, section headings); a company's total never answers
for a part the filing gives no figure of.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import takewhile

from agent.answer.companies import same_company
from agent.answer.provenance import (
    covers,
    figure_context,
    figure_provenance,
    mentioned,
    naming_words,
    own_clause,
    page_headings,
    row_label,
    spelled_out,
)
from agent.answer.reading import EvidenceReader, Segment, only_periods
from agent.answer.records import Check, SubAnswer, formula_operands, operand_read
from agent.answer.words import (
    ASKING_WORDS,
    EQUITY_WORDS,
    LINKING_VERBS,
    asked_qualifiers,
    name_words,
    named_by,
    negated_words,
    same_root,
    unasked_column,
    unasked_part,
)
from agent.entities import EntityRegistry
from agent.entities.names import names_company
from agent.finance.basis import bases_said, without_bases
from agent.finance.lexicon import find_metrics
from agent.finance.metrics import METRICS
from agent.finance.periods import without_periods
from agent.finance.wording import CHANGE, SCALE_ASKED_RE, TOTAL_RE, without_possessive
from agent.ingest.typed_tables import TOTAL_ROW_RE
from agent.query.content import content_words
from agent.query.cues import is_operation_word, possessive
from agent.query.definitions import asked_part
from agent.query.intent import asking_part, without_span
from agent.query.scope import ADJUSTING, AMOUNT_NOUNS, EXCLUDING, STOP_WORDS, metric_modifiers, terms_for
from agent.schemas import Basis, ScopeTerm

PER_SHARE_TOPIC = "Per Share"  # the lexicon's topic of per-share metrics (EPS, dividends per share)


def _unasked_column(answer: SubAnswer, reader: EvidenceReader | None, asked: str) -> str:
    """The named column of a read table figure the question does not name (see :func:`unasked_column`)."""
    if reader is None or answer.citation is None or answer.value is None or answer.status != "found":
        return ""
    ev = next((e for e in reader.evidence if e.chunk_id == answer.citation.chunk_id), None)
    return unasked_column(ev, answer.value, asked, answer.company, answer.citation.row) if ev is not None else ""


_NET_CHANGE_RE = re.compile(rf"\bnet(?=\s+(?:{CHANGE})\b)", re.IGNORECASE)


def _uncovered_words(answer: SubAnswer, question: str, provenance: str, headings: str, reader: EvidenceReader | None,
                     whose: str = "", predicate: Sequence[str] = ()) -> list[str]:
    """The words of what the question asks that neither the figure's provenance nor its page's ``headings`` (the
    headings and introductions that say what its table is, see :func:`page_headings`) name: 'long-term deferred
    revenue' is not the 'Revenue' row of a page that never says deferred. A metric the question names is named
    when they name that metric in any of the lexicon's words; the figure's own metric, its company (``whose``:
    the filer's names), a verb it asks with that the figure's chunk never prints (``predicate``, as the plan read
    it: 'fly' of 'did Lucerne fly'), instructions around the question ('Answer in USD millions.') and the scale it asks are no part. A figure the lexicon vouches for (its row is a name of the metric) leaves out only the words that name
    another row of its own table: 'software in property and equipment' is the table's 'Software' row, not its net
    total; the other words are the metric check's (modifiers) and the scope check's (parts)."""
    if only_periods(row_label(answer) or answer.named or naming_words(answer)):
        return []  # a schedule's year row ('2015 | 1,110') is the asked metric's by the schedule's own reading
    # '6/30/25' is the period's, 'at constant currency' the basis check's
    question = without_span(without_bases(without_periods(without_possessive(asking_part(asked_part(question))))))
    question = SCALE_ASKED_RE.sub(" ", _NET_CHANGE_RE.sub(" ", question))  # 'net change in X' asks X's change
    printed = f"{provenance} {headings}"
    metrics = {m.canonical for m in find_metrics(printed)}
    if not answer.named:
        metrics.add(answer.metric)  # the lexicon read the figure's row as the metric (the metric check's)
    vouched = " ".join(m.surface for m in find_metrics(question) if m.canonical in metrics)
    company = content_words(f"{answer.company} {whose}")
    asked = (content_words(question) - company - ASKING_WORDS - LINKING_VERBS - EQUITY_WORDS - content_words(vouched)
             - _unprinted_verb(answer, predicate, reader))
    if answer.status == "computed" and row_label(answer):
        # a figure computed from a table row's cells: the arithmetic words ('ratio', 'sum') name the computation
        asked = {w for w in asked if not is_operation_word(w)}
    own = content_words(printed)
    # 'increased', 'decreasing': forms of words that ask how, not what
    # an acronym the printed words spell ('CRE' of 'Commercial real estate') is named by them
    missing = {w for w in asked - own if not any(same_root(w, o) for o in (*own, *ASKING_WORDS))
               and not spelled_out(w, printed) and not (w in EXCLUDING and own & EXCLUDING)}  # 'ex-' is 'excluding'
    if not answer.named:
        missing &= _other_rows(answer, reader)
    if missing and all(w in AMOUNT_NOUNS for w in missing) and _expense_line(answer, reader):
        return []  # 'purchased transportation costs': a line of the operating expenses is a cost
    return sorted(missing)


def _unprinted_verb(answer: SubAnswer, predicate: Sequence[str], reader: EvidenceReader | None) -> set[str]:
    """The words of the verb the question asks with that the figure's chunk prints nowhere: 'fly' of 'how many seat
    miles did Lucerne fly' tells no row from another, while 'open' of 'how many stores did X open' names the
    'Stores opened' row of a table that prints it, and stays asked."""
    if not predicate or reader is None or answer.citation is None:
        return set()
    printed = content_words(" ".join(ev.text for ev in reader.evidence if ev.chunk_id == answer.citation.chunk_id))
    return {w for w in content_words(" ".join(predicate)) if not any(same_root(w, p) for p in printed)}


def _expense_line(answer: SubAnswer, reader: EvidenceReader | None) -> bool:
    """Whether the figure's row is a line of operating expenses, as ingest typed it (``TableLine.role``)."""
    if reader is None or answer.citation is None or answer.value is None:
        return False
    seg = reader.row_at(answer.citation.chunk_id, answer.value.start)
    return seg is not None and seg.row is not None and seg.row.role == "expense"


def _other_rows(answer: SubAnswer, reader: EvidenceReader | None) -> set[str]:
    """The words of the labels of the other rows of the figure's table."""
    if reader is None or answer.citation is None or answer.value is None:
        return set()
    row = reader.row_at(answer.citation.chunk_id, answer.value.start)
    if row is None:
        return set()
    return {w for seg in reader.segments if seg.kind == "row" and seg.ev == row.ev and seg is not row
            for w in content_words(seg.label)}


# 'per basic share', 'per common stock share', 'per employee', 'per barrel': the words after 'per' up to a function
# or asking word ('per share the lowest', 'per barrel of oil'); the last of them is what the amount is divided by.
_RATE_RE = re.compile(r"\bper\s+((?:[a-z]+\s*){1,3})", re.IGNORECASE)
_TIME_UNITS = frozenset({"year", "annum", "cent", "month", "quarter", "week", "day", "hour"})  # averages, not rates
_SHARE_WORDS = frozenset({"share", "unit", "ads", "unitholder"})  # what a per-share metric divides by


def _rate_unit(words: str) -> str:
    """What ``words`` divide an amount by ('per basic share' -> 'share', 'per gallon' -> 'gallon'); '' for none, or a
    time unit ('per year': an average, not a rate)."""
    # '(in millions, except per share amounts)' is a table's scale caption, no rate of the figure's
    m = next((m for m in _RATE_RE.finditer(words) if not words[: m.start()].rstrip().lower().endswith("except")), None)
    if m is None:
        return ""
    kept = list(takewhile(lambda w: w.lower() not in STOP_WORDS and _stem_word(w) not in ASKING_WORDS,
                          m.group(1).split()))
    unit = _stem_word(kept[-1]) if kept else ""
    return "" if unit in _TIME_UNITS else unit


def _unmet_rate(answer: SubAnswer, question: str, provenance: str) -> str:
    """Why the rate asked and the figure's rate differ, or '': a total is no answer to a per-share question
    ('dividends paid $41 million' for 'the cash dividend paid per common share'), and a rate no answer to an
    amount ('Average fuel cost per gallon' for 'fuel costs'). A per-share figure answers a question that names no
    rate: the filings' own convention for dividends, book value and earnings."""
    asked = _rate_unit(asked_part(question))
    row = naming_words(answer).strip()
    definition = METRICS.get(answer.metric)
    if not asked:
        stated = _rate_unit(row_label(answer) or row) if answer.status == "found" else ""
        if definition is not None and any(_rate_unit(name) for name in (definition.canonical, *definition.synonyms)):
            return ""  # the metric asked is a rate by name ('RASM': revenue per available seat mile)
        words = content_words(question)
        if not stated or stated in _SHARE_WORDS or stated in words or "average" in words & content_words(row):
            return ""  # no rate stated, the unit named ('revenue per ASM'), or an average asked, which is per something
        return f"the figure found is {row!r}, an amount per {stated}; the question asks for no rate"
    if asked in _SHARE_WORDS and definition is not None and definition.topic == PER_SHARE_TOPIC:
        return ""
    own = content_words(f"{provenance} {answer.metric}")
    if asked in own or (asked in _SHARE_WORDS and ({"eps", *_SHARE_WORDS} & own)):
        return ""
    return f"the question asks for an amount per {asked}; the figure found is {row!r}, whose words say no per {asked}"


def _stem_word(word: str) -> str:
    """``word`` as :func:`content_words` spells it ('shares' -> 'share')."""
    return next(iter(content_words(word)), word.lower())


_PERIOD_COLUMN_RE = re.compile(r"\b(?:19|20)\d{2}\s*:")  # '2019: 11,569': a linearised cell under a year column
_DATED_TAIL_RE = re.compile(r"\s+(?:as\s+(?:of|at)|at|for)\b.*$", re.IGNORECASE)


def _total_not_read(answer: SubAnswer, question: str, reader: EvidenceReader | None) -> str:
    """A total asked ('the total accrued liabilities', the plan's ``total``) answered from a row that is no total
    ('Accrued compensation') while the figure's own table has a total row naming what the ``question`` asks
    ('Total accrued liabilities'), or only one bare 'Total' row: that row's label, else ''. A component is never
    stated as the total its table prints."""
    if reader is None or answer.citation is None:
        return ""
    row = naming_words(answer)
    if not row or TOTAL_RE.search(row):
        return ""
    shown = answer.value.text.strip() if answer.value is not None else ""
    if shown and re.search(rf"\btotal\b[^|:]*:\s*{re.escape(shown)}", answer.quote, re.IGNORECASE):
        return ""  # the figure is in the table's 'Total' column: the row's own total ('total operating leases due')
    asked = content_words(question) - ASKING_WORDS - content_words(answer.company)  # what it names, not how it asks
    totals = [seg for seg in reader.segments
              if seg.kind == "row" and seg.numbers and TOTAL_ROW_RE.match(seg.label)
              and reader.evidence[seg.ev].chunk_id == answer.citation.chunk_id]
    # the figure's row is named with the sub-heading it sits under ('Onsite projects' under 'Clinical delivery:')
    own = (reader.row_at(answer.citation.chunk_id, answer.value.start)
           if answer.value is not None and answer.status == "found" else None)
    row = f"{row} {own.parent}" if own is not None else row
    # A question narrowing its metric to a part the figure's row names ('the total revenue from risk solutions') is
    # answered by that part's row.
    extra = asked - content_words(answer.metric)
    own_part = bool(extra) and extra <= content_words(row)
    for seg in totals:
        named = content_words(_DATED_TAIL_RE.sub("", seg.label.strip()))  # 'Total as of December 31,' is bare
        # A named total the question's words name and the figure's row (with its metric) does not ('Total current
        # provision' for a 'Provision for income taxes' row); or the one bare 'Total' of a table whose columns are
        # periods (in a schedule by maturity, 'the total X due' is the row's own 'Total' column).
        lacking = named - content_words(row) - content_words(answer.metric)
        bare = not named and not own_part and len(totals) == 1 and bool(_PERIOD_COLUMN_RE.search(answer.quote))
        if (named and named <= asked and lacking) or bare:
            return seg.label.strip()
    return ""


# Words before a row's noun that name the whole of it, not a part ('Total net revenues', 'Consolidated assets').
WHOLE_ROW_WORDS = frozenset(("net", "consolidated", "reported", "aggregate", "overall", "combined"))
# Where a row label's noun phrase ends: punctuation, or a word that starts what follows the noun ('Net income
# attributable to ...', 'Impairment of goodwill', 'Operating lease liabilities, current').
_NOUN_PHRASE_END_RE = re.compile(
    r"[,(:;–—]|\s-\s|\b(?:of|to|for|from|in|on|and|or|attributable|per|at|by|with|as|excluding|including|less|"
    r"before|after|due|related)\b", re.IGNORECASE)
_LABEL_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'’-]*")


def _noun_phrase(label: str) -> tuple[str, list[str]]:
    """The noun a row label names (the last word of its leading noun phrase, stemmed as :func:`content_words`
    stems) and the words before it that narrow it, as printed: 'Other non-current liabilities (2)' ->
    ('liabilitie', ['Other', 'non-current']); ('', []) when the label has no words."""
    cut = _NOUN_PHRASE_END_RE.search(label)
    words = [w for w in _LABEL_WORD_RE.findall(label[: cut.start()] if cut else label) if content_words(w)]
    if not words:
        return "", []
    head = _stem_word(words[-1])
    return head, [w for w in words[:-1] if not content_words(w) <= WHOLE_ROW_WORDS | {head}]


def _names_word(word: str, words: set[str]) -> bool:
    """``word`` (stemmed) is one of ``words`` or another form of one."""
    return any(word == w or same_root(word, w) for w in words)


def _figure_row(answer: SubAnswer, reader: EvidenceReader | None) -> Segment | None:
    """The table row a figure was read from, or computed from (a change over its years: the row its label
    names in the cited table)."""
    if reader is None or answer.citation is None or answer.value is None:
        return None
    if answer.value.start >= 0:
        return reader.row_at(answer.citation.chunk_id, answer.value.start)
    named = " ".join(answer.named.split())
    return next((seg for seg in reader.segments if seg.kind == "row" and seg.label.strip() and named
                 and reader.evidence[seg.ev].chunk_id == answer.citation.chunk_id
                 and (named == seg.label.strip() or named.endswith(f": {seg.label.strip()}"))), None)


def _kind_of_asked(answer: SubAnswer, question: str, reader: EvidenceReader | None) -> tuple[str, list[str]]:
    """A row that names a kind of what the question asks, not it: its noun is the asked one's while words before
    it narrow it ('Other assets', 'Total deferred tax asset' for the total assets; 'Other non-current
    liabilities' for liabilities and equity), and its table says the row is such a part: its sub-heading or
    title names the noun as the whole ('Assets' over 'Other assets'), or another row of the table names another
    kind of the noun ('Costs of closed restaurants' beside 'Restructuring costs'). The row's label and its
    narrowing words the question does not say; ('', []) when the row is what is asked, or the lexicon reads all
    of its narrowing words as the asked metric's name."""
    row = _figure_row(answer, reader)
    if reader is None or row is None or only_periods(row.label):
        return "", []  # a schedule's year row ('2022 | 135 | 6'): its column names the figure
    label = row.label
    if TOTAL_ROW_RE.match(label) and not content_words(label) - WHOLE_ROW_WORDS and row.parent:
        label = row.parent  # a bare 'Total' row is the total of its sub-heading
    head, before = _noun_phrase(label)
    mention = next((m for m in find_metrics(label) if m.canonical == answer.metric), None)
    if mention is not None:
        # the lexicon reads the row as the asked metric ('Effective income tax rate'): only words before its
        # name can narrow it ('Amortizing intangible assets')
        ahead = set(_LABEL_WORD_RE.findall(label[: mention.start]))
        before = [w for w in before if w in ahead]
    asked = content_words(question)
    if not head or not _names_word(head, asked):
        return "", []
    narrowing = [w for w in before if not all(_names_word(s, asked) for s in content_words(w))]
    if not narrowing:
        return "", []
    ev = reader.evidence[row.ev]
    whole = content_words(" ".join([row.parent if label == row.label else "",
                                     ev.table.title if ev.table is not None else ""]))
    own = content_words(label)
    other_kind = any(_noun_phrase(seg.label)[0] == head and content_words(seg.label) != own
                     for seg in reader.segments if seg.kind == "row" and seg.ev == row.ev and seg is not row)
    if _names_word(head, whole) or other_kind:
        return label.strip(), narrowing
    return "", []


def _filers(reader: EvidenceReader | None, chunks: set[str]) -> str:
    """The names of the filings (and their companies) the ``chunks`` are from."""
    return " ".join(f"{ev.doc_name.replace('_', ' ')} {ev.company}" for ev in (reader.evidence if reader else [])
                    if ev.chunk_id in chunks)


def _uncovered_name(answer: SubAnswer, names: Sequence[str], provenance: str, filers: str,
                    registry: EntityRegistry | None, parts: Sequence[ScopeTerm]) -> str:
    """The first proper name of the question that is no company (a segment, a region, a product, a counterparty),
    or part its plan reads around the metric, that the figure's ``provenance`` does not name; '' when none."""
    named = name_words(provenance)
    for name in dict.fromkeys([*names, *(t.text for t in parts)]):
        if answer.company and (same_company(name, answer.company, registry) or names_company(answer.company, name)):
            continue
        if mentioned(filers, name):
            continue  # the company whose filing the figure is from (named by the filing, not by the figure)
        if registry is not None and registry.knows(name):
            continue  # a company: the company check's
        proper = name[:1].isupper()
        if proper and not covers(provenance, name) and not _named_in_pieces(name, provenance, named):
            return name
        # a word of the part named in a regular form of its own ('ending' goodwill: 'Goodwill, end of the year'),
        # or its words by their acronym ('constant exchange rates': '% Change at CER')
        words = name_words(name)
        if (not proper and named_by(words, named) != words and not _written_glued(name, provenance)
                and not covers(provenance, name)):
            return name
    return ""


def _named_in_pieces(name: str, provenance: str, named: set[str]) -> bool:
    """A name of several words the figure's provenance names in two pieces, as a table crossing two kinds of part
    prints it ('Zorvexa Ex-US': the row 'Zorvexa' under the column 'Q1 2025 Ex-U.S.')."""
    tokens = name.split()
    return any(
        all(covers(provenance, piece) or name_words(piece) <= named
            for piece in (" ".join(tokens[:i]), " ".join(tokens[i:])))
        for i in range(1, len(tokens))
    )


def _letters(text: str) -> str:
    """The text's letters and digits, lower-case, with nothing between them."""
    return "".join(ch for ch in text.lower() if ch.isalnum() or ch == "_")


def _written_glued(name: str, provenance: str) -> bool:
    """A name of several words the provenance writes with its spaces lost, as text extraction does ('total
    accounts payable and othercurrent liabilities')."""
    return len(name.split()) > 1 and _letters(name) in _letters(provenance)


def unsaid_qualifiers(asked: Sequence[tuple[str, str]], answer: SubAnswer,
                      reader: EvidenceReader | None) -> list[tuple[str, str]]:
    """The (kind, term) qualifiers of ``asked`` whose kind the figure's own words do not say: its row or label,
    and its sentence's clause ('employees in the United States' is not said by a sentence naming the U.S.
    elsewhere)."""
    if not asked:
        return []
    own = {kind for kind, _ in asked_qualifiers(f"{naming_words(answer)} {own_clause(answer, reader)}")}
    return [(kind, term) for kind, term in asked if kind not in own]


def check_operands(
    answer: SubAnswer,
    question: str,
    reader: EvidenceReader | None,
    registry: EntityRegistry | None,
    scope: Sequence[ScopeTerm] = (),
    names: Sequence[str] = (),
    written: Sequence[str] = (),
) -> Check:
    """The closed world for a figure computed by a formula (EBITDA as operating income plus depreciation and
    amortisation, free cash flow as operating cash flow less capital expenditure): every name, part and qualifier
    the question puts on it ('in Brazil', 'adjusted', 'organic', 'pro forma') is said by the provenance of each
    figure it is computed from, as it must be by a figure read whole. The company's EBITDA computed from its
    consolidated statements answers neither 'EBITDA in Brazil' nor 'adjusted EBITDA'."""
    if answer.status != "computed" or answer.named or reader is None or answer.value is None:
        return Check(name="scope", passed=True, detail="no formula")
    # a formula's operands; a share or ratio of two items is the items' (its whole is no part of the question)
    operands = formula_operands(answer)
    qualifiers = asked_qualifiers(question, [answer.company, *written])
    # a basis among the metric's modifiers ('adjusted EBITDA margin') is the basis check's, whose operands need
    # not all say it (revenue is the whole of an adjusted margin, on no basis of its own)
    modifiers = metric_modifiers(question, answer.metric, answer.company)
    modifiers = [w for w in modifiers if w in without_bases(" ".join(modifiers)).split()]
    parts = terms_for(scope, answer.metric)
    for operand, read in zip(operands, (operand_read(answer, o) for o in operands), strict=True):
        label = naming_words(read).strip() or operand.label
        provenance = figure_provenance(read, reader)
        name = _uncovered_name(read, names, provenance, _filers(reader, {operand.citation.chunk_id}), registry,
                               parts)
        unsaid = ([name] if name else []) + [term for _, term in unsaid_qualifiers(qualifiers, read, reader)]
        named = content_words(figure_context(read, reader))
        said = {w.lower() for t in unsaid for w in t.split()}  # 'pro forma' said once, not word by word again
        unsaid += [w for w in modifiers if not _names_word(w.lower(), named) and w.lower() not in said]
        if unsaid:
            return Check(name="scope", passed=False, detail=(
                f"{answer.metric or 'the figure'} is computed from {label!r}, whose words do not say "
                f"{', '.join(dict.fromkeys(unsaid))}"))
    return Check(name="scope", passed=True,
                 detail="each figure it is computed from says what the question narrows it to" if operands
                 else "no operand")


def _confusable_row(answer: SubAnswer, reader: EvidenceReader) -> bool:
    """The figure's row label names no metric the lexicon knows, nor every word of the metric asked, yet shares a
    word with the lexicon metric asked ('Underwriting income' and 'net income'), and neither its sub-heading,
    column, table title nor the heading it sits under ('Note 11. Long-Term Debt' over 'Annual maturities') names
    that metric or a kind of it. A row labelled by its year or its part ('2026', 'Americas') shares no word and is
    judged by its coverage."""
    metric, label = answer.metric, row_label(answer)
    label_words, metric_words = content_words(label), content_words(metric)
    if (metric not in METRICS or answer.citation is None or answer.value is None or find_metrics(label)
            or not label_words & metric_words):
        return False
    if all(any(same_root(m, w) for w in label_words) for m in metric_words):
        return False  # every word of the metric's name, with words between ('Derivative financial instruments')
    texts = [answer.value.column]
    row = reader.row_at(answer.citation.chunk_id, answer.value.start)
    if row is not None:
        ev = reader.evidence[row.ev]
        texts += [row.parent, ev.table.title if ev.table is not None else "", *ev.section_path[-1:]]
    named = {m.canonical for text in texts for m in find_metrics(text)}
    related = set(METRICS[metric].related)
    return not any(n == metric or metric in n or n in metric or n in related for n in named)


def check_scope(
    answer: SubAnswer,
    question: str,
    reader: EvidenceReader | None,
    registry: EntityRegistry | None,
    scope: Sequence[ScopeTerm] = (),
    turn_question: str = "",
    total: bool = False,
    names: Sequence[str] = (),
    predicate: Sequence[str] = (),
    bases: Sequence[Basis] = (),
    written: Sequence[str] = (),
) -> Check:
    """Closed world for what the question narrows its figure to: every proper name it uses (``names``, as the plan
    read them) that is no indexed company (a segment, a region, a product, a counterparty), and every part its plan
    reads after the metric ('revenue from software maintenance'), must be named by the figure's own provenance; a company's total never
    answers for a part the filing gives no figure of, nor a component for the ``total`` the plan asks."""
    # A figure computed from one table row's cells (a change, an average over its years) is that row's as much as
    # a read one: the same closed world holds for it.
    from_cells = answer.status == "computed" and bool(answer.named)
    if answer.status == "computed" and not from_cells:
        return check_operands(answer, question, reader, registry, scope, names, written)  # computed by a formula
    if (answer.status != "found" and not from_cells) or answer.value is None:
        return Check(name="scope", passed=True, detail="no figure")
    provenance = figure_provenance(answer, reader)
    cited = {c.chunk_id for c in (answer.citations or ([answer.citation] if answer.citation else []))}
    filers = _filers(reader, cited)
    parts = terms_for(scope, answer.metric)
    name = _uncovered_name(answer, names, provenance, filers, registry, parts)
    if name:
        whose = f" for {answer.company}" if answer.company else ""
        what = answer.metric or "this figure"
        if any(t.kind == "measure" and t.text == name for t in parts):
            detail = f"the question asks the {name} of {what}; the filing gives {what}{whose}, and its words say no {name}"
        elif name.split()[0].lower() in EXCLUDING | ADJUSTING:  # 'before restructuring': a figure of its own
            detail = f"the filing gives {what}{whose}, not {what} {name}"
        else:
            detail = f"the filing gives {what}{whose}, not for {name}"
        return Check(name="scope", passed=False, detail=detail)
    row = (reader.row_at(answer.citation.chunk_id, answer.value.start)
           if reader is not None and answer.citation is not None else None)
    own = " ".join(x for x in (row.parent if row is not None else "", naming_words(answer)) if x)
    under = row.parent if row is not None else ""
    if under and registry is not None and registry.part_owners(under) and not (
            name_words(under) & name_words(" ".join([question, turn_question, *(t.text for t in scope)]))):
        # 'International' under 'Metal Packaging': one part's figure, never the company's international one (a
        # question naming a word of the part asks of it: 'export feature films' of 'Export Only')
        return Check(name="scope", passed=False, detail=(
            f"the figure found is {naming_words(answer).strip()!r} of {under}, a part the question does not name"))
    stated_part = answer.value.part
    if stated_part and not mentioned(" ".join([question, turn_question, *(t.text for t in scope)]), stated_part):
        # a sentence's figure of a segment ('Personal Lines catastrophe losses were $455 million'), never the
        # company's nor another part's
        return Check(name="scope", passed=False, detail=(
            f"the figure found is {possessive(stated_part)}, a part the question does not name"))
    negated = negated_words(asked_part(question), own)
    if negated:
        return Check(name="scope", passed=False, detail=(
            f"the figure found is {own!r}, the opposite of the {' '.join(negated)} asked"))
    rate = _unmet_rate(answer, question, provenance)
    if rate:
        return Check(name="scope", passed=False, detail=rate)
    label, narrowing = _kind_of_asked(answer, f"{asked_part(question)} {turn_question}", reader)
    narrowing = [w for w in narrowing if not set(bases_said(w)) & set(bases)]  # the basis asked is no kind of it
    if narrowing:
        return Check(name="scope", passed=False, detail=(
            f"the figure's row {label!r} is one part of what is asked; the question does not say "
            f"{' '.join(narrowing).lower()}"))
    if reader is not None and _confusable_row(answer, reader):
        # a row of no metric the lexicon knows that shares a word of the metric asked ('Underwriting income' for a
        # net income): it shares words, not meaning, whatever the page's headings print
        return Check(name="scope", passed=False, detail=(
            f"the figure's row {row_label(answer)!r} does not name {answer.metric}"))
    uncovered = _uncovered_words(answer, question, provenance, page_headings(reader, answer), reader, filers,
                                 predicate)
    if uncovered:
        return Check(name="scope", passed=False, detail=(
            f"the figure found is {(answer.named or naming_words(answer)).strip()!r}; its row, column and table do not "
            f"say {' '.join(uncovered)}"))
    # the plan says whether the lookup asks a total ('the average total X in 2018 and 2019': each year's X); what
    # the total is named, the words of the turn say too when it names one metric only
    one_metric = len({m.canonical for m in find_metrics(turn_question)}) <= 1
    total_row = _total_not_read(answer, f"{question} {turn_question}" if one_metric else question, reader) if total else ""
    if total_row:
        return Check(name="scope", passed=False, detail=(
            f"the question asks for the total; the figure's row is {naming_words(answer).strip()!r}, and its table's total "
            f"row is {total_row!r}"))
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
