"""A quarter or half named apart from its year ('fourth-quarter revenue in 2024', 'Q2 sales for 2023') asks for
that quarter of the year, never the year: before, the year alone was read and the annual figure was stated as
the fourth quarter's (typeset filing)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance.periods import find_periods
from agent.query.intent import asked_periods, extract_intent

FILING = """# Proseware Tools Inc.

Annual Report on Form 10-K for the fiscal year ended December 31, 2024

## Item 8. Financial Statements and Supplementary Data

### Consolidated Statements of Operations

| (in millions) | 2024 | 2023 |
|---|---|---|
| Net sales | 1,840 | 1,710 |
| Operating income | 210 | 190 |
| Net income | 150 | 131 |
"""


@pytest.fixture(scope="module")
def proseware(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("proseware"), "PROSEWARE_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "periods"), [
    ("What was the fourth-quarter revenue in 2024?", ["FY2024Q4"]),
    ("What were Q2 sales for 2023?", ["FY2023Q2"]),
    ("What was first-half 2024 revenue?", ["FY2024H1"]),
    ("How did first quarter revenue in 2024 compare with 2023?", ["FY2024Q1", "FY2023Q1"]),
    # a quarter written with its year, and a year alone, stay as they are
    ("What was revenue in the third quarter of fiscal 2024?", ["FY2024Q3"]),
    ("What was revenue in 2024?", ["FY2024"]),
])
def test_a_quarter_named_apart_from_its_year_is_that_quarter(question: str, periods: list[str]) -> None:
    assert extract_intent(question, []).temporal_scope.periods == periods


def test_the_annual_figure_is_no_answer_for_a_quarter(proseware: Settings) -> None:
    out = ask_once(proseware, "What were Proseware's fourth-quarter net sales in 2024?")
    assert out.startswith("Not found") and "1,840" not in stated(out), out


@pytest.mark.parametrize(("question", "periods"), [
    ("What is the sum of Media's operating revenues in Q4 2019 and 2018?", ["FY2019Q4", "FY2018Q4"]),
    ("What was revenue in the first half of 2024 and 2023?", ["FY2024H1", "FY2023H1"]),
    ("How did revenue in the second quarter of 2024 compare with 2023?", ["FY2024Q2", "FY2023Q2"]),
    ("What was revenue in Q4 2019 and in fiscal 2018?", ["FY2019Q4", "FY2018"]),
    ("What was revenue in Q4 2019, and what was it in 2018?", ["FY2019Q4", "FY2018"]),
])
def test_a_year_joined_to_a_quarter_is_the_same_quarter(question: str, periods: list[str]) -> None:
    assert [p.norm for p in asked_periods(question, find_periods(question))] == periods
