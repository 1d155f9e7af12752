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

| | 2024 | 2023 |
|---|---|---|
| Net sales | 2,640 | 2,400 |
| Operating income | 396 | 312 |
| Net income | 250 | 221 |
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


def test_a_comparison_asks_for_the_figures_themselves(fabrikam: Settings) -> None:
    answer = ask_once(fabrikam, "Compare Fabrikam's net sales in 2023 and 2024")
    assert "$2,400 million" in answer and "$2,640 million" in answer, answer
