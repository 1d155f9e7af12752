"""Layouts of filings nobody here had seen, read as printed: an earnings release's quarter named only in the
header's first cell ('SECOND QUARTER | 2025 Amount | 2025 Percent to Sales | ...'); a bank's segment table whose
columns are the segments and whose first header cell is the period; a 10-K's MD&A that prints one table per
segment under a heading that says they are segments (no sentence names them); a balance-sheet row 'Loans, net of
allowance for credit losses', which is loans, not the allowance. Each is a figure on the page that was refused, or a
part's or another line's figure stated as the one asked."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance.lexicon import deducted, find_metrics, label_head
from agent.ingest.tables import find_tables
from agent.query.intent import extract_intent

pytestmark = pytest.mark.usefixtures("no_yfinance")

RELEASE = """# Fabrikam Packaging Corp.

FORM 8-K

Date of Report: July 24, 2025

Fabrikam Packaging Corp.
(Exact name of registrant as specified in its charter)

Exhibit 99.1

## Fabrikam Packaging Reports Second Quarter 2025 Results

ATLANTA, July 24, 2025 -- Fabrikam Packaging Corp. today reported results for the second quarter ended June 30,
2025.

### Condensed Consolidated Statements of Income (Unaudited)

(Dollars in millions, except per share amounts)

| SECOND QUARTER | 2025 Amount | 2025 Percent to Sales | 2024 Amount | 2024 Percent to Sales | Percent Increase (Decrease) |
|---|---|---|---|---|---|
| Net sales | 1,418 | 100.0 | 1,369 | 100.0 | 3.6 |
| Cost of products sold | 1,102 | 77.7 | 1,075 | 78.5 | 2.5 |
| Selling, general and administrative expenses | 148 | 10.4 | 141 | 10.3 | 5.0 |
| Operating income | 168 | 11.8 | 153 | 11.2 | 9.8 |
| Interest expense, net | 31 | 2.2 | 34 | 2.5 | (8.8) |
| Net income | 104 | 7.3 | 91 | 6.6 | 14.3 |
"""

AEROSPACE = """# Litware Aerospace, Inc.

FORM 10-K

For the fiscal year ended December 31, 2024

Litware Aerospace, Inc.
(Exact name of registrant as specified in its charter)

## Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations

### Consolidated Results of Operations

(In millions)

| | 2024 | 2023 |
|---|---|---|
| Net sales | 14,620 | 13,410 |
| Cost of sales | 12,190 | 11,260 |
| Operating profit | 1,598 | 1,402 |
| Net earnings | 1,104 | 968 |

Total backlog was $48.2 billion at December 31, 2024, compared with $44.9 billion at December 31, 2023.

### Business Segment Results

#### Aerostructures

(In millions)

| | 2024 | 2023 |
|---|---|---|
| Net sales | 6,210 | 5,730 |
| Operating profit | 702 | 611 |
| Operating margin | 11.3% | 10.7% |
| Backlog at year-end | 21,400 | 19,800 |

#### Defense Systems

(In millions)

| | 2024 | 2023 |
|---|---|---|
| Net sales | 8,410 | 7,680 |
| Operating profit | 1,021 | 913 |
| Operating margin | 12.1% | 11.9% |
| Backlog at year-end | 26,800 | 25,100 |
"""

BANK = """# Contoso Financial Corporation

FORM 10-Q

For the quarterly period ended June 30, 2025

Contoso Financial Corporation
(Exact name of registrant as specified in its charter)

## Item 1. Financial Statements

### Consolidated Balance Sheets (Unaudited)

(In thousands)

| | June 30, 2025 | December 31, 2024 |
|---|---|---|
| Loans, net of allowance for credit losses | 21,884,300 | 21,402,700 |
| Total deposits | 25,930,100 | 25,410,800 |

## Item 2. Management's Discussion and Analysis of Financial Condition and Results of Operations

The allowance for credit losses was $268.4 million at June 30, 2025, compared with $259.1 million at December 31,
2024. As of June 30, 2025, Contoso employed approximately 4,350 full-time equivalent employees.

### Segment Results

(In thousands)

| Three Months Ended June 30, 2025 | Commercial Banking | Consumer Banking | Wealth Management | Total |
|---|---|---|---|---|
| Net interest income | 139,800 | 88,400 | 13,460 | 241,660 |
| Noninterest income | 14,200 | 23,900 | 20,240 | 58,340 |
| Net income | 52,300 | 27,100 | 10,770 | 90,170 |
"""


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("release"), "FABRIKAM_2025Q2_8K.md", RELEASE)


@pytest.fixture(scope="module")
def aerospace(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("aerospace"), "LITWARE_2024_10K.md", AEROSPACE)


@pytest.fixture(scope="module")
def bank(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("bank"), "CONTOSO_2025Q2_10Q.md", BANK)


def test_a_quarter_in_the_headers_first_cell_spans_the_years_under_it() -> None:
    text = ("(Dollars in millions)\n\nSECOND QUARTER | 2025 Amount | 2025 Percent to Sales | 2024 Amount | "
            "2024 Percent to Sales\nNet sales | 1,418 | 100.0 | 1,369 | 100.0\nNet income | 104 | 7.3 | 91 | 6.6\n")
    table = find_tables(text)[0]
    assert table.columns[:2] == ["SECOND QUARTER 2025 Amount", "SECOND QUARTER 2025 Percent to Sales"]


def test_a_period_in_the_first_cell_of_a_line_of_names_heads_them_all() -> None:
    text = ("(In thousands)\n\nThree Months Ended June 30, 2025 | Commercial Banking | Consumer Banking | Total\n"
            "Net income | 52,300 | 27,100 | 79,400\nNet interest income | 139,800 | 88,400 | 228,200\n")
    table = find_tables(text)[0]
    assert table.columns == ["Commercial Banking", "Consumer Banking", "Total"]
    assert table.period_caption == "Three Months Ended June 30, 2025"


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Fabrikam's operating income in the second quarter of 2025?", "$168 million"),
    ("What was Fabrikam's SG&A in Q2 2025?", "$148 million"),
    ("What was Fabrikam's operating income as a percent of sales in Q2 2025?", "11.8"),
    ("Can you pull Fabrikam's net income for the second quarter of 2024 from the release?", "$91 million"),
])
def test_a_release_quarter_is_read_from_its_amount_columns(release: Settings, question: str, figure: str) -> None:
    assert figure in stated(ask_once(release, question))


def test_a_release_quarter_is_no_fiscal_year(release: Settings) -> None:
    answer = ask_once(release, "What was Fabrikam's net income for fiscal year 2025?")
    assert answer.startswith("Not found") and "104" not in stated(answer), answer


@pytest.mark.parametrize(("question", "figure"), [
    ("What were Litware's net sales in 2024?", "$14,620 million"),
    ("What was Litware's operating profit in 2023?", "$1,402 million"),
    ("What was Litware's total backlog at the end of 2024?", "$48.2 billion"),
    ("What was Litware's operating margin in 2024?", "10.93%"),  # computed from the company's own figures
    ("What was the backlog of Litware's Defense Systems segment at year-end 2024?", "$26,800 million"),
    ("What was the Aerostructures operating margin in 2023?", "10.70%"),
])
def test_segments_under_a_segment_heading_are_parts(aerospace: Settings, question: str, figure: str) -> None:
    answer = stated(ask_once(aerospace, question))
    assert figure in answer, answer
    assert not any(f in answer for f in ("6,210", "5,730", "611", "702", "11.30%", "21,400") if f not in figure)


def test_the_segment_tables_carry_their_part(aerospace: Settings) -> None:
    from agent.index.store import Store

    parts = {c.table.title: c.table.part for c in Store.open(aerospace).chunks() if c.table is not None}
    assert parts["Aerostructures"] == "Aerostructures" and parts["Defense Systems"] == "Defense Systems"
    assert parts["Consolidated Results of Operations"] == ""


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Consumer Banking net income at Contoso in the second quarter of 2025?", "$27,100 thousand"),
    ("What was Contoso's Wealth Management noninterest income in Q2 2025?", "$20,240 thousand"),
])
def test_segment_columns_take_the_period_of_the_first_header_cell(bank: Settings, question: str,
                                                                  figure: str) -> None:
    assert figure in stated(ask_once(bank, question))


def test_a_row_net_of_a_line_is_no_figure_of_that_line() -> None:
    label = "Loans, net of allowance for credit losses"
    assert [deducted(label, m) for m in find_metrics(label)] == [True]
    assert label_head(label) == "Loans"
    assert label_head("Less: accumulated depreciation") == "Less: accumulated depreciation"
    ppe = "Property and equipment, less accumulated depreciation"
    assert [m.canonical for m in find_metrics(ppe) if not deducted(ppe, m)] == ["property plant and equipment"]
    # in a question, 'before' names what the asked figure is taken before; 'less' asks a subtraction
    assert extract_intent("What was the net deferred tax asset before valuation allowance in 2019?", ()).metrics == []
    assert extract_intent("What is the FY2022 EBITDA less capex?", ()).metrics == ["ebitda", "capital expenditure"]


def test_the_allowance_is_not_read_off_the_net_loans_row(bank: Settings) -> None:
    answer = stated(ask_once(bank, "What was Contoso's allowance for credit losses at June 30, 2025?"))
    assert "$268.4 million" in answer and "21,884,300" not in answer, answer
    assert "21,884,300" in stated(ask_once(bank, "What were Contoso's loans, net of allowance for credit losses at "
                                                 "June 30, 2025?"))


def test_the_company_name_alone_names_no_figure(bank: Settings) -> None:
    answer = ask_once(bank, "How much did Contoso earn in Q2 2025?")
    assert "4,350" not in stated(answer), answer
