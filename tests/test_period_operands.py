"""A figure computed over periods ('the sum of X in 2023 and 2024', 'the percentage change in X from 2023 to 2024')
takes each period's figure from one row or sentence: another sentence's figure of the period, naming less of what is
asked than the first one does, is no operand (it had added 2024's allowance to 2023's provision recapture). Two
sentences that both name what is asked, each after its figure, are combined."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Tailspin Foods, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Note 10. Purchased Impaired Loans

During 2024, $82 million of provision recapture was recorded for purchased impaired loans, compared to $91 million
of provision recapture during 2023. At December 31, 2024 and December 31, 2023, the allowance on total purchased
impaired loans was $0.3 billion and $0.9 billion, respectively.

## Note 11. Performance Share Units

Directors and executives hold RSUs and PSUs. In 2023, we granted 547,000 PSUs with certain financial and operational
targets. In 2024, we granted 464,888 PSUs with certain financial targets.
"""


# The same page as a text extractor writes it: lower case, the sentence opening the page, the next sentences run on.
EXTRACTED = """# Tailspin Bancorp

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

during 2024 , $ 64 million of provision recapture was recorded for purchased impaired loans compared to $ 77 million of
provision recapture during 2023 . charge-offs during 2024 were $ 10 million compared to $ 35 million during 2023 . at
december 31 , 2024 and december 31 , 2023 , the allowance on total purchased impaired loans was $ .4 billion and $ .8
billion , respectively . the decline in the allowance was due to the change in our policy .
"""


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("extracted"), "TAILSPIN_2024_10K.txt", EXTRACTED)


def test_an_average_over_periods_takes_no_operand_from_another_sentence(extracted: Settings) -> None:
    # 2024's allowance ($.4 billion) names the loans, not the recapture: never averaged with 2023's $77 million
    answer = ask_once(extracted, "What was Tailspin's average provision recapture for purchased impaired loans in 2023 "
                                 "and 2024?")
    assert "0.24" not in answer and "0.4" not in stated(answer)


@pytest.fixture(scope="module")
def tailspin(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("tailspin"), "TAILSPIN_2024_10K.md", FILING)


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
