"""A figure is stated in the direction the question names: 'the net loss' of a 'Net income (loss) | (2,690)' row
is a loss of 2,690, never 'net income -2,690'; averages and changes of a loss are computed on the losses; a
'Net loss' row printed plainly or in parentheses states the same loss; 'employee benefits' names no direction.
The filings are typeset here: a statement of operations that prints losses both ways, and a letter in prose.
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance.direction import asked_name, asks_contrary, in_direction, shown_name

FILING = """# Fabrikam Robotics Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 8. Financial Statements

### Consolidated Statements of Operations

(in thousands)

| | 2024 | 2023 | 2022 |
|---|---|---|---|
| Revenue | 52,000 | 48,000 | 45,000 |
| Loss before income taxes | (3,100) | (2,400) | (1,300) |
| Income tax benefit | (410) | (220) | (90) |
| Net income (loss) | (2,690) | (2,180) | (1,210) |

### Note 9. Employee Costs

(in thousands)

| | 2024 | 2023 |
|---|---|---|
| Wages and salaries | 9,400 | 8,800 |
| Employee benefits expense | 1,900 | 1,700 |
"""

LETTER = """# Litware Instruments Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 7. Management's Discussion and Analysis

Litware reported a net loss of $4.2 million in fiscal 2024, as the new plant opened late in the year.

We recognized an income tax benefit of $1.1 million for fiscal year 2024 compared to an income tax provision of
$2.3 million for fiscal year 2023.
"""


@pytest.fixture(scope="module")
def fabrikam(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("fabrikam"), "FABRIKAM_2024_10K.md", FILING)


@pytest.fixture(scope="module")
def litware(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("litware"), "LITWARE_2024_10K.md", LETTER)


@pytest.mark.parametrize(
    ("value", "label", "asked", "read"),
    [
        (-6557, "Net income (loss)", "What was the net loss in 2016?", 6557),  # signed row, loss asked
        (-204969, "Net Loss", "the net loss", 204969),  # parentheses on a loss row are presentation
        (204969, "Net Loss", "the net loss", 204969),
        (500, "Net loss", "net income", -500),  # a loss printed plainly is a negative income
        (-100, "Net loss", "net income", -100),
        (-12586, "Income tax benefit", "the income tax benefits", 12586),
        (-12586, "Income tax benefit (expense)", "income tax expense", 12586),  # the sign follows the first word
        (-45, "(Benefit from) provision for income taxes", "the tax benefit", 45),
        (-25.0, "Income (loss) before income taxes", "the loss before income taxes", 25.0),
        (-3, "Provision for (recovery of) credit losses", "provision for credit losses", -3),  # a signed label
        (-3, "Provision for credit losses (in millions)", "provision for credit losses", 3),
        (100, "Loss from operations", "operating loss", 100),
    ],
)
def test_a_row_is_read_in_the_direction_asked(value: float, label: str, asked: str, read: float) -> None:
    assert in_direction(value, label, asked) == read


@pytest.mark.parametrize(
    ("label", "asked"),
    [
        ("Employee benefits expense", "employee benefits expense"),  # a benefit of no tax names no direction
        ("Revenue", "revenue"),
        ("Interest income", "What was the interest income?"),  # one direction on both sides: as printed
    ],
)
def test_words_naming_no_direction_leave_the_figure_as_printed(label: str, asked: str) -> None:
    assert in_direction(-1900, label, asked) in (None, -1900)


def test_a_question_naming_both_directions_asks_the_figure_as_printed() -> None:
    question = "What was the change in recognized net actuarial (gain) loss from 2018 to 2019?"
    assert in_direction(470, "Recognized net actuarial (gain) loss", question) is None
    assert in_direction(-64, "Losses recognized in other income (expense), net", "the losses in other income") is None
    # a one-direction row read for a question naming both: in the direction the question names first
    assert in_direction(8.3, "recognized an income tax benefit of", "provision for (benefit from) income taxes") == -8.3
    assert in_direction(-5, "Net loss", "the net income (loss)") == -5
    named = asked_name("What was the Net (loss) income attributable to common stock in 2019?", "net income")
    assert named == "Net (loss) income"  # the name runs past its parentheses: both directions, no restating


def test_a_row_printing_both_signs_reads_plain_figures_as_the_other_direction() -> None:
    assert in_direction(50, "Net loss", "the net loss", mixed_signs=True) == -50
    assert in_direction(-100, "Net loss", "the net loss", mixed_signs=True) == 100


def test_the_name_shown_is_the_question_s_own() -> None:
    assert shown_name("What was the average net loss in 2023 and 2024?", "net income") == "net loss"
    assert shown_name("What was the net income in 2024?", "net income") == "net income"
    assert asks_contrary("What was Fabrikam's net income (loss) in 2024?") == ""  # both named: the signed figure


def test_the_net_loss_of_a_signed_row_is_the_loss(fabrikam: Settings) -> None:
    answer = stated(ask_once(fabrikam, "What was the net loss in 2024?"))
    assert "2,690" in answer and "-2,690" not in answer and "-$2,690" not in answer, answer
    assert "loss" in answer.lower()


def test_net_income_keeps_the_printed_sign(fabrikam: Settings) -> None:
    answer = stated(ask_once(fabrikam, "What was the net income in 2024?"))
    assert "-$2,690" in answer or "-2,690" in answer or "(2,690)" in answer, answer


def test_an_average_and_a_change_of_a_loss_are_computed_on_the_losses(fabrikam: Settings) -> None:
    average = stated(ask_once(fabrikam, "What was the average net loss in 2023 and 2024?"))
    assert "2,435" in average and "-2,435" not in average, average
    change = stated(ask_once(fabrikam, "What was the change in net loss from 2023 to 2024?"))
    assert "510" in change and "-510" not in change and "(510)" not in change, change


def test_a_tax_benefit_is_stated_as_a_benefit(fabrikam: Settings) -> None:
    answer = stated(ask_once(fabrikam, "What was the income tax benefit in 2024?"))
    assert "410" in answer and "-410" not in answer and "-$410" not in answer, answer


def test_a_loss_in_prose_is_a_negative_income(litware: Settings) -> None:
    loss = stated(ask_once(litware, "What was Litware's net loss in 2024?"))
    assert "4.2" in loss and "-$4.2" not in loss, loss
    income = stated(ask_once(litware, "What was Litware's net income in 2024?"))
    assert "-$4.2" in income, income


def test_a_year_of_the_other_direction_says_so(litware: Settings) -> None:
    answer = stated(ask_once(litware, "What was Litware's income tax benefit in 2023?"))
    assert "2.3" in answer and "not a benefit" in answer and "-$2.3" not in answer, answer
    benefit = stated(ask_once(litware, "What was Litware's income tax benefit in 2024?"))
    assert "1.1" in benefit and "-$1.1" not in benefit and "not a benefit" not in benefit, benefit
