"""A follow-up thread asked in several wordings gets the same figures (issue 28's Northwind thread), and a share
of a total is a share, never a sum, over a breakdown table typeset here."""

from __future__ import annotations

import pytest
from support import ask_thread, ingested_sample, ingested_typeset

from agent.config import Settings
from agent.query.cues import AFTER, BEFORE, relative_years
from agent.query.scope import metric_modifiers

pytestmark = pytest.mark.usefixtures("no_yfinance")

# Each row: one thread, three turns; every wording must give 437, then 392, then 11.48%.
NORTHWIND_THREADS = [
    ("How much did Northwind put into capex in 2024?", "and the year prior?", "so by what percent did it rise?"),
    ("What did Northwind spend on capital expenditures in 2024?", "and a year earlier?",
     "what was the percentage increase?"),
    ("How much capex did Northwind invest in 2024?", "what about the previous year?",
     "by how much did it grow, in percent?"),
    ("What were Northwind's capital expenditures in 2024?", "and in 2023?", "what is the percent change between them?"),
]

BREAKDOWN = """# Acme Widgets, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 8. Financial Statements

### Net sales by region

(in millions)

| Region | 2024 | 2023 |
|---|---|---|
| Europe | 1,100 | 1,000 |
| Americas | 3,000 | 2,800 |
| Asia Pacific | 1,145 | 1,050 |
| Total net sales | 5,245 | 4,850 |
"""


@pytest.fixture(scope="module")
def northwind(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_sample(tmp_path_factory.mktemp("threads") / "home")


@pytest.fixture(scope="module")
def acme(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("acme"), "ACME_2024_10K.md", BREAKDOWN)


def _thread(settings: Settings, turns: tuple[str, ...]) -> list[str]:
    return [answer.split("\n")[0] for answer in ask_thread(settings, turns)]


@pytest.mark.parametrize("turns", NORTHWIND_THREADS, ids=[t[0][:30] for t in NORTHWIND_THREADS])
def test_the_capex_thread_gets_the_same_figures_in_every_wording(turns: tuple[str, ...], northwind: Settings) -> None:
    first, second, third = _thread(northwind, turns)
    assert "$437 million" in first and "FY2024" in first, first
    assert "$392 million" in second and "FY2023" in second, second
    assert "11.48%" in third and "(437 - 392) / 392" in third, third


def test_a_share_of_the_total_is_a_share_of_the_total(acme: Settings) -> None:
    part, whole, share = _thread(acme, ("What were Acme's net sales in Europe in 2024?",
                                        "what were total net sales in 2024?",
                                        "what is that as a percentage of the total?"))
    assert "$1,100 million" in part and "Europe" in part, part
    assert "$5,245 million" in whole, whole
    assert "20.97%" in share and "1,100 / 5,245" in share and "6,345" not in share, share


def test_a_part_row_under_a_breakdown_title_answers_the_part_not_the_total(acme: Settings) -> None:
    (europe, earlier) = _thread(acme, ("What were Acme's net sales in Europe in 2024?", "and a year earlier?"))
    assert "$1,100 million" in europe and "5,245" not in europe
    assert "$1,000 million" in earlier and "FY2023" in earlier
    (brazil,) = _thread(acme, ("What were Acme's net sales in Brazil in 2024?",))
    assert brazil.startswith("Not found")  # a part the table does not hold: never the total


def test_verbs_and_prepositions_are_no_part_of_a_metric() -> None:
    assert metric_modifiers("How much did Northwind put into capex in 2024?", "capital expenditure") == []
    assert metric_modifiers("How much was invested in R&D in 2024?", "research and development expense") == []
    assert metric_modifiers("What were fuel surcharge revenues?", "revenue") == ["fuel", "surcharge"]


@pytest.mark.parametrize("words", ["the year prior", "a year earlier", "the prior year", "the previous year",
                                   "the period before", "a year ago", "the preceding fiscal year"])
def test_a_period_before_reads_in_either_order(words: str) -> None:
    assert relative_years(f"and {words}?") == {BEFORE}


@pytest.mark.parametrize("words", ["the year after", "the following year", "a year later", "the next fiscal year"])
def test_a_period_after_reads_in_either_order(words: str) -> None:
    assert relative_years(f"and {words}?") == {AFTER}


# A follow-up naming only a part of the last figure: the part narrows the metric, company and year carry over.
ACME_PART_THREADS = [
    ("What were Acme's net sales in 2024?", "and in Europe?", "what share of the total is that?"),
    ("What were Acme's net sales in 2024?", "what about Europe?", "what is that as a percentage of the total?"),
    ("What was Acme's revenue in 2024?", "and for Europe?", "so europe was what percent of the total?"),
]


@pytest.mark.parametrize("turns", ACME_PART_THREADS, ids=[t[1] for t in ACME_PART_THREADS])
def test_a_part_named_alone_narrows_the_last_figure(turns: tuple[str, ...], acme: Settings) -> None:
    whole, part, share = _thread(acme, turns)
    assert "$5,245 million" in whole and "FY2024" in whole, whole
    assert "$1,100 million" in part and "Europe" in part and "FY2024" in part, part
    assert "20.97%" in share and "1,100 / 5,245" in share, share


def test_a_word_that_names_no_part_is_not_made_one(acme: Settings) -> None:
    _, then = _thread(acme, ("What were Acme's net sales in 2024?", "and why?"))
    assert "$1,100" not in then and "Europe" not in then
