"""A follow-up asking arithmetic with figures of the conversation ('how much does this total represent in relation
to the total assets of that year, in percentage?', 'and what was this percentage in 2023?') is never answered by the
one figure it names anew, looked up and stated as it stands: the rewrite records the arithmetic the turn asked
(`Rewrite.turn_operation`) and the composer refuses a figure read as it stands for it, keeping it as the closest
evidence. A bare 'so what was the percentage change?' after a refused turn computes with nothing older."""

from __future__ import annotations

import pytest
from support import ask_thread, ingested_typeset, stated

from agent.config import Settings
from agent.query.dialogue import DialogueSlots
from agent.query.rewrite import rewrite

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Fabrikam Packaging Corporation

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 7. Management's Discussion and Analysis

### Industrial Packaging

(in millions)

| | 2024 | 2023 |
|---|---|---|
| North America net sales | 3,600 | 3,450 |
| Europe net sales | 1,200 | 1,050 |
| Total industrial packaging net sales | 4,800 | 4,500 |

### Contractual obligations

(in millions)

| | 2025 | 2026 | Total |
|---|---|---|---|
| Purchase obligations | 1,950 | 300 | 2,250 |
| Lease obligations | 140 | 120 | 260 |

## Item 8. Financial Statements

### Consolidated Balance Sheets

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Total assets | 24,000 | 22,500 |
| Long-term debt | 6,000 | 6,400 |
"""


@pytest.fixture(scope="module")
def fabrikam(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("fabrikam"), "FABRIKAM_2024_10K.md", FILING)



def test_a_share_of_a_figure_named_anew_never_states_that_figure(fabrikam: Settings) -> None:
    first, second = ask_thread(fabrikam, (
        "What was Fabrikam's long-term debt in 2024?",
        "and how much does this total represent in relation to the total assets of that year, in percentage?"))
    assert "6,000" in first
    # 6,000 / 24,000 is 25%; the total assets alone are no answer to it
    assert "25.00%" in second or (second.startswith("Not found") and "24,000" not in stated(second))


def test_a_percentage_asked_again_for_another_year_is_no_lookup(fabrikam: Settings) -> None:
    answers = ask_thread(fabrikam, (
        "In 2024, what were Fabrikam's Europe net sales?",
        "and what were the total industrial packaging net sales?",
        "what percentage, then, of this total did that amount represent?",
        "and what was this percentage in the previous year, in 2023?"))
    assert "1,200" in answers[0] and "4,800" in answers[1]
    assert "25.00%" in answers[2]  # both operands are earlier answers: computed
    last = answers[3]
    # 1,050 / 4,500 is 23.33%; a lone net sales figure is not a percentage
    assert "23.33%" in last or (last.startswith("Not found") and "4,500" not in stated(last))


def test_a_share_of_the_whole_asked_after_a_part_is_no_lookup_of_the_next_part(fabrikam: Settings) -> None:
    first, second = ask_thread(fabrikam, (
        "What were the purchase obligations due in 2025?", "and what percentage did the lease obligations represent?"))
    assert "1,950" in first
    assert "140" not in stated(second) or "%" in stated(second).split("[")[0]


def test_a_bare_percentage_change_after_a_refusal_computes_with_nothing_older(fabrikam: Settings) -> None:
    answers = ask_thread(fabrikam, (
        "What was Fabrikam's long-term debt in 2023?", "and in 2024?",
        "what was the change in the widget reserve over that time?", "so what was the percentage change?"))
    assert "6,400" in answers[0] and "6,000" in answers[1]
    assert answers[2].startswith("Not found")
    assert answers[3].startswith("Not found") and "6.25" not in answers[3]  # not the debt's change of two turns ago


def test_a_change_asked_of_two_figures_of_one_period_is_no_change_over_time(fabrikam: Settings) -> None:
    answers = ask_thread(fabrikam, (
        "What is the difference between North America net sales and Europe net sales in 2024?",
        "what is the net difference?"))
    assert "2,400" in answers[0]
    # the last difference's own operands again would answer 'from FY2024 to FY2024' with the last answer, reversed
    assert answers[1].startswith("Not found") and "FY2024 to FY2024" not in answers[1]
    assert "1,200 - 3,600" not in answers[1] and "2,400" not in stated(answers[1])


def test_the_rewrite_records_the_arithmetic_its_question_lost() -> None:
    first = rewrite("What was Fabrikam's long-term debt in 2024?", [], DialogueSlots())
    assert first.turn_operation == ""  # a first turn is planned from its own words
    slots = DialogueSlots(company="Fabrikam", metrics=["long term debt"], periods=["FY2024"],
                          last_question=first.question)
    follow = rewrite("and how much does this total represent in relation to the total assets of that year, in "
                     "percentage?", [], slots)
    assert follow.references or follow.turn_operation in {"share", "ratio"}
    plain = rewrite("and in 2023?", [], slots)
    assert plain.turn_operation == ""

