"""A span of years counted back from the latest ('the average capex over the last three years', 'over the past
five years') with no year named: the latest years of the read row, as many as the question counts, and refused
when the row gives fewer; the metric may be named by any of the lexicon's names ('capex')."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.query.intent import span_years, without_span

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Litware Corp.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 6. Selected Financial Data

(in millions)

| | 2024 | 2023 | 2022 | 2021 | 2020 |
|---|---|---|---|---|---|
| Revenue | 5,000 | 4,600 | 4,100 | 3,900 | 3,500 |
| Capital expenditures | 400 | 300 | 200 | 150 | 100 |
"""


@pytest.fixture(scope="module")
def litware(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("litware"), "LITWARE_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "average", "years"), [
    ("What was Litware's average capital expenditure over the last three years?", "300", "FY2022 to FY2024"),
    ("What was Litware's average capex over the past three years?", "300", "FY2022 to FY2024"),  # not all five
    ("What was Litware's average capex over the past five years?", "230", "FY2020 to FY2024"),
])
def test_a_counted_span_averages_the_latest_years_of_the_row(
    litware: Settings, question: str, average: str, years: str
) -> None:
    answer = stated(ask_once(litware, question))
    assert f"{average} million" in answer and years in answer


def test_a_span_longer_than_the_row_is_refused(litware: Settings) -> None:
    answer = ask_once(litware, "What was Litware's average capex over the last seven years?")
    assert answer.startswith("Not found")
    assert "Average" not in stated(answer)


def test_the_span_is_read_off_the_question() -> None:
    assert span_years("the average over the past three years") == 3
    assert span_years("the five-year average") == 5
    assert span_years("capex in 2024") == 0
    assert "three" not in without_span("What was the average capex over the last three years?")


@pytest.mark.parametrize(("question", "change", "span"), [
    ("How has Litware's capex trended over the last three years?", "200 million", "FY2022 to FY2024"),
    ("How has Litware's capex trended over the past five years?", "300 million", "FY2020 to FY2024"),
    ("What is the trend in Litware's revenue?", "900 million", "FY2022 to FY2024"),  # the years a 10-K compares
])
def test_a_trend_with_no_year_named_is_the_change_over_the_latest_years(
    litware: Settings, question: str, change: str, span: str
) -> None:
    answer = stated(ask_once(litware, question))
    assert f"from {span}: {change}" in answer


def test_a_trend_over_more_years_than_the_row_gives_is_refused(litware: Settings) -> None:
    answer = ask_once(litware, "How has Litware's capex trended over the last seven years?")
    assert answer.startswith("Not found") and "trend over the years counted" in answer
