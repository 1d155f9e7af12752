"""An operating-statistics table, as airlines, hotels and telecoms print one: each row names its own unit, a
percentage row's change is in points ('Load factor | 84.5% | 83.5% | 1.0 pts'), and a measure excluding an item is
asked in shorthand ('CASM ex-fuel'). Before, the percentage row was dropped as 'a share printed beside amounts' (its
change in points is no percentage), and 'ex-fuel' was read as asking fuel, the opposite of 'excluding fuel'.

The 10-K is typeset here: a regional airline's.
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.answer.words import negated_words
from agent.config import Settings

FILING = """# Alpine Regional Airways, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

Alpine Regional Airways, Inc.
(Exact name of registrant as specified in its charter)

## Item 7. Management's Discussion and Analysis

### Operating Statistics

| | 2024 | 2023 | Change |
|---|---|---|---|
| Revenue passengers (thousands) | 12,410 | 11,905 | 4.2% |
| Available seat miles (millions) | 15,102 | 14,550 | 3.8% |
| Load factor | 82.7% | 81.9% | 0.8 pts |
| CASM excluding fuel (cents) | 12.41 | 12.02 | 3.2% |
| Average fuel cost per gallon | $2.66 | $2.98 | (10.7)% |
"""


@pytest.fixture(scope="module")
def alpine(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("alpine"), "ALPINEREGIONAL_2024_10K.md", FILING)


def test_a_percentage_row_with_a_change_in_points_is_read(alpine: Settings) -> None:
    assert "82.7%" in stated(ask_once(alpine, "What was Alpine Regional's load factor in 2024?"))


def test_ex_is_excluding() -> None:
    assert negated_words("CASM ex-fuel 2023", "CASM excluding fuel (cents)") == []
    assert negated_words("CASM fuel 2023", "CASM excluding fuel (cents)") == ["fuel"]


def test_a_measure_excluding_an_item_asked_in_shorthand(alpine: Settings) -> None:
    answer = stated(ask_once(alpine, "Alpine Regional CASM ex-fuel 2023"))
    assert "12.02" in answer and not answer.startswith("Not found")


def test_a_row_stating_its_own_scale_is_no_amount_of_the_tables_currency(alpine: Settings) -> None:
    # one row prints '$' ('Average fuel cost per gallon'); a row of seat miles '(millions)' is a count, not dollars
    answer = stated(ask_once(alpine, "What were Alpine Regional's available seat miles in 2024?"))
    assert "15,102 million" in answer or "15.1 billion" in answer or "15,102" in answer
    assert "$" not in answer.split("[")[0]
