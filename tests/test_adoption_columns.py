"""A table of an accounting standard's adoption prints each line 'As Reported | Adjustments | Balances without
Adoption of Topic 606'. A column name may carry a number of a name ('Topic 606', 'Level 3'): it is still a line of
column names. A column that says its figures are without something ('without adoption') never answers a question
after that thing ('the adjustment from the adoption'), and a question naming a column by words the reader's item
questions lost is refused rather than answered from another column."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.answer.words import negated_words
from agent.config import Settings
from agent.ingest.parsing import _markdown_pages
from agent.ingest.tables import find_tables

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Kestrel Devices Inc.

Annual Report for the fiscal year ended June 28, 2019

## Note 2. Adoption of Topic 606

The impact of adoption on our consolidated balance sheet as of June 28, 2019 was as follows (in millions):

| | As Reported | Adjustments | Balances without Adoption of Topic 606 |
|---|---|---|---|
| Accounts receivable, net | 2,120.4 | (35.2) | 2,085.2 |
| Inventories | 1,571.7 | (3.1) | 1,568.6 |
| Other accrued liabilities | 691.6 | (1.1) | 690.5 |
"""


@pytest.fixture(scope="module")
def kestrel(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("adoption"), "KESTREL_2019_10K.md", FILING)


def test_a_name_carrying_a_number_is_a_column_name() -> None:
    (page,) = _markdown_pages(FILING)
    (table,) = find_tables(page)
    assert table.columns == ["As Reported", "Adjustments", "Balances without Adoption of Topic 606"]


def test_the_column_the_question_names_answers(kestrel: Settings) -> None:
    answer = stated(ask_once(kestrel, "What was the balance of inventories without adoption of Topic 606?"))
    assert "1,568.6" in answer and "1,571.7" not in answer


def test_a_column_without_a_thing_never_answers_for_that_thing(kestrel: Settings) -> None:
    answer = stated(ask_once(kestrel, "What was the adjustment to inventories from the adoption of Topic 606?"))
    assert "1,568.6" not in answer and "1,571.7" not in answer  # the balances, not the adjustment (3.1)
    assert answer.startswith("Not found") or "3.1" in answer


def test_a_column_named_in_an_aside_is_not_answered_from_another(kestrel: Settings) -> None:
    answer = stated(ask_once(kestrel, "What are the balances (without Adoption of Topic 606, in millions) of "
                                      "inventories and other accrued liabilities, respectively?"))
    assert "1,571.7" not in answer and "691.6" not in answer  # the 'As Reported' column was not asked


def test_without_negates_the_word_after_it() -> None:
    assert negated_words("the adjustment from the adoption", "Balances without Adoption of Topic 606") == ["adoption"]
    assert negated_words("balances without the adoption", "Balances without Adoption of Topic 606") == []
