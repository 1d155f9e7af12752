"""A sentence's figure compared with one 'a year earlier' ('in the prior-year quarter', 'in the year-ago
period') is of the year before the figure it is compared with -- never of the period written before it."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.finance.periods import find_periods
from agent.ingest.prose import sentence_numbers

pytestmark = pytest.mark.usefixtures("no_yfinance")


@pytest.mark.parametrize(("sentence", "periods"), [
    ("The net interest margin was 3.41% for the second quarter of 2025, compared with 3.22% a year earlier.",
     ["FY2025Q2", "FY2024Q2"]),
    ("Revenue was $5.2 billion in the second quarter of 2025, up from $4.9 billion in the prior-year quarter.",
     ["FY2025Q2", "FY2024Q2"]),
    ("In 2024 revenue was $5 million, compared with $4 million in the prior year period.", ["FY2024", "FY2023"]),
    # a period written before two figures of it stays theirs
    ("Revenue was $5.2 billion in the second quarter of 2025, and operating income was $1.1 billion.",
     ["FY2025Q2", "FY2025Q2"]),
])
def test_a_year_earlier_is_the_year_before_the_compared_figure(sentence: str, periods: list[str]) -> None:
    assert [n.period for n in sentence_numbers(sentence, 0, find_periods(sentence))] == periods


FILING = """# Larkspur Bancorp

FORM 10-Q

For the quarterly period ended June 30, 2025

Larkspur Bancorp
(Exact name of registrant as specified in its charter)

## Item 2. Management's Discussion and Analysis

Net income for the second quarter of 2025 was $61.2 million, compared with $55.8 million in the prior-year quarter.
The net interest margin was 3.37% for the second quarter of 2025, compared with 3.19% a year earlier.
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory):
    return ingested_typeset(tmp_path_factory.mktemp("earlier"), "LARKSPUR_2025Q2_10Q.md", FILING)


@pytest.mark.parametrize(("question", "figure", "other"), [
    ("What was Larkspur's net interest margin for Q2 2024?", "3.19%", "3.37"),
    ("What was Larkspur's net interest margin for Q2 2025?", "3.37%", "3.19"),
    ("What was Larkspur's net income in the second quarter of 2024?", "$55.8 million", "61.2"),
])
def test_the_year_earlier_figure_answers_for_its_year(home, question: str, figure: str, other: str) -> None:
    answer = ask_once(home, question)
    assert figure in stated(answer) and other not in stated(answer), answer
