"""Tables of one layout printed one after another: a segment's table after another's, a quarter's segment table
after the year-ago quarter's. A filing states the scale once, over the first of them ('(Dollars in millions)' under
'Segment Results'), and it holds for each: a table stating none takes the scale of the one before it (else of the
one after it) when both have the same columns and share rows, and no sentence stands between them (prose ends the
family). A table continued past a page break under its repeated header is its first part's: titled as it, its first
rows under the sub-heading left at the foot of the page before. A table stacked right under another of its rows with
nothing printed between them (the nine months' under the quarter's) is captioned by the first: its title and scale.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.finance.numbers import stated_measure
from agent.ingest.parts import label_key
from agent.ingest.tables import TableBlock
from agent.schemas import PAGE_SEPARATOR

MIN_SHARED_ROWS = 2  # one shared label ('Total') is a coincidence; two shared rows are a repeated layout
# A table of percentages ('Percentage of Net Sales' over the same rows) is in no scale, whatever precedes it.
_PERCENT_TITLE_RE = re.compile(r"%|\bpercent", re.IGNORECASE)
SENTENCE_MIN_WORDS = 6  # a line of this many words ending in a stop is prose between two tables, not a heading
SUBHEADING_MAX_WORDS = 6  # a line this short left at a page's foot over a table's continuation heads its rows
CONTINUATION_MAX_LINES = 3  # lines at a page's top above a table continued there: a running header, '(continued)'


def _labels(table: TableBlock) -> set[str]:
    return {key for r in table.data_rows if (key := label_key(r.label))}


def _prose(lead: str) -> bool:
    """``lead`` (the text between two tables) holds a sentence."""
    return any(len(line.split()) >= SENTENCE_MIN_WORDS and line.rstrip().endswith((".", ":"))
               for line in lead.splitlines())


def _continued(table: TableBlock, before: TableBlock, lead: str) -> bool:
    """``table`` is ``before`` continued past a page break: it heads the next page under the same header (columns
    and period caption), and nothing but a page break and a running line or two stand between them."""
    lines = [ln for ln in lead.split(PAGE_SEPARATOR)[-1].splitlines() if ln.strip()]
    return (PAGE_SEPARATOR in lead and len(lines) <= CONTINUATION_MAX_LINES and bool(table.columns)
            and table.columns == before.columns and table.period_caption == before.period_caption)


def _of_percentages(table: TableBlock) -> bool:
    """A table of percentages: its title says so, or every column does ('Percent Change' beside two periods is one
    column of changes, not a table of percentages)."""
    return bool(_PERCENT_TITLE_RE.search(table.title)) or (
        bool(table.columns) and all(_PERCENT_TITLE_RE.search(c) for c in table.columns))


def _family(table: TableBlock, other: TableBlock, lead: str, shared: int) -> bool:
    """``other`` states the scale ``table`` lacks and is of its family (``shared`` rows alike, or ``table`` is
    ``other`` continued on the next page); ``lead`` is the text between them."""
    # a table in a unit of measure ('Retail electric sales (GWh)') is no family of one in money, either way
    measured = stated_measure(f"{table.title} {table.caption} {lead}") or stated_measure(f"{other.title} {other.caption}")
    return (not table.scale_label and bool(other.scale_label) and table.columns == other.columns
            and not _of_percentages(table) and not measured
            and (shared >= MIN_SHARED_ROWS or _continued(table, other, lead)) and not _prose(lead))


def _left_open(lead: str) -> str:
    """The sub-heading a table's first part leaves at the foot of its page, over no rows there: the last line
    before the page break when it is a short label ('Flexible Films'), not a sentence, a figure or a page number."""
    lines = [ln.strip() for ln in lead.split(PAGE_SEPARATOR)[0].splitlines() if ln.strip()]
    last = lines[-1] if lines else ""
    return last if (last and len(last.split()) <= SUBHEADING_MAX_WORDS and not re.search(r"\d", last)
                    and not last.endswith((".", ":", ";"))) else ""


def continued_tables(tables: Sequence[TableBlock], leads: Sequence[str]) -> list[TableBlock]:
    """``tables`` with each table continued past a page break (see :func:`_continued`) titled as its first part, and
    under the sub-heading its first part left open at the foot of the page before
    ('Flexible Films' over nothing, then 'U.S. | 389' at the next page's top: the rows are Flexible Films')."""
    out = list(tables)
    for i in range(1, len(out)):
        before, lead = out[i - 1], leads[i] if i < len(leads) else ""
        left = _left_open(lead)
        # a table under a title or an introduction of its own is another table of the same columns
        if not _continued(out[i], before, lead) or _prose(lead) or out[i].title not in {"", left}:
            continue
        # the first part's title, never the sub-heading left over the break (which heads only the rows under it)
        out[i] = out[i].model_copy(update={"title": before.title or out[i].title, "continues_under": left})
    return out


def stacked_tables(tables: Sequence[TableBlock], leads: Sequence[str]) -> list[TableBlock]:
    """``tables`` with each untitled table printed right under the one before -- nothing between them, at least
    :data:`MIN_SHARED_ROWS` rows alike -- titled as it, and in its scale when it states none: one caption ('Revenue by
    market platform:', '(In millions)') heads the stack."""
    out = list(tables)
    for i in range(1, len(out)):
        table, before = out[i], out[i - 1]
        lead = leads[i] if i < len(leads) else ""
        if table.title or lead.strip() or len(_labels(table) & _labels(before)) < MIN_SHARED_ROWS:
            continue
        update: dict[str, object] = {"title": before.title}
        if not table.scale_label and not _of_percentages(table):
            update |= {"scale": before.scale, "scale_label": before.scale_label}
        out[i] = table.model_copy(update=update)
    return out


def carried_scales(tables: Sequence[TableBlock], leads: Sequence[str]) -> list[TableBlock]:
    """``tables`` with the scale of the table before carried to each that states none and is of its family (see
    the module docstring), else the scale of the one after it (the first of a family printed at a page's top, its
    scale line left at the foot of the page before); ``leads[i]`` is the text between table i and the one before
    it. A table continued past a page break is one with its first part: their rows are the family's together."""
    out = list(tables)
    lead = [leads[i] if i < len(leads) else "" for i in range(len(out))]
    labels = [_labels(t) for t in out]
    for i in range(1, len(out)):
        if _continued(out[i], out[i - 1], lead[i]):
            labels[i] = labels[i] | labels[i - 1]
    for i in range(1, len(out)):
        if _family(out[i], out[i - 1], lead[i], len(labels[i] & labels[i - 1])):
            out[i] = out[i].model_copy(update={"scale": out[i - 1].scale, "scale_label": out[i - 1].scale_label})
    for i in range(len(out) - 2, -1, -1):
        if _family(out[i], out[i + 1], lead[i + 1], len(labels[i] & labels[i + 1])):
            out[i] = out[i].model_copy(update={"scale": out[i + 1].scale, "scale_label": out[i + 1].scale_label})
    return out
