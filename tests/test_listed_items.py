"""A question listing items 'respectively' gets a figure for each item, in the order asked, each read and checked
on its own; items sharing a head are given it ('municipal and corporate bonds'); two items read as one and the
same figure were not told apart and are refused. The filing is typeset here: a distributor's related-party note and
its segment table.
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.query.cues import item_questions

FILING = """# Woodgrove Distribution Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 8. Financial Statements

### Note 14. Related Party Transactions

Transactions with affiliates were as follows (in thousands):

| | 2024 | 2023 |
|---|---|---|
| Product and equipment sales to affiliates | 30,303 | 26,069 |
| Purchases of resale inventories and supplies | 303,793 | 256,660 |
| Dividends paid | 52,983 | 54,810 |

### Note 15. Investments

Available-for-sale investments at December 31, 2024 (in thousands):

| | Amortized cost | Fair value |
|---|---|---|
| Municipal bonds | 44,790 | 44,705 |
| Corporate bonds | 48,280 | 48,296 |
"""


@pytest.fixture(scope="module")
def woodgrove(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("woodgrove"), "WOODGROVE_2024_10K.md", FILING)


@pytest.mark.parametrize(
    ("question", "items"),
    [
        (
            "What are the respective sales and purchases for 2017?",
            ["What are the sales for 2017?", "What are the purchases for 2017?"],
        ),
        (
            "What are the respective fair values of the municipal and corporate bonds?",
            ["What are the fair values of the municipal bonds?", "What are the fair values of the corporate bonds?"],
        ),
        (
            "What were the federal, state and foreign tax credit carryforwards in 2019 respectively?",
            [
                "What were the federal tax credit carryforwards in 2019?",
                "What were the state tax credit carryforwards in 2019?",
                "What were the foreign tax credit carryforwards in 2019?",
            ],
        ),
        (
            "What are the balances of inventories and other accrued liabilities, respectively?",
            ["What are the balances of inventories?", "What are the balances of other accrued liabilities?"],
        ),
    ],
)
def test_each_listed_item_is_a_question_of_its_own(question: str, items: list[str]) -> None:
    assert item_questions(question) == items


@pytest.mark.parametrize(
    "question",
    [
        "What was X in 2019 and 2018 respectively?",  # a list of periods
        "What were the depreciation and amortization expenses for fiscal 2018 and 2019, respectively?",  # one name
        "What are the sales and purchases for 2017?",  # no 'respective(ly)': the question may ask for one total
    ],
)
def test_no_item_list_is_read_where_none_is_asked(question: str) -> None:
    assert item_questions(question) == []


def test_both_items_are_answered_in_order(woodgrove: Settings) -> None:
    answer = stated(ask_once(woodgrove, "What are the respective sales and purchases for 2024?"))
    assert "30,303" in answer and "303,793" in answer, answer
    assert answer.index("30,303") < answer.index("303,793")


def test_items_sharing_a_head_are_each_read(woodgrove: Settings) -> None:
    answer = stated(ask_once(woodgrove, "What are the respective fair values of the municipal and corporate bonds?"))
    assert "44,705" in answer and "48,296" in answer, answer


def test_two_items_read_as_one_figure_are_refused() -> None:
    from agent.answer.compose import _one_figure_per_period
    from agent.answer.records import SubAnswer
    from agent.schemas import Citation, NumericValue

    cite = Citation(doc="WOODGROVE_2024_10K", page=3, quote="Segment net sales were $934.2 million", chunk_id="c1")
    value = NumericValue(text="$934.2 million", value=934.2, scale=1e6, unit="USD", period="FY2024")

    def read(item: str) -> SubAnswer:
        return SubAnswer(sub_query_id=f"any:revenue-{item}:FY2024", question=f"What was the {item} net sales?",
                         status="found", answer=f"Revenue was {value.text} {cite.label()}.", metric="revenue",
                         value=value, citation=cite, citations=[cite])

    out = _one_figure_per_period([read("International"), read("Foodservice")])
    assert [sa.status for sa in out] == ["not_found", "not_found"]
    assert "another item" in out[0].missing
    alone = _one_figure_per_period([read("International")])
    assert alone[0].status == "found"
