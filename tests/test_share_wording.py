"""A share is of the metric named after 'share of' / 'percentage of' / 'slice of', whatever the verb that links the
part to it ('did R&D account for', 'was R&D', 'R&D as a percentage of'): before, 'what share of revenue did R&D
account for' divided revenue by R&D (1,143%, stopped only by the sanity bounds), and 'how big a slice of revenue
was R&D' stated the two figures without the share. 'y/y', 'yoy' and 'year-on-year' ask the change on the prior
year; 'yoy' before the metric was read as a kind of revenue and refused (typeset filing)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.config import Settings
from agent.query.decompose import decompose
from agent.query.intent import extract_intent

FILING = """# Woodgrove Devices Inc.

Annual Report on Form 10-K for the fiscal year ended December 31, 2024

## Item 8. Financial Statements and Supplementary Data

### Consolidated Statements of Operations

| (in millions) | 2024 | 2023 |
|---|---|---|
| Revenue | 5,000 | 4,000 |
| Research and development | 600 | 500 |
| Operating income | 900 | 700 |
"""


@pytest.fixture(scope="module")
def woodgrove(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("woodgrove"), "WOODGROVE_2024_10K.md", FILING)


@pytest.mark.parametrize("question", [
    "What share of Woodgrove's revenue did R&D account for in 2024?",
    "What percentage of Woodgrove's revenue was R&D in 2024?",
    "How big a slice of Woodgrove's revenue was R&D in 2024?",
    "What was Woodgrove's R&D as a percentage of revenue in 2024?",
])
def test_a_share_in_several_wordings_is_one_figure(woodgrove: Settings, question: str) -> None:
    out = ask_once(woodgrove, question)
    assert "12.00%" in out and "600 / 5,000" in out, out  # R&D over revenue, never revenue over R&D


@pytest.mark.parametrize("question", [
    "What was Woodgrove's revenue y/y in 2024?",
    "What was Woodgrove's yoy revenue growth in 2024?",
    "How did Woodgrove's revenue change year-on-year in 2024?",
    "What was Woodgrove's revenue growth in 2024?",
])
def test_year_over_year_in_several_wordings(woodgrove: Settings, question: str) -> None:
    out = ask_once(woodgrove, question)
    assert "25.00%" in out and not out.startswith("Not found"), out


def test_a_whole_the_question_names_apart_from_the_two_is_not_guessed() -> None:
    # 'total other assets' is the whole; neither goodwill nor intangibles is, so neither is made the whole
    question = "What percentage of total other assets was made of goodwill and intangible assets in 2012?"
    plan = decompose(question, extract_intent(question, []), [])
    assert [c.metric for c in plan.combinations] != ["intangible assets as % of goodwill"], plan.combinations
