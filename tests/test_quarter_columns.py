"""A 10-Q's quarter and six-month columns (issue 58): each lookup reads its own column, and an average per quarter
inside the half is never the average of the half and the half a year before (before, 'average quarterly net
income in the first half of 2024' was answered (29,310 + 25,010) / 2 = 27,160: two six-month figures). Typeset
filing."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings

FILING = """# Woodgrove Bancorp, Inc.

Quarterly Report on Form 10-Q for the quarterly period ended June 30, 2024

## Part I. Financial Information

### Item 1. Financial Statements

### Consolidated Statements of Income (Unaudited)

| (in thousands) | Three Months Ended June 30, 2024 | Three Months Ended June 30, 2023 | Six Months Ended June 30, 2024 | Six Months Ended June 30, 2023 |
|---|---|---|---|---|
| Total interest income | 61,240 | 55,410 | 120,870 | 108,330 |
| Total interest expense | 22,110 | 15,020 | 43,590 | 27,860 |
| Net interest income | 39,130 | 40,390 | 77,280 | 80,470 |
| Provision for credit losses | 1,200 | 900 | 2,650 | 1,700 |
| Noninterest income | 8,420 | 7,980 | 16,310 | 15,540 |
| Noninterest expense | 29,870 | 28,640 | 59,120 | 57,010 |
| Income before income taxes | 16,480 | 18,830 | 31,820 | 37,300 |
| Net income | 12,950 | 14,790 | 25,010 | 29,310 |

### Item 2. Management's Discussion and Analysis

Net income for the second quarter of 2024 was $12.95 million, compared with $14.79 million in the second quarter
of 2023. Return on average assets was 0.98% for the quarter.

| Selected ratios | Three Months Ended June 30, 2024 | Three Months Ended June 30, 2023 |
|---|---|---|
| Return on average assets | 0.98% | 1.14% |
| Efficiency ratio | 62.8% | 59.2% |
"""


@pytest.fixture(scope="module")
def woodgrove(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("woodgrove"), "WOODGROVE_2024Q2_10Q.md", FILING)


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Woodgrove's net income for the second quarter of 2024?", "$12,950 thousand"),
    ("What was Woodgrove's net income for the six months ended June 30, 2024?", "$25,010 thousand"),
    ("What was Woodgrove's net income in the first half of 2024?", "$25,010 thousand"),
    ("What was Woodgrove's net interest income for Q2 2024?", "$39,130 thousand"),
    # the year to date of a second quarter's 10-Q is its six months, this year's and the comparative year's
    ("What was Woodgrove's net income year to date 2024?", "$25,010 thousand"),
    ("Woodgrove YTD 2023 net income", "$29,310 thousand"),
    # a span named by the month or day it closes, as analysts and British filings write it
    ("What was Woodgrove's net income in the June 2024 quarter?", "$12,950 thousand"),
    ("Woodgrove net income for the quarter ended June 2024", "$12,950 thousand"),
    ("Woodgrove net income in the three months to June 30, 2024", "$12,950 thousand"),
    ("Woodgrove net income for the six months through June 30, 2024", "$25,010 thousand"),
    ("Woodgrove net income YTD June 2024", "$25,010 thousand"),
])
def test_each_column_answers_its_own_duration(woodgrove: Settings, question: str, figure: str) -> None:
    assert figure in stated(ask_once(woodgrove, question))


@pytest.mark.parametrize("question", [
    "What was Woodgrove's average quarterly net income in the first half of 2024?",
    "What was Woodgrove's average net income per quarter in the first half of 2024?",
])
def test_an_average_per_quarter_is_never_an_average_of_halves(woodgrove: Settings, question: str) -> None:
    answer = stated(ask_once(woodgrove, question))
    assert "27,160" not in answer and "27,150" not in answer


def test_a_quarter_the_filing_does_not_print_is_refused(woodgrove: Settings) -> None:
    answer = stated(ask_once(woodgrove, "What was Woodgrove's net income in the first quarter of 2024?"))
    assert "Not found" in answer and "12,950" not in answer and "25,010" not in answer
