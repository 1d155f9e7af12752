"""Follow-ups that name a span without its year ('and for the six months?', 'the first half') read it to the end of
the period in view; 'y/y' compares the figure in view with the same span a year before; and a change is never
computed between spans of different lengths (a half year against a quarter is no movement of the figure)."""

from __future__ import annotations

import pytest
from support import ask_thread, ingested_typeset, stated

from agent.config import Settings
from agent.finance import arithmetic
from agent.finance.arithmetic import ArithmeticRefusal, CitedValue
from agent.finance.periods import to_date_of
from agent.query.cues import months_named
from agent.schemas import NumericValue

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Contoso Financial Corporation

FORM 10-Q

For the quarterly period ended June 30, 2025

Contoso Financial Corporation
(Exact name of registrant as specified in its charter)

## Item 1. Financial Statements

### Consolidated Statements of Income (Unaudited)

(In thousands)

| | Three Months Ended June 30, 2025 | Three Months Ended June 30, 2024 | Six Months Ended June 30, 2025 | Six Months Ended June 30, 2024 |
|---|---|---|---|---|
| Net interest income | 241,660 | 229,460 | 474,520 | 457,430 |
| Provision for credit losses | 12,500 | 9,800 | 27,300 | 18,100 |
| Net income | 90,170 | 84,610 | 168,420 | 166,980 |
"""


@pytest.mark.parametrize(("text", "months"), [
    ("and for the six months?", 6), ("what about the first half?", 6), ("the nine months", 9),
    ("and for the 26 weeks?", 6), ("the thirteen weeks", 3),
    ("what is half of that?", 0), ("and in 2024?", 0),
])
def test_a_span_without_its_year_is_read(text: str, months: int) -> None:
    assert months_named(text) == months


@pytest.mark.parametrize(("period", "months", "spanned"), [
    ("FY2025Q2", 6, "FY2025H1"), ("FY2025Q3", 9, "FY2025M9"), ("FY2025H1", 3, "FY2025Q2"), ("FY2025", 3, "FY2025Q4"),
    ("FY2025Q3", 6, ""),  # six months to a third quarter's end has no fiscal label
    ("FY2025", 6, ""),
])
def test_a_span_ends_where_the_period_in_view_ends(period: str, months: int, spanned: str) -> None:
    assert to_date_of(period, months) == spanned


def _value(text: str, period: str) -> CitedValue:
    return CitedValue(label=f"net interest income {period}",
                      value=NumericValue(text=text, value=float(text.replace(",", "")), period=period))


def test_no_change_between_spans_of_different_lengths() -> None:
    with pytest.raises(ArithmeticRefusal, match="different lengths"):
        arithmetic.change(_value("474,520", "FY2025H1"), _value("241,660", "FY2025Q2"))
    with pytest.raises(ArithmeticRefusal, match="different lengths"):
        arithmetic.percent_change(_value("241,660", "FY2025Q2"), _value("474,520", "FY2025H1"))
    with pytest.raises(ArithmeticRefusal, match="different lengths"):
        arithmetic.average([_value("241,660", "FY2025Q2"), _value("474,520", "FY2025H1")])
    # a balance at a quarter's end against one at a year's end is a change of one figure
    moved = arithmetic.change(_value("100", "FY2024"), _value("120", "FY2025Q2"))
    assert moved.result.value == 20


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("spans"), "CONTOSO_2025Q2_10Q.md", FILING)


def test_the_six_months_then_year_on_year(home: Settings) -> None:
    quarter, half, grown = ask_thread(home, [
        "What was Contoso's net interest income for Q2 2025?",
        "and for the six months?",
        "how much did that grow y/y?",
    ])
    assert "$241,660 thousand" in stated(quarter)
    assert "$474,520 thousand" in stated(half) and "FY2025H1" in half, half
    assert "17,090" in stated(grown) and "FY2024H1" in grown, grown
