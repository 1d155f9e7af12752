"""A sentence opened by the day its balances are at ('At September 30, 2024, total debt was $7,310 million and cash
and cash equivalents were $544 million') dates every balance it states: the second was undated and its question
refused. A figure the sentence compares with the first ('up from $400 million') is another date's, never that
one's. Typeset filing."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance.periods import find_periods
from agent.ingest.prose import sentence_numbers

FILING = """# Wingtip Paperboard Corporation

FORM 10-K

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended September 30, 2024

Wingtip Paperboard Corporation
(Exact name of registrant as specified in its charter)

## Item 7. Management's Discussion and Analysis

### Liquidity and Capital Resources

Cash provided by operating activities was $1,108 million in fiscal 2024. At September 30, 2024, total debt was
$4,215 million and cash and cash equivalents were $392 million. As of September 30, 2024, borrowings under the
revolving credit facility were $250 million, up from $180 million.

### Properties

As of September 30, 2024, we owned 38 manufacturing plants totaling 21.6 million gross square feet, which were 91.5%
utilized.
"""


@pytest.fixture(scope="module")
def wingtip(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("wingtip"), "WINGTIP_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Wingtip's total debt at September 30, 2024?", "$4,215 million"),
    ("What were Wingtip's cash and cash equivalents at the end of fiscal 2024?", "$392 million"),
])
def test_every_balance_of_the_sentence_is_at_its_date(wingtip: Settings, question: str, figure: str) -> None:
    assert figure in stated(ask_once(wingtip, question))


@pytest.mark.parametrize("never", ["21.6", "91.5"])
def test_a_measure_or_a_share_dated_with_a_count_is_no_count(wingtip: Settings, never: str) -> None:
    # the sentence's date dates its area and its utilisation too: neither is how many plants there were
    answer = stated(ask_once(wingtip, "How many plants did Wingtip own at September 30, 2024?"))
    assert f"was {never}" not in answer and f"found is {never}" not in answer, answer  # a quoted passage states none


def test_a_compared_figure_is_not_at_the_opening_date() -> None:
    sentence = "As of September 30, 2024, borrowings were $250 million, up from $180 million."
    read = sentence_numbers(sentence, 0, find_periods(sentence, 9))
    assert [(n.text, n.period) for n in read] == [("$250 million", "FY2024"), ("$180 million", "")]


def test_a_date_inside_the_sentence_dates_no_figure_before_it_or_past_the_next() -> None:
    sentence = "Backlog grew, and at June 30, 2024 it was $9 million while capex was $2 million."
    read = {n.text: n.period for n in sentence_numbers(sentence, 0, find_periods(sentence, 12))}
    assert read == {"$9 million": "FY2024Q2", "$2 million": ""}


@pytest.mark.parametrize(("sentence", "read"), [
    # a part of the figure before it is named by the words after it, which no reader takes for its own: undated
    ("As of December 31, 2019, there was $60.3 million of unrecognized expense of which $13.9 million is related to "
     "options and $46.4 million is related to RSUs.",
     [("$60.3 million", "FY2019"), ("$13.9 million", ""), ("$46.4 million", "")]),
    ("As of December 31, 2019, we had $54.5 million of debt outstanding (including $0.7 million of issuance costs).",
     [("$54.5 million", "FY2019"), ("$0.7 million", "")]),
])
def test_a_part_of_the_figure_before_it_takes_no_opening_date(sentence: str, read: list[tuple[str, str]]) -> None:
    assert [(n.text, n.period) for n in sentence_numbers(sentence, 0, find_periods(sentence, 12))] == read
