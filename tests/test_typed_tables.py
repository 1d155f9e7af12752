"""Typed tables (issue 29, item 1): every table is stored as a record from ingest (title, section, kind, columns
typed as periods with end date and duration in the filer's fiscal calendar, rows with their sub-heading and total
flag, cells under their columns), and the reader reads the record instead of rebuilding columns from the chunk's
linearised text. The filing is typeset here: a retailer whose fiscal year ends in early February, its 10-Q for
the quarter ended July 29, 2023 (the second quarter of fiscal 2024).
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.answer.reading import Evidence, EvidenceReader
from agent.config import Settings
from agent.index.store import Store
from agent.ingest.figures import typed_row
from agent.ingest.tables import find_tables
from agent.ingest.typed_tables import table_record
from agent.schemas import Chunk, Section, TableColumn, TableRecord

FILING = """# Tailspin Outfitters, Inc.

QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the quarterly period ended July 29, 2023
Fiscal year ending February 3, 2024

## Item 1. Financial Statements

### Condensed Consolidated Statements of Operations

(in thousands, except per share data)

| | Three Months Ended | | Six Months Ended | |
|---|---|---|---|---|
| | July 29, 2023 | July 30, 2022 | July 29, 2023 | July 30, 2022 |
| Net sales | $ 412,300 | $ 398,150 | $ 801,900 | $ 770,420 |
| Cost of sales: | | | | |
| Merchandise | 190,200 | 181,000 | 371,500 | 352,600 |
| Occupancy | 41,100 | 40,200 | 82,000 | 80,100 |
| Total cost of sales | 231,300 | 221,200 | 453,500 | 432,700 |
| Operating income | 52,750 | 49,900 | 99,800 | 95,300 |

## Item 2. Management's Discussion and Analysis

### Net sales by channel

| (in thousands) | July 29, 2023 | July 30, 2022 | % Change |
|---|---|---|---|
| Stores | 301,000 | 296,500 | 2% |
| Digital | 111,300 | 101,650 | —% |
"""


@pytest.fixture(scope="module")
def tailspin(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("tailspin"), "TAILSPIN_2023Q2_10Q.md", FILING)


def _records(settings: Settings) -> list[TableRecord]:
    with Store(settings) as store:
        return [c.table for c in store.chunks() if c.table is not None]


def test_every_table_chunk_is_stored_with_its_typed_record(tailspin: Settings) -> None:
    with Store(tailspin) as store:
        chunks = [c for c in store.chunks() if c.is_table]
    assert chunks and all(c.table is not None and c.table.rows for c in chunks)
    for chunk in chunks:
        lines = chunk.text.split("\n")
        # each row names the line of the chunk text it is printed on, so a quote is found again
        assert all(lines[r.chunk_line].startswith(r.label) for r in chunk.table.rows if r.label)  # type: ignore[union-attr]


def test_columns_of_a_january_year_end_are_its_quarter_and_half(tailspin: Settings) -> None:
    statement = next(r for r in _records(tailspin) if "Operations" in " ".join([r.title, *r.section_path]))
    assert statement.kind == "statement" and statement.statement == "income"
    assert [(c.period, c.months, str(c.end_date)) for c in statement.columns] == [
        ("FY2024Q2", 3, "2023-07-29"), ("FY2023Q2", 3, "2022-07-30"),
        ("FY2024H1", 6, "2023-07-29"), ("FY2023H1", 6, "2022-07-30"),
    ]
    assert statement.scale == 1000 and statement.currency == "USD"


def test_rows_keep_their_sub_heading_and_totals(tailspin: Settings) -> None:
    # the statement is split over chunks: each holds the record of its own rows
    rows = {r.label: r for record in _records(tailspin) if record.statement == "income" for r in record.rows}
    assert rows["Cost of sales:"].heading
    assert rows["Occupancy"].parent == "Cost of sales" and not rows["Occupancy"].total
    assert rows["Total cost of sales"].total and rows["Operating income"].parent == ""
    assert [(c.text, c.column, [(f.value, f.unit, f.scale, f.period) for f in c.figures])
            for c in rows["Net sales"].cells][:2] == [
        ("$412,300", 0, [(412300.0, "USD", 1e3, "FY2024Q2")]), ("$398,150", 1, [(398150.0, "USD", 1e3, "FY2023Q2")])]


def test_a_continuation_chunk_repeats_a_sub_heading_only_over_rows_it_heads(tailspin: Settings) -> None:
    with Store(tailspin) as store:
        texts = [c.text for c in store.chunks() if c.table is not None and c.table.statement == "income"]
    # 'Total cost of sales' closed the block, so 'Operating income' is printed under no 'Cost of sales:' line
    last = next(t for t in texts if "Operating income" in t).split("\n")
    at = next(i for i, line in enumerate(last) if line.startswith("Operating income"))
    assert not last[at - 1].startswith("Cost of sales"), last


def test_a_change_column_is_typed_as_one_and_a_dash_percent_is_an_empty_cell(tailspin: Settings) -> None:
    channel = next(r for r in _records(tailspin) if any(row.label == "Digital" for row in r.rows))
    assert channel.kind == "mdna"
    assert [c.kind for c in channel.columns] == ["period", "period", "change"]
    digital = next(row for row in channel.rows if row.label == "Digital")
    assert [c.column for c in digital.cells] == [0, 1, 2] and digital.cells[2].figures == []
    # a quarter's filing: July 29, 2023 is the second quarter's end of the fiscal year ending in February 2024
    assert [(f.value, f.period) for f in digital.cells[0].figures] == [(111300.0, "FY2024Q2")]


@pytest.mark.parametrize(("question", "figure", "other"), [
    ("What were Tailspin's net sales for the six months ended July 29, 2023?", "801,900", "412,300"),
    ("What were Tailspin's net sales in the second quarter of fiscal 2024?", "412,300", "801,900"),
])
def test_the_quarter_and_the_half_are_answered_apart(
    tailspin: Settings, question: str, figure: str, other: str
) -> None:
    answer = stated(ask_once(tailspin, question))
    assert figure in answer and other not in answer, answer


def test_a_fiscal_year_the_quarterly_report_lacks_is_refused(tailspin: Settings) -> None:
    answer = ask_once(tailspin, "What were Tailspin's net sales in fiscal 2024?")
    assert answer.startswith("Not found") and "412,300" not in stated(answer), answer


# -------------------------------------------------------------------------------------------------------
# The reader reads the record
# -------------------------------------------------------------------------------------------------------
PAGE = """Segment results
(in millions)
2024 2023
Revenue 1,200 1,100
Operating profit 300 280
"""


def _chunk_record() -> tuple[str, TableRecord]:
    table = find_tables(PAGE)[0]
    section = Section(section_id=0, title="Note 9", path=["Note 9. Segments"], kind="note")
    record = table_record(table, table_id="x:t0", page=0, offset=0, section=section)
    text = "Note 9. Segments\nSegment results | columns: 2024, 2023 | (in millions)\n" + "\n".join(
        f"{r.label} | 2024: {r.cells[0].text} | 2023: {r.cells[1].text} | (in millions)" for r in record.rows)
    rows = [r.model_copy(update={"chunk_line": 2 + i}) for i, r in enumerate(record.rows)]
    return text, record.model_copy(update={"rows": rows})


def test_the_reader_takes_periods_from_the_record_not_the_chunk_text() -> None:
    text, record = _chunk_record()
    # A record whose columns say more than the linearised text ('Fiscal years ended in early February'): the
    # record is the one reading of the table's header.
    columns = [
        TableColumn(label="2024", kind="period", period="FY2025", months=12),
        TableColumn(label="2023", kind="period", period="FY2024", months=12),
    ]
    record = record.model_copy(update={
        "columns": columns, "rows": [typed_row(r, columns, record.scale, record.currency) for r in record.rows]})
    reader = EvidenceReader([Evidence(chunk_id="x:1", doc_name="X", text=text, table=record)])
    revenue = next(s for s in reader.segments if s.label == "Revenue")
    assert [(n.text, n.period, n.scale) for n in revenue.numbers] == [("1,200", "FY2025", 1e6), ("1,100", "FY2024", 1e6)]
    # without a record the lines are text: no row is split from them again
    plain = EvidenceReader([Evidence(chunk_id="x:1", doc_name="X", text=text)])
    assert not [s for s in plain.segments if s.kind == "row"]


def test_the_reader_takes_a_row_s_sub_heading_from_the_record() -> None:
    text, record = _chunk_record()
    rows = [r.model_copy(update={"parent": "Aerospace"}) if r.label == "Revenue" else r for r in record.rows]
    reader = EvidenceReader([Evidence(chunk_id="x:1", doc_name="X", text=text,
                                      table=record.model_copy(update={"rows": rows}))])
    assert next(s for s in reader.segments if s.label == "Revenue").parent == "Aerospace"
    assert next(s for s in reader.segments if s.label == "Operating profit").parent == ""


def test_a_chunk_round_trips_its_record_through_the_schema() -> None:
    text, record = _chunk_record()
    chunk = Chunk(chunk_id="x:1", doc_id="x", ordinal=1, section_id=0, page=0, page_end=0, char_start=0,
                  char_end=len(PAGE), text=text, is_table=True, table=record)
    assert Chunk.model_validate_json(chunk.model_dump_json()).table == record
    assert record.kind == "note" and record.row_at_line(2) is not None and record.row_at_line(2).label == "Revenue"


# -------------------------------------------------------------------------------------------------------
# Named columns: a figure's own column is part of what it is, the other columns are not
# -------------------------------------------------------------------------------------------------------
NAMED = """# Contoso Freight Corp.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2019

## Item 8. Financial Statements

### Note 11. Fair Value of Financial Instruments

The carrying amounts and fair values of our debt were as follows (in millions):

| | Carrying Value | Fair Value |
|---|---|---|
| As of December 31, 2019 | | |
| Senior notes due 2027 | 1,250 | 1,312 |
| Term loan | 480 | 476 |
| As of December 31, 2018 | | |
| Senior notes due 2027 | 1,248 | 1,190 |
| Term loan | 520 | 515 |

### Note 12. Revenue by Region

| (in millions) | Americas | Europe |
|---|---|---|
| As of December 31, 2019 | | |
| Freight revenue | 3,100 | 1,450 |
| Storage revenue | 410 | 220 |
"""


@pytest.fixture(scope="module")
def contoso(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("contoso"), "CONTOSO_2019_10K.md", NAMED)


def test_a_header_of_names_after_a_scale_stub_starts_its_own_table(contoso: Settings) -> None:
    region = next(r for r in _records(contoso) if any(row.label == "Freight revenue" for row in r.rows))
    # '(in millions) | Americas | Europe' heads a new table (it had merged into the fair-value table above)
    assert [(c.label, c.kind) for c in region.columns] == [("Americas", "name"), ("Europe", "name")]
    assert region.scale == 1e6 and {r.period for r in region.rows} == {"FY2019"}


@pytest.mark.parametrize(("question", "figure", "other"), [
    ("What was Contoso's freight revenue in Europe in 2019?", "1,450", "3,100"),
    ("What was the fair value of Contoso's term loan as of December 31, 2018?", "515", "520"),
])
def test_the_column_the_question_names_is_the_one_read(contoso: Settings, question: str, figure: str,
                                                       other: str) -> None:
    answer = stated(ask_once(contoso, question))
    assert figure in answer and other not in answer, answer


@pytest.mark.parametrize("question", [
    "What was Contoso's freight revenue in 2019?",  # Americas and Europe only: no company total printed
    "What was Contoso's term loan as of December 31, 2018?",  # carrying value or fair value?
])
def test_a_figure_under_a_column_the_question_does_not_name_is_refused(contoso: Settings, question: str) -> None:
    answer = ask_once(contoso, question)
    assert answer.startswith("Not found") and "column by column" in answer, answer


# -------------------------------------------------------------------------------------------------------
# The statement of record (issue 29, item 4)
# -------------------------------------------------------------------------------------------------------
RECORD = """# Woodgrove Instruments Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 8. Financial Statements and Supplementary Data

### Consolidated Statements of Operations

| (in millions) | 2024 | 2023 |
|---|---|---|
| Total net revenues | 5,240 | 4,905 |
| Cost of revenues | 3,100 | 2,950 |
| Gross profit | 2,140 | 1,955 |
| Operating income | 610 | 540 |

### Notes to Consolidated Financial Statements

### Note 4. Revenue Recognized from Contract Liabilities

Revenue recognized from the contract liability balance at the beginning of the year was as follows:

| (in millions) | 2024 | 2023 |
|---|---|---|
| Revenue | 212 | 198 |
| Deferred revenue, end of year | 305 | 290 |
"""


@pytest.fixture(scope="module")
def woodgrove(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("woodgrove"), "WOODGROVE_2024_10K.md", RECORD)


def test_tables_are_typed_as_statement_or_note(woodgrove: Settings) -> None:
    kinds = {(r.kind, r.statement, r.section_path[-1]) for r in _records(woodgrove)}
    assert kinds == {("statement", "income", "Consolidated Statements of Operations"),
                     ("note", "", "Note 4. Revenue Recognized from Contract Liabilities")}


@pytest.mark.parametrize("question", ["What was Woodgrove's revenue in 2024?",
                                      "How much revenue did Woodgrove report for 2024?"])
def test_a_company_figure_is_read_from_the_statement_not_a_note(woodgrove: Settings, question: str) -> None:
    # the note's row is labelled 'Revenue' exactly; the income statement's 'Total net revenues' is the revenue
    answer = stated(ask_once(woodgrove, question))
    assert "5,240" in answer and "212" not in answer, answer


def test_a_note_answers_what_no_statement_prints(woodgrove: Settings) -> None:
    answer = stated(ask_once(woodgrove, "What was Woodgrove's deferred revenue at the end of 2024?"))
    assert "305" in answer, answer


# -------------------------------------------------------------------------------------------------------
# A column's unit: 'Change (%)' holds percentages, never the change in the row's amounts
# -------------------------------------------------------------------------------------------------------
HIGHLIGHTS = """# Littlefield Systems plc

Annual Report 2019

## Financial highlights

| £m | 2019 | 2018 | Change (%) |
|---|---|---|---|
| Revenue | 503.6 | 476.9 | 5.6 |
| Reported operating profit | 88.6 | 57.5 | 54.1 |
| Closing cash | 183.2 | 121.6 | 50.7 |
"""


@pytest.fixture(scope="module")
def littlefield(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("littlefield"), "LITTLEFIELD_2019_AR.md", HIGHLIGHTS)


def test_a_currency_stub_heads_the_labels_and_a_percent_header_types_its_column(littlefield: Settings) -> None:
    record = next(r for r in _records(littlefield) if any(row.label == "Closing cash" for row in r.rows))
    assert [(c.label, c.kind, c.period, c.unit) for c in record.columns] == [
        ("2019", "period", "FY2019", ""), ("2018", "period", "FY2018", ""), ("Change (%)", "change", "", "%")]


@pytest.fixture(scope="module")
def untitled(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    # a table opening the document with no title: its column header ('Change (%)') is all that is said before
    # the rows, and no caption of what the rows are
    text = (
        "| $ million | 2019 | 2018 | Change (%) |\n|---|---|---|---|\n| Revenue | 503.6 | 476.9 | 5.6 |\n"
        "| Closing cash | 183.2 | 121.6 | 50.7 |\n\nNotes\n\n1. Closing cash is cash net of overdrafts.\n"
    )
    return ingested_typeset(tmp_path_factory.mktemp("untitled"), "LITTLEFIELD_2019_AR.md", text)


@pytest.mark.parametrize("home", ["littlefield", "untitled"])
def test_the_change_asked_is_computed_from_the_amounts_not_read_from_the_percent_column(
    home: str, request: pytest.FixtureRequest
) -> None:
    settings = request.getfixturevalue(home)
    answer = stated(ask_once(settings, "What was the change in closing cash?"))
    assert "61.6" in answer and "50.7" not in answer, answer
    answer = stated(ask_once(settings, "What was the percentage change in closing cash?"))
    assert "50.7%" in answer, answer


def test_a_footnote_mark_after_a_figure_is_kept_as_a_note_not_read_as_a_figure() -> None:
    page = "Results of operations\n(in thousands)\n2019 2018\nNet income $285,501 $1,025,659(1)\nRevenue 1,200 1,100\n"
    record = table_record(find_tables(page)[0], table_id="x:t0", page=0, offset=0,
                          section=Section(section_id=0, title="Note 21", path=["Note 21"], kind="note"))
    income = next(r for r in record.rows if r.label == "Net income")
    assert [([f.value for f in c.figures], c.notes) for c in income.cells] == [([285501.0], []), ([1025659.0], ["(1)"])]
    text = "Note 21\nResults of operations | columns: 2019, 2018 | (in thousands)\n" + "\n".join(
        f"{r.label} | 2019: {r.cells[0].text} | 2018: {r.cells[1].text} | (in thousands)" for r in record.rows)
    rows = [r.model_copy(update={"chunk_line": 2 + i}) for i, r in enumerate(record.rows)]
    reader = EvidenceReader([Evidence(chunk_id="x:1", doc_name="X", text=text,
                                      table=record.model_copy(update={"rows": rows}))])
    seg = next(s for s in reader.segments if s.label == "Net income")
    assert [(n.text, n.period) for n in seg.numbers] == [("$285,501", "FY2019"), ("$1,025,659", "FY2018")]


def test_a_year_heading_a_column_keeps_its_footnote_mark_out_of_the_figures() -> None:
    page = "December 31,\n(In millions) | 2019 | 2018(1)\nLand and improvements | $ 50.7 | $ 41.2\nBuildings | 747.0 | 728.6\n"
    table = find_tables(page)[0]
    # The day printed over the years dates each column; the mark is no part of it.
    assert table.columns == ["December 31, 2019", "December 31, 2018"]
    assert [r.label for r in table.rows] == ["Land and improvements", "Buildings"]


BY_LINE_OF_BUSINESS = """# Woodgrove Holdings Annual Report 2019

Revenues increased by 21% to RMB377.3 billion for the year ended 31 December 2019. The following table sets forth
our revenues by line of business:

(in millions)

| | 2019 Amount | 2019 % of total revenues | 2018 Amount | 2018 % of total revenues |
|---|---|---|---|---|
| VAS | 199,991 | 53% | 176,646 | 56% |
| FinTech and Business Services | 101,355 | 27% | 73,138 | 23% |
| Online Advertising | 68,377 | 18% | 58,079 | 19% |

Revenues from FinTech and Business Services increased by 39% year-on-year to RMB101.4 billion.
"""


def test_an_untitled_table_is_of_the_metric_its_columns_name(tmp_path) -> None:
    # No title, but each column is '% of total revenues': the rows are lines of revenue, and a change is computed
    # from the row's two years, not refused for want of a second figure beside the sentence's one.
    settings = ingested_typeset(tmp_path, "WOODGROVE_2019_20F.md", BY_LINE_OF_BUSINESS)
    answer = stated(ask_once(settings, "What is the year-on-year change in FinTech and Business Services revenue?"))
    assert "28,217" in answer, answer


def test_a_chunk_stored_before_its_sentences_were_read_has_them_read_when_used() -> None:
    # a store ingested by an older pipeline answers from its prose until re-ingested, as ingest would read it
    chunk = Chunk(chunk_id="x:2", doc_id="x", ordinal=2, section_id=0, page=0, page_end=0, char_start=0,
                  char_end=60, text="Capital expenditures were $437 million in 2024.")
    assert chunk.sentences is None
    (sentence,) = Evidence.from_chunk(chunk, "X_2024_10K").sentences
    assert [(f.value, f.scale, f.period) for f in sentence.figures] == [(437.0, 1e6, "FY2024")]


def test_figures_under_named_columns_carry_the_period_line_above_their_block() -> None:
    # The typed figure is the fact the reader states: under 'USD denominated | Non-USD denominated' its period is
    # the block's ('As at 31 December 2018'), set at ingest, so no reader derives it from the chunk's text again.
    page = (
        "Monetary assets by currency\n"
        "USD denominated | Non-USD denominated\n"
        "As at 31 December 2019\n"
        "Monetary assets, current | 27,728 | 2,899\n"
        "As at 31 December 2018\n"
        "Monetary assets, current | 18,041 | 1,994\n"
    )
    record = table_record(find_tables(page)[0], table_id="x:t0", page=0, offset=0, fy_end_month=12,
                          section=Section(section_id=0, title="Note 3", path=["Note 3"], kind="note"))
    figures = [[(f.value, f.period) for c in r.cells for f in c.figures] for r in record.rows if r.cells]
    assert figures == [[(27728.0, "FY2019"), (2899.0, "FY2019")], [(18041.0, "FY2018"), (1994.0, "FY2018")]]
