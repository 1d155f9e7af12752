"""A segment named before its metric narrows every figure an operation is computed from: 'Medical Devices revenue
growth' is the growth of each year's Medical Devices revenue, not refused because each year's lookup asked for the
company's revenue (the segment's words were dropped when the lookup was written from the growth's name). A share
of the company's revenue that 'came from' a segment is the segment's row over the total, however the verb
linking them is worded. A table row naming the segment but another metric ('Industrial Sensors revenue') is no
answer for the segment's operating income a note's sentence states, and a figure on the second line of a wrapped
sentence ('... operating income was $281 million' / 'in 2024 and $191 million in 2023.') keeps the sentence's
subject (typeset filings)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_sample, ingested_typeset

from agent.config import Settings
from agent.query.decompose import decompose
from agent.query.intent import extract_intent

FILING = """# Contoso Health Inc.

Annual Report on Form 10-K for the fiscal year ended December 31, 2024

## Item 7. Management's Discussion and Analysis

### Segment Results

| (in millions) | 2024 | 2023 |
|---|---|---|
| Diagnostics revenue | 1,300 | 1,200 |
| Imaging revenue | 700 | 560 |
| Total revenue | 2,000 | 1,760 |

## Item 8. Financial Statements and Supplementary Data

### Consolidated Statements of Operations

| (in millions) | 2024 | 2023 |
|---|---|---|
| Revenue | 2,000 | 1,760 |
| Operating income | 300 | 250 |

### Note 9. Segment Information

The chief operating decision maker evaluates performance by segment operating income. Diagnostics operating income
was $240 million in 2024 and $210 million in 2023. Imaging operating income was $90 million in 2024 and $70 million
in 2023.
"""


@pytest.fixture(scope="module")
def contoso(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("contoso"), "CONTOSO_2024_10K.md", FILING)


def test_each_years_lookup_keeps_the_segment() -> None:
    question = "What was Contoso's Imaging revenue growth in 2024?"
    plan = decompose(question, extract_intent(question, ["Contoso Health Inc."]), ["Contoso Health Inc."])
    assert len(plan.sub_queries) == 2
    assert all("imaging revenue" in sq.question.lower() for sq in plan.sub_queries), plan.sub_queries


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Contoso's Imaging revenue growth in 2024?", "25.00%"),  # (700 - 560) / 560
    ("What share of Contoso's revenue came from Imaging in 2024?", "35.00%"),  # 700 / 2,000
    ("What percentage of Contoso's revenue was from Imaging in 2024?", "35.00%"),
])
def test_a_segments_operation_is_computed_from_its_own_rows(contoso: Settings, question: str, figure: str) -> None:
    out = ask_once(contoso, question)
    assert figure in out and not out.startswith("Not found"), out


def test_the_company_growth_is_no_answer_for_a_segment_it_lacks(contoso: Settings) -> None:
    out = ask_once(contoso, "What was Contoso's Pharmacy revenue growth in 2024?")
    assert out.startswith("Not found") and "13.64%" not in out.split("Closest evidence")[0], out


@pytest.fixture(scope="module")
def northwind(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_sample(tmp_path_factory.mktemp("northwind"))


@pytest.mark.parametrize(("question", "figure"), [
    # the sample filing's MD&A table prints 'Industrial Sensors revenue'; its Note 12 says the operating income
    ("What was the operating income of Northwind's Industrial Sensors segment in 2024?", "$512 million"),
    ("What was Northwind's Medical Devices operating income in 2023?", "$191 million"),
])
def test_a_row_of_another_metric_does_not_displace_the_segments_figure(northwind: Settings, question: str,
                                                                        figure: str) -> None:
    out = ask_once(northwind, question)
    assert figure in out and not out.startswith("Not found"), out


def test_a_segments_figure_in_a_note_sentence(contoso: Settings) -> None:
    out = ask_once(contoso, "What was the operating income of Contoso's Imaging segment in 2024?")
    assert "$90 million" in out and not out.startswith("Not found"), out
