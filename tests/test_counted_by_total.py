"""What a table's rows count is said by its total row: under 'Membership', the 'Medicaid' row beside 'Total members'
counts members, though its own words and the title ('Membership') never write 'members'. The same row name in a
table of amounts ('Premium revenue by program') counts nothing.

The release is typeset here: a health insurer's membership table and its premiums by program.
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings

RELEASE = """# Coho Health Plans, Inc.

EXHIBIT 99.1

Coho Health Plans Reports Third Quarter 2025 Results

SEATTLE, November 5, 2025 -- Coho Health Plans, Inc. (NYSE: COHO) today reported results for the third quarter ended
September 30, 2025.

### Premium Revenue by Program

(In millions)

| | Q3 2025 | Q3 2024 |
|---|---|---|
| Commercial | 2,210 | 2,050 |
| Medicaid | 1,480 | 1,390 |
| Total premium revenue | 3,690 | 3,440 |

### Membership

(In thousands)

| | September 30, 2025 | December 31, 2024 |
|---|---|---|
| Medicaid | 655 | 701 |
| Medicare Advantage | 402 | 371 |
| Commercial | 1,310 | 1,262 |
| Total members | 2,367 | 2,334 |
"""


@pytest.fixture(scope="module")
def coho(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("coho"), "COHOHEALTH_2025Q3_PR.md", RELEASE)


def test_a_row_counts_what_its_tables_total_row_counts(coho: Settings) -> None:
    answer = stated(ask_once(coho, "How many Medicaid members did Coho have at September 30, 2025?"))
    assert "655 thousand" in answer and "1,480" not in answer


def test_the_amount_row_of_the_same_name_answers_the_amount(coho: Settings) -> None:
    assert "$1,480 million" in stated(ask_once(coho, "What was Coho's Medicaid premium revenue in Q3 2025?"))
