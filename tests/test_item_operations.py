"""An operation over two items a question names ('the difference in fair value between purchased technology and
trade names', 'the sum of A and B', 'the ratio of A to B') is read one item at a time, each checked on its own
words, and computed in code; a row the question does not name is no answer for the column it does.

The filing is typeset here: a 10-K's revenue by segment and product line (segments as columns, a total row) and
its intangible assets (items as rows, measures as columns).
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.query.cues import operation_items

FILING = """# Tailspin Networks Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 8. Financial Statements

### Note 3. Revenue

The following table disaggregates our revenue by category for the year ended December 31, 2024:

| (In thousands) | Network Solutions | Services & Support | Total |
|---|---|---|---|
| Access & Aggregation | 289,980 | 58,894 | 348,874 |
| Subscriber Solutions & Experience | 144,651 | 8,269 | 152,920 |
| Total | 455,226 | 74,835 | 530,061 |

### Note 7. Intangible Assets

Intangible assets at December 31, 2024 consisted of the following (in thousands):

| | Gross carrying value | Accumulated amortization | Net carrying value |
|---|---|---|---|
| Purchased technology | 23,200 | 9,100 | 14,100 |
| Trade names | 1,400 | 600 | 800 |
| Non-compete agreements | 900 | 450 | 450 |
"""


@pytest.fixture(scope="module")
def tailspin(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("tailspin"), "TAILSPIN_2024_10K.md", FILING)


@pytest.mark.parametrize(
    ("question", "operation", "items"),
    [
        ("What was the difference in the gross carrying value between trade names and non-compete agreements?",
         "difference", ["trade names", "non-compete agreements"]),
        ("What was the sum of net bookings and in-game net bookings in 2019?", "sum",
         ["net bookings", "in-game net bookings"]),
        ("What is the ratio of current deferred revenue to non-current deferred revenue?", "ratio",
         ["current deferred revenue", "non-current deferred revenue"]),
        ("What is the ratio of current deferred revenue to non-current deferred revenue?", "ratio",
         ["current deferred revenue", "non-current deferred revenue"]),
    ],
)
def test_the_items_of_an_operation_are_read_apart(question: str, operation: str, items: list[str]) -> None:
    found = operation_items(question)
    assert found is not None and found[0] == operation
    assert [item for item, _ in found[1]] == items
    # each item's question keeps what both are a figure of and when
    if "gross carrying value" in question:
        assert found[1][0][1] == "What was the gross carrying value of trade names?"
    if "2019" in question:
        assert all(text.endswith(" in 2019?") for _, text in found[1])


@pytest.mark.parametrize(
    "question",
    [
        "What is the difference in revenue between 2018 and 2019?",  # the ends of a span, not two items
        "What is the difference between the average investment income and average financing costs?",  # two steps
        "What was the sum of research and development expenses?",  # the 'and' of a name
        "What was the total of risk and insurance brokerage services segment revenue in 2009?",  # one row's total
        "And what is the difference between this value and the number one?",  # earlier answers: the references'
        "What is the sum of intangible assets and goodwill divided by the total assets acquired?",  # two steps
    ],
)
def test_no_two_items_are_read_where_none_are_named(question: str) -> None:
    assert operation_items(question) is None


def test_a_difference_of_two_rows_is_computed_from_each_row(tailspin: Settings) -> None:
    answer = ask_once(tailspin, "What was the difference in the gross carrying value between trade names and "
                                "non-compete agreements?")
    assert "(1,400 - 900 = 500)" in answer and "[TAILSPIN_2024_10K, p. " in answer
    # a measure the table does not give for the items is not read from another column
    other = ask_once(tailspin, "What was the difference in the fair value between trade names and non-compete "
                               "agreements?")
    assert "500" not in stated(other) and "1,400" not in stated(other)


def test_a_difference_of_two_columns_reads_each_columns_total(tailspin: Settings) -> None:
    answer = ask_once(tailspin, "What was the difference in total revenue between Network Solutions and Services "
                                "& Support?")
    assert "455,226 - 74,835 = 380,391" in answer


def test_a_row_the_question_does_not_name_is_no_answer_for_its_column(tailspin: Settings) -> None:
    answer = ask_once(tailspin, "What was the revenue of Services & Support?")
    assert "74,835" in stated(answer)
    assert "58,894" not in stated(answer) and "8,269" not in stated(answer)


def test_a_row_printed_part_by_part_is_read_in_its_total_column_unless_a_part_is_asked(tailspin: Settings) -> None:
    whole = ask_once(tailspin, "What was the revenue from Access & Aggregation?")
    assert "348,874" in stated(whole) and "289,980" not in stated(whole)
    part = ask_once(tailspin, "What was the Network Solutions revenue from Access & Aggregation?")
    assert "289,980" in stated(part) and "348,874" not in stated(part)
