"""A follow-up asking why ('what drove the change?', 'why did it rise?') is answered with the filing's words about
the metric the conversation was on, never with arithmetic on the earlier figures; the figures stay there for the
next turn's 'the change'. A company name ending in an abbreviation ('..., Inc.?') ends no sentence of a question."""

from __future__ import annotations

import pytest
from support import ask_thread, ingested_typeset

from agent.config import Settings
from agent.query.intent import asking_part, relation_of
from agent.schemas import Relation

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Tailwind Traders, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 7. Management's Discussion and Analysis

### Results of Operations

Net sales increased 9.0% to $2,180 million in 2024 from $2,000 million in 2023, driven by higher volumes in the
Outdoor segment and price increases across all regions.

Warehouse costs rose because of new distribution centers opened in the second half of the year.

## Item 8. Financial Statements

### Consolidated Statements of Operations

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Net sales | 2,180 | 2,000 |
| Operating income | 262 | 230 |
"""


@pytest.fixture(scope="module")
def tailwind(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("tailwind"), "TAILWIND_2024_10K.md", FILING)



@pytest.mark.parametrize("why", ["what drove the increase?", "why did it rise?", "what caused the change?"])
def test_a_why_follow_up_quotes_the_drivers_of_the_metric_asked(tailwind: Settings, why: str) -> None:
    first, second, third, fourth = ask_thread(tailwind, (
        "What were Tailwind's net sales in 2024?", "and in 2023?", why, "what was the change?"))
    assert "2,180" in first and "2,000" in second
    assert "driven by higher volumes" in third and "computed" not in third
    assert "180" in fourth.split("\n")[0]  # the figures are still there after the words


@pytest.mark.parametrize("question", [
    "what drove the increase in net sales from FY2023 to FY2024 for Tailwind Traders, Inc.?",
    "Why did revenue of Contoso Ltd. rise?",
])
def test_an_abbreviation_ends_no_sentence(question: str) -> None:
    assert asking_part(question) == question
    assert relation_of(question) is Relation.EXPLANATION
