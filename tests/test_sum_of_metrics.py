"""'The sum of goodwill and customer-related intangible assets' adds the figures of the two metrics it names, in
code, each read and checked on its own; 'the combined revenue and operating income' asks two figures, not their sum
(the operation model settles what a sum word asks)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.query.decompose import decompose
from agent.query.intent import extract_intent

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Northbrook Payments Inc.

Annual Report for the fiscal year ended May 31, 2024

## Note 3. Acquisitions

The preliminary purchase price allocation of the acquisition of Lakeside Processing is as follows (in thousands):

| | Amount |
|---|---|
| Goodwill | 13,536 |
| Customer-related intangible assets | 4,091 |
| Property and equipment | 1,050 |
| Total purchase price | 18,677 |
"""


@pytest.fixture(scope="module")
def northbrook(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("sum"), "NORTHBROOK_2024_10K.md", FILING)


def test_the_sum_of_two_metrics_is_computed(northbrook: Settings) -> None:
    answer = stated(ask_once(northbrook, "What is the sum of goodwill and customer related intangible assets?"))
    assert "17,627" in answer and "13,536 + 4,091" in answer


@pytest.mark.parametrize(("question", "summed"), [
    ("what is the sum of goodwill and customer related intangible assets?", True),
    ("What were the combined revenue and operating income of Acme in 2023?", False),
])
def test_a_sum_word_asks_a_sum_of_metrics_only_when_the_model_reads_one(question: str, summed: bool) -> None:
    plan = decompose(question, extract_intent(question, ()), ())
    assert len(plan.sub_queries) == 2
    assert [c.operation for c in plan.combinations] == (["sum"] if summed else [])
