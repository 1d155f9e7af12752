"""A region the question names after 'for' ('net sales for EMEA') is no company: where the filing's company is not
recorded and its table prints the region as a row, the company's total from its prose is not stated as the
region's figure (typeset excerpt with no company name, as an extract of a report is)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings

EXCERPT = """## Results of operations

Net sales of $1.4 billion in fiscal year 2024 increased 15.2% from $1.2 billion in fiscal year 2023, with
higher distributor sales across the Americas, APAC and EMEA.

Net sales by region (in thousands):

| | Fiscal Year 2024 | | Fiscal Year 2023 | |
|---|---|---|---|---|
| | Net Sales | % of Total | Net Sales | % of Total |
| APAC | $533,340 | 38.6% | $479,987 | 40.0% |
| EMEA | 315,535 | 22.8% | 277,898 | 23.1% |
| Americas | 533,943 | 38.6% | 442,296 | 36.9% |
| Total | $1,382,818 | | $1,200,181 | |
"""


@pytest.fixture(scope="module")
def excerpt(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("excerpt"), "a51c0e4f9b.md", EXCERPT)


@pytest.mark.parametrize("question", [
    "What was the net sales in 2024 for EMEA?",
    "What were EMEA net sales in 2024?",
])
def test_the_total_is_not_the_regions(excerpt: Settings, question: str) -> None:
    out = ask_once(excerpt, question)
    assert "1.4 billion" not in stated(out) and "1,382,818" not in stated(out), out


def test_the_total_is_stated_when_asked(excerpt: Settings) -> None:
    out = ask_once(excerpt, "What were net sales in fiscal year 2024?")
    assert not out.startswith("Not found") and ("1.4 billion" in out or "1,382,818" in out), out
