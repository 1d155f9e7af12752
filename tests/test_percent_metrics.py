"""A margin is never answered with an amount printed under its name: many filers call their gross profit 'Gross
margin' and print it in dollars. A margin read off a row holds a computed margin's bounds (at most 100 %); an amount
is shown as closest evidence, not stated. A rate past 100 % that is no margin (a tax rate) stays a rate."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Northwind Memory Technology, Inc.

FORM 10-K

For the fiscal year ended December 31, 2024

## Item 6. Selected Financial Data

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Revenue | $16,192 | $12,399 |
| Gross margin | 5,215 | 2,505 |
| Operating income | 2,998 | 168 |

## Item 7. Management's Discussion and Analysis

| | 2024 | 2023 |
|---|---|---|
| Operating margin (%) | 18.5% | 1.4% |
| Effective tax rate (%) | (223) | 21 |
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("pct"), "NORTHWIND_2024_10K.md", FILING)


def test_an_amount_under_a_margins_name_is_no_margin(home: Settings) -> None:
    answer = ask_once(home, "What was Northwind's gross margin in 2024?")
    assert "5,215" not in stated(answer), answer
    assert "percent" in answer and "5,215" in answer  # why, and the amount shown as closest evidence


def test_a_margin_printed_in_percent_is_answered(home: Settings) -> None:
    answer = stated(ask_once(home, "What was Northwind's operating margin in 2024?"))
    assert "18.5" in answer, answer


def test_a_tax_rate_past_a_hundred_percent_stays_a_rate(home: Settings) -> None:
    answer = stated(ask_once(home, "What was Northwind's effective tax rate in 2024?"))
    assert "223" in answer, answer
