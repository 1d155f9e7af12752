"""A table row is read under its sub-heading: 'Client services' under 'Revenue:' is revenue, the same label under
'Cost of revenue:' is a cost, and a 'Total' row closes the block it sums. The filing is typeset here: a health
software maker's statement of discontinued operations, whose two blocks repeat their row labels.
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.config import Settings

FILING = """# Fabrikam Health Systems Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 8. Financial Statements

### Note 3. Discontinued Operations

The results of the discontinued clinical business were as follows (in thousands):

| | 2024 | 2023 |
|---|---|---|
| Clinical delivery and upkeep: | | |
| Licensed installations | 9,441 | 10,949 |
| Onsite projects | 404 | 1,044 |
| Total clinical delivery and upkeep | 9,845 | 11,993 |
| Cost of clinical delivery and upkeep: | | |
| Licensed installations | 2,322 | 2,918 |
| Onsite projects | 830 | 261 |
| Total cost of clinical delivery and upkeep | 3,152 | 3,179 |
| Tooling rebates | 6,693 | 8,814 |

### Note 5. Accrued Liabilities

| All figures in USD '000 | 2024 | 2023 |
|---|---|---|
| Accrued interest | 163 | 1,598 |
| Accrued expenses | 11,569 | 7,362 |
| Total as of December 31, | 11,732 | 8,960 |
"""


@pytest.fixture(scope="module")
def fabrikam(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("fabrikam"), "FABRIKAM_2024_10K.md", FILING)


@pytest.mark.parametrize(
    ("question", "figure", "other"),
    [
        ("What was the clinical delivery and upkeep of onsite projects in 2023?", "1,044", "261"),
        ("What was the cost of clinical delivery and upkeep of onsite projects in 2023?", "261", "1,044"),
        ("What was the cost of clinical delivery and upkeep of licensed installations in 2024?", "2,322", "9,441"),
    ],
)
def test_a_repeated_row_label_is_read_under_the_sub_heading_the_question_names(
    fabrikam: Settings, question: str, figure: str, other: str
) -> None:
    answer = ask_once(fabrikam, question).split("Closest evidence", 1)[0]
    assert figure in answer and other not in answer, answer
    assert not answer.startswith("Not found"), answer


def test_the_answer_says_which_block_the_row_is_in(fabrikam: Settings) -> None:
    answer = ask_once(fabrikam, "What was the cost of clinical delivery and upkeep of onsite projects in 2023?")
    assert "Cost of clinical delivery and upkeep: Onsite projects" in answer, answer


def test_a_row_after_a_total_is_no_part_of_the_block(fabrikam: Settings) -> None:
    # 'Tooling rebates' follows the cost block's total: nothing makes it a cost of clinical delivery.
    answer = ask_once(fabrikam, "What was the cost of clinical delivery and upkeep of tooling rebates in 2024?")
    assert "6,693" not in answer.split("Closest evidence", 1)[0], answer


def test_a_component_is_never_stated_as_the_total_its_table_prints(fabrikam: Settings) -> None:
    answer = ask_once(fabrikam, "What was the total accrued liabilities in 2024?")
    stated = answer.split("Closest evidence", 1)[0]
    assert "11,569" not in stated and ("11,732" in stated or stated.startswith("Not found")), answer
    # the split lookups of an average keep the turn's 'total'
    answer = ask_once(fabrikam, "What is the average total accrued liabilities in 2023 and 2024?")
    assert "9,465.5" not in answer.split("Closest evidence", 1)[0], answer
    # a component asked by its own name is answered
    assert "11,569" in ask_once(fabrikam, "What were the accrued expenses in 2024?")


def test_non_current_never_names_current() -> None:
    from agent.query.content import content_words

    assert "current" not in content_words("Monetary assets, non-current")
    assert content_words("long-term debt") == content_words("long term debt")


def test_the_total_of_a_part_the_question_names_is_that_parts_row(fabrikam: Settings) -> None:
    # 'the total clinical delivery and upkeep of onsite projects': the question narrows to a part; its row answers.
    answer = ask_once(fabrikam, "What was the total clinical delivery and upkeep of onsite projects in 2023?")
    assert "1,044" in answer.split("Closest evidence", 1)[0], answer


def test_the_components_of_a_heading_are_the_rows_under_it(fabrikam: Settings) -> None:
    answer = ask_once(fabrikam, "What are the components of the cost of clinical delivery and upkeep?")
    assert "Licensed installations and Onsite projects" in answer, answer
    assert "Tooling rebates" not in answer and "Total" not in answer.split("[", 1)[0], answer


def test_the_components_of_a_table_named_by_its_rows(fabrikam: Settings) -> None:
    answer = ask_once(fabrikam, "What are the components of accrued liabilities in the table?")
    assert "Accrued interest and Accrued expenses" in answer, answer
