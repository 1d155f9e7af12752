"""A row the lexicon names as one kind of a metric ('Work in process' of inventories) is a part of it: it answers
the question naming that kind, never the metric asked whole; a bare 'Total' closing rows that are such kinds is the
metric's total, asked with 'total' or without. Typeset 10-K note."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings

NOTE = """# Brightwater Instruments, Inc.

(Exact name of registrant as specified in its charter)

ANNUAL REPORT ON FORM 10-K for the fiscal year ended December 31, 2024

## Notes to Consolidated Financial Statements

### Note 7. Balance Sheet Details

(in thousands)

| | December 31, 2024 | December 31, 2023 |
|---|---|---|
| Raw materials | 41,220 | 38,905 |
| Work in process | 12,870 | 11,402 |
| Finished goods | 27,315 | 30,118 |
| Total | 81,405 | 80,425 |
"""


@pytest.fixture(scope="module")
def brightwater(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("brightwater"), "brightwater-10k-2024.md", NOTE)


@pytest.mark.parametrize("question", [
    "What were Brightwater's inventories at December 31, 2024?",
    "What were Brightwater's total inventories at December 31, 2024?",
])
def test_the_total_of_the_kinds_is_the_metric(brightwater: Settings, question: str) -> None:
    answer = ask_once(brightwater, question)
    assert "81,405" in stated(answer), answer
    assert not any(part in stated(answer) for part in ("41,220", "12,870", "27,315")), answer


def test_a_kind_asked_by_its_name_is_its_own_row(brightwater: Settings) -> None:
    answer = ask_once(brightwater, "What was Brightwater's work in process inventory at December 31, 2024?")
    assert "12,870" in stated(answer) and "81,405" not in stated(answer), answer


def test_the_change_in_the_total_is_computed_from_the_total_row(brightwater: Settings) -> None:
    answer = ask_once(brightwater, "What was the percentage change in Brightwater's total inventories from 2023 to "
                                   "2024?")
    assert "1.22%" in stated(answer) and "(81,405 - 80,425) / 80,425" in answer, answer


def test_respective_totals_are_listed_not_added(brightwater: Settings) -> None:
    answer = ask_once(brightwater, "What were Brightwater's respective total inventories in 2024 and 2023?")
    assert "81,405" in stated(answer) and "80,425" in stated(answer), answer
    assert "161,830" not in answer, answer  # the two years' totals added up answer nothing asked
