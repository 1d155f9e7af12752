"""Parts named in a list ('revenue from China and Mexico') are each a part of their own figure: a sum, an average
or the respective figures over them are one lookup a part, each checked against its own row, computed in code.
A list that asks none of these stays one figure, which must name every part listed."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.query.scope import scope_terms

pytestmark = pytest.mark.usefixtures("no_yfinance")

REPORT = """# Lakeshore Instruments, Inc.

FORM 10-K

For the fiscal year ended December 31, 2024

Lakeshore Instruments, Inc.
(Exact name of registrant as specified in its charter)

## Item 8. Financial Statements and Supplementary Data

### Note 14. Revenue by Country

(in thousands)

| | 2024 | 2023 |
|---|---|---|
| United States | 512,400 | 498,100 |
| China | 96,200 | 88,700 |
| Mexico | 41,800 | 37,300 |
| Total revenue | 650,400 | 624,100 |
"""


def test_parts_joined_by_and_are_a_list() -> None:
    terms = scope_terms("What was the combined revenue from China and Mexico in 2024?")
    assert [(t.text, t.listed) for t in terms] == [("China", 1), ("Mexico", 1)]
    assert [(t.text, t.listed) for t in scope_terms("What was revenue from China in 2024?")] == [("China", 0)]


@pytest.mark.parametrize("period", ["2024", "fiscal 2024", "FY24", "FY2024", "Q3 FY25"])
def test_a_period_set_off_by_a_comma_before_the_parts_leaves_them_parts(period: str) -> None:
    # 'in FY24, Cloud Services or Devices': the comma is the period's, as '2024,' writes it, and ends no part
    terms = scope_terms(f"Which segment had the higher operating income in {period}, Cloud Services or Devices?")
    assert [t.text for t in terms][:1] == ["Cloud Services"]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("listed"), "LAKESHORE_2024_10K.md", REPORT)


def test_the_combined_figure_of_listed_parts_is_their_sum(home: Settings) -> None:
    answer = ask_once(home, "What was Lakeshore's combined revenue from China and Mexico in 2024?")
    assert "138,000" in answer and "96,200 + 41,800" in answer, answer


def test_the_average_of_listed_parts(home: Settings) -> None:
    answer = ask_once(home, "What was Lakeshore's average revenue from China and Mexico in 2023?")
    assert "63,000" in answer, answer


def test_the_respective_figures_of_listed_parts(home: Settings) -> None:
    answer = stated(ask_once(home, "What was Lakeshore's revenue from China and Mexico in 2024, respectively?"))
    assert "96,200" in answer and "41,800" in answer and "650,400" not in answer, answer


def test_a_list_asking_no_operation_is_one_figure_naming_every_part(home: Settings) -> None:
    answer = ask_once(home, "What was Lakeshore's revenue from China and Japan in 2024?")
    assert answer.startswith("Not found"), answer
    assert not any(f in stated(answer) for f in ("96,200", "650,400", "138,000")), answer
