"""A bank's 'Average Balances, Interest and Yields' table prints each period over three sub-columns ('Average
Balance | Interest | Yield/Rate'): a question naming one sub-column ('yield', 'average balance') reads that one,
and a figure whose column says it is an average answers 'the average balance' as printed -- no average is
computed over one quarter. A capital ratio named in a sentence ('common equity tier 1 (CET1) capital ratio') is
read whole: the '1' of 'tier 1' is part of its name, no figure."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Woodcrest Bancorp

FORM 10-Q

For the quarterly period ended September 30, 2025

Woodcrest Bancorp
(Exact name of registrant as specified in its charter)

## Item 2. Management's Discussion and Analysis of Financial Condition and Results of Operations

### Average Balances, Interest and Yields

(Dollars in thousands)

| | Three Months Ended September 30, 2025 | | | Three Months Ended September 30, 2024 | | |
|---|---|---|---|---|---|---|
| | Average Balance | Interest | Yield/Rate | Average Balance | Interest | Yield/Rate |
| Loans | 12,640,300 | 203,410 | 6.38% | 11,905,700 | 195,220 | 6.52% |
| Investment securities | 3,215,800 | 24,870 | 3.08% | 3,402,100 | 23,140 | 2.71% |
| Total interest-earning assets | 15,856,100 | 228,280 | 5.71% | 15,307,800 | 218,360 | 5.66% |
| Interest-bearing deposits | 9,740,200 | 71,310 | 2.90% | 9,215,600 | 74,980 | 3.23% |
| Borrowings | 1,120,400 | 13,950 | 4.94% | 905,600 | 11,120 | 4.87% |
| Total interest-bearing liabilities | 10,860,600 | 85,260 | 3.11% | 10,121,200 | 86,100 | 3.38% |

### Capital

At September 30, 2025, Woodcrest's common equity tier 1 (CET1) capital ratio was 11.6%, compared with 11.3% at
December 31, 2024.
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory):
    return ingested_typeset(tmp_path_factory.mktemp("grouped"), "WOODCREST_2025Q3_10Q.md", FILING)


@pytest.mark.parametrize(("question", "figure", "not_stated"), [
    ("What was Woodcrest's average yield on loans in the third quarter of 2025?", "6.38%", ("12,640,300", "203,410")),
    # the 'interest' of 'interest-earning' names the row, not the 'Interest' column
    ("What was the yield on Woodcrest's total interest-earning assets in Q3 2024?", "5.66%", ("15,307,800", "218,360")),
    ("What was the average balance of Woodcrest's interest-bearing deposits in Q3 2024?", "9,215,600", ("74,980",)),
])
def test_the_sub_column_the_question_names_is_read(home, question: str, figure: str, not_stated: tuple) -> None:
    answer = ask_once(home, question)
    assert figure in stated(answer) and not any(n in stated(answer) for n in not_stated), answer


def test_a_printed_average_is_no_average_to_compute(home) -> None:
    answer = ask_once(home, "What was the average balance of Woodcrest's loans in Q3 2025?")
    assert "12,640,300" in stated(answer) and "computed" not in answer, answer


def test_a_capital_ratio_named_with_its_tier_is_read_from_the_sentence(home) -> None:
    answer = ask_once(home, "What was Woodcrest's CET1 ratio at September 30, 2025?")
    assert "11.6" in stated(answer) and "11.3" not in stated(answer), answer
