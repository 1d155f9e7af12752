"""A release printing 'Q2 FY25 | Q2 FY24 | Y/Y | H1 FY25 | H1 FY24 | Y/Y': a change asked of a quarter ('grow year
over year in Q2') is the quarter's against the same quarter a year before -- never the half's columns, which are no
years -- and 'grow' asks a change as 'growth' does. A line of the operating expenses (below revenue, above
operating income) is a cost: 'purchased transportation costs' is its row. A gain a reconciliation deducts is printed
negative; its amount is the gain's."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Heron Haulage, Inc.

EXHIBIT 99.1

Heron Haulage Reports Second Quarter Fiscal 2025 Results

Heron Haulage, Inc. (NASDAQ: HRNH) today announced results for its second quarter of fiscal 2025, which ended June
28, 2025.

### Consolidated Results

($ in millions)

| | Q2 FY25 | Q2 FY24 | Y/Y | H1 FY25 | H1 FY24 | Y/Y |
|---|---|---|---|---|---|---|
| Revenue | 842.0 | 801.5 | 5.1% | 1,650.2 | 1,590.0 | 3.8% |
| Purchased transportation | 160.4 | 151.2 | 6.1% | 318.0 | 300.9 | 5.7% |
| Fuel and fuel taxes | 77.9 | 81.3 | (4.2)% | 157.1 | 160.0 | (1.8)% |
| Other operating expenses | 503.1 | 480.0 | 4.8% | 992.3 | 960.4 | 3.3% |
| Operating income | 100.6 | 89.0 | 13.0% | 182.8 | 168.7 | 8.4% |

### Operating Statistics

| | Q2 FY25 | Q2 FY24 | Y/Y |
|---|---|---|---|
| Linehaul miles (millions) | 96.2 | 94.0 | 2.3% |
| Shipments per day | 31,400 | 30,950 | 1.5% |

### Reconciliation of Net Income to Adjusted EBITDA

($ in millions)

| | Q2 FY25 | Q2 FY24 |
|---|---|---|
| Net income | 70.2 | 61.0 |
| Depreciation and amortization | 44.0 | 41.5 |
| Gain on sale of terminals | (9.6) | — |
| Adjusted EBITDA | 104.6 | 102.5 |
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory):
    return ingested_typeset(tmp_path_factory.mktemp("heron"), "HERON_2025Q2_PR.md", FILING)


def test_a_quarters_change_is_against_the_same_quarter(home) -> None:
    answer = ask_once(home, "How much did Heron's fuel and fuel taxes grow year over year in Q2 FY25?")
    assert "3.4" in stated(answer) and "81.3" in answer and "77.9" in answer, answer
    assert "157.1" not in stated(answer) and "160" not in stated(answer), answer


def test_a_line_of_operating_expenses_is_a_cost(home) -> None:
    answer = ask_once(home, "What were Heron's purchased transportation costs in Q2 FY25?")
    assert "$160.4 million" in stated(answer), answer
    # a figure that is no line of the expenses is no cost
    miles = ask_once(home, "What were Heron's linehaul miles costs in Q2 FY25?")
    assert "96.2" not in stated(miles), miles


def test_a_gain_a_reconciliation_deducts_is_its_amount(home) -> None:
    answer = ask_once(home, "What was Heron's gain on the sale of terminals in Q2 FY25?")
    assert "$9.6 million" in stated(answer) and "(9.6)" not in stated(answer), answer
