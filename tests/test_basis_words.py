"""The words that pick one of the rows a table prints for a metric ('total', 'net', 'gross') stay with each
year's lookup when a change is split into one lookup a year, and of the rows found the one that says them
answers: 'net property and equipment' is the net row, not the gross one above the depreciation; 'total
accrued liabilities' is the total, not a line the lexicon also reads as accrued liabilities (typeset filing)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.config import Settings
from agent.query.scope import basis_words

FILING = """# Tailspin Fabrication Inc.

Annual Report on Form 10-K for the fiscal year ended December 31, 2024

## Item 8. Financial Statements and Supplementary Data

### Note 5. Property and equipment

| (in millions) | 2024 | 2023 |
|---|---|---|
| Land | 12.0 | 12.0 |
| Buildings | 80.0 | 70.0 |
| Machinery | 158.0 | 128.0 |
| Property and equipment | 250.0 | 210.0 |
| Accumulated depreciation | (100.0) | (90.0) |
| Property and equipment, net | 150.0 | 120.0 |

### Note 6. Accrued liabilities

| (in millions) | 2024 | 2023 |
|---|---|---|
| Accrued compensation | 40.0 | 25.0 |
| Income taxes payable | 10.0 | 10.0 |
| Accrued expenses and other liabilities | 50.0 | 40.0 |
| Total accrued liabilities | 100.0 | 75.0 |
"""


@pytest.fixture(scope="module")
def tailspin(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("tailspin"), "TAILSPIN_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "metric", "words"), [
    ("What was the percentage change in total accrued liabilities between 2023 and 2024?", "accrued liabilities",
     ["total"]),
    ("What was the change in the total net property, plant and equipment?", "property plant and equipment",
     ["total", "net"]),
    ("What was net property and equipment in 2024?", "property plant and equipment", ["net"]),
    # the name says it: 'net' of net income picks no row
    ("What was net income in 2024?", "net income", []),
    ("What was the total of revenue in 2024?", "revenue", []),
])
def test_basis_words_are_read_before_and_inside_the_metric_name(question: str, metric: str,
                                                                words: list[str]) -> None:
    assert basis_words(question, metric) == words


@pytest.mark.parametrize(("question", "figure", "not_figure"), [
    # the gross row (250 / 210 = 19.05%) is no answer for the net figure
    ("What was the percentage change in the net property and equipment between 2023 and 2024?", "25.00%", "19.05"),
    ("What was the change in Tailspin's net property and equipment from 2023 to 2024?", "30", "40.0"),
    # 'Accrued expenses and other liabilities' (50 / 40 = 25%) also names accrued liabilities: the total answers
    ("What was the percentage change in total accrued liabilities between 2023 and 2024?", "33.33%", "25.00%"),
    ("What was Tailspin's total accrued liabilities in 2024?", "100", "$50"),
])
def test_the_row_that_says_the_basis_answers(tailspin: Settings, question: str, figure: str,
                                             not_figure: str) -> None:
    out = ask_once(tailspin, question)
    assert figure in out and not out.startswith("Not found"), out
    assert not_figure not in out, out


def test_a_total_row_names_its_metric(tailspin: Settings) -> None:
    # 'Total accrued liabilities' is the metric's own row; the line the lexicon also calls accrued liabilities
    # ('Accrued expenses and other liabilities', 50.0) is one of its parts
    out = ask_once(tailspin, "What were Tailspin's accrued liabilities in 2024?")
    assert "100" in out and not out.startswith("Not found"), out
    assert "$50" not in out, out


def test_a_part_of_a_printed_total_answers_when_its_own_words_are_asked(tailspin: Settings) -> None:
    # the total closes its parts for the whole; a question naming a part's own words still reads that part
    out = ask_once(tailspin, "What were Tailspin's accrued expenses and other liabilities in 2024?")
    assert "$50" in out and "100" not in out, out
