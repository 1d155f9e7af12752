"""A span of years counted back from the year that closes it ('the five-year period ended 2017') is an interval: a
change over it runs from the close of the year before its first (the performance graph's $100 base) to its close,
and its count is no word the figure must print. A follow-up asking the same change for another item ('in that same
period, what was that fluctuation for the S&P 500?') asks a figure, over the same span; one relating two such
results by their items ('this S&P 500 fluctuation in relation to that Nasdaq one') divides them. Typeset 10-K page.
"""

from __future__ import annotations

import pytest
from support import ask_once, ask_thread, ingested_typeset, stated

from agent.config import Settings
from agent.query.intent import extract_intent

PAGE = """# Keldara Networks, Inc.

(Exact name of registrant as specified in its charter)

ANNUAL REPORT ON FORM 10-K for the fiscal year ended December 31, 2017

## Item 5. Stock Performance Graph

The following graph compares the cumulative five-year total return to holders of Keldara common stock with the
cumulative total return of the S&P 500 Index and the Nasdaq Telecommunications Index. The graph assumes that $100
was invested on December 31, 2012 in our common stock and in each index, with dividends reinvested.

| | Keldara | S&P 500 | Nasdaq Telecommunications |
|---|---|---|---|
| December 31, 2012 | 100.00 | 100.00 | 100.00 |
| December 31, 2013 | 118.40 | 132.39 | 121.10 |
| December 31, 2014 | 109.75 | 150.51 | 130.44 |
| December 31, 2015 | 124.02 | 152.59 | 127.85 |
| December 31, 2016 | 141.66 | 170.84 | 146.03 |
| December 31, 2017 | 162.30 | 208.14 | 171.92 |
"""


@pytest.fixture(scope="module")
def keldara(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("keldara"), "keldara-10k-2017.md", PAGE)


@pytest.mark.parametrize(("question", "periods"), [
    # a change over the period: from its opening (the close of 2012) to its close
    ("What was the change in Keldara's total return for the five-year period ended 2017?", ["FY2017", "FY2012"]),
    ("What was the 5 year CAGR of revenue ended 2019?", ["FY2019", "FY2014"]),
    # an average over it: the years it holds
    ("What was the average revenue over the 3 year period ended 2019?", ["FY2019", "FY2018", "FY2017"]),
])
def test_a_span_of_years_is_read_by_what_is_computed_over_it(question: str, periods: list[str]) -> None:
    intent = extract_intent(question)
    assert intent.temporal_scope.periods == periods
    assert not {"five", "5", "3", "period"} & set(intent.wording.words)  # the count is counted_years, no word


def test_a_change_over_a_span_ended_in_a_year_is_computed_from_its_opening(keldara: Settings) -> None:
    answer = ask_once(keldara, "what was the fluctuation in the total return of the nasdaq telecommunications index "
                               "for the five year period ended 2017?")
    assert "71.92" in stated(answer) and "171.92 - 100" in answer, answer


def test_a_follow_up_asking_that_change_for_another_item_and_relating_the_two(keldara: Settings) -> None:
    index_change, sp_change, relation = ask_thread(keldara, [
        "what was the fluctuation in the total return of the nasdaq telecommunications index for the five year "
        "period ended 2017?",
        "in that same period, what was that fluctuation for the s&p 500?",
        "how much did this s&p 500 fluctuation represent in relation to that nasdaq telecommunications one?",
    ])
    assert "71.92" in stated(index_change), index_change
    assert "108.14" in stated(sp_change) and "208.14 - 100" in sp_change, sp_change
    # 108.14 / 71.92: the two changes divided, never the S&P's own percentage change (108.14%)
    assert "1.50x" in stated(relation) and "%" not in stated(relation), relation


def test_a_change_asked_in_words_alone_asks_a_figure() -> None:
    assert extract_intent("What was that fluctuation for the s&p 500 in that same period?").requires_numeric
    assert not extract_intent("What voting rights does each share of Class B common stock carry?").requires_numeric
