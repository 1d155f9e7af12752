"""Evidence and how it reads: the chunks an answer may use, split into table rows and sentences, each figure
with its unit, scale, sign and period.

A table chunk's rows are its typed record's (:class:`~agent.schemas.TableRecord`, built at ingest): each figure with
the unit, scale, currency, column and period ingest typed, located in the linearised text only to quote it; the
reader never splits a table's text into cells again. A sentence's figures are those ingest read
(:mod:`agent.ingest.prose`: each with the period written next to it). :class:`EvidenceReader` reads a set of evidence
items once for every sub-query of a turn.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field

from agent.finance.lexicon import MetricMention, find_metrics
from agent.finance.numbers import SCALE_NAMES, currency_of, find_numbers, units_only
from agent.finance.periods import (
    find_periods,
    period_year,
)
from agent.ingest.figures import (
    clean_label,
    merged_label,
)
from agent.ingest.hostile import is_hostile_row, is_instruction_like
from agent.ingest.prose import read_sentences, split_sentences
from agent.ingest.typed_tables import (
    MDNA_RE,
    SUBHEADING_MAX_WORDS,
    statement_of,
)
from agent.query.scope import STOP_WORDS
from agent.schemas import (
    Chunk,
    ChunkCard,
    Citation,
    NumericValue,
    SearchHit,
    SentenceFigures,
    TableLine,
    TableRecord,
)

_BY_BREAKDOWN_RE = re.compile(r"\s+by\s+(?=[a-z])", re.IGNORECASE)
_COLUMNS_RE = re.compile(r"\bcolumns:\s*(?P<cols>[^|\n]+)")
_STATEMENT_ANY_RE = re.compile(
    r"consolidated|statements?\s+of|balance\s+sheets?|item\s+8\b|financial\s+statements", re.I
)


_DOC_YEAR_RE = re.compile(r"(?:^|_)((?:19|20)\d\d)(?:Q[1-4])?(?:_|$)")  # a year in a document's name


class Evidence(BaseModel):
    """One piece of evidence handed to the answer step: a chunk with where it came from."""

    chunk_id: str
    doc_name: str
    page: int = Field(default=0, description="0-based page where the chunk starts")
    text: str
    card: ChunkCard | None = None
    score: float = 0.0
    source: Literal["filing", "memory", "market"] = "filing"
    company: str = Field(default="", description="company of the document, when known")
    filing_period: str = Field(default="", description="the document's own fiscal period (FY2022, FY2023Q2)")
    fy_end_month: int = Field(default=0, description="month the filer's fiscal year ends; 0 when unknown")
    section_path: list[str] = Field(default_factory=list)
    part: str = Field(default="", description="the segment or region all the chunk's table figures are of")
    table: TableRecord | None = Field(default=None, description="a table chunk's typed record (its own rows)")
    sentences: list[SentenceFigures] = Field(default_factory=list, description="the figures of its sentences, as "
                                             "ingest read them (:meth:`of_text` for text no chunk holds)")

    def page_at(self, offset: int) -> int:
        """0-based page of a character offset in the text (chunks that cross pages keep form feeds)."""
        return self.page + self.text.count("\f", 0, max(0, offset))

    @property
    def filing_year(self) -> int | None:
        """The fiscal year of the filing: its recorded period, else the year its name carries ('BOEING_2022_10K',
        'PFIZER_2023Q2_10Q')."""
        if self.filing_period:
            return period_year(self.filing_period)
        m = _DOC_YEAR_RE.search(self.doc_name)
        return int(m.group(1)) if m else None

    def citation(self, quote: str = "", offset: int = 0, row: str = "") -> Citation:
        """``[doc, p. N]`` for a quote at ``offset`` in this evidence (1-based page); ``row``: the label of the table
        row quoted."""
        return Citation(doc=self.doc_name, page=self.page_at(offset) + 1, quote=quote, chunk_id=self.chunk_id,
                        row=row)

    @classmethod
    def from_chunk(
        cls, chunk: Chunk, doc_name: str, card: ChunkCard | None = None, score: float = 0.0, company: str = "",
        filing_period: str = "", fy_end_month: int = 0,
    ) -> Evidence:
        """Evidence from a stored filing chunk, its typed table record and sentences' figures with it."""
        ev = cls(
            chunk_id=chunk.chunk_id,
            doc_name=doc_name,
            page=chunk.page,
            text=chunk.text,
            card=card,
            score=score,
            company=company,
            filing_period=filing_period,
            fy_end_month=fy_end_month,
            section_path=list(chunk.section_path),
            part=chunk.part,
            table=chunk.table,
            sentences=chunk.sentences or [],
        )
        # a chunk stored before ingest read its sentences has them read now, by the same reader
        return ev if chunk.sentences is not None else ev._read()

    @classmethod
    def of_text(cls, **fields: Any) -> Evidence:
        """Evidence no chunk holds (a memory note, a tool's result, a filer's tag): its sentences' figures read as
        ingest reads a chunk's."""
        return cls(**fields)._read()

    def _read(self) -> Evidence:
        """This evidence with its sentences' figures read by ingest's reader (:func:`read_sentences`)."""
        return self.model_copy(update={"sentences": read_sentences(self.text, self.fy_end_month, self.filing_period,
                                                                   rows=self.table is not None)})

    @classmethod
    def from_hit(
        cls, hit: SearchHit, card: ChunkCard | None = None, company: str = "", filing_period: str = "",
        fy_end_month: int = 0,
    ) -> Evidence:
        """Evidence from a retrieved filing chunk."""
        return cls.from_chunk(hit.chunk, hit.doc_name, card, hit.score, company, filing_period, fy_end_month)


class Segment(BaseModel):
    """A table row or a sentence of one evidence item, with its numbers (periods attached where known)."""

    ev: int
    kind: Literal["row", "sentence"]
    start: int
    end: int
    raw: str = Field(description="the segment as written in the evidence (offsets refer to it)")
    label: str = ""
    numbers: list[NumericValue] = Field(default_factory=list)
    mentions: list[MetricMention] = Field(default_factory=list)
    heading: list[MetricMention] = Field(
        default_factory=list,
        description="a table row's metrics named by the sub-heading above it ('Operating Profit' over segment rows)",
    )
    parent: str = Field(
        default="",
        description="a table row's sub-heading: the label-only line above it ('Service revenue:' over 'Americas', "
        "'EMEA' and 'Total'), until a total row closes its block",
    )
    row: TableLine | None = Field(default=None, description="the typed row a table row was read from, as ingest "
                                  "typed it; None for a sentence")

    @property
    def text(self) -> str:
        """The segment with whitespace collapsed, as quoted."""
        return " ".join(self.raw.split())

    @property
    def row_label(self) -> str:
        """A table row's label, for its citation; '' for a sentence."""
        return self.label if self.kind == "row" else ""


def statement_kind(ev: Evidence) -> str:
    """'balance' | 'cashflow' | 'income' | '': the typed table's statement, else from the section path, the
    chunk's first lines, or its rows."""
    if ev.table is not None:
        return ev.table.statement
    path = " > ".join(ev.section_path or (ev.card.section_path if ev.card else []))
    return statement_of(path, "\n".join(ev.text.splitlines()[:3]), rows=ev.text)


def is_statement(ev: Evidence) -> bool:
    """The evidence is a primary financial statement: its typed table's kind, else its section path or rows
    (a note's table under 'Item 8' is no statement of record)."""
    if ev.table is not None:
        return ev.table.kind == "statement"
    path = " > ".join(ev.section_path or (ev.card.section_path if ev.card else []))
    if MDNA_RE.search(path):
        return False
    return bool(_STATEMENT_ANY_RE.search(path) or statement_kind(ev))


def only_periods(text: str) -> bool:
    """True for a line that names periods and nothing else ('May 31, 2020', 'Fiscal Year 2020', '2019')."""
    found = find_periods(text)
    if not found:
        return False
    rest = text
    for p in reversed(found):
        rest = rest[: p.start] + " " + rest[p.end :]
    return not any(ch.isdecimal() for ch in rest) and letter_runs(rest, 3) <= 2


_LETTER_RUN_RE = re.compile(r"[A-Za-z]+")


def letter_runs(text: str, min_chars: int = 1) -> int:
    """How many runs of Latin letters at least ``min_chars`` long ``text`` holds: whether a cell, label or line says
    words ('Net sales') or only figures and marks ('$ (1,234)', '12/09')."""
    return sum(len(w) >= min_chars for w in _LETTER_RUN_RE.findall(text))


def line_key(label: str) -> str:
    """A row label as a key: lower case, spaces collapsed, without a trailing note ('Other assets (1)')."""
    return " ".join(re.sub(r"\s*\(.*?\)\s*$", "", label).lower().split()).strip(" :")


def _record_row(piece: str, start: int, row: TableLine, record: TableRecord) -> tuple[str, list[NumericValue]]:
    """A row's label and figures from its typed record, as ingest typed them (unit, scale, currency, column and
    period), each located in the linearised ``piece`` (at ``start`` of the chunk text) for quoting."""
    values: list[NumericValue] = []
    # The chunk prints the row as 'label | 2019: 1,234 | 2018: 987 | (in millions)' (no label: no first bar).
    pos = piece.find(row.label) + len(row.label) if row.label and row.label in piece else -len(" | ")
    for cell in row.cells:
        column = record.columns[cell.column] if 0 <= cell.column < len(record.columns) else None
        printed = f"{column.label}: " if column is not None else ""
        at = pos + len(" | ") + len(printed)
        if piece[at:at + len(cell.text)] != cell.text:
            # the next cell printing this value, under whatever name the text gives its column
            found = re.compile(rf"\|\s*(?:[^|:\n]*:\s*)?({re.escape(cell.text)})\s*(?:\||$)").search(piece, max(pos, 0))
            if found is None:
                continue
            at = found.start(1)
        pos = at + len(cell.text)
        values.extend(f.model_copy(update={"start": start + at + f.start, "end": start + at + f.end})
                      for f in cell.figures)
    return clean_label(row.label), values


def _titled(title: str) -> list[MetricMention]:
    """The one metric a table's title names for every row ('Net sales by region': its rows are net sales); none
    when it names several. A breakdown's title names its rows' metric before the 'by'."""
    titled = find_metrics(_BY_BREAKDOWN_RE.split(title, maxsplit=1)[0])
    return titled if len({m.canonical for m in titled}) == 1 else []


def _row_headings(record: TableRecord) -> dict[int, list[MetricMention]]:
    """The metrics each typed row of a chunk's record is named by from above, keyed by its line in the chunk: its
    own sub-heading's where ingest placed it under one, else the latest short label-only line's above it, else the
    table's title's (a breakdown's title names its rows' metric before the 'by': 'Net sales by region')."""
    heading = _titled(record.title or ", ".join(c.label for c in record.columns))
    out: dict[int, list[MetricMention]] = {}
    for row in record.rows:
        if not row.cells:
            heading = find_metrics(row.label) if len(row.label.split()) <= SUBHEADING_MAX_WORDS else []
            continue
        out[row.chunk_line] = (find_metrics(row.parent) or heading) if row.parent else heading
    return out


def _segments(ev_index: int, ev: Evidence, currency: str) -> list[Segment]:
    """The chunk's table rows and sentences, each with its figures: a row's as its typed record gives them (unit,
    scale, period, sub-heading, as ingest typed them), a sentence's as ingest read them."""
    text = ev.text
    record = ev.table
    line_starts = [m.end() for m in re.finditer("\n", text)]
    headings = _row_headings(record) if record is not None else {}
    out: list[Segment] = []
    stated = {s.start: s.figures for s in ev.sentences}  # each sentence's figures, as ingest read them
    for start, end in split_sentences(text):
        piece = text[start:end]
        # A table chunk's rows are read from its typed record; a line with bars in a chunk without one (a table's
        # stray row left in prose) is text.
        if record is not None and "|" in piece:
            line = bisect.bisect_right(line_starts, start)
            typed = record.row_at_line(line)
            row = typed if typed is not None and typed.cells else None
            if row is not None:
                label, nums = _record_row(piece, start, row, record)
            else:  # a sub-heading row ('Revenue: | (in thousands)'), or the header line: the table's title, else its
                # columns' names ('2019 % of total revenues': a table untitled but for them is of the metric they name)
                label = clean_label(typed.label if typed is not None else "" if not _COLUMNS_RE.search(piece)
                                    else record.title or ", ".join(c.label for c in record.columns))
                nums = []
            if is_hostile_row(piece.split("|", 1)[0]) or merged_label(label):
                continue
            out.append(
                Segment(
                    ev=ev_index,
                    kind="row",
                    start=start,
                    end=end,
                    raw=piece,
                    label=label,
                    numbers=nums,
                    mentions=find_metrics(label),
                    heading=headings.get(line, []) if row is not None else [],
                    parent=row.parent if row is not None and nums else "",
                    row=row,
                )
            )
        else:
            if is_instruction_like(piece):
                continue
            nums = list(stated.get(start, []))
            out.append(
                Segment(
                    ev=ev_index,
                    kind="sentence",
                    start=start,
                    end=end,
                    raw=piece,
                    numbers=nums,
                    mentions=find_metrics(_without_counts(piece, start, nums)),
                )
            )
    return out


def _without_counts(piece: str, start: int, numbers: Sequence[NumericValue]) -> str:
    """A sentence with its counts blanked, every offset kept: 'we repurchased 412,000 shares for $31.2 million'
    names share repurchases as 'repurchased shares' does (an amount, a share or a rate stays)."""
    chars = list(piece)
    for n in numbers:
        at, end = n.start - start, n.end - start
        if n.unit not in {"", "shares"} or not 0 <= at <= end <= len(piece):
            continue
        digits = at
        while digits < end and (piece[digits].isdigit() or piece[digits] in ".,"):
            digits += 1
        rest = piece[digits:end]
        scale = next((w for w in SCALE_NAMES.values() if rest.lower().lstrip().startswith(w)), "")
        stop = digits + (len(rest) - len(rest.lstrip()) + len(scale) if scale else 0)
        chars[at:stop] = " " * (stop - at)  # the figure and its scale word, never the noun it counts
    return "".join(chars)


# A figure followed by a unit of measure measures that, not a count of people, stores or shares ('employees
# completed over 1 million hours of training', 'stores of 3 million square feet', '61.3 million rentable square feet').
_MEASURED_RE = re.compile(
    r"\s*(?:(?:thousand|million|billion)\s+)?(?:[a-z]+\s+)?"  # one word may describe the unit ('rentable square feet')
    r"(?P<unit>hours?|days?|weeks?|months?|years?|miles?|kilometers?|square|sq\.|feet|acres?|tons?|tonnes?|gallons?"
    r"|barrels?|liters?|litres?|pounds?|times|percent)\b",
    re.IGNORECASE,
)


def measured_unit(text: str, end: int) -> str:
    """The unit of measure written right after a figure ending at ``end`` ('hours'), or ''."""
    m = _MEASURED_RE.match(text, end)
    return m.group("unit").lower() if m else ""


# Where a sentence's clause ends: punctuation that sets a clause off, or a word that starts a new one.
CLAUSE_BREAK_RE = re.compile(r"[,;:()\u2014]|\s(?:including|of\s+which|of\s+whom|compared|versus|while|whereas)\s")


@lru_cache(maxsize=256)
def _sentences(text: str) -> tuple[tuple[int, int], ...]:
    return tuple(split_sentences(text))


def sentence_span(text: str, at: int) -> tuple[int, int]:
    """(start, end) of the sentence of ``text`` holding offset ``at``, from its start to the end of the figure's own
    line: prose wrapped over lines keeps its subject ('Medical Devices operating income was $281 million' / 'in
    2024 and $191 million in 2023.'), while words on the lines after the figure's stay out, as they always did
    ('Net sales of $1.4 billion ...' / '... across the Americas, APAC and EMEA' does not name EMEA's figure)."""
    end = min((i for i in (text.find(". ", at), text.find("\n", at)) if i >= 0), default=len(text))
    start = max(text.rfind(". ", 0, at), text.rfind("\n", 0, at)) + 1
    for lo, hi in _sentences(text):
        if lo <= at < hi:
            # never past a full stop: lower-case extractions ('... per share . total dividends paid ...') leave
            # several sentences in one paragraph
            return min(start, max(lo, text.rfind(". ", 0, at) + 1)), end
    return start, end


def clause_at(text: str, start: int, end: int) -> str:
    """The clause of a sentence that holds ``text[start:end]`` ('..., including approximately 132,000 people
    within the United States' for the 132,000), bounded by the sentence."""
    lo, hi = sentence_span(text, start)
    before = [m.end() for m in CLAUSE_BREAK_RE.finditer(text, lo, start)]
    after = CLAUSE_BREAK_RE.search(text, end, hi)
    return text[(before[-1] if before else lo) : (after.start() if after else hi)]


def through_clause(text: str, start: int, end: int) -> str:
    """A sentence figure's own words: its sentence up to the end of the clause that holds ``text[start:end]``
    ('Revenue for the quarter was $9.8 billion' of '..., up 24%, led by Data Center'). What the sentence says after
    that clause is about another thing: a comparison, a cause, a part that drove it."""
    lo, hi = sentence_span(text, start)
    after = CLAUSE_BREAK_RE.search(text, end, hi)
    return text[_after_other_figure(text, lo, start) : (after.start() if after else hi)]


def _after_other_figure(text: str, lo: int, start: int) -> int:
    """Where a sentence figure's own words begin: ``lo`` (its sentence's start), or the 'and' that opens a clause of
    its own after the figure before it ('opened 9 new stores and ended the quarter with 612 stores': the 612's words
    never say opened). Figures that share their words keep them: a list ('were $9.8 billion and $2.1 billion'), a
    comparison ('were $4.62 billion as of June 30, 2025, compared with $3.95 billion'). Dates are no figures here."""
    dated = [(m.start, m.end) for m in find_periods(text[lo:start])]
    figures = [n for n in find_numbers(text[lo:start]) if not any(a <= n.start < b for a, b in dated)]
    if not figures:
        return lo
    between = text[lo + figures[-1].end : start]
    joined = between.lower().rfind(" and ")
    own = [w for w in between[joined + len(" and "):].lower().split()
           if w.strip(",;$") and w.strip(",;$") not in STOP_WORDS and not units_only(w)] if joined >= 0 else []
    return lo + figures[-1].end + joined if own else lo


def record_naming(ev: Evidence, row: Segment, value: NumericValue, label: str = "") -> str | None:
    """A table figure's own words from its chunk's typed record: the row's label and sub-heading, the header of
    the figure's own column (never the other columns'), the table's title and period caption, and the sections
    it sits under. None when the evidence has no record."""
    if ev.table is None or row.kind != "row":
        return None
    parts = [label or row.label, row.parent, value.column, ev.table.title, ev.table.period_caption,
             " > ".join(ev.section_path)]
    return " ".join(p for p in parts if p)


def naming_context(ev: Evidence, at: int, label: str = "") -> str:
    """The words that say what the figure at offset ``at`` of ``ev``'s text is, wider than its label: a table row's
    ``label`` with its typed table's title, period caption and column headers; a sentence figure's whole
    sentence."""
    if not label:
        start, end = sentence_span(ev.text, at)
        return ev.text[start:end]
    table = ev.table
    heads = [table.title, table.period_caption, *(c.label for c in table.columns)] if table is not None else []
    return " ".join(p for p in (label, *heads) if p)


class EvidenceReader:
    """The rows and sentences of a set of evidence items, read once and shared by every sub-query."""

    def __init__(self, evidence: Sequence[Evidence]) -> None:
        self.evidence = list(evidence)
        self.segments: list[Segment] = []
        for i, ev in enumerate(self.evidence):
            # the figures' currency: the typed table's, else the first the chunk states (read once per chunk)
            currency = (ev.table.currency if ev.table is not None else "") or currency_of(ev.text)
            self.segments.extend(_segments(i, ev, currency))
        top = max((ev.score for ev in self.evidence), default=0.0)
        self.rel_score = [ev.score / top if top > 0 else 0.0 for ev in self.evidence]
        # Per evidence, the keys of the rows that carry figures ('other operating expenses').
        self.lines: dict[int, set[str]] = {}
        for seg in self.segments:
            if seg.kind == "row" and seg.numbers:
                self.lines.setdefault(seg.ev, set()).add(line_key(seg.label))

    def row_at(self, chunk_id: str, offset: int) -> Segment | None:
        """The table row of the evidence item ``chunk_id`` whose text holds ``offset`` (a read figure's start)."""
        return next((seg for seg in self.segments if seg.kind == "row" and seg.start <= offset < seg.end
                     and self.evidence[seg.ev].chunk_id == chunk_id), None)
