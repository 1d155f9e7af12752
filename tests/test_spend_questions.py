"""'How much did <company> spend on <an outlay>?' asks the outlay's amount: 'spend' is how the question asks, not
a word the figure's row must print, and the company's own name before it is no thing asked of the metric. A
figure read from a sentence is named by the plan's metric where it asks one, else stated with its sentence quoted
as printed (its clause up to the figure is no name)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Litware Systems, Inc.

FORM 10-Q

For the quarterly period ended June 30, 2025

Litware Systems, Inc.
(Exact name of registrant as specified in its charter)

## Item 2. Management's Discussion and Analysis of Financial Condition and Results of Operations

### Results of Operations

(In millions)

| | Three Months Ended June 30, 2025 | Three Months Ended June 30, 2024 |
|---|---|---|
| Revenue | 1,240 | 1,118 |
| Operating income | 212 | 187 |
| Net income | 158 | 139 |

### Liquidity and Capital Resources

During the first six months of 2025, we repurchased 1.4 million shares of our common stock for $96.5 million.
Capital expenditures were $41.2 million in the first six months of 2025.

During the second quarter we repurchased 610,000 shares for $44.8 million and paid dividends of $12.5 million.
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory):
    return ingested_typeset(tmp_path_factory.mktemp("spend"), "LITWARE_2025Q2_10Q.md", FILING)


@pytest.mark.parametrize(("question", "figure"), [
    ("How much did Litware spend on share repurchases in the first half of 2025?", "$96.5 million"),
    ("How much did Litware spend on capital expenditures in the first half of 2025?", "$41.2 million"),
])
def test_spending_on_an_outlay_is_its_amount(home, question: str, figure: str) -> None:
    answer = ask_once(home, question)
    assert stated(answer).startswith("Litware Systems, Inc.'s") and figure in stated(answer), answer


def test_a_sentence_figure_without_a_metric_is_stated_with_its_sentence_quoted(home) -> None:
    answer = ask_once(home, "How much did Litware spend repurchasing shares in the first six months of 2025?")
    assert answer.startswith('Litware Systems, Inc., FY2025H1: $96.5 million ("During the first six months of 2025, '
                             'we repurchased 1.4 million shares of our common stock for $96.5 million")'), answer
    assert "1.4" not in stated(answer), answer  # the quote is evidence: its other figures are not stated


def test_spending_in_a_period_the_filing_does_not_give_is_refused(home) -> None:
    answer = ask_once(home, "How much did Litware spend on share repurchases in the first half of 2024?")
    assert answer.startswith("Not found") and "96.5" not in stated(answer), answer


@pytest.mark.parametrize(("question", "figure"), [
    # 'the second quarter' of the second quarter's 10-Q is that quarter; a count between the verb and its noun
    # ('repurchased 610,000 shares') leaves the sentence naming share repurchases
    ("How much did Litware spend on buybacks in Q2 2025?", "$44.8 million"),
    ("How much did Litware pay in dividends in the second quarter of 2025?", "$12.5 million"),
])
def test_a_quarter_named_by_its_place_is_the_filings_quarter(home, question: str, figure: str) -> None:
    answer = ask_once(home, question)
    assert figure in stated(answer), answer


def test_the_filings_quarter_is_no_other_quarter(home) -> None:
    answer = ask_once(home, "How much did Litware spend on buybacks in Q1 2025?")
    assert "44.8" not in stated(answer), answer
