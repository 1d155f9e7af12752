"""A table captioned in a unit of measure ('Retail electric sales (MWh):') counts that unit: its figures carry it and
never the filing's currency, so a question after revenue is never answered with a volume (a '$' put on megawatt
hours), though the volume table's title says 'sales'. A row of no metric the lexicon knows that shares a word with
the metric asked ('Underwriting income' for a net income) is no answer either. Typeset filings: a utility's 10-K with
revenue and volume tables by customer class, and an insurer's segment table."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance.numbers import stated_measure
from agent.index.store import Store

UTILITY = """# Harrier Power & Gas Company

FORM 10-K

For the fiscal year ended December 31, 2024

Harrier Power & Gas Company (NYSE: HRPG) is an electric and gas utility.

## Item 7. Management's Discussion and Analysis

### Results of Operations

(In millions)

| | 2024 | 2023 |
|---|---|---|
| Operating revenues | 4,410 | 4,265 |
| Operating income | 902 | 851 |

Retail electric sales (MWh):

| | 2024 | 2023 |
|---|---|---|
| Residential | 18,420 | 17,980 |
| Commercial | 15,110 | 15,240 |
| Total retail sales | 33,530 | 33,220 |
"""

INSURER = """# Osprey Casualty Group, Inc.

FORM 10-K

For the fiscal year ended December 31, 2024

Osprey writes property and casualty insurance through two segments: Specialty Lines and Standard Lines.

## Item 7. Management's Discussion and Analysis

### Consolidated Results

(In millions)

| | 2024 | 2023 |
|---|---|---|
| Net premiums earned | 5,120 | 4,870 |
| Net income | 611 | 498 |

### Specialty Lines

(In millions)

| | 2024 | 2023 |
|---|---|---|
| Net premiums earned | 2,240 | 2,105 |
| Underwriting income | 188 | 141 |

### Standard Lines

(In millions)

| | 2024 | 2023 |
|---|---|---|
| Net premiums earned | 2,880 | 2,765 |
| Underwriting income | 96 | 77 |
"""


def test_a_caption_states_its_unit_of_measure() -> None:
    assert stated_measure("Retail electric sales (MWh):") == "MWh"
    assert stated_measure("Crude oil production (in thousands of barrels)") == "barrels"
    assert stated_measure("Revenue (In millions)") == ""


@pytest.fixture(scope="module")
def harrier(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("harrier"), "HARRIER_2024_10K.md", UTILITY)


def test_a_volume_tables_figures_carry_its_unit(harrier: Settings) -> None:
    with Store(harrier) as store:
        chunks = [c for c in store.chunks() if c.table is not None and c.table.title.startswith("Retail electric")]
    figures = [f for c in chunks for row in c.table.rows for cell in row.cells for f in cell.figures]
    assert figures and {f.unit for f in figures} == {"MWh"}


def test_revenue_is_never_answered_with_a_volume(harrier: Settings) -> None:
    answer = stated(ask_once(harrier, "What were Harrier's residential revenues in 2024?"))
    assert "18,420" not in answer, answer


@pytest.fixture(scope="module")
def osprey(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("osprey"), "OSPREY_2024_10K.md", INSURER)


def test_a_row_sharing_a_word_with_the_metric_is_not_it(osprey: Settings) -> None:
    answer = ask_once(osprey, "What was Osprey's Specialty Lines net income in 2024?")
    assert "188" not in stated(answer), answer
    assert "does not name net income" in answer, answer
    assert "188" in stated(ask_once(osprey, "What was Osprey's Specialty Lines underwriting income in 2024?"))
