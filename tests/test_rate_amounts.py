"""A rate and an amount are different figures (numbers are sacred: no wider, no narrower): a per-gallon cost never
answers a question about the costs, and a total never a per-unit question. Typeset filing."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.answer.closed_world import _rate_unit
from agent.config import Settings

FILING = """# Tailspin Airways, Inc.

Annual Report on Form 10-K for the fiscal year ended December 31, 2024

## Item 7. Management's Discussion and Analysis

### Operating Statistics

| | 2024 | 2023 |
|---|---|---|
| Fuel gallons consumed (millions) | 412 | 398 |
| Average fuel cost per gallon | $2.64 | $3.11 |
| Passenger revenue per available seat mile (cents) | 15.20 | 14.85 |
| Jet fuel hedged (bbl/d) | 18,400 | 17,250 |

### Consolidated Statements of Operations

(In millions, except per share amounts)

| | 2024 | 2023 |
|---|---|---|
| Passenger revenue | 6,120 | 5,870 |
| Total operating revenue | 6,540 | 6,260 |
| Salaries, wages and benefits | 1,905 | 1,822 |
| Total operating expenses | 6,010 | 5,880 |
| Net income | 402 | 288 |
| Diluted earnings per share | 3.05 | 2.19 |
"""


@pytest.fixture(scope="module")
def tailspin(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("tailspin"), "TAILSPIN_2024_10K.md", FILING)


@pytest.mark.parametrize("question", [
    "What were Tailspin's fuel costs in 2023?",
    "How much did Tailspin pay for fuel in 2023?",
])
def test_a_rate_never_answers_an_amount(tailspin: Settings, question: str) -> None:
    answer = stated(ask_once(tailspin, question))
    assert "3.11" not in answer


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Tailspin's average fuel cost per gallon in 2023?", "$3.11"),
    ("What was Tailspin's average fuel cost in 2023?", "$3.11"),  # an average is per something
    ("What was Tailspin's diluted EPS in 2024?", "$3.05"),
    ("What was Tailspin's passenger revenue per available seat mile in 2024?", "15.20"),
    ("What was Tailspin's passenger revenue in 2024?", "$6,120 million"),
])
def test_a_rate_answers_a_rate(tailspin: Settings, question: str, figure: str) -> None:
    assert figure in stated(ask_once(tailspin, question))


def test_a_rate_printed_per_day_answers_per_day(tailspin: Settings) -> None:
    # a producer's or a hedger's 'bbl/d' is per day, as the question says it
    answer = stated(ask_once(tailspin, "How much jet fuel did Tailspin hedge per day in 2023?"))
    assert "17,250" in answer, answer


def test_a_scale_caption_is_no_rate() -> None:
    assert _rate_unit("except per share amounts): Potential shares from outstanding awards") == ""
    assert _rate_unit("Average fuel cost per gallon") == "gallon"


def test_an_amount_never_answers_a_rate(tailspin: Settings) -> None:
    answer = stated(ask_once(tailspin, "What was Tailspin's net income per passenger in 2024?"))
    assert "402" not in answer
