"""A question that asks its answer in a unit of measure ('..., in GWh?') asks a quantity: the plan carries the
unit, no money metric the words spell ('sales' is revenue) is its metric, and only a figure in that unit answers it
-- shown with its unit, its change computed in code."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.query.intent import extract_intent

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Harborlight Power Company

FORM 10-K

For the fiscal year ended December 31, 2024

Harborlight Power Company
(Exact name of registrant as specified in its charter)

## Item 7. Management's Discussion and Analysis

### Electric Operations

(In millions)

| | 2024 | 2023 |
|---|---|---|
| Residential | 1,812 | 1,760 |
| Commercial | 1,204 | 1,188 |
| Total electric operating revenues | 3,016 | 2,948 |

Retail electric sales (GWh):

| | 2024 | 2023 |
|---|---|---|
| Residential | 9,420 | 9,180 |
| Commercial | 8,305 | 8,390 |
| Total retail sales | 17,725 | 17,570 |

### Energy Use

| | 2024 | 2023 |
|---|---|---|
| Total energy consumption (MWh) | 205,092 | 167,488 |
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory):
    return ingested_typeset(tmp_path_factory.mktemp("measure"), "HARBORLIGHT_2024_10K.md", FILING)


def test_the_plan_holds_the_unit_asked_and_no_money_metric() -> None:
    intent = extract_intent("What were Harborlight's total retail sales in 2024, in GWh?", ["Harborlight"])
    assert intent.unit == "GWh" and intent.metrics == [], intent
    assert all(t.text != "GWh" for t in intent.scope), intent.scope
    plain = extract_intent("What were Harborlight's total retail sales in 2024?", ["Harborlight"])
    assert plain.unit == "" and plain.metrics == ["revenue"], plain


def test_a_quantity_asked_in_its_unit_is_stated_with_it(home) -> None:
    answer = ask_once(home, "What were Harborlight's total retail sales in 2024, in GWh?")
    assert "17,725 GWh" in stated(answer), answer


def test_its_change_is_computed_in_that_unit(home) -> None:
    answer = ask_once(home, "By how much did Harborlight's total retail electric sales change from 2023 to 2024, "
                            "in GWh?")
    assert "155 GWh" in stated(answer) and "17,725 - 17,570" in answer, answer


def test_an_amount_of_money_is_no_answer_in_a_unit_of_measure(home) -> None:
    answer = ask_once(home, "What were Harborlight's total electric operating revenues in 2024, in GWh?")
    assert answer.startswith("Not found") and "3,016" not in stated(answer), answer


def test_the_same_words_without_a_unit_ask_the_amount(home) -> None:
    # 'sales' asks revenue; the GWh table's row is no amount of money
    answer = ask_once(home, "What were Harborlight's total retail sales in 2024?")
    assert "17,725" not in stated(answer), answer


def test_a_row_that_names_the_unit_states_its_figures_in_it(home) -> None:
    answer = ask_once(home, "How much was Harborlight's total energy consumption (MWh) in 2024?")
    assert "205,092" in stated(answer), answer


def test_a_ratio_computed_of_an_operand_in_the_unit_passes() -> None:
    # 'how much did the net MW in operation represent in relation to the generation in GWh?': the unit names an
    # operand; the answer is a ratio, no quantity of it
    from agent.answer.gate import check_unit
    from agent.answer.records import SubAnswer
    from agent.schemas import NumericValue

    ratio = SubAnswer(question="q", status="computed", answer="0.13x",
                      value=NumericValue(text="0.13x", value=0.132, unit="x"))
    assert check_unit(ratio, "gwh").passed
    read = SubAnswer(question="q", status="found", answer="3,016", value=NumericValue(text="3,016", value=3016.0))
    assert not check_unit(read, "gwh").passed
