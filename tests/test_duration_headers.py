"""A column header whose cells each print a duration and a date ('Three Months Ended Dec. 28, 2024 | ... | Change |
Twelve Months Ended Dec. 28, 2024'), with no words all of them share: every cell heads its column, so the quarter's
figure answers the quarter and the year's the year (typeset filing). Before, the header was lost and the row's first
figure was guessed to be the filing's year."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance.column_periods import column_periods
from agent.ingest.tables import find_tables
from agent.ingest.typed_tables import typed_columns

FILING = """# Fourth Coffee Corporation

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 28, 2024

## Item 7. Management's Discussion and Analysis

### Overview

Our results of operations for each period were as follows (in millions, except per share amounts):

| | Three Months Ended Dec. 28, 2024 | Three Months Ended Sept. 28, 2024 | Change | Twelve Months Ended Dec. 28, 2024 | Twelve Months Ended Dec. 30, 2023 | Change |
|---|---|---|---|---|---|---|
| Net revenue | 13,834 | 13,483 | 351 | 52,708 | 53,341 | (633) |
| Operating income | 3,549 | 3,504 | 45 | 12,291 | 14,638 | (2,347) |
| Diluted earnings per share | 0.51 | 0.58 | (0.07) | 1.89 | 2.13 | (0.24) |
"""


def test_each_cell_of_a_duration_header_heads_its_column() -> None:
    text = (
        "Our results were as follows:\n"
        "three months ended dec . 28 2024 | three months ended sept . 28 2024 | change | "
        "twelve months ended dec . 28 2024 | twelve months ended dec . 30 2023 | change\n"
        "net revenue | 13834 | 13483 | 351 | 52708 | 53341 | -633\n"
        "operating income | 3549 | 3504 | 45 | 12291 | 14638 | -2347\n"
    )
    (table,) = find_tables(text)
    columns = typed_columns(table, 12)
    assert [c.kind for c in columns] == ["period", "period", "change", "period", "period", "change"]
    assert [c.period for c in columns] == ["FY2024Q4", "FY2024Q3", "", "FY2024", "FY2023", ""]
    assert [c.months for c in columns] == [3, 3, 0, 12, 12, 0]


def test_a_tokenizer_space_before_a_dot_or_comma_keeps_the_date() -> None:
    assert column_periods(["three months ended dec . 28 2013", "december 28 , 2013"], 12) == ["FY2013Q4", "FY2013"]


@pytest.fixture(scope="module")
def fourth_coffee(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("fourth_coffee"), "FOURTHCOFFEE_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "figure", "not_stated"), [
    ("What was Fourth Coffee's net revenue in 2024?", "52,708", "13,834"),
    ("What was the diluted earnings per share in fiscal 2024?", "1.89", "0.51"),
    ("What was Fourth Coffee's net revenue in the fourth quarter of 2024?", "13,834", "52,708"),
])
def test_the_quarter_answers_the_quarter_and_the_year_the_year(
    fourth_coffee: Settings, question: str, figure: str, not_stated: str
) -> None:
    said = stated(ask_once(fourth_coffee, question))
    assert figure in said and not_stated not in said
