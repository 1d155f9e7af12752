"""A bank's income statement: net interest income beside noninterest income and expense, and the efficiency ratio
computed from them (noninterest expense over net interest income plus noninterest income) for the quarter or half
asked, however the half is worded ('the first six months of 2023')."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance.lexicon import find_metrics
from agent.finance.periods import find_periods

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Fabrikam Bancorp, Inc.

QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the quarterly period ended June 30, 2024

## Item 1. Financial Statements

### Consolidated Statements of Income (unaudited)

(in millions)

| | Three Months Ended June 30, 2024 | Three Months Ended June 30, 2023 | Six Months Ended June 30, 2024 | Six Months Ended June 30, 2023 |
|---|---|---|---|---|
| Interest income | 1,412 | 1,205 | 2,790 | 2,311 |
| Interest expense | 602 | 431 | 1,170 | 790 |
| Net interest income | 810 | 774 | 1,620 | 1,521 |
| Noninterest income | 305 | 298 | 598 | 590 |
| Noninterest expense | 620 | 601 | 1,251 | 1,199 |
| Net income | 316 | 323 | 630 | 630 |
"""


@pytest.fixture(scope="module")
def fabrikam(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("fabrikam"), "FABRIKAM_2024_10Q.md", FILING)


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Fabrikam's efficiency ratio in Q2 2024?", "55.61%"),  # 620 / (810 + 305)
    ("What was Fabrikam's efficiency ratio in the first six months of 2023?", "56.80%"),  # 1,199 / (1,521 + 590)
    ("What was Fabrikam's non-interest income in the first half of 2024?", "$598 million"),
    ("What was Fabrikam's noninterest expense in Q2 2023?", "$601 million"),
])
def test_a_banks_own_metrics_are_read_and_computed(fabrikam: Settings, question: str, figure: str) -> None:
    assert figure in stated(ask_once(fabrikam, question))


def test_noninterest_lines_are_not_interest_lines() -> None:
    assert [m.canonical for m in find_metrics("Noninterest income")] == ["noninterest income"]
    assert [m.canonical for m in find_metrics("Interest income")] == ["interest income"]
    assert [m.canonical for m in find_metrics("the cost-to-income ratio")] == ["efficiency ratio"]


@pytest.mark.parametrize(("text", "period"), [
    ("the first six months of 2023", "FY2023H1"),
    ("the first three months of 2024", "FY2024Q1"),
    ("the first nine months of 2024", "FY2024M9"),
])
def test_the_first_months_of_a_year_are_its_part(text: str, period: str) -> None:
    assert [p.norm for p in find_periods(text)] == [period]
