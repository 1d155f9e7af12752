"""A retailer whose fiscal year ends in January names it by the year it began ('Third Quarter Fiscal 2024' is the
13 weeks ended November 2, 2024), as its release says beside the quarter's end; a question about its 'third quarter
of fiscal 2024' is that column, never the year-earlier one that the year-it-ends naming would call so. The release
states a store roll-forward (an opening balance answers only a question after one), bullets of its own (a bullet is
a sentence: 'opened 14 new stores and ended the quarter with 850' gives the 14 to 'opened'), and a reconciliation
whose GAAP row is no adjusted figure. Typeset filing: a specialty retailer's earnings release."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance.periods import quarter_naming
from evals.metrics.answers import is_refusal

FILING = """# Bellows Outfitters, Inc.

EXHIBIT 99.1

Bellows Outfitters Reports Third Quarter Fiscal 2024 Results

PORTLAND, Ore., December 4, 2024 -- Bellows Outfitters, Inc. (NYSE: BLWO), a specialty retailer of footwear, today
reported results for the 13 weeks ended November 2, 2024.

Third Quarter Highlights:
- Net sales increased 5.2% to $912.4 million.
- The company opened 14 new stores and ended the quarter with 850 stores in 38 states.
- Adjusted diluted earnings per share were $0.88.

### Condensed Consolidated Statements of Income (Unaudited)

(In thousands, except per share data)

| | 13 Weeks Ended November 2, 2024 | 13 Weeks Ended October 28, 2023 |
|---|---|---|
| Net sales | 912,400 | 867,300 |
| Gross profit | 351,270 | 330,440 |
| Operating income | 71,330 | 60,110 |
| Net income | 52,140 | 43,870 |
| Diluted earnings per share | 0.81 | 0.67 |

### Store Count

| | 13 Weeks Ended November 2, 2024 | 13 Weeks Ended October 28, 2023 |
|---|---|---|
| Stores at beginning of period | 839 | 812 |
| Stores opened | 14 | 11 |
| Stores closed | (3) | (2) |
| Stores at end of period | 850 | 821 |

### Reconciliation of GAAP to Adjusted Diluted Earnings Per Share

| | 13 Weeks Ended November 2, 2024 | 13 Weeks Ended October 28, 2023 |
|---|---|---|
| Diluted earnings per share (GAAP) | 0.81 | 0.67 |
| Store closing costs | 0.07 | 0.04 |
| Adjusted diluted earnings per share | 0.88 | 0.71 |
"""


@pytest.fixture(scope="module")
def bellows(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("bellows"), "BELLOWS_2024Q3_PR.md", FILING)


def test_a_fiscal_quarter_named_beside_its_end_names_the_year_by_its_start() -> None:
    assert quarter_naming("Bellows Outfitters Reports Third Quarter Fiscal 2024 Results", 1, "2024-11-02") == 13
    # a filer naming its years by their end says so the same way; a date alone says nothing
    assert quarter_naming("results for the third quarter of fiscal 2025", 1, "2024-11-02") == 1
    assert quarter_naming("results for the 13 weeks ended November 2, 2024", 1, "2024-11-02") == 1


@pytest.mark.parametrize(("question", "figure"), [
    ("What were Bellows Outfitters' net sales in the third quarter of fiscal 2024?", "912,400"),
    ("What were Bellows Outfitters' net sales in the third quarter of fiscal 2023?", "867,300"),
    ("How many stores did Bellows Outfitters have at the end of Q3 fiscal 2023?", "821"),
    ("How many stores did Bellows Outfitters open in the third quarter of fiscal 2024?", "14"),
])
def test_the_filers_own_quarter_is_answered(bellows: Settings, question: str, figure: str) -> None:
    answer = stated(ask_once(bellows, question))
    assert figure in answer and not is_refusal(answer), answer


def test_an_opening_balance_answers_only_a_question_after_one(bellows: Settings) -> None:
    answer = ask_once(bellows, "How many stores did Bellows Outfitters have at the beginning of Q3 fiscal 2024?")
    assert "839" in stated(answer), answer
    assert "839" not in stated(ask_once(bellows, "How many stores did Bellows Outfitters have in Q3 fiscal 2024?"))


@pytest.mark.parametrize("question", [
    "What was the change in Bellows Outfitters' stores at the beginning of period between Q3 fiscal 2023 and Q3 "
    "fiscal 2024?",
    "What was the change in Bellows Outfitters' stores, beginning of period, from Q3 fiscal 2023 to Q3 fiscal 2024?",
])
def test_a_change_of_an_opening_balance_reads_it_in_both_periods(bellows: Settings, question: str) -> None:
    answer = stated(ask_once(bellows, question))  # each lookup of the change asks the opening balance the turn does
    assert "27" in answer and "29" not in answer, answer


def test_a_gaap_row_is_no_adjusted_figure(bellows: Settings) -> None:
    answer = stated(ask_once(bellows, "BLWO adj EPS 3Q FY24"))
    assert "0.81" not in answer, answer  # the GAAP row, under a title naming both bases, is never stated as adjusted
