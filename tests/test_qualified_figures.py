"""A figure the filing qualifies keeps its qualifier: 'approximately $120 million' is stated as approximate, and
'less than $300 million' is a limit, never the figure itself, and never an operand of arithmetic."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance import arithmetic
from agent.finance.numbers import find_numbers, parse_number
from agent.schemas import NumericValue

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Contoso Pumps, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 7. Management's Discussion and Analysis

Capital expenditures in 2024 were less than $300 million, and we expect them to stay below that level.
Research and development expense was approximately $120 million in 2024 and approximately $100 million in 2023.
Net sales grew to over $2.1 billion in 2024.
"""


@pytest.mark.parametrize(("text", "bound"), [
    ("were less than $300 million", "less than"),
    ("was approximately $120 million", "approximately"),
    ("grew to over $2.1 billion", "more than"),
    ("we employed about 11,400 people", "approximately"),
    ("nearly 40% of net sales", "nearly"),
    ("a leverage ratio of no more than 3.5x", "up to"),
    ("a coverage ratio of not less than 1.25x", "at least"),
    ("in excess of $50 million", "more than"),
    ("was $412 million", ""),
    # comparisons and spans of time are no bounds
    ("revenue grew 12% over $2.1 billion in 2023", ""),
    ("amortized over 5 years", ""),
    ("borrowings under the $1.5 billion facility", ""),
])
def test_the_words_before_a_figure_qualify_it(text: str, bound: str) -> None:
    assert find_numbers(text)[-1].bound == bound


def test_a_table_cell_is_a_figure_as_stated() -> None:
    assert parse_number("(1,577)").bound == ""


def _cited(label: str, value: float, bound: str = "") -> arithmetic.CitedValue:
    return arithmetic.CitedValue(label=label, value=NumericValue(text=f"${value:g}", value=value, unit="USD",
                                                                  scale=1e6, bound=bound))


def test_a_limit_is_no_operand() -> None:
    with pytest.raises(arithmetic.ArithmeticRefusal, match="only as a limit"):
        arithmetic.change(_cited("capex FY2023", 250), _cited("capex FY2024", 300, "less than"))


def test_arithmetic_on_an_approximation_is_approximate() -> None:
    comp = arithmetic.change(_cited("R&D FY2023", 100, "approximately"), _cited("R&D FY2024", 120))
    assert comp.result.value == 20
    assert comp.result.is_approximate


@pytest.fixture(scope="module")
def contoso(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("contoso"), "CONTOSO_2024_10K.md", FILING)


def test_a_limit_is_stated_as_a_limit(contoso: Settings) -> None:
    answer = stated(ask_once(contoso, "What were Contoso's capital expenditures in 2024?"))
    assert "less than $300 million" in answer
    answer = stated(ask_once(contoso, "What were Contoso's net sales in 2024?"))
    assert "more than $2.1 billion" in answer


def test_an_approximation_is_stated_as_one(contoso: Settings) -> None:
    answer = stated(ask_once(contoso, "What was Contoso's R&D expense in 2024?"))
    assert "approximately $120 million" in answer


def test_nothing_is_computed_from_a_limit(contoso: Settings) -> None:
    answer = ask_once(contoso, "What was Contoso's capex as a percentage of net sales in 2024?")
    assert "only as a limit" in answer
    assert "%" not in stated(answer)


def test_a_change_of_approximations_is_approximate(contoso: Settings) -> None:
    answer = stated(ask_once(contoso, "How much did Contoso's R&D expense change from 2023 to 2024?"))
    assert "approximately $20 million" in answer
