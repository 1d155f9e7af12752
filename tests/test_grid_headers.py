"""A grid table's header read column by column (issue 29, item 1: headings carried from ingest to answer).

A Markdown table keeps its grid, but the header of a filing's table is often printed over several rows: a period
caption spanning the years, years over groups of named columns ('Amount | % of revenue'), a units row, a title
over the years, a 'Note' column of references, years with a footnote mark glued on. Written out line by line with
the empty cells dropped, those rows lost which column each name sat over, and the table's values had no periods.
The filing is typeset here; each shape is one the table reader met in filings of other companies.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.index.store import Store
from agent.ingest.grid import clean_header_cell, fold_header, is_figure
from agent.ingest.parsing import _markdown_pages, load_pages
from agent.ingest.tables import find_tables
from agent.ingest.typed_tables import typed_columns
from agent.schemas import TableRecord


def _columns(markdown: str) -> list[tuple[str, str, str]]:
    """(label, period, kind) of each column of the one table in ``markdown``."""
    (page,) = _markdown_pages(markdown)
    (table,) = find_tables(page)
    return [(c.label, c.period, c.kind) for c in typed_columns(table, 0)]


def _grid(markdown: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in markdown.strip().splitlines() if not line.startswith("|---")]


# -------------------------------------------------------------------------------------------------------
# The fold
# -------------------------------------------------------------------------------------------------------
GROUPED = """
| | Fiscal years ended July 31, | | | | | |
|---|---|---|---|---|---|---|
| | 2019 | | 2018 | | Change | |
| | Amount | % of total revenue | Amount | % of total revenue | ($) | (%) |
| | | (In thousands, except percentages) | | | | |
| Subscription | $ 21,850 | 48.1% | $ 17,332 | 46.9% | $ 4,518 | 26.1% |
| Professional services | 23,575 | 51.9 | 19,622 | 53.1 | 3,953 | 20.1 |
"""


def test_group_captions_head_the_columns_of_their_group() -> None:
    folded, at = fold_header(_grid(GROUPED))
    assert at is not None
    assert folded[at][1:] == ["2019 Amount", "2019 % of total revenue", "2018 Amount", "2018 % of total revenue",
                              "Change", "Change (%)"]
    # The period caption stays a line above the names, the scale line below them, as printed.
    assert folded[:at] == [["Fiscal years ended July 31,"]]
    assert folded[at + 1] == ["(In thousands, except percentages)"]


def test_grouped_columns_are_typed_each_with_its_year_and_unit() -> None:
    columns = _columns(GROUPED)
    assert columns == [
        ("2019 Amount", "FY2019", "period"), ("2019 % of total revenue", "FY2019", "period"),
        ("2018 Amount", "FY2018", "period"), ("2018 % of total revenue", "FY2018", "period"),
        ("Change", "", "change"), ("Change (%)", "", "change"),
    ]


def test_a_name_wrapped_over_two_rows_stays_over_its_own_column() -> None:
    # '% of total' over 'revenues' is one name in two rows, not a caption of the 'Amount' column beside it.
    folded, at = fold_header(_grid("""
| | 2019 | | 2018 | |
|---|---|---|---|---|
| | | % of total | | % of total |
| | Amount | revenues | Amount | revenues |
| VAS | 199,991 | 53% | 176,646 | 56% |
"""))
    assert at is not None
    assert folded[at][1:] == ["2019 Amount", "2019 % of total revenues", "2018 Amount", "2018 % of total revenues"]


@pytest.mark.parametrize(("header", "periods"), [
    ("| (in millions) | 2019 | 2018 (4) | 2017 (4) |", ["FY2019", "FY2018", "FY2017"]),  # a footnote mark
    ("| | 2019 | 20181 | 2017 |", ["FY2019", "FY2018", "FY2017"]),  # the mark's digit glued to the year
    ("| Currency | FY 2019 ` | FY 2018 ` | FY 2017 ` |", ["FY2019", "FY2018", "FY2017"]),
    ("| | April 27, 2019 (1) | April 28, 2018 (2) | April 29, 2017 (3) |", ["FY2019", "FY2018", "FY2017"]),
])
def test_a_year_keeps_its_footnote_mark_out_of_the_period(header: str, periods: list[str]) -> None:
    markdown = f"{header}\n|---|---|---|---|\n| Net sales | $1,000.3 | $908.3 | $816.5 |\n| Cost of sales | 600.1 | 500.2 | 450.3 |\n"
    assert [period for _, period, _ in _columns(markdown)] == periods


@pytest.mark.parametrize(("header", "periods"), [
    ("| € million | 30/9/2018 | 30/9/2019 |", ["FY2018", "FY2019"]),  # day first: the fiscal year ends in September
    ("| € million | 2017/2018 | 2018/2019 |", ["FY2018", "FY2019"]),  # a fiscal year over two calendar years
    ("| £m | 2017/18 | 2018/19 |", ["FY2018", "FY2019"]),
])
def test_dates_and_fiscal_years_written_outside_the_us_are_periods(header: str, periods: list[str]) -> None:
    markdown = f"{header}\n|---|---|---|\n| Provisions | 344 | 414 |\n| Financial assets | 88 | 97 |\n"
    assert [period for _, period, _ in _columns(markdown)] == periods


def test_a_change_printed_with_its_plus_sign_is_a_value() -> None:
    columns = _columns("""
| BCE retail subscribers | | | |
|---|---|---|---|
| (millions) | 2019 | 2018 | Change |
| Wireless | 9.96 | 9.61 | +3.6% |
| High-speed Internet | 3.56 | 3.41 | +4.3% |
""")
    assert columns == [("2019", "FY2019", "period"), ("2018", "FY2018", "period"), ("Change", "", "change")]


def test_a_title_over_the_years_and_a_units_row_are_no_column_names() -> None:
    columns = _columns("""
| | Consolidated | |
|---|---|---|
| | 2019 | 2018 |
| | US$000 | US$000 |
| Software license revenue | 82,575 | 64,420 |
| Subscription and maintenance revenue | 64,955 | 56,996 |
""")
    assert [(label, period) for label, period, _ in columns] == [("2019", "FY2019"), ("2018", "FY2018")]


UNITS_ROW_FILING = """# Contoso Group plc

Annual Report for the year ended 31 March 2019

## 6 Segment information continued

|  | Year-ended 31 March 2019 | Year-ended 31 March 2018 |
|---|---|---|
| Revenue from external customers by country | $M | $M |
| UK | 83.2 | 73.5 |
| USA | 222.2 | 199.0 |
| Germany | 143.5 | 128.4 |
| Total revenue from external customers by country | 448.9 | 400.9 |
"""


def test_a_units_row_with_a_label_heads_the_rows_and_scales_the_table() -> None:
    # 'Revenue from external customers by country | $M | $M': the label says what every row below is, the units
    # cells the table's scale; neither is a row of figures nor a column's name
    (page,) = _markdown_pages(UNITS_ROW_FILING)
    (table,) = find_tables(page)
    assert table.stub == "Revenue from external customers by country"
    assert table.title.endswith("Revenue from external customers by country")
    assert table.scale == 1e6
    assert [r.label for r in table.rows][:3] == ["UK", "USA", "Germany"]


def test_a_country_row_under_a_revenue_stub_is_that_countrys_revenue(tmp_path: Path) -> None:
    settings = ingested_typeset(tmp_path, "CONTOSO_2019_AR.md", UNITS_ROW_FILING)
    answer = ask_once(settings, "What was Contoso's revenue from the UK in 2019?")
    assert "$83.2 million" in stated(answer) and "FY2019" in answer


def test_a_note_column_holds_references_not_figures() -> None:
    (page,) = _markdown_pages("""
| | | 30 June 2019 | 30 June 2018 |
|---|---|---|---|
| | Note | $'000 | $'000 |
| Finance costs | 4(a) | (54,897) | (25,803) |
| Operating profit | 6 | 243,700 | 221,300 |
""")
    (table,) = find_tables(page)
    assert [c.period for c in typed_columns(table, 6)] == ["FY2019", "FY2018"]
    profit = next(r for r in table.rows if r.label == "Operating profit")
    assert profit.cells == ["243,700", "221,300"]


def test_a_day_printed_over_the_years_dates_each_column() -> None:
    columns = _columns("""
| | December 31, | | |
|---|---|---|---|
| | 2019 | 2018 | Change |
| Accrued payroll | $116.9 | $105.9 | 10% |
| Derivative liabilities | 93.8 | 120.5 | (22)% |
""")
    assert columns == [("December 31, 2019", "FY2019", "period"), ("December 31, 2018", "FY2018", "period"),
                       ("Change", "", "change")]


def test_a_header_that_cannot_be_read_column_by_column_is_left_as_it_was() -> None:
    # Two years over four values with no names under them: which value is whose is not known; nothing is guessed.
    rows = _grid("""
| | 2019 | | 2018 | |
|---|---|---|---|---|
| Revenue | 1,200 | 60% | 1,000 | 55% |
""")
    folded, at = fold_header(rows)
    assert at is None and folded == rows


@pytest.mark.parametrize(("cell", "figure"), [
    ("$ 1,452.4", True), ("(141,770)", True), ("+3.6%", True), ("—", True), ("US$12", True),
    ("2019", False), ("US$000", False), ("$'000", False), ("1 to 4", False), ("4(a)", False), ("Amount", False),
])
def test_a_figure_is_a_number_with_only_its_sign_currency_and_unit(cell: str, figure: bool) -> None:
    assert is_figure(cell) is figure


def test_header_cells_are_cleaned_of_marks_and_glued_dates() -> None:
    assert clean_header_cell("2018 (4)") == "2018"
    assert clean_header_cell("August 31,2019") == "August 31, 2019"
    assert clean_header_cell("December31,") == "December 31,"
    assert clean_header_cell("FY 2019 `") == "FY 2019"


# -------------------------------------------------------------------------------------------------------
# HTML: the grid from colspans, the symbol and spacer columns EDGAR adds removed
# -------------------------------------------------------------------------------------------------------
EDGAR_TABLE = """<html><body><p>Revenue</p><table>
<tr><td></td><td colspan="9">Fiscal years ended July 31,</td></tr>
<tr><td></td><td colspan="4">2019</td><td colspan="3">2018</td><td colspan="3">Change</td></tr>
<tr><td></td><td colspan="2">Amount</td><td colspan="2">% of total revenue</td><td colspan="2">Amount</td>
<td>% of total revenue</td><td colspan="2">($)</td><td>(%)</td></tr>
<tr><td>Subscription</td><td>$</td><td>21,850</td><td>48.1</td><td>%</td><td>$</td><td>17,332</td><td>46.9</td>
<td>$</td><td>4,518</td><td>26.1</td></tr>
<tr><td>Professional services</td><td></td><td>23,575</td><td>51.9</td><td></td><td></td><td>19,622</td><td>53.1</td>
<td></td><td>3,953</td><td>20.1</td></tr>
</table></body></html>"""


def _html_columns(tmp_path: Path, settings: Settings, html: str) -> list[tuple[str, str, str]]:
    path = tmp_path / "filing.htm"
    path.write_text(html, encoding="utf-8")
    (table,) = [t for page in load_pages(path, settings).pages for t in find_tables(page.text)]
    return [(c.label, c.period, c.kind) for c in typed_columns(table, 0)]


def test_an_edgar_header_over_several_rows_is_read_from_its_colspans(tmp_path: Path, settings: Settings) -> None:
    assert _html_columns(tmp_path, settings, EDGAR_TABLE) == [
        ("2019 Amount", "FY2019", "period"), ("2019 % of total revenue", "FY2019", "period"),
        ("2018 Amount", "FY2018", "period"), ("2018 % of total revenue", "FY2018", "period"),
        ("Change", "", "change"), ("Change (%)", "", "change"),
    ]


def test_an_edgar_header_of_one_row_is_written_as_before(tmp_path: Path, settings: Settings) -> None:
    html = """<table><tr><td></td><td colspan="3">2024</td><td colspan="3">2023</td></tr>
<tr><td>Net sales</td><td>$</td><td>5,245</td><td></td><td>$</td><td>4,870</td><td></td></tr>
<tr><td>Net loss</td><td>$</td><td>(120</td><td>)</td><td>$</td><td>(95</td><td>)</td></tr></table>"""
    path = tmp_path / "one.htm"
    path.write_text(html, encoding="utf-8")
    text = load_pages(path, settings).pages[0].text
    assert text.splitlines() == ["2024 | 2023", "Net sales | $5,245 | $4,870", "Net loss | $(120) | $(95)"]


def test_a_grid_that_would_lose_a_body_cell_is_not_used(tmp_path: Path, settings: Settings) -> None:
    # The labels sit in a second column after an empty spacer: reading the grid would drop them; the rows are
    # written as they are.
    html = EDGAR_TABLE.replace("<tr><td>Subscription", "<tr><td></td><td>Subscription").replace(
        "<tr><td>Professional", "<tr><td></td><td>Professional")
    path = tmp_path / "spacer.htm"
    path.write_text(html, encoding="utf-8")
    text = load_pages(path, settings).pages[0].text
    assert "Subscription | $21,850 | 48.1% | $17,332 | 46.9 | $4,518 | 26.1" in text.splitlines()


@pytest.mark.parametrize("colspan", ["abc", "-3", "100000"])
def test_a_broken_colspan_is_read_as_one_column_or_capped(tmp_path: Path, settings: Settings, colspan: str) -> None:
    html = EDGAR_TABLE.replace('colspan="9"', f'colspan="{colspan}"')
    columns = _html_columns(tmp_path, settings, html)
    assert [period for _, period, _ in columns][:4] == ["FY2019", "FY2019", "FY2018", "FY2018"]


# -------------------------------------------------------------------------------------------------------
# From ingest to answer
# -------------------------------------------------------------------------------------------------------
FILING = """# Wingtip Analytics, Inc.

ANNUAL REPORT ON FORM 10-K
For the fiscal year ended July 31, 2019

## Item 7. Management's Discussion and Analysis

### Revenue

| | Fiscal years ended July 31, | | | | | |
|---|---|---|---|---|---|---|
| | 2019 | | 2018 | | Change | |
| | Amount | % of total revenue | Amount | % of total revenue | ($) | (%) |
| | | (In thousands, except percentages) | | | | |
| Subscription | $ 21,850 | 48.1 | $ 17,332 | 46.9 | $ 4,518 | 26.1 |
| Professional services | 23,575 | 51.9 | 19,622 | 53.1 | 3,953 | 20.1 |
| Total revenue | $ 45,425 | 100.0 | $ 36,954 | 100.0 | $ 8,471 | 22.9 |

### Research and development

| | Change between fiscal | |
|---|---|---|
| (In thousands) | 2019 and 2018 | 2018 and 2017 |
| Payroll and payroll-related benefits | $ 2,629 | $ 3,119 |
| Facilities | (775) | 834 |
| Total change in research and development expenses | $ 1,854 | $ 3,953 |
"""


@pytest.fixture(scope="module")
def wingtip(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("wingtip"), "WINGTIP_2019_10K.md", FILING)


def _record(settings: Settings, row: str) -> TableRecord:
    """The stored record of the table with a row labelled ``row``."""
    with Store(settings) as store:
        return next(c.table for c in store.chunks()
                    if c.table is not None and any(r.label == row for r in c.table.rows))


def test_the_stored_record_types_each_grouped_column(wingtip: Settings) -> None:
    record = _record(wingtip, "Subscription")
    assert [(c.period, c.kind, c.unit) for c in record.columns] == [
        ("FY2019", "period", ""), ("FY2019", "period", "%"), ("FY2018", "period", ""), ("FY2018", "period", "%"),
        ("", "change", ""), ("", "change", "%"),
    ]


@pytest.mark.parametrize(("question", "figure", "others"), [
    ("What was Wingtip's professional services revenue in fiscal 2018?", "19,622", ["23,575", "51.9"]),
    ("What was Wingtip's subscription revenue in 2019?", "21,850", ["48.1", "17,332"]),
])
def test_the_amount_of_the_year_asked_is_read_not_its_share_or_the_first_value(
    wingtip: Settings, question: str, figure: str, others: list[str]
) -> None:
    answer = stated(ask_once(wingtip, question))
    assert figure in answer and not any(o in answer for o in others), answer


def test_a_column_of_two_years_is_no_period_s(wingtip: Settings) -> None:
    record = _record(wingtip, "Facilities")
    assert [(c.label, c.period) for c in record.columns] == [("2019 and 2018", ""), ("2018 and 2017", "")]
    # The change between two years is neither year's expense: nothing here is the 2019 figure.
    answer = ask_once(wingtip, "What were Wingtip's total research and development expenses in fiscal 2019?")
    assert answer.startswith("Not found") and "1,854" not in stated(answer), answer
