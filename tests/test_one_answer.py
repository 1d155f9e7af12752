"""One answer per question: the arithmetic asked is stated with its formula, and the figures that only feed it
get no line of their own; a question asking for the figures themselves still gets them."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.config import Settings

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Fabrikam Tools, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 8. Financial Statements

### Consolidated Statements of Income

(in millions)

| | 2024 | 2023 | 2022 |
|---|---|---|---|
| Net sales | 2,640 | 2,400 | 2,200 |
| Restructuring charges | 18 | 25 | 30 |
| Operating income | 396 | 312 | 290 |
| Net income | 250 | 221 | 204 |

### Consolidated Statements of Cash Flows

(in millions)

| | 2024 | 2023 | 2022 |
|---|---|---|---|
| Net cash provided by operating activities | 410 | 362 | 331 |
| Purchases of property, plant and equipment | (120) | (110) | (95) |
"""


@pytest.fixture(scope="module")
def fabrikam(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("fabrikam"), "FABRIKAM_2024_10K.md", FILING)


def test_a_change_asked_is_the_answer_and_its_operands_stay_in_its_formula(fabrikam: Settings) -> None:
    answer = ask_once(fabrikam, "What was the change in Fabrikam's operating income from 2023 to 2024?")
    lines = answer.splitlines()
    # the table names no currency: the change keeps the scale it states, never a bare "84.00"
    assert lines[0].startswith("Change in") and "84 million" in lines[0] and "(396 - 312 = 84)" in lines[0], answer
    assert not any(line.startswith("Fabrikam") and "operating income in FY20" in line for line in lines), answer
    assert "Percentage change" not in answer, answer  # the change was asked, not its rate


def test_how_a_figure_changed_is_told_by_its_size_and_its_rate(fabrikam: Settings) -> None:
    answer = ask_once(fabrikam, "How did Fabrikam's net sales change from 2023 to 2024?")
    assert "240 million" in answer and "10.00%" in answer, answer


def test_a_comparison_asks_for_the_figures_themselves(fabrikam: Settings) -> None:
    answer = ask_once(fabrikam, "Compare Fabrikam's net sales in 2023 and 2024")
    assert "$2,400 million" in answer and "$2,640 million" in answer, answer


@pytest.mark.parametrize("question", [
    "What was Fabrikam's net sales growth in 2024?",
    "What was Fabrikam's sales growth for fiscal 2024?",
])
def test_a_growth_the_lexicon_names_is_answered_by_the_growth_alone(fabrikam: Settings, question: str) -> None:
    answer = ask_once(fabrikam, question)
    lines = [line for line in answer.splitlines() if line.strip()]
    # the growth leads; the year before is its input, stated in its sentence, not a line of its own
    assert lines[0].startswith("Percentage change in") and "10.00%" in lines[0] and "2,400 million in FY2023" in lines[0], answer
    assert len(lines) == 1, answer


def test_a_period_the_plan_added_and_no_step_uses_is_not_stated(fabrikam: Settings) -> None:
    answer = ask_once(fabrikam, "What was Fabrikam's net sales growth from 2022 to 2024?")
    assert "20.00%" in answer, answer
    assert "2,400" not in answer, answer  # 2023 is neither asked nor an input of the growth from 2022


def test_a_change_named_as_such_is_not_a_growth(fabrikam: Settings) -> None:
    answer = ask_once(fabrikam, "What was the change in Fabrikam's net sales from 2023 to 2024?")
    assert answer.startswith("Change in") and "240 million" in answer, answer


def test_a_fall_is_stated_as_a_decrease_of_its_size(fabrikam: Settings) -> None:
    answer = ask_once(fabrikam, "How much did Fabrikam's restructuring charges decrease by from 2023 to 2024?")
    first = answer.splitlines()[0]
    # 'decreased by -7' would say it rose; the sign is in the word, the formula keeps the arithmetic
    assert "a decrease of 7 million" in first and "(18 - 25 = (7))" in first, answer
    assert "-7" not in first, answer


@pytest.mark.parametrize("question", [
    "What share of Fabrikam's net sales did operating income account for in 2024?",
    "What was Fabrikam's operating income as a percentage of net sales in 2024?",
])
def test_a_share_asked_is_the_answer_and_its_parts_stay_in_its_formula(fabrikam: Settings, question: str) -> None:
    answer = ask_once(fabrikam, question)
    lines = [line for line in answer.splitlines() if line.strip()]
    assert "15.00%" in lines[0] and "396 / 2,640" in lines[0], answer
    assert len(lines) == 1, answer


def test_a_change_states_its_inputs_as_its_formula_uses_them(fabrikam: Settings) -> None:
    answer = ask_once(fabrikam, "What was the change in Fabrikam's capital expenditure from 2023 to 2024?")
    # capex printed '(120)' is 120 spent: the sentence and the formula (120 - 110 = 10) say the same figures
    assert "from 110 million in FY2023 to 120 million in FY2024" in answer and "(120 - 110 = 10)" in answer, answer
