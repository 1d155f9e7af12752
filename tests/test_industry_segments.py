"""Segments whose rows are an industry's own metrics: an insurer's MD&A prints 'Net premiums written', 'Combined
ratio' and 'Underwriting income (loss)' under each segment's heading, with the scale stated once over the family.
The lexicon knows none of these rows; the filing's sentence about its segments says what the titles are.

The filing is typeset here: a property and casualty insurer's 10-K with consolidated results, one table per
segment and a balance sheet excerpt whose row names a metric with a word of its own between the metric's words.
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.index.store import Store

FILING = """# Southridge Assurance Group, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 1. Business

We report three segments: Personal Auto, Homeowners and Specialty.

## Item 7. Management's Discussion and Analysis

### Consolidated Results

(Dollars in millions)

| | 2024 | 2023 |
|---|---|---|
| Net premiums written | 5,210 | 4,870 |
| Net premiums earned | 5,050 | 4,700 |
| Underwriting income | 260 | 95 |
| Net income | 512 | 377 |
| Combined ratio | 94.9% | 98.0% |

### Results by Line

(Dollars in millions)

#### Personal Auto

| | 2024 | 2023 |
|---|---|---|
| Net premiums written | 2,400 | 2,250 |
| Underwriting income (loss) | 72 | (41) |
| Combined ratio | 97.0% | 101.8% |

#### Homeowners

| | 2024 | 2023 |
|---|---|---|
| Net premiums written | 1,910 | 1,790 |
| Underwriting income (loss) | 118 | 84 |
| Combined ratio | 93.8% | 95.3% |

#### Specialty

| | 2024 | 2023 |
|---|---|---|
| Net premiums written | 900 | 830 |
| Underwriting income (loss) | 70 | 52 |
| Combined ratio | 92.2% | 93.7% |

### Selected Balance Sheet Data

(Dollars in millions)

| | December 31, 2024 | December 31, 2023 |
|---|---|---|
| Total investments | 14,320 | 13,050 |
| Derivative financial instruments, non-current liability | 41 | 37 |
"""


@pytest.fixture(scope="module")
def southridge(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("southridge"), "SOUTHRIDGE_2024_10K.md", FILING)


def _tables(settings: Settings) -> dict[str, tuple[str, float]]:
    with Store.open(settings) as store:
        return {c.table.title: (c.part, c.table.scale) for c in store.chunks() if c.table is not None}


def test_segment_tables_of_metrics_the_lexicon_lacks_are_parts(southridge: Settings) -> None:
    tables = _tables(southridge)
    assert {title: part for title, (part, _) in tables.items()} == {
        "Consolidated Results": "", "Personal Auto": "Personal Auto", "Homeowners": "Homeowners",
        "Specialty": "Specialty", "Selected Balance Sheet Data": ""}


def test_the_scale_stated_once_over_a_family_is_every_members(southridge: Settings) -> None:
    scales = {title: scale for title, (_, scale) in _tables(southridge).items()}
    assert scales == {"Consolidated Results": 1e6, "Personal Auto": 1e6, "Homeowners": 1e6, "Specialty": 1e6,
                      "Selected Balance Sheet Data": 1e6}


@pytest.mark.parametrize(("question", "figure", "wrong"), [
    ("What was Southridge's combined ratio in 2024?", "94.9%", {"97.0%", "93.8%", "92.2%"}),
    ("Southridge net premiums written 2023", "$4,870 million", {"2,250", "1,790", "830"}),
])
def test_the_company_question_gets_the_consolidated_figure(southridge: Settings, question: str, figure: str,
                                                           wrong: set[str]) -> None:
    answer = stated(ask_once(southridge, question))
    assert figure in answer and not any(w in answer for w in wrong)


@pytest.mark.parametrize(("question", "figure", "part"), [
    ("What was the Homeowners segment's combined ratio in 2024?", "93.8%", "Homeowners"),
    ("Specialty net premiums written in 2023?", "$830 million", "Specialty"),
])
def test_the_segment_question_gets_the_segments_figure_named_as_its(southridge: Settings, question: str,
                                                                   figure: str, part: str) -> None:
    answer = stated(ask_once(southridge, question))
    assert figure in answer and part in answer.split(figure)[0]


def test_a_row_naming_the_metric_with_a_word_between_is_the_metric(southridge: Settings) -> None:
    answer = stated(ask_once(southridge, "What was Southridge's derivatives non-current liability in 2024?"))
    assert "$41 million" in answer, answer  # 'Derivative financial instruments' names derivative instruments
    refused = stated(ask_once(southridge, "What was Southridge's net income from underwriting in 2024?"))
    assert "260" not in refused and "72" not in refused, refused  # a row sharing one word is still no net income
