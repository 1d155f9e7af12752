"""Every grid table is a typed record (issue 58, items 1 and 3): the record is built at ingest, so the reader never
has to re-split a table's text to know which column a figure is under.

Two shapes left tables without a record, or a record without columns, and their figures were read from the
linearised text again: a grid table of one row under its header ('Interest expense | $2,082 | 3% | $2,025'), and
a contractual-obligations table whose columns are maturity buckets ('Less than 1 year | 1-3 years | ... | Total'),
whose names carry digits that are no figures. The filing is typeset here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ask_once, ingested_typeset, stated

from agent.finance.column_periods import is_span_label
from agent.index.store import Store
from agent.ingest.parsing import _markdown_pages
from agent.ingest.tables import find_tables
from agent.ingest.typed_tables import typed_columns

ONE_ROW = """
| | Year Ended May 31, | | |
|---|---|---|---|
| (Dollars in millions) | 2024 | Change | 2023 |
| Interest expense | $ 2,082 | 3% | $ 2,025 |

Interest expense increased in fiscal 2024 due to higher average borrowings.
"""

BUCKETS = """
The following table summarizes our contractual obligations as of September 28, 2024 (in thousands):

| | Payments due by period | | | | |
|---|---|---|---|---|---|
| | Less than 1 year | 1-3 years | 3-5 years | More than 5 years | Total |
| Long-term debt obligations | 38,480 | 109,436 | 327,400 | 1,725,584 | 2,200,900 |
| Operating leases | 18,528 | 33,162 | 27,199 | 63,616 | 142,505 |
| Purchase obligations: | | | | | |
| Purchase commitments to suppliers | 9,120 | 4,000 | 3,000 | 2,120 | 18,240 |
| Capital expenditure commitments | 1,100 | 900 | 200 | — | 2,200 |
| Total contractual obligations | 67,228 | 147,498 | 357,799 | 1,791,320 | 2,363,845 |
"""

PLANS = (
    "| Plan category | Number of securities to be issued upon exercise of outstanding options, warrants and rights (a) "
    "| Weighted-average exercise price of outstanding options, warrants and rights "
    "| Number of securities remaining available for future issuance under equity compensation plans (excluding "
    "securities reflected in column (a)) |\n"
    "|---|---|---|---|\n"
    "| Equity compensation plans approved by security holders | 448,859 | $ 41.20 | 4,087,587 |\n"
    "| Equity compensation plans not approved by security holders | — | — | — |\n"
)


def _table(markdown: str):
    (page,) = _markdown_pages(markdown)
    tables = find_tables(page)
    assert len(tables) == 1
    return tables[0]


def test_a_grid_table_of_one_row_is_a_table() -> None:
    table = _table(ONE_ROW)
    assert [r.label for r in table.data_rows] == ["Interest expense"]
    columns = typed_columns(table, 5)
    assert [(c.label, c.period, c.kind) for c in columns] == [
        ("2024", "FY2024", "period"), ("Change", "", "change"), ("2023", "FY2023", "period")]


def test_a_line_of_text_ending_in_a_figure_is_still_no_table() -> None:
    page = "Revenue for the year was as follows\nNet revenue 1,234\nThe increase reflects higher volume."
    assert find_tables(page) == []


def test_maturity_buckets_are_named_columns_of_no_one_period() -> None:
    table = _table(BUCKETS)
    columns = typed_columns(table, 9)
    assert [c.label for c in columns] == ["Less than 1 year", "1-3 years", "3-5 years", "More than 5 years", "Total"]
    assert [c.kind for c in columns] == ["span", "span", "span", "span", "name"]
    assert not any(c.period for c in columns)
    assert [r.label for r in table.data_rows][0] == "Long-term debt obligations"


@pytest.mark.parametrize("label", ["Less than 1 year", "1-3 years", "Years 3-5", "More than five years",
                                   "After 5 years", "2025 and thereafter", "2026 - 2027"])
def test_a_span_of_years_names_no_one_period(label: str) -> None:
    assert is_span_label(label)


@pytest.mark.parametrize("label", ["2024", "Three months ended March 31, 2024", "Total", "Fiscal 2023"])
def test_a_period_or_a_name_is_no_span(label: str) -> None:
    assert not is_span_label(label)


LEASES = """
| | Operating Leases | Finance Leases |
|---|---|---|
| 2025 | $ 138 | $ 6 |
| 2026 | 135 | 6 |
| Thereafter | 577 | 35 |
| Total future minimum lease payments | 850 | 47 |
"""

ONE_COLUMN = """
| | Operating leases |
|---|---|
| 2025 | 1,703 |
| 2026 | 1,371 |
| Total future minimum lease payments | 3,074 |
"""

DISCONTINUED = """
| (In thousands) | 2024 | 2023 |
|---|---|---|
| Major classes of line items constituting pretax profit (loss) of discontinued operations for the Clinicals and Revenue Cycle businesses: | | |
| Revenue | $ 9,441 | $ 10,949 |
| Cost of revenue | 4,040 | 5,044 |
"""

REPURCHASES = """
Issuer purchases of equity securities (in thousands, except per share amounts):

| | Total number of shares purchased | Average price paid per share | Amount paid |
|---|---|---|---|
| Fiscal Year 2023 | 217 | $ 6.33 | $ 1,374 |
| Fiscal Year 2024 | 211 | $ 2.55 | $ 538 |
"""


def test_rows_labelled_by_their_year_sit_under_named_columns() -> None:
    for markdown, names in ((LEASES, ["Operating Leases", "Finance Leases"]), (ONE_COLUMN, ["Operating leases"])):
        table = _table(markdown)
        assert [c.label for c in typed_columns(table, 5)] == names
        assert table.data_rows[0].label == "2025" and table.data_rows[0].cells[-1] in {"$6", "1,703"}


def test_a_long_line_under_the_header_is_the_table_s_first_sub_heading() -> None:
    table = _table(DISCONTINUED)
    assert [c.period for c in typed_columns(table, 12)] == ["FY2024", "FY2023"]
    assert [r.label for r in table.data_rows] == ["Revenue", "Cost of revenue"]


FILING = f"""# Contoso Instruments, Inc.

ANNUAL REPORT ON FORM 10-K
For the fiscal year ended May 31, 2024

## Item 7. Management's Discussion and Analysis

### Interest expense
{ONE_ROW}
### Contractual obligations
{BUCKETS}
### Leases
{LEASES}
### Discontinued operations
{DISCONTINUED}
### Foreign currency

| (in millions) | 2024 | 2023 |
|---|---|---|
| Foreign exchange loss | (42) | (15) |

## Item 5. Market for Registrant's Common Equity
{REPURCHASES}
## Item 12. Security Ownership of Certain Beneficial Owners and Management

### Equity compensation plan information
{PLANS}
"""


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory):
    return ingested_typeset(Path(tmp_path_factory.mktemp("grid")), "contoso-10k-2024.md", FILING)


def test_both_tables_are_stored_with_records_and_columns(settings) -> None:
    with Store(settings) as store:
        records = [c.table for c in store.chunks() if c.table is not None]
    labels = {tuple(c.label for c in r.columns) for r in records}
    assert ("2024", "Change", "2023") in labels
    assert ("Less than 1 year", "1-3 years", "3-5 years", "More than 5 years", "Total") in labels


def test_the_one_row_table_answers_its_years(settings) -> None:
    answer = stated(ask_once(settings, "What was Contoso's interest expense in fiscal 2023?"))
    assert "2,025" in answer and "2,082" not in answer


def test_a_bucket_is_read_under_its_own_column(settings) -> None:
    answer = stated(ask_once(settings, "How much of Contoso's long-term debt obligations is due in 1-3 years?"))
    assert "109,436" in answer
    assert "2,200,900" not in answer and "38,480" not in answer


def test_a_row_under_the_sub_heading_asked_is_a_part_of_it(settings) -> None:
    # 'Purchase obligations:' heads two rows and prints no total: neither row is the purchase obligations
    answer = stated(ask_once(settings, "What were Contoso's total purchase obligations?"))
    assert "18,240" not in answer and "2,200" not in answer
    share = stated(ask_once(settings, "What were purchase obligations as a percentage of total contractual obligations?"))
    assert "0.77" not in share and "0.8%" not in share  # 18,240 / 2,363,845: one row taken for the block


def test_a_long_column_name_is_named_by_the_words_that_tell_it_apart(settings) -> None:
    answer = stated(ask_once(settings, "What is the number of securities remaining available for future issuance "
                                       "under equity compensation plans approved by security holders?"))
    assert "4,087,587" in answer
    # the question that names no column of the three gets none of them
    vague = stated(ask_once(settings, "How many securities do Contoso's equity compensation plans approved by "
                                      "security holders have?"))
    assert "4,087,587" not in vague and "448,859" not in vague


def test_a_schedule_s_year_row_is_read_under_the_column_asked(settings) -> None:
    answer = stated(ask_once(settings, "What are Contoso's finance lease payments due in 2026?"))
    assert "6" in answer and "135" not in answer


def test_a_count_column_has_no_currency_and_a_price_column_no_scale(settings) -> None:
    count = stated(ask_once(settings, "What was the total number of shares Contoso purchased in fiscal year 2024?"))
    assert "211" in count and "$211" not in count
    price = stated(ask_once(settings, "What was the average price paid per share in fiscal year 2023?"))
    assert "$6.33" in price and "thousand" not in price


def test_a_table_stating_no_currency_is_in_the_filing_s(settings) -> None:
    answer = stated(ask_once(settings, "What was Contoso's foreign exchange loss in 2024?"))
    assert "$" in answer and "42" in answer


def test_an_index_read_by_an_older_pipeline_is_named_for_ingest_again(tmp_path: Path) -> None:
    from agent.ingest.pipeline import PIPELINE_VERSION
    from cli.common import stale_filings_notice

    settings = ingested_typeset(tmp_path, "contoso-10k-2024.md", FILING)
    assert stale_filings_notice(settings) == ""
    with Store(settings) as store:
        (doc,) = store.list_documents()
        store.update_metadata(doc.name, pipeline_version="53")
    notice = stale_filings_notice(settings)
    assert "1 filing was indexed by an older finrag (contoso-10k-2024)" in notice
    assert "finrag ingest" in notice and f"pipeline {PIPELINE_VERSION}" in notice
