"""A table headed by its currency and scale the way filings outside the US write them ('£m', '$ million', 'S$ Mil',
"RMB'000") states its figures in that scale: 612.4 under '£m' is £612.4 million, never 612.4 pounds (typeset
filing)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.config import Settings
from agent.finance.numbers import header_scale

FILING = """# Fourth Coffee Group plc

Annual Report for the year ended 31 December 2024

## Strategic report

### Group results

| £m | 2024 | 2023 |
|---|---|---|
| Revenue | 612.4 | 580.1 |
| Operating profit | 88.6 | 57.5 |

### Dividends

| £'000 | 2024 | 2023 |
|---|---|---|
| Interim dividend paid | 6,900 | 6,400 |
| Final dividend paid | 14,250 | 13,100 |
"""


@pytest.mark.parametrize(("header", "scale"), [
    ("£m", 1e6), ("$ million", 1e6), ("US$ million", 1e6), ("S$ Mil", 1e6), ("RMB'000", 1e3), ("$'000", 1e3),
    ("£000", 1e3), ("€ bn", 1e9), ("($ million)", 1e6), ("(in millions)", 1e6),
    # an amount between the sign and the scale is a figure, not a header
    ("$5m of revenue", 1.0), ("Total $ 4,100", 1.0),
])
def test_a_currency_with_its_scale_heads_a_table_in_that_scale(header: str, scale: float) -> None:
    assert header_scale(header) == scale


@pytest.fixture(scope="module")
def fourth_coffee(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("fourthcoffee"), "FOURTHCOFFEE_2024_AR.md", FILING)


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Fourth Coffee's revenue in 2024?", "£612.4 million"),
    ("What was Fourth Coffee's operating profit in 2023?", "£57.5 million"),
    ("What was the final dividend paid by Fourth Coffee in 2024?", "£14,250 thousand"),
])
def test_a_figure_keeps_the_scale_its_table_states(fourth_coffee: Settings, question: str, figure: str) -> None:
    out = ask_once(fourth_coffee, question)
    assert figure in out, out
