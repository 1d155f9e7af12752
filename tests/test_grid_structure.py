"""A grid table (Markdown, HTML) states its structure: which cell labels the row, which line heads the columns,
where each cell is. Read as printed, three layouts lost it: a cell of words among the figures ('2039 or
indefinite') kept the whole row as one label with no figure; a row labelled by its year in the grid's first
column ('2014 | 385,373') lost its label; a header of names and no period ('Citi | S&P 500 | S&P Financials')
named no column, so the reader guessed the names from the chunk's text again. Each is now typed at ingest, and
the reader takes a figure's column from the typed row only."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.index.store import Store
from agent.ingest.parsing import load_pages
from agent.ingest.tables import find_tables
from agent.ingest.typed_tables import table_record
from agent.schemas import Section, TableRecord

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Fabrikam Utilities, Inc.

FORM 10-K

For the fiscal year ended December 31, 2024

Fabrikam Utilities, Inc.
(Exact name of registrant as specified in its charter)

## Item 5. Market for Registrant's Common Equity

### Performance Graph

The table compares the cumulative total return on Fabrikam common stock with two indices.

Cumulative Total Return

| | Fabrikam | S&P 500 | S&P Utilities |
|---|---|---|---|
| December 31, 2022 | 100.0 | 100.0 | 100.0 |
| December 31, 2023 | 131.8 | 132.4 | 135.6 |
| December 31, 2024 | 152.3 | 170.8 | 188.9 |

## Item 8. Financial Statements and Supplementary Data

### Note 9. Income Taxes

The amount and expiration dates of income tax net operating loss carryforwards and tax credit carryforwards as
of December 31, 2024 are as follows:

| (dollars in thousands) | Last Fiscal Year of Expiration | Amount |
|---|---|---|
| Income tax net operating loss carryforwards: | | |
| Domestic-state | 2039 | $57,299 |
| Foreign | 2039 or indefinite | $565,609 |
| Tax credit carryforwards: | | |
| Domestic-federal | 2029 | $39,784 |
| Foreign | 2027 or indefinite | $15,345 |

### Note 11. Long-Term Debt

Long-term debt consists of first mortgage bonds and senior notes issued by the company and its utility subsidiaries, which mature at various dates through 2054. The annual long-term debt maturities for debt outstanding as of December 31, 2024 are as follows:

| | Amount (in thousands) |
|---|---|
| 2025 | 385,373 |
| 2026 | 1,110,566 |
| 2027 | 270,852 |
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("grid"), "FABRIKAM_2024_10K.md", FILING)


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[TableRecord]:
    path = tmp_path_factory.mktemp("typed") / "FABRIKAM_2024_10K.md"
    path.write_text(FILING)
    section = Section(section_id=0, title="Notes", path=["Notes"], kind="note")
    return [table_record(t, table_id=f"x:t{i}", page=0, offset=0, section=section, fy_end_month=12)
            for page in load_pages(path, Settings()).pages
            for i, t in enumerate(find_tables(page.text, page.runs, page.grid, page.grid_tables))]


def _table(records: list[TableRecord], label: str) -> TableRecord:
    return next(r for r in records if any(row.label == label for row in r.rows))


def test_a_cell_of_words_among_figures_keeps_the_row(records: list[TableRecord]) -> None:
    table = _table(records, "Domestic-state")
    foreign = [row for row in table.rows if row.label == "Foreign"]
    assert len(foreign) == 2 and all(row.cells for row in foreign)  # not one label of the whole line
    assert [c.text for c in foreign[0].cells] == ["2039 or indefinite", "$565,609"]
    assert [c.label for c in table.columns] == ["Last Fiscal Year of Expiration", "Amount"]
    assert all(c.kind == "name" for c in table.columns)
    assert foreign[0].parent.startswith("Income tax net operating loss") and foreign[1].parent.startswith("Tax credit")


def test_the_grids_first_column_labels_the_row_whatever_it_prints(records: list[TableRecord]) -> None:
    table = _table(records, "2026")
    assert [row.label for row in table.rows] == ["2025", "2026", "2027"]
    assert [f.value for row in table.rows for c in row.cells for f in c.figures] == [385373, 1110566, 270852]


def test_a_header_of_names_without_a_period_names_the_columns(records: list[TableRecord]) -> None:
    table = _table(records, "December 31, 2024")
    assert [(c.label, c.kind) for c in table.columns] == [
        ("Fabrikam", "name"), ("S&P 500", "name"), ("S&P Utilities", "name")]
    row = next(r for r in table.rows if r.label == "December 31, 2024")
    assert {table.columns[c.column].label: c.text for c in row.cells}["S&P Utilities"] == "188.9"
    assert table.title != "Fabrikam"  # the first column's name is no stub: the header's first cell is blank


def test_a_tables_header_line_is_in_its_chunk_not_the_prose(home: Settings) -> None:
    with Store.open(home, search_files=False) as store:
        prose = [c.text for c in store.chunks() if c.table is None]
    assert not any("|" in line for text in prose for line in text.splitlines()[1:]), prose


@pytest.mark.parametrize(("question", "figure"), [
    ("What was the cumulative total return on Fabrikam common stock at December 31, 2024?", "152.3"),
    ("What are Fabrikam's annual long-term debt maturities in 2026?", "1,110,566"),
    ("What was Fabrikam's foreign income tax net operating loss carryforward amount at December 31, 2024?",
     "565,609"),
    # a name with a glued '&' ('S&P') is written by the column that prints it: an index, not an unknown company
    ("What was the value of the S&P Utilities index at December 31, 2024?", "188.9"),
    ("What was the cumulative total return of the S&P 500 at December 31, 2023?", "132.4"),
])
def test_typed_grid_figures_are_answered(home: Settings, question: str, figure: str) -> None:
    answer = stated(ask_once(home, question))
    assert figure in answer, answer


def test_an_index_the_table_does_not_print_is_refused(home: Settings) -> None:
    answer = ask_once(home, "What was the Dow Jones Utilities cumulative total return at December 31, 2024?")
    assert answer.startswith("Not found") and "188.9" not in stated(answer), answer


def test_a_column_named_by_a_date_row_is_not_another_columns_figure(home: Settings) -> None:
    answer = stated(ask_once(home, "What was the cumulative total return on Fabrikam common stock at December 31, 2023?"))
    assert "131.8" in answer and "132.4" not in answer and "135.6" not in answer, answer


def test_the_reader_takes_the_column_from_the_typed_row(home: Settings) -> None:
    from agent.answer.reading import Evidence, EvidenceReader

    with Store.open(home, search_files=False) as store:
        chunk = next(c for c in store.chunks() if c.table is not None and "S&P 500" in c.text)
    # Without the header line in the chunk's text, the columns' names can only come from the typed record.
    text = "\n".join("" if "columns:" in line else line for line in chunk.text.split("\n"))
    reader = EvidenceReader([Evidence(chunk_id=chunk.chunk_id, doc_name="FABRIKAM_2024_10K", text=text,
                                      table=chunk.table)])
    figures = {(seg.label, n.column): n.value for seg in reader.segments if seg.row is not None for n in seg.numbers}
    assert figures[("December 31, 2023", "S&P Utilities")] == 135.6


def test_a_column_of_years_holds_years_not_amounts(records: list[TableRecord]) -> None:
    table = _table(records, "Domestic-state")
    expiry = [f for row in table.rows for c in row.cells if table.columns[c.column].label.startswith("Last")
              for f in c.figures]
    amounts = [f for row in table.rows for c in row.cells if table.columns[c.column].label == "Amount"
               for f in c.figures]
    assert [f.value for f in expiry] == [2039, 2039, 2029, 2027] and all(f.unit == "" and f.scale == 1 for f in expiry)
    assert all(f.scale == 1000 and f.unit == "USD" for f in amounts)  # the table's scale and currency stay theirs


FEES = """# Fabrikam Utilities, Inc.

## Item 14. Principal Accountant Fees and Services

| | December 31, 2024 | December 31, 2023 |
|---|---|---|
| Audit Fees | $1,250,000 | $1,180,000 |
| Audit-Related Fees | $- | $- |
| Tax Fees | $85,000 | $- |
"""


def test_a_dash_after_a_currency_sign_is_a_nil_cell(tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("fees") / "FABRIKAM_2024_10K.md"
    path.write_text(FEES)
    page = load_pages(path, Settings()).pages[0]
    (table,) = find_tables(page.text, page.runs, page.grid, page.grid_tables)
    rows = {r.label: r.cells for r in table.rows}
    assert rows["Audit-Related Fees"] == ["$-", "$-"] and rows["Tax Fees"] == ["$85,000", "$-"]


# Two grid tables with only a note's heading and a short introduction between them: no prose paragraph parts them,
# so only the writer's mark of which table a line is a row of keeps them two.
STACKED = """# Fabrikam Utilities, Inc.

## Item 8. Financial Statements and Supplementary Data

### Note 10. Leases

| (in thousands) | 2024 | 2023 |
|---|---|---|
| Operating lease cost | 41,250 | 38,900 |
| Finance lease cost | 6,410 | 5,980 |

### Note 11. Long-Term Debt

Annual maturities:

| | Amount (in thousands) |
|---|---|
| 2025 | 385,373 |
| 2026 | 1,110,566 |
| 2027 | 270,852 |
"""


def _stacked_page(tmp_path_factory: pytest.TempPathFactory, suffix: str, text: str):  # noqa: ANN202
    path = tmp_path_factory.mktemp("stacked") / f"FABRIKAM_2024_10K.{suffix}"
    path.write_text(text)
    return load_pages(path, Settings()).pages[0]


def test_two_grid_tables_one_after_the_other_stay_two(tmp_path_factory: pytest.TempPathFactory) -> None:
    page = _stacked_page(tmp_path_factory, "md", STACKED)
    leases, maturities = find_tables(page.text, page.runs, page.grid, page.grid_tables)
    assert [r.label for r in leases.rows] == ["Operating lease cost", "Finance lease cost"]
    assert [r.label for r in maturities.rows] == ["2025", "2026", "2027"]
    section = Section(section_id=0, title="Notes", path=["Notes"], kind="note")
    record = table_record(maturities, table_id="x:t1", page=0, offset=0, section=section, fy_end_month=12)
    assert not record.columns and record.title.startswith("Annual maturities")  # not under the leases' 2024 | 2023
    assert record.scale == 1000
    assert [f.value for row in record.rows for c in row.cells for f in c.figures] == [385373, 1110566, 270852]


def test_two_html_tables_one_after_the_other_stay_two(tmp_path_factory: pytest.TempPathFactory) -> None:
    html = (
        "<html><body><h3>Note 10. Leases</h3><table>"
        "<tr><td>(in thousands)</td><td>2024</td><td>2023</td></tr>"
        "<tr><td>Operating lease cost</td><td>41,250</td><td>38,900</td></tr>"
        "<tr><td>Finance lease cost</td><td>6,410</td><td>5,980</td></tr></table>"
        "<h3>Note 11. Long-Term Debt</h3><p>Annual maturities:</p><table>"
        "<tr><td></td><td>Amount (in thousands)</td></tr>"
        "<tr><td>2025</td><td>385,373</td></tr><tr><td>2026</td><td>1,110,566</td></tr>"
        "<tr><td>2027</td><td>270,852</td></tr></table></body></html>"
    )
    page = _stacked_page(tmp_path_factory, "html", html)
    tables = find_tables(page.text, page.runs, page.grid, page.grid_tables)
    assert [[r.label for r in t.rows] for t in tables] == [
        ["Operating lease cost", "Finance lease cost"], ["2025", "2026", "2027"]]


def test_the_stacked_tables_figures_are_answered(tmp_path_factory: pytest.TempPathFactory) -> None:
    home = ingested_typeset(tmp_path_factory.mktemp("stacked-home"), "FABRIKAM_2024_10K.md", STACKED)
    answer = stated(ask_once(home, "What are Fabrikam's annual long-term debt maturities in 2026?"))
    assert "1,110,566" in answer, answer
