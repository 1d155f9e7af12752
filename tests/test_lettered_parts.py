"""Parts named by a capital letter ('Customer A', 'Class B') are told apart by it, and a difference between two
parts in the one year asked is computed between the parts, never widened into a change from the year before. A share
asked in two phrases ('the proportion of cost of revenue as a percentage of revenue') is of the whole the last one
names."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance.numbers import name_numbers
from agent.query.decompose import decompose
from agent.query.intent import extract_intent

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Contoso Instruments Inc.

Annual Report for the fiscal year ended September 30, 2019

## Concentration of customers

Revenue from our two largest customers was as follows:

| | For the years ended | | | |
|---|---|---|---|---|
| | September 30, 2019 | | September 30, 2018 | |
| | Amount | % of Revenue | Amount | % of Revenue |
| | | (Amounts in millions) | | |
| Customer A | $3.8 | 5% | $7.5 | 10% |
| Customer B | $10.2 | 13% | 1.1 | 3% |

## Results of operations

(in millions)

| | 2019 | 2018 | 2017 |
|---|---|---|---|
| Revenue | 76.0 | 74.0 | 70.0 |
| Cost of revenue | 38.0 | 40.7 | 42.0 |
| Gross profit | 38.0 | 33.3 | 28.0 |
"""


@pytest.fixture(scope="module")
def contoso(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("lettered"), "CONTOSO_2019_10K.md", FILING)


@pytest.mark.parametrize("question", [
    "What is the difference between Customer A revenue and Customer B revenue in 2019?",
    "What is the difference in revenue between customer A and customer B in 2019?",
    "What is the difference between revenue from customer A and customer B in 2019?",
])
def test_a_difference_between_two_lettered_parts_in_one_year(contoso: Settings, question: str) -> None:
    answer = stated(ask_once(contoso, question))
    assert "3.8 - 10.2" in answer and "6.4" in answer
    assert "FY2018" not in answer and "7.5" not in answer  # no change from the year before


def test_a_lettered_part_is_answered_by_its_own_row_only(contoso: Settings) -> None:
    assert "$10.2 million" in ask_once(contoso, "What was the revenue from Customer B in 2019?")
    answer = stated(ask_once(contoso, "What was the revenue from Customer C in 2019?"))
    assert answer.startswith("Not found") and "3.8" not in answer and "10.2" not in answer


@pytest.mark.parametrize(("question", "figure"), [
    ("What is the average proportion of cost of revenue as a percentage of the total revenue in 2017 and 2018?",
     "57.50%"),
    ("What is the proportion of cost of revenue as a percentage of revenue in 2019?", "50.00%"),
])
def test_a_share_asked_in_two_phrases_is_of_the_whole_the_last_names(contoso: Settings, question: str,
                                                                       figure: str) -> None:
    answer = stated(ask_once(contoso, question))
    assert figure in answer
    assert "40.7 / 74" in answer or "38 / 76" in answer  # cost over revenue, never the inverse


def test_a_capital_letter_after_a_word_is_part_of_its_name() -> None:
    assert name_numbers("Customer A and Class B shares") == {"customer": {"a"}, "class": {"b"}}
    assert name_numbers("the figure was A and what is A") == {}  # after a function word, an article or a word
    assert name_numbers("U.S. sales of the S&P 500") == {"s&p": {"500"}}


def test_items_are_read_in_the_one_period_named() -> None:
    question = "What is the difference between Customer A revenue and Customer B revenue in 2019?"
    plan = decompose(question, extract_intent(question, ()), ())
    assert [sq.period for sq in plan.sub_queries] == ["FY2019", "FY2019"]
    assert [t.text.lower() for sq in plan.sub_queries for t in sq.intent.scope] == ["customer a", "customer b"]
    assert [c.operation for c in plan.combinations] == ["difference"]
