"""Which item of a table ranks first: 'Which region had the highest revenue in 2022?', 'What was the largest
liability on the balance sheet?', 'Which segment's sales grew the most, in percent?'.

The items are the rows one block of one table lists under the heading that names what is compared (a block as
:func:`agent.answer.row_periods.row_blocks` reads them, its total left out); each row's figure is read from its own
column for the asked period, and the ranking -- of the figures, or of the change each row shows when a change is
asked -- is computed in code and cited. Closed world: nothing is ranked unless the heading names every word the
question compares by, the kind of item asked ('region') is what the table is about, every row of the block gives
the asked period in one unit and scale, and the filing is the asked company's.
"""

from __future__ import annotations

from agent.answer.companies import same_company
from agent.answer.provenance import mentioned
from agent.answer.reading import Evidence, EvidenceReader, Segment
from agent.answer.records import SubAnswer
from agent.answer.row_periods import row_blocks
from agent.answer.words import ASKING_WORDS, LINKING_VERBS, same_root
from agent.finance import arithmetic
from agent.finance.arithmetic import ArithmeticRefusal, CitedValue, Computation
from agent.finance.lexicon import find_metrics
from agent.finance.periods import shift_period
from agent.finance.wording import FALL_RE
from agent.ingest.typed_tables import TOTAL_ROW_RE
from agent.query.asked import LOWEST, SIZE_WORD, choice_words, operations_asked
from agent.query.content import content_words
from agent.query.cues import asks_percent
from agent.query.definitions import asked_part
from agent.schemas import NumericValue

# The kind of item a choice asks for ('region', 'segment') and the word that ranks the items, by their groups.
# Names of one kind of item: a table by geographic area is by region.
_SAME_KIND = (frozenset({"region", "geography", "geographic", "area"}),)
# Words that rank or name the kind of item, not what is compared ('which type of debt', 'among the ...').
_RANKING_WORDS = frozenset(content_words(
    "which type types kind kinds one among all largest highest greatest most biggest best top smallest lowest least "
    "fewest worst proportionally percentage percent basis terms grew grow rose rise fell fall drop dropped"))


def table_choice(sa: SubAnswer, question: str, reader: EvidenceReader) -> Computation | None:
    """The row ranking first among one table block's rows, as the question compares them; None when any check
    of the module docstring fails (the question is then refused as before: rows not compared)."""
    if not sa.period or any(c.name == "company" and not c.passed for c in sa.checks):
        return None
    asked = asked_part(question)
    kinds = set(choice_words(asked, "kind"))
    metrics = {m.canonical for m in find_metrics(asked)}
    words = (content_words(asked) - ASKING_WORDS - LINKING_VERBS - _RANKING_WORDS - content_words(sa.company)
             - content_words(" ".join(kinds)))
    named_kinds = {w for w in words if any(same_root(w, g) for group in _SAME_KIND for g in group)}
    kinds, words = kinds | named_kinds, words - named_kinds  # 'which geographic area': a kind of item
    # The metric's own words are named by the heading in any of the lexicon's words ('Net sales' for revenue).
    plain = words - content_words(" ".join(m.surface for m in find_metrics(asked)))
    if not words:
        return None
    blocks = row_blocks(reader)
    candidates = []
    for (ev_index, parent), rows in blocks.items():
        ev = reader.evidence[ev_index]
        if sa.company and ev.company and not same_company(sa.company, ev.company):
            continue
        if ev.part and not mentioned(question, ev.part):
            continue  # a part's table (a segment's, the parent company's alone) ranks only that part's items
        heading = _heading(parent, ev.text, rows)
        named = content_words(" ".join([heading, ev.table.title if ev.table is not None else "",
                                         ev.text.split("\n", 1)[0], *ev.section_path]))
        if not plain <= named or (words - plain) - named and not metrics & {m.canonical for m in find_metrics(heading)}:
            continue
        if parent and _narrower(parent, asked, metrics, kinds):
            continue  # 'Current liabilities' are some of the liabilities asked: their largest is no answer
        own = [seg for seg in rows if seg.parent == parent and not TOTAL_ROW_RE.match(seg.label)
               and seg.label.strip().lower() != parent.strip().lower()]  # one block: no total, no sub-block's rows
        # The kind of item is named by what heads these rows: their sub-heading ('Liabilities'; 'Net sales' of rows
        # its total adds up), the table's title and sections -- never a total row ('Total liabilities' of a balance
        # sheet's every row).
        title = ev.table.title if ev.table is not None else ev.text.split("\n", 1)[0]
        about = " ".join([parent, title, *ev.section_path])
        if len(own) >= 2 and _names_kinds(kinds, about):
            candidates.append((bool(parent), reader.rel_score[ev_index], ev_index, parent, own))
    if not candidates:
        return None
    _, _, ev_index, parent, rows = max(candidates, key=lambda c: (c[0], c[1]))
    change = "change" in operations_asked(question) or bool(FALL_RE.search(asked))
    values = _ranked_values(rows, sa.period, reader.evidence[ev_index], change=change, percent=asks_percent(question))
    if values is None:
        return None
    superlative = next(iter(choice_words(asked, "superlative")), "")
    lowest = bool(superlative and LOWEST.match(superlative))
    if change and FALL_RE.search(asked):  # a fall's biggest is the lowest change ('the biggest drop')
        lowest = not lowest  # the biggest drop is the lowest change
    try:
        # a change's direction is in the words ('the biggest drop'); a level's is not, when every figure is negative
        return arithmetic.extreme(values, lowest=lowest, metric=sa.metric or parent.lower(),
                                  by_size=bool(superlative and SIZE_WORD.match(superlative)),
                                  signed_order=change)
    except ArithmeticRefusal:
        return None


def _narrower(parent: str, asked: str, metrics: set[str], kinds: set[str]) -> bool:
    """A sub-heading naming more than the question does ('Current liabilities' for 'the largest liability'): its
    words beyond the metric asked (in any of the lexicon's words), the kinds of item and the question's own."""
    said = {w for m in find_metrics(parent) if m.canonical in metrics for w in content_words(m.surface)}
    named = content_words(asked) | content_words(" ".join(kinds))
    return any(not any(same_root(w, n) for n in named) for w in content_words(parent) - said)


def _heading(parent: str, text: str, rows: list[Segment]) -> str:
    """What heads a block: its sub-heading; a whole table's title lines and total rows."""
    if parent:
        return parent
    return " ".join([*text.splitlines()[:2], *(seg.label for seg in rows if TOTAL_ROW_RE.match(seg.label))])


def _names_kinds(kinds: set[str], about: str) -> bool:
    """Whether each kind of item asked ('region', 'liability') is what the block is about: its heading or
    sections name it, or a name of the same kind ('Revenue by geographic area' is by region)."""
    named = content_words(about)
    for kind in kinds:
        for word in content_words(kind):
            names = next((group for group in _SAME_KIND if any(same_root(word, g) for g in group)), {word})
            if not any(same_root(n, g) for n in named for g in names):
                return False
    return True


def _ranked_values(rows: list[Segment], period: str, ev: Evidence, *, change: bool, percent: bool
                   ) -> list[CitedValue] | None:
    """Each row's figure for ``period`` (or its change from the same period a year before, in percent when asked),
    labelled by the row; None when a row lacks either or the rows repeat a label (a block read twice is no ranking)."""
    labels = [seg.label.strip() for seg in rows]
    if len(rows) < 2 or len(set(labels)) < len(labels):
        return None
    try:
        prior = shift_period(period, years=-1)  # a year's change is from the year before; a quarter's, year on year
    except ValueError:
        return None
    values: list[CitedValue] = []
    for seg, label in zip(rows, labels, strict=True):
        now = _in_period(seg, period)
        if now is None:
            return None
        where = ev.citation(seg.text, seg.start, seg.row_label)
        if not change:
            values.append(CitedValue(label=label, value=now, citation=where))
            continue
        before = _in_period(seg, prior)
        if before is None:
            return None
        first = CitedValue(label=f"{label} {prior}", value=before, citation=where)
        last = CitedValue(label=f"{label} {period}", value=now, citation=where)
        try:
            moved = arithmetic.percent_change(first, last, label) if percent else arithmetic.change(first, last, label)
        except ArithmeticRefusal:
            return None
        values.append(CitedValue(label=label, value=moved.result, citation=where, computed=True))
    return values


def _in_period(seg: Segment, period: str) -> NumericValue | None:
    """The row's one figure for ``period``; None when it gives none or several."""
    found = [n for n in seg.numbers if n.period == period]
    return found[0] if len(found) == 1 else None
