"""An amount asked 'per' something (per share, per employee, per barrel) is answered only by a figure whose own words
say that rate: a company total is never stated for it ('total dividends paid $41 million' was the answer to 'the cash
dividend paid per common share'). The filing is typeset here: a packaging maker's cash-flow lines and per-share data.
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings

FILING = """# Wingtip Containers Corporation

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 7. Management's Discussion and Analysis

### Liquidity

| (in millions) | 2024 | 2023 |
|---|---|---|
| Net sales | 8,120 | 7,640 |
| Dividends paid | 41 | 36 |
| Net income | 512 | 470 |

### Per share data

| | 2024 | 2023 |
|---|---|---|
| Cash dividends declared per common share | 0.40 | 0.35 |
| Diluted earnings per share | 5.12 | 4.70 |
"""


@pytest.fixture(scope="module")
def wingtip(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("wingtip"), "WINGTIP_2024_10K.md", FILING)


def test_a_per_share_question_gets_the_per_share_row(wingtip: Settings) -> None:
    answer = stated(ask_once(wingtip, "What was Wingtip's cash dividend paid per common stock share in 2024?"))
    assert "41" not in answer.replace("2024", ""), answer


@pytest.mark.parametrize("question", [
    "What was Wingtip's net income per basic share for 2024?",
    "What were Wingtip's net sales per employee in 2024?",
])
def test_a_total_is_no_answer_to_an_amount_per_something(wingtip: Settings, question: str) -> None:
    answer = ask_once(wingtip, question)
    assert answer.startswith("Not found"), answer
    assert "512" not in stated(answer) and "8,120" not in stated(answer), answer


def test_a_time_rate_is_an_average_not_a_divisor(wingtip: Settings) -> None:
    # 'per year' asks how the figure is averaged over time, not what it is divided by: no rate check
    answer = stated(ask_once(wingtip, "What were Wingtip's net sales per year in 2024?"))
    assert "8,120" in answer, answer
