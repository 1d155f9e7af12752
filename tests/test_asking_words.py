"""Words a question asks with ('the full total', 'concerning the euro notes', 'combined') are no words the figure's
row must print: the closed world learns them (agent/query/unprinted.py) and no longer refuses the row that is asked.
The words that name what is asked still do, and a figure computed over periods is read from one row or sentence:
another sentence's figure of the period, naming less of what is asked, is no operand."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Tailspin Foods, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Note 8. Short-Term Borrowings

The components of notes payable were as follows (in millions):

| | December 31, 2024 | December 31, 2023 |
|---|---|---|
| U.S. commercial paper | 412.0 | 192.5 |
| Financial institutions | 114.5 | 118.8 |
| Total notes payable | 526.5 | 311.3 |

## Note 9. Notes Issued

Notes issued during the year (in millions):

| | 2024 | 2023 |
|---|---|---|
| Euro notes | 3,098 | 2,120 |
| U.S. dollar notes | 1,500 | 2,500 |

## Note 10. Purchased Impaired Loans

During 2024, $82 million of provision recapture was recorded for purchased impaired loans, compared to $91 million
of provision recapture during 2023. At December 31, 2024 and December 31, 2023, the allowance on total purchased
impaired loans was $0.3 billion and $0.9 billion, respectively.

## Note 11. Performance Share Units

Directors and executives hold RSUs and PSUs. In 2023, we granted 547,000 PSUs with certain financial and operational
targets. In 2024, we granted 464,888 PSUs with certain financial targets.
"""


@pytest.fixture(scope="module")
def tailspin(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("tailspin"), "TAILSPIN_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "figure"), [
    ("Concerning Tailspin's euro notes, what was their full total in 2024?", "3,098"),
    ("What was the combined amount of Tailspin's euro notes in 2024?", "3,098"),
    ("What was the full total of Tailspin's notes payable at December 31, 2024?", "526.5"),
])
def test_words_that_only_ask_leave_the_asked_row_answered(tailspin: Settings, question: str, figure: str) -> None:
    assert figure in stated(ask_once(tailspin, question))


def test_a_word_that_names_what_is_asked_still_refuses_a_row_that_does_not_print_it(tailspin: Settings) -> None:
    answer = ask_once(tailspin, "Concerning Tailspin's euro notes, what was their full total redeemed in 2024?")
    assert answer.startswith("Not found") and "3,098" not in stated(answer)


@pytest.mark.parametrize("question", [
    "What is the sum of Tailspin's provision recapture for purchased impaired loans in 2023 and 2024?",
    "What were Tailspin's provision recapture for purchased impaired loans in 2023 and 2024 combined?",
])
def test_a_sum_over_periods_takes_no_operand_from_another_sentence(tailspin: Settings, question: str) -> None:
    # the allowance of 2024 ($0.3 billion) is another sentence's figure: never added to 2023's recapture
    answer = ask_once(tailspin, question)
    assert answer.startswith("Not found") and "0.39" not in answer


def test_figures_of_two_sentences_that_both_name_what_is_asked_are_combined(tailspin: Settings) -> None:
    # each sentence names its PSUs after the figure: both say what is asked, so the change is computed
    answer = ask_once(tailspin, "What is the percentage change in the number of PSUs Tailspin granted from 2023 to "
                                "2024?")
    assert "-15.01%" in stated(answer) or "15.01%" in stated(answer)
