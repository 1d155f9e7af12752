"""Typed records shared by every path (online and offline) of finrag.

Pages are 0-based internally and shown 1-based. Character offsets are into the document text, which is
the pages joined with :data:`PAGE_SEPARATOR`, so ``doc_text[chunk.char_start:chunk.char_end]`` is the
chunk's source span and any quote can be located again.
"""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema

PAGE_SEPARATOR = "\n\f\n"


# ---------------------------------------------------------------------------------------------------------
# Documents, pages, sections, chunks
# ---------------------------------------------------------------------------------------------------------
class DefinedTerm(BaseModel):
    """An acronym a filing defines, with the words it stands for as printed."""

    short: str = Field(description="'ARR'")
    long: str = Field(description="'Annual recurring revenue'")


class DocumentMeta(BaseModel):
    """What a filing is: detected from text and file name, overridable, editable later."""

    doc_id: str = Field(description="sha256 of the file bytes; the key that makes re-ingest a no-op")
    name: str = Field(description="short name, e.g. 3M_2018_10K (the file stem)")
    path: str = ""
    source_format: str = Field(default="", description="pdf | html | md | txt")
    company: str = Field(default="", description="the name of the company entity the filing belongs to")
    ticker: str = ""
    entity_id: str = Field(default="", description="the company entity (agent.entities) the filing belongs to")
    company_source: str = Field(
        default="", description="where the company came from: cover | xbrl | release | text | file name | edited"
    )
    printed_name: str = Field(default="", description="the registrant's name as this filing prints it")
    cik: str = Field(default="", description="SEC Central Index Key, 10 digits, when the filing states it")
    file_number: str = Field(default="", description="SEC commission file number from the cover ('001-03285')")
    former_names: list[str] = Field(default_factory=list, description="names the filing says it had before")
    form: str = Field(default="", description="10-K, 10-Q, 8-K, EARNINGS, ...")
    fiscal_year: int | None = None
    fiscal_period: str = Field(default="", description="normalised: FY2018, FY2023Q2")
    period_end: str = Field(default="", description="ISO date of the period end, when stated")
    fy_end_month: int = Field(default=0, description="month the filer's fiscal year ends (1-12; 13-24 for a month "
                              "of the next calendar year, when the filer names its years by the year they began); 0 "
                              "when unknown")
    filing_date: str = Field(default="", description="ISO date the filing was filed/dated")
    n_pages: int = 0
    n_chunks: int = 0
    ingested_at: str = ""
    pipeline_version: str = Field(
        default="", description="ingestion pipeline that produced the stored chunks; another one re-ingests"
    )
    n_facts: int = Field(default=0, description="inline-XBRL facts read from the filing (0: none tagged)")
    text_sha256: str = Field(default="", description="sha256 of the document text: the same filing in other bytes "
                             "(a re-saved PDF) has the same text")
    statements_elsewhere: str = Field(
        default="", description="why this document holds no financial statements (they are in an exhibit)"
    )
    parts: list[str] = Field(default_factory=list, description="names the filing prints for parts of its company: "
                             "segments, products, regions written as names in its tables' rows, columns and titles")
    terms: list[DefinedTerm] = Field(default_factory=list, description="acronyms the filing defines "
                                     "('Annual recurring revenue (ARR)')")


class Entity(BaseModel):
    """One company (a filer): every filing, question, memory entry and search filter names it by ``entity_id``."""

    entity_id: str = Field(description="'cik:0000066740', 'file:001-03285', 'ticker:MMM' or 'name:3m'")
    name: str = Field(description="legal name in proper case, as its newest filing prints it")
    cik: str = ""
    file_numbers: list[str] = Field(default_factory=list)
    tickers: list[str] = Field(default_factory=list)
    former_names: list[str] = Field(default_factory=list, description="earlier names (renamed filers)")
    aliases: list[str] = Field(default_factory=list, description="short forms people use, added by hand")
    name_source: str = Field(default="", description="cover | xbrl | release | text | file name | edited")
    name_as_of: str = Field(default="", description="period end of the filing the name was read from")
    parts: list[str] = Field(default_factory=list, description="names its filings print for parts of it (segments, "
                             "products, regions; see DocumentMeta.parts), gathered from its stored filings")
    terms: list[DefinedTerm] = Field(default_factory=list, description="acronyms its filings define (see "
                                     "DocumentMeta.terms), gathered from its stored filings")


class LineBox(BaseModel):
    """Where a line of text is printed on its page, as fractions of the page (0..1, origin top left)."""

    x0: float
    y0: float
    x1: float
    y1: float

    def rounded(self) -> list[float]:
        """The box as [x0, y0, x1, y1], to a ten-thousandth of the page (a tenth of a point on a letter page)."""
        return [round(v, 4) for v in (self.x0, self.y0, self.x1, self.y1)]


class TextRun(BaseModel):
    """Words printed together on a PDF line, with no column gap between them ('Percent to Sales', '$ 5,221,400'),
    and where they start and end, as fractions of the page width."""

    text: str
    x0: float
    x1: float


class Page(BaseModel):
    """One page of extracted text."""

    page: int = Field(description="0-based page number")
    text: str
    char_start: int = Field(default=0, description="offset of this page in the document text")
    lines: list[LineBox | None] = Field(
        default_factory=list, exclude=True,
        description="a PDF page's box of each line of ``text`` (None where blank or not placed); empty for other "
        "formats. Read at ingest (indentation, table boxes), not stored")
    runs: list[list[TextRun] | None] = Field(
        default_factory=list, exclude=True,
        description="a PDF page's runs of words of each line of ``text``, split where a column gap separates them "
        "(None where blank or not placed); empty for other formats. Read at ingest (which column a header's "
        "caption heads), not stored")
    indents: list[float | None] = Field(
        default_factory=list, exclude=True,
        description="how far each line of ``text`` is indented from the left edge, as a fraction of the page width, "
        "where an HTML table row's CSS says so (None elsewhere; a PDF's indentation is its line boxes'); empty when "
        "the format says nothing. Read at ingest (a table row's block), not stored")
    grid: list[list[tuple[int, int]] | None] = Field(
        default_factory=list, exclude=True,
        description="where each cell of a grid table's line (HTML, Markdown) sits in its table's grid: the columns "
        "it spans, one (start, end) per cell of the line as written (None for other lines); empty for a PDF. Read "
        "at ingest (the column of each figure of a row that leaves cells blank), not stored")
    grid_tables: list[int | None] = Field(
        default_factory=list, exclude=True,
        description="which grid table (a number no other grid table of the page has) each line of ``text`` is a row of, where the "
        "line's cells are marked (None for other lines); empty for a PDF. Read at ingest (two tables printed one "
        "after the other stay two), not stored")


class Section(BaseModel):
    """A structural unit (Item 7, a statement, a note) that chunks never cross."""

    section_id: int
    title: str
    path: list[str] = Field(default_factory=list, description="e.g. ['Item 8', 'Consolidated Statement of Cash Flows']")
    kind: str = Field(default="other", description="item | statement | note | mdna | risk | cover | other")
    page_start: int = 0
    page_end: int = 0
    char_start: int = 0
    char_end: int = 0
    summary: str = ""


def chunk_id_for(doc_id: str, ordinal: int) -> str:
    """A chunk's id: its document's id prefix and its position ('<doc_id[:12]>:<ordinal>')."""
    return f"{doc_id[:12]}:{ordinal}"


class NumericValue(BaseModel):
    """A number with everything needed to read it right: unit, scale, sign, period."""

    text: str = Field(description="verbatim as written, e.g. '(1,577)' or '$4.2 billion'")
    value: float = Field(description="signed value in the stated scale, e.g. -1577.0")
    scale: float = Field(default=1.0, description="multiplier: 1, 1e3, 1e6, 1e9")
    unit: str = Field(default="", description="USD | % | shares | x | bps | '' (plain number)")
    period: str = Field(default="", description="normalised period the number belongs to, if known")
    column: str = Field(default="", description="the header of the table column the figure sits under, as printed")
    start: int = Field(default=-1, description="offset in the chunk text, -1 when not located")
    end: int = -1
    bound: str = Field(
        default="",
        description="how the filing qualifies the figure: '' (as stated), 'approximately', 'nearly', or a bound "
        "('more than', 'less than', 'at least', 'up to'); a bound is no figure to compute with",
    )
    high: float | None = Field(
        default=None, description="the upper end when the filing prints a range ('1.74% - 1.94%'): the figure is "
        "the range, ``value`` its lower end; a range is no figure to compute with")
    part: str = Field(
        default="", description="the part of the company (segment, region) a sentence's figure is of, as the words "
        "before it in its sentence name one the filing's part tables are titled by ('Personal Lines catastrophe "
        "losses were $455 million'); '' for the company's own figure, or a table cell's (its record says)")
    change: bool = Field(
        default=False, description="True for a figure its sentence states as a change ('decreased by $932 million', "
        "'increased 6.7%'): the amount, signed, or the percentage by which what it names moved from the period "
        "before; never that thing's level")
    readable: bool = Field(
        default=True, description="False for a figure printed with more digits than a number holds: it keeps its "
        "place (no other figure takes its period) with value 0, and is never stated or computed with",
    )

    @property
    def absolute(self) -> float:
        """The value times its scale (USD 1,577 million -> 1.577e9)."""
        return self.value * self.scale

    @property
    def is_bound(self) -> bool:
        """The filing gives a limit ('less than $300 million') or a range ('1.74% - 1.94%'), not one figure."""
        return self.bound in ONE_SIDED_BOUNDS or self.high is not None

    @property
    def is_approximate(self) -> bool:
        """The filing gives the figure as an approximation ('approximately $120 million')."""
        return self.bound in APPROXIMATIONS


# ---------------------------------------------------------------------------------------------------------
# Typed tables: what a table's headings say about each figure, kept from ingest to answer
# ---------------------------------------------------------------------------------------------------------
TableKind = Literal["statement", "segment", "per_share", "note", "mdna", "schedule"]
RowRole = Literal["", "expense", "deducted_gain"]
ColumnKind = Literal["period", "change", "span", "name"]


class TableColumn(BaseModel):
    """One value column of a table: its label as printed and, for a period column, the period it covers."""

    label: str = Field(description="as printed, header lines joined ('Three Months Ended July 29, 2023')")
    kind: ColumnKind = Field(description="period | change ('2019 vs 2018', '% Change') | span ('2025 and "
                             "thereafter') | name ('USD denominated', 'Total')")
    period: str = Field(default="", description="normalised fiscal period (FY2023, FY2023Q2, FY2023H1, FY2023M9)")
    end_date: date | None = Field(default=None, description="the date the column ends on, when the label gives it")
    months: int = Field(default=0, description="duration: 12, 9, 6 or 3; 0 for a point in time or unknown")
    unit: str = Field(default="", description="'%' when the header says its figures are percentages "
                      "('Change (%)', '% of revenue'); '' when the table's unit holds")
    part: str = Field(default="", description="what a period column names beside its period when other columns "
                      "of that period name other parts ('U.S.' of 'Q1 2025 U.S.' beside 'Q1 2025 Ex-U.S.' and "
                      "'Q1 2025 Total'); '' otherwise")

    @property
    def name(self) -> str:
        """What the column names beside a period: a named column's label, a period column's part."""
        return self.label if self.kind == "name" else self.part


class TableCell(BaseModel):
    """One value cell as printed, with the column it sits under and its figures typed at ingest."""

    text: str
    column: int = Field(description="index into the table's columns; -1 when the row has more cells than columns")
    notes: list[str] = Field(default_factory=list, description="footnote marks printed with the value ('(1)', '*')")
    figures: list[NumericValue] = Field(default_factory=list, description="the figures the cell prints, each with "
                                        "the unit, scale and currency its row, column and table state, its column's "
                                        "name and period, and its offsets in ``text``; a dash under a period column "
                                        "is a zero; none for a word")


class TableLine(BaseModel):
    """One body row of a table: its label, what it sits under, and its cells."""

    label: str = ""
    parent: str = Field(default="", description="the sub-heading the row sits under ('Cost of revenue' over "
                        "'Client services'), until a total closes its block; '' for a top-level row")
    total: bool = Field(default=False, description="the row sums the rows above it ('Total', 'Net sales')")
    heading: bool = Field(default=False, description="a label-only line: a sub-heading of the rows below")
    period: str = Field(default="", description="the period a block of rows is under when the columns are names "
                        "('As at 31 December 2018' over 'USD denominated | Non-USD denominated')")
    role: RowRole = Field(default="", description="what the row does in its table, read at ingest from the whole "
                          "table (:mod:`agent.ingest.row_roles`): 'expense', a line of operating expenses (below "
                          "revenue, above operating income, naming no metric of its own); 'deducted_gain', a gain a "
                          "reconciliation to a non-GAAP measure deducts, printed negative by the adjustment's sign; "
                          "'' otherwise")
    cells: list[TableCell] = Field(default_factory=list)
    char_start: int = Field(default=0, description="offset of the row in the document text")
    char_end: int = 0
    chunk_line: int = Field(default=-1, description="the row's line in its chunk's text; -1 when not in one")
    box: list[float] = Field(default_factory=list, description="[x0, y0, x1, y1] of the row's first line on its "
                             "page (fractions, origin top left); [] when the filing has no layout (HTML, text)")


class TableRecord(BaseModel):
    """A table as its headings type it: title, where it sits, kind, typed columns and rows. A chunk holds the
    record of its own rows (``first_row`` of ``n_rows``); the linearised chunk text stays for search and quotes."""

    table_id: str = Field(description="'<doc_id[:12]>:t<k>', k the table's place in the document")
    page: int = Field(default=0, description="0-based page the table starts on")
    box: list[float] = Field(default_factory=list, description="[x0, y0, x1, y1] of the table on its page "
                             "(fractions, origin top left); [] when the filing has no layout (HTML, text)")
    title: str = ""
    section_path: list[str] = Field(default_factory=list, description="the section and heading it sits under")
    kind: TableKind = "schedule"
    statement: str = Field(default="", description="income | balance | cashflow | equity for a primary statement")
    part: str = Field(default="", description="the segment or region all its figures are of ('' = the company)")
    other_parts: list[str] = Field(default_factory=list, description="the filing's other parts, when the table is a "
                                   "part's: a question names the part by the words of its name no other part's has")
    period_caption: str = Field(default="", description="'Years ended December 31', 'As at 31 December 2019'")
    scale: float = 1.0
    scale_label: str = ""
    currency: str = Field(default="", description="ISO code when the table prints a currency sign ('USD')")
    columns: list[TableColumn] = Field(default_factory=list)
    rows: list[TableLine] = Field(default_factory=list)
    first_row: int = Field(default=0, description="index of rows[0] among the whole table's rows")
    n_rows: int = Field(default=0, description="rows of the whole table")
    char_start: int = 0
    char_end: int = 0

    def row_at_line(self, line: int) -> TableLine | None:
        """The row printed on ``line`` of its chunk's text, if any."""
        return next((r for r in self.rows if r.chunk_line == line), None)


class SentenceFigures(BaseModel):
    """A sentence of a chunk's text and the figures it states, read at ingest (:mod:`agent.ingest.prose`): each
    with its unit, scale, sign and period, its offsets in the chunk's text."""

    start: int
    end: int
    figures: list[NumericValue] = Field(default_factory=list)


class Chunk(BaseModel):
    """A retrievable span of a document, inside one section."""

    chunk_id: str = Field(description="'<doc_id[:12]>:<ordinal>'")
    doc_id: str
    ordinal: int = Field(description="position in the document; neighbours differ by one")
    section_id: int
    section_path: list[str] = Field(default_factory=list)
    page: int = Field(description="0-based page where the chunk starts")
    page_end: int = Field(description="0-based page where the chunk ends")
    char_start: int
    char_end: int
    text: str = Field(description="indexed text; for tables, the linearised rows")
    is_table: bool = False
    section_summary: str = ""
    part: str = Field(default="", description="the part of the company (segment, region) all the table's figures "
                      "are of: its title, where sibling tables repeat its rows under other titles")
    table: TableRecord | None = Field(default=None, description="a table chunk's typed record (its own rows)")
    sentences: list[SentenceFigures] | None = Field(default=None, description="the figures of its sentences (a "
                                                    "table chunk's lines that are no rows), read at ingest; None for "
                                                    "a chunk stored before they were")


# ---------------------------------------------------------------------------------------------------------
# Numbers and periods
# ---------------------------------------------------------------------------------------------------------
# How a filing may qualify a figure it writes in prose: about this much, or only a limit on it.
APPROXIMATIONS: frozenset[str] = frozenset({"approximately", "nearly"})
ONE_SIDED_BOUNDS: frozenset[str] = frozenset({"more than", "less than", "at least", "up to"})


# ---------------------------------------------------------------------------------------------------------
# Chunk Cards and Query Intents (FinCARDS 3.2-3.3): shared fields so alignment is field by field
# ---------------------------------------------------------------------------------------------------------
class ClaimRole(StrEnum):
    PRIMARY_EVIDENCE = "primary_evidence"
    SUPPORTING_CONTEXT = "supporting_context"
    DEFINITION = "definition"
    CAVEAT = "caveat"
    BOILERPLATE = "boilerplate"
    STRUCTURAL_HEADING = "structural_heading"


class EvidenceType(StrEnum):
    TABLE_NUMERIC = "table_numeric"
    NARRATIVE_NUMERIC = "narrative_numeric"
    QUALITATIVE_EXPLANATION = "qualitative_explanation"
    POLICY_TEXT = "policy_text"
    GUIDANCE = "guidance"
    NONE = "none"


class Relation(StrEnum):
    LOOKUP = "lookup"
    TREND = "trend"
    COMPARISON = "comparison"
    EXPLANATION = "explanation"
    DEFINITION = "definition"
    POLICY = "policy"


class XbrlFact(BaseModel):
    """One inline-XBRL fact: a figure as the filer tagged it, with where it is printed."""

    fact_id: str = Field(description="the fact's element id in the HTML ('f-54')")
    concept: str = Field(description="prefixed concept name, e.g. 'us-gaap:NetIncomeLoss'")
    label: str = Field(description="the concept's words ('Net Income Loss'): the taxonomy's labels are not offline")
    value: float = Field(description="the value in units, sign applied (68714000000.0)")
    text: str = Field(description="the figure as printed ('68,714')")
    unit: str = Field(default="", description="USD | USD/shares | shares | pure | ...")
    decimals: int | None = Field(default=None, description="precision the filer states; None for INF")
    scale: int = Field(default=0, description="power of ten the printed figure is in (6: millions)")
    entity: str = Field(default="", description="the context's entity identifier (CIK)")
    start: str = Field(default="", description="ISO start of a duration; '' for an instant")
    end: str = Field(description="ISO end of a duration, or the instant")
    months: int = Field(default=0, description="duration in months; 0 for an instant")
    period: str = Field(default="", description="fiscal label of the context as the filer names its years (dei's "
                        "fiscal year focus): FY2025, FY2025Q2, FY2025H1")
    period_by_dates: str = Field(default="", description="the label its dates give in finrag's calendar, where the "
                                 "filer names its years otherwise ('' when the same)")
    dimensions: dict[str, str] = Field(default_factory=dict, description="axis -> member of the context")
    page: int | None = Field(default=None, description="0-based page where the figure is printed; None if hidden")
    span_start: int = Field(default=0, description="offset of the printed figure in its page's text")
    span_end: int = 0


class CountFact(BaseModel):
    """A count a filing states in a sentence, as a fact of the thing it counts: '312 stores' as of a date."""

    value: float = Field(description="the count as written ('312', 'three' -> 3.0)")
    text: str = Field(description="the number as printed ('12,400', 'three')")
    bound: str = Field(default="", description="'approximately', 'more than', ...: how the sentence qualifies it")
    counted: str = Field(description="what it counts, as printed after the number ('distribution centers')")
    key: str = Field(description="the counted words' stems in order (agent.finance.counted.counted_key)")
    as_of: str = Field(default="", description="ISO date the count is at: the sentence's own date, or the "
                       "filing's period end for a sentence that states none")
    dated_by: str = Field(default="sentence", description="sentence | filing: where the date came from")
    period: str = Field(default="", description="fiscal label of the date in the filer's calendar (FY2024)")
    page: int = Field(description="0-based page of the sentence")
    span_start: int = Field(description="offset of the number in its page's text")
    span_end: int
    quote: str = Field(description="the sentence that states it")
    chunk_id: str = Field(default="", description="the chunk that holds the sentence")


class EvidenceSpan(BaseModel):
    """Links a card field to the text that justifies it (offsets into the chunk text)."""

    field: str = Field(description="card field: metric | period | entity | number")
    value: str
    start: int
    end: int


class ChunkCard(BaseModel):
    """A compact, typed description of what a chunk can serve as evidence for."""

    chunk_id: str
    topic: str = "Other"
    entities: list[str] = Field(default_factory=list)
    metrics: list[str] = Field(default_factory=list, description="canonical metric names from the lexicon")
    numbers: list[NumericValue] = Field(default_factory=list)
    periods: list[str] = Field(default_factory=list, description="normalised: FY2018, FY2023Q2")
    section_path: list[str] = Field(default_factory=list)
    is_table: bool = False
    claim_role: ClaimRole = ClaimRole.SUPPORTING_CONTEXT
    evidence_type: EvidenceType = EvidenceType.NONE
    scope: str = Field(default="company", description="company | segment | geography | product | unknown")
    measurement_basis: str = Field(default="unknown", description="reported | adjusted | constant currency | organic | "
                                   "unknown (agent.schemas.Basis, or unknown)")
    boilerplate: float = Field(default=0.0, ge=0.0, le=1.0, description="likelihood the chunk is boilerplate")
    summary: str = ""
    evidence_spans: list[EvidenceSpan] = Field(default_factory=list)
    source: str = Field(default="offline", description="offline | llm: which twin produced the card")


class PeriodDate(BaseModel):
    """A period a question writes as a date ('the six months ended March 29, 2025', 'at December 31, 2024')."""

    date: str = Field(description="ISO date of the period's end, or of the day itself")
    kind: str = Field(description="year | quarter | half | nine_months | point")
    months: int = Field(default=0, description="the months the period spans, as written; 0 for a point in time")
    norm: str = Field(default="", description="the period as the question's own words name it (FY2024H1: six "
                      "months ended in July close a year's first half)")
    to_date: bool = Field(default=False, description="a year to date the date closes ('year to date through July "
                          "29, 2023'): in another calendar, the months to the end of the quarter it closes there")


class TemporalScope(BaseModel):
    type: str = Field(default="none", description="point | range | latest | none")
    periods: list[str] = Field(default_factory=list, description="normalised: FY2018, FY2023Q2")
    granularity: str = Field(default="", description="year | quarter | ''")
    dated: PeriodDate | None = Field(default=None, description="the one period the question writes as a date, "
                                     "which the filer's own calendar then names; None for none or several")
    to_date: bool = Field(default=False, description="the question asks a year to date ('YTD 2024'): of each "
                          "fiscal year asked, the months to the end of the quarter the filing read reports")
    opening: bool = Field(default=False, description="the question asks a balance at its period's beginning "
                          "('the opening balance', 'at the start of 2024'); a period's opening balance row answers "
                          "nothing else")


class ScopeTerm(BaseModel):
    """A part of the company a question narrows a metric to ('aerospace' in 'operating profit of the aerospace
    business'): a figure answers only when its own row, column, table or headings name it."""

    text: str = Field(description="as the question writes it, e.g. 'external customers', 'APAC'")
    metric: str = Field(default="", description="the canonical metric it narrows; '' for the whole question")
    kind: Literal["part", "measure", "name"] = Field(
        default="part", description="'part': of the company ('aerospace'); 'measure': what is asked of the metric "
        "('intensity' of 'capex intensity'); 'name': a name the question gives as the company's which no filing "
        "goes by, read as a part of the only filer ('Asia Pacific revenue')")
    listed: int = Field(default=0, description="the list the part is named in with others ('China and Mexico' of "
                        "'revenue from China and Mexico'), counted from 1: each part of a list has a figure of its "
                        "own; 0 for a part named alone")


class TypedNumber(BaseModel):
    """Arithmetic a question types on the figure it looks up ('... in 2018 less 100?'), computed in code."""

    op: Literal["less", "minus", "plus", "divided by"]
    number: str = Field(description="the number typed, as written without its thousands separators ('100')")
    start: int = Field(description="where the typed arithmetic starts in the question's text: the words before it "
                       "are what is looked up")


class Threshold(BaseModel):
    """The test a question asks periods to pass ('exceed $3,000 thousand': '>' 3,000 thousand; 'negative': '<' 0)."""

    comparison: Literal[">", ">=", "<", "<="]
    bound: NumericValue


class AskedShare(BaseModel):
    """Two figures a question divides (or subtracts), as it words them: the part (or numerator) and the whole (or
    denominator)."""

    part: str = Field(description="the words naming the part, as the question writes them")
    whole: str = Field(description="the words naming the whole")
    percent: bool
    part_names_whole: bool = Field(default=False, description="the part is worded as a subset of the whole ('what "
                                   "percentage of acres were in the US'): its figure names both")
    subtract: bool = Field(default=False, description="'the difference of X and Y': X minus Y, not X over Y")


class Basis(StrEnum):
    """The measurement bases a filing states figures on (:mod:`agent.finance.basis` reads them)."""

    REPORTED = "reported"  # GAAP / IFRS, as reported: every figure no word says otherwise of
    ADJUSTED = "adjusted"  # non-GAAP: adjusted, core, pro forma, excluding special items
    CONSTANT_CURRENCY = "constant currency"  # at constant exchange rates, FX-neutral, in local currency
    ORGANIC = "organic"  # excluding acquisitions, divestitures and currency


class Wording(BaseModel):
    """How the question words what it asks, read once in agent/query: the readers after the plan compare these
    with the evidence instead of reading the question's text again."""

    words: list[str] = Field(default_factory=list, description="the content words of what it asks (its "
                             "definitions and the arithmetic it types cut off), as agent.query.content reads them")
    terms: list[str] = Field(default_factory=list, description="its words as written and in their order, "
                             "lower-cased, stop words dropped: what a passage is searched by, and what an acronym a "
                             "filing prints may spell")
    topic: list[str] = Field(default_factory=list, description="its content words less those asking a cause "
                             "('what drove', 'why'): what a passage explaining it must name")
    beside: dict[str, list[str]] = Field(default_factory=dict, description="for each metric it names (canonical), "
                                         "its content words with that metric's own name and the span of years it "
                                         "counts cut; under '' with the span alone cut: what else the words ask of "
                                         "a figure of that metric")
    basis: list[Basis] = Field(default_factory=list, description="the bases its figure is asked on, as its words "
                               "say them (agent.finance.basis); none for a figure as reported")
    typed: TypedNumber | None = None
    computed: str = Field(default="", description="the arithmetic the operation model reads in the words ('sum', "
                          "'ratio', 'change', ...) when likelier than a lookup; '' otherwise")
    threshold: Threshold | None = None
    share: AskedShare | None = Field(default=None, description="two figures the question names and divides ('X as "
                                     "a percentage of Y', 'what portion of Y was allocated to X')")
    lowest: bool = Field(default=False, description="the comparison a 'which ...' question ranks by asks the lowest")
    by_size: bool = Field(default=False, description="that comparison ranks sizes ('the larger loss'), not order")
    per_unit: bool = Field(default=False, description="a figure per unit of time is asked ('quarterly', 'per month')")
    percent: bool = Field(default=False, description="the result is asked as a percentage")
    rate_too: bool = Field(default=False, description="a change asked in no unit ('how much did X grow', 'how did X "
                           "change') is asked as its size and its rate; False when the words ask one of them")
    schedule: bool = Field(default=False, description="a year of a schedule is asked ('long-term debt due in 2005', "
                           "'maturities in 2017'): a table whose rows are years, even when the lexicon names the "
                           "metric")
    as_share: bool = Field(default=False, description="a figure is asked as a share of another ('as a percentage "
                           "of', '% of revenue')")
    item_kind: str = Field(default="item", description="the kind of item a choice asks for ('region' of 'which "
                           "region had ...'); 'item' when unnamed")
    contrary: dict[str, str] = Field(default_factory=dict, description="the words naming a metric (canonical) in "
                                     "its contrary direction ('net loss' for net income), as an answer says it")
    periods: list[str] = Field(default_factory=list, description="the periods the words name themselves "
                               "(normalised, in order), before any range or span is filled in")
    counted_years: int = Field(default=0, description="the years its span counts ('over the past three years': 3)")
    of_table: bool = Field(default=False, description="the table in view is the subject the question asks about "
                           "('what does the table show?', 'what is the table about?'), not where a figure sits")
    predicate: list[str] = Field(default_factory=list, description="the verb it asks with after its subject ('fly' "
                                 "of 'how many seat miles did Lucerne fly'): what the company did; it names the figure "
                                 "only where the filing prints it ('stores opened')")


class QueryIntent(BaseModel):
    """What a (sub-)question demands, in the card's own vocabulary."""

    question: str = ""
    topic: str = "Other"
    entities: list[str] = Field(default_factory=list, description="companies, segments, regions")
    metrics: list[str] = Field(default_factory=list, description="canonical metric names from the lexicon")
    relation: Relation = Relation.LOOKUP
    temporal_scope: TemporalScope = Field(default_factory=TemporalScope)
    requires_numeric: bool = False
    figure_worded: bool = Field(default=False, description="the question is worded after a figure, whether or not "
                                "the lexicon names its metric: it names a period, or asks 'how much' / 'what was "
                                "the' (a passage's figure may answer it)")
    asks_words: bool = Field(default=False, description="the answer-kind model reads the question as asking for "
                             "words (a description, names), not an amount: no figure answers it")
    keywords: list[str] = Field(default_factory=list)
    names: list[str] = Field(default_factory=list, description="the proper names the question uses, as written "
                             "('Chevron', 'Frito-Lay North America'): companies, or parts, products and "
                             "counterparties a figure's own words must name (a sub-query's turn keeps its own)")
    statements: list[str] = Field(default_factory=list, description="the financial statements the question names "
                                  "as its source ('relying on the cash flow statement'), by the lexicon's canonical "
                                  "names ('income statement', 'balance sheet', 'cash flow statement')")
    scope: list[ScopeTerm] = Field(default_factory=list, description="the parts the question narrows a metric to")
    operations: list[str] = Field(default_factory=list, description="the kinds of arithmetic or choice the "
                                  "question's words ask for ('average', 'change', 'choice', 'threshold', ...), read "
                                  "once; the readers and the composer take them from here")
    # read in code from the question's words, whoever fills the rest: no model is asked for it
    wording: SkipJsonSchema[Wording] = Field(default_factory=Wording)
    scale: float | None = Field(default=None, description="the scale the question asks its answer in ('in USD "
                                "millions' -> 1e6); None when it names none")
    unit: str = Field(default="", description="the unit of measure the question asks its answer in ('GWh', "
                      "'barrels'): a quantity, never an amount of money; '' when it names none")
    total: bool = Field(default=False, description="the figure asked is a whole named as such ('total debt', 'the "
                        "total'): a component row never answers it")
    counted: str = Field(default="", description="what a count question counts, as count facts key it ('store', "
                         "'distribution center'); '' for no count of a thing")
    company: str = Field(default="", description="company the question is about, for document routing")
    company_written: list[str] = Field(default_factory=list, description="the company's names as the question "
                                       "writes them ('AWK', 'American Water Works'), each once")
    search: str = Field(default="", description="the words retrieval ranks chunks by: the question's, the "
                        "company's name written without its legal form ('American Water Works Company, Inc.' -> "
                        "'American Water Works'); '' for the question itself")
    ticker: str = ""
    form: str = ""
    source: str = Field(default="offline", description="offline | llm")


# ---------------------------------------------------------------------------------------------------------
# Search results
# ---------------------------------------------------------------------------------------------------------
class SearchHit(BaseModel):
    """One retrieved chunk with where it came from and why it scored."""

    chunk: Chunk
    doc_name: str
    score: float
    path_scores: dict[str, float] = Field(default_factory=dict, description="bm25 / dense / metadata / rrf ...")
    path_ranks: dict[str, int] = Field(default_factory=dict)

    @property
    def page_label(self) -> int:
        """1-based page number for people."""
        return self.chunk.page + 1


class Citation(BaseModel):
    """Where a figure came from: shown as [doc, p. N]."""

    doc: str
    page: int = Field(description="1-based page for display")
    quote: str = ""
    chunk_id: str = ""
    row: str = Field(default="", description="the label of the table row quoted, as ingest typed it; '' for a "
                     "sentence")

    def label(self) -> str:
        return f"[{self.doc}, p. {self.page}]"


class IngestReport(BaseModel):
    """Per-file outcome of an ingest, printed as one line and returned as JSON."""

    path: str
    name: str = ""
    doc_id: str = ""
    status: str = Field(description="ingested | unchanged | failed")
    error: str = ""
    pages: int = 0
    sections: int = 0
    chunks: int = 0
    tables: int = 0
    facts: int = Field(default=0, description="inline-XBRL facts read (HTML filings that carry them)")
    warnings: list[str] = Field(default_factory=list, description="what was read only in part, and why")
    same_as: list[str] = Field(default_factory=list, description="filings already indexed that are this one: the "
                               "same text, or the same company, form and period")
    company: str = Field(default="", description="the company, form and period the filing was indexed under")
    form: str = ""
    period: str = ""
    seconds: float = 0.0
    stage_seconds: dict[str, float] = Field(
        default_factory=dict, description="parse / sections / chunks / cards / counts / embed / store wall time"
    )
    finished_at: datetime | None = None
