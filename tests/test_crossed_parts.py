"""A table that crosses two kinds of part (a product's row under a region's column) names a part in two pieces:
'Ilvaran Ex-US revenue' is the row 'Ilvaran' under the column 'Q2 2025 Ex-U.S.'. The closed world holds each
piece to the figure's own words, so a region the table does not print is still refused."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings

pytestmark = pytest.mark.usefixtures("no_yfinance")

RELEASE = """# Northwind Biologics, Inc.

## Northwind Biologics Reports Second Quarter 2025 Financial Results

BOSTON, July 30, 2025 -- Northwind Biologics, Inc. (NASDAQ: NWBX) today reported its financial results for the
second quarter ended June 30, 2025.

### Product Revenues

(In millions)

| | Q2 2025 U.S. | Q2 2025 Ex-U.S. | Q2 2025 Total | Q2 2024 U.S. | Q2 2024 Ex-U.S. | Q2 2024 Total |
|---|---|---|---|---|---|---|
| Ilvaran | 431 | 127 | 558 | 389 | 104 | 493 |
| Tessomab | 212 | 73 | 285 | 190 | 66 | 256 |
| Total product revenues | 643 | 200 | 843 | 579 | 170 | 749 |
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("crossed"), "NORTHWIND_2025Q2_PR.md", RELEASE)


@pytest.mark.parametrize("question", [
    "NWBX Ilvaran Ex-US revenue Q2 2025",
    "What were Northwind's Ilvaran Ex-US revenues in the second quarter of 2025?",
])
def test_a_part_named_by_its_row_and_its_column_is_answered(home: Settings, question: str) -> None:
    answer = stated(ask_once(home, question))
    assert "127" in answer and "558" not in answer and "431" not in answer, answer


def test_a_region_the_table_does_not_print_is_still_refused(home: Settings) -> None:
    answer = ask_once(home, "What were Northwind's Ilvaran Europe revenues in Q2 2025?")
    assert answer.startswith("Not found"), answer
    assert not any(figure in stated(answer) for figure in ("127", "558", "431")), answer


@pytest.mark.parametrize(("text", "name", "written"), [
    ("Fabrikam | S&P 500 | S&P Utilities", "S&P Utilities", True),  # the '&' glued to its letters
    ("AT&T Inc.", "AT&T", True),
    ("Procter & Gamble", "Procter and Gamble", True),
    ("sandpaper", "S&P", False),
    ("Opening balance - IFRS 9", "IFRS9", True),  # a number written apart from its word or glued to it
    ("IFRS9 adoption", "IFRS 9", True),
    ("Tier 10 capital", "Tier 1", False),  # a number ends where its digits do
    ("European net sales", "Europe", True),  # the last word as an adjective
])
def test_a_name_is_mentioned_however_its_signs_and_numbers_are_spaced(text: str, name: str, written: bool) -> None:
    from agent.answer.provenance import mentioned

    assert mentioned(text, name) is written
