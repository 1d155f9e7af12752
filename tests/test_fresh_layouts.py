"""Figures a filing prints that an analyst asks in their own terms: a span written by its count ('9M25', '6M FY25'),
quarter columns under the one year their header's first cell names ('Fiscal 2024 | First Quarter | ...'), a
bank's percentages named after an amount ('net interest margin', 'CET1 ratio'), which are no amounts of it, a
part as a share of the total, where the total is the whole's and not the part's, and a row asked by its acronym
('CRE loans' for 'Commercial real estate')."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.answer.provenance import spelled_out
from agent.config import Settings
from agent.finance.lexicon import figure_kind, find_metrics
from agent.finance.periods import find_periods
from agent.index.store import Store
from agent.ingest.columns import dated_names
from agent.query.scope import scope_terms

pytestmark = pytest.mark.usefixtures("no_yfinance")

REPORT = """# Harborview Packaging Corp.

FORM 10-K

For the fiscal year ended September 30, 2024

Harborview Packaging Corp.
(Exact name of registrant as specified in its charter)

## Item 7. Management's Discussion and Analysis

### Consolidated Results

(In millions)

| Fiscal years ended September 30, | 2024 | 2023 |
|---|---|---|
| Net sales | 5,410 | 5,220 |
| Operating income | 602 | 571 |

### Net Sales by Geographic Region

(In millions)

| | 2024 | 2023 |
|---|---|---|
| North America | 3,220 | 3,130 |
| Europe | 1,470 | 1,420 |
| Asia Pacific | 720 | 670 |
| Total | 5,410 | 5,220 |

### Selected Quarterly Financial Data (Unaudited)

(In millions)

| Fiscal 2024 | First Quarter | Second Quarter | Third Quarter | Fourth Quarter |
|---|---|---|---|---|
| Net sales | 1,301 | 1,322 | 1,388 | 1,399 |
| Operating income | 139 | 147 | 155 | 161 |
"""

BANK = """# Quayside Bancorp

FORM 10-Q

For the quarterly period ended June 30, 2025

Quayside Bancorp
(Exact name of registrant as specified in its charter)

### Consolidated Statements of Income (Unaudited)

(In thousands)

| | Three Months Ended June 30, 2025 | Three Months Ended June 30, 2024 | Six Months Ended June 30, 2025 |
|---|---|---|---|
| Net interest income | 88,410 | 80,020 | 259,300 |
| Net income | 31,200 | 28,450 | 90,870 |

### Loans

(In thousands)

| | June 30, 2025 | December 31, 2024 |
|---|---|---|
| Commercial and industrial | 2,410,300 | 2,355,120 |
| Commercial real estate | 3,120,450 | 3,090,800 |
| Consumer | 610,220 | 640,310 |
| Total loans | 6,140,970 | 6,086,230 |

### Management's Discussion and Analysis

The net interest margin was 3.18% for the second quarter of 2025, compared with 3.02% a year earlier. The Common
Equity Tier 1 capital ratio was 12.4% at June 30, 2025.
"""


def test_a_span_written_by_its_count() -> None:
    def norms(text: str) -> list[str]:
        return [p.norm for p in find_periods(text)]

    assert norms("op income 9M25") == ["FY2025M9"]
    assert norms("NII 6M FY25") == ["FY2025H1"]
    assert norms("3Q24 revenue") == ["FY2024Q3"] and norms("1H 2023 sales") == ["FY2023H1"]
    # no span: a company named 3M, an amount in millions, a count no span has
    assert norms("3M 2018 capex") == ["FY2018"]
    assert norms("a $9M 2020 charge") == ["FY2020"]
    assert norms("5Q25") == []
    # a (fiscal) year-end written short is the year, whole: no word of it is left to read as a part
    assert [(p.norm, p.start) for p in find_periods("headcount at FYE 2024")] == [("FY2024", 13)]
    assert norms("FYE24 revenue") == ["FY2024"]


def test_year_to_date_is_no_measure_of_the_metric() -> None:
    assert [t.kind for t in scope_terms("What was Europe revenue YTD 2025?")] == ["part"]
    assert [(t.text, t.kind) for t in scope_terms("What was the capex budget for 2025?")] == [("budget", "measure")]


def test_quarter_columns_take_the_year_their_header_names() -> None:
    assert dated_names(["First Quarter", "Fourth Quarter"], "Fiscal 2024") == [
        "First Quarter Fiscal 2024", "Fourth Quarter Fiscal 2024"]
    assert dated_names(["2024", "2023"], "Fiscal 2024") == ["2024", "2023"]  # columns with years keep them
    assert dated_names(["Q1", "Q4"], "Fiscal 2024") == ["Q1 Fiscal 2024", "Q4 Fiscal 2024"]


def test_bare_quarter_names_head_their_columns_under_the_corners_year(tmp_path) -> None:
    # 'Fiscal 2024 | Q1 | Q2 | Q3 | Q4' had been read as one 'Fiscal 2024' column: the first quarter's figures typed
    # as the whole year's
    settings = ingested_typeset(tmp_path, "KESTREL_2024_10K.md", QUARTERS)
    with Store.open(settings) as store:
        record = next(c.table for c in store.chunks() if c.table is not None)
    assert [c.period for c in record.columns] == ["FY2024Q1", "FY2024Q2", "FY2024Q3", "FY2024Q4"]


def test_bank_percentages_are_metrics_of_their_own() -> None:
    assert [m.canonical for m in find_metrics("NIM Q2 2025")] == ["net interest margin"]
    assert [m.canonical for m in find_metrics("CET1 ratio")] == ["common equity tier 1 ratio"]
    assert figure_kind("net interest margin") == "percent" and figure_kind("net interest income") == "money"


QUARTERS = """# Kestrel Outdoor Brands, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

### Quarterly Results (Unaudited)

(In millions)

| Fiscal 2024 | Q1 | Q2 | Q3 | Q4 |
|---|---|---|---|---|
| Net sales | 903 | 1,081 | 1,198 | 944 |
| Operating income | 121 | 247 | 312 | 138 |
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("quarters"), "HARBORVIEW_2024_10K.md", REPORT)


@pytest.fixture(scope="module")
def bank(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("bank"), "QUAYSIDE_2025Q2_10Q.md", BANK)


def test_a_quarter_column_under_its_fiscal_year(report: Settings) -> None:
    answer = ask_once(report, "What were Harborview's fourth quarter fiscal 2024 net sales?")
    assert "1,399" in answer and "Not found" not in answer, answer
    answer = ask_once(report, "Harborview Q2 FY24 operating income")
    assert "147" in answer and "Not found" not in answer, answer


def test_the_year_is_not_read_for_its_quarter(report: Settings) -> None:
    answer = ask_once(report, "What were Harborview's net sales in fiscal 2024?")
    assert "5,410" in answer and "1,399" not in answer, answer


def test_six_months_in_shorthand(bank: Settings) -> None:
    answer = ask_once(bank, "Quayside net income 6M25")
    assert "90,870" in answer and "31,200" not in answer, answer


def test_the_net_interest_margin_is_a_percentage(bank: Settings) -> None:
    answer = ask_once(bank, "What was Quayside's net interest margin in Q2 2025?")
    assert "3.18%" in answer and "88,410" not in answer, answer
    answer = ask_once(bank, "Quayside NII Q2 2025")
    assert "88,410" in answer, answer


def test_a_capital_ratio_by_its_acronym(bank: Settings) -> None:
    answer = ask_once(bank, "What was Quayside's CET1 ratio at June 30, 2025?")
    assert "12.4" in answer and "Not found" not in answer, answer


def test_a_part_as_a_share_of_the_total(report: Settings) -> None:
    # the turn's 'total' names the whole; the part's own row answers for the part
    answer = ask_once(report, "Asia Pacific as a share of Harborview's total net sales in fiscal 2024?")
    assert "13.31%" in answer and "720 / 5,410" in answer, answer
    answer = ask_once(report, "What were Harborview's total net sales in fiscal 2024?")
    assert "5,410" in answer and "3,220" not in answer, answer


def test_an_acronym_asked_is_the_row_that_spells_it(bank: Settings) -> None:
    assert spelled_out("cre", "Commercial real estate") == ["commercial", "real", "estate"]
    assert spelled_out("cre", "Commercial and industrial") == []
    assert spelled_out("net", "New England Trust") == []  # an ordinary word is no acronym
    answer = ask_once(bank, "Quayside CRE loans at 6/30/25")
    assert "3,120,450" in answer and "6,140,970" not in answer, answer
