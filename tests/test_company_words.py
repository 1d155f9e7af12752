"""What the company's own name says in a table: a row that is the company (its stock beside the indices of a
performance graph) is named by it; a row or sentence that only shares the company's name ('Contoso employed ...',
a subsidiary 'Contoso China' under 'Capital expenditures') names no figure the question asks. And a change word
inside a metric's own name ('comparable sales growth', a rate of change already) asks that figure, no change of it."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.query.asked import operations_asked
from agent.query.intent import extract_intent

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Contoso Outfitters, Inc.

FORM 10-K

For the fiscal year ended December 31, 2024

Contoso Outfitters, Inc.
(Exact name of registrant as specified in its charter)

## Item 5. Market for Registrant's Common Equity

### Comparison of Cumulative Total Return

| | 12/31/2022 | 12/31/2023 | 12/31/2024 |
|---|---|---|---|
| Contoso Outfitters, Inc. | 100 | 112.40 | 131.75 |
| S&P 500 Index | 100 | 126.29 | 157.88 |

## Item 7. Management's Discussion and Analysis

Comparable sales increased 3.1% in 2024. As of December 31, 2024, Contoso employed approximately 9,800 people.

### Capital Expenditures

(in thousands)

| | 2024 | 2023 |
|---|---|---|
| Contoso China | 108,352 | 145,634 |
| Contoso Europe | 96,120 | 88,410 |
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("owners"), "CONTOSO_2024_10K.md", FILING)


def test_the_companys_own_row_is_named_by_its_name(home: Settings) -> None:
    answer = stated(ask_once(home, "What was the cumulative total return of Contoso Outfitters in 2024?"))
    assert "131.75" in answer, answer


@pytest.mark.parametrize(("question", "not_stated"), [
    ("How much did Contoso earn in 2024?", "9,800"),
    ("What were Contoso's capital expenditures in 2024?", "108,352"),  # a subsidiary's row is no company total
])
def test_a_row_that_only_shares_the_companys_name_is_not_the_figure(home: Settings, question: str,
                                                                     not_stated: str) -> None:
    answer = ask_once(home, question)
    assert not_stated not in stated(answer), answer


def test_a_change_word_inside_a_metrics_name_asks_the_figure(home: Settings) -> None:
    question = "What was Contoso's comparable sales growth in 2024?"
    assert "change" not in operations_asked(question)
    assert extract_intent(question, ["Contoso Outfitters, Inc."]).temporal_scope.periods == ["FY2024"]
    assert "3.1" in stated(ask_once(home, question))
