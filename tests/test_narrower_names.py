"""A name of a metric that names a narrower figure ('senior notes' of long-term debt, 'finished goods' of
inventories) finds the metric's tables, but only a figure whose own words say it answers: the company's total is
no figure of its senior notes. And an instrument named by its rate ('3.25% Senior notes') is an amount in the
table's scale, not a percentage."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance.lexicon import find_metrics, narrower_name
from agent.finance.metrics import METRICS
from agent.query.scope import scope_terms

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Litware Industries, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 8. Financial Statements

### Consolidated Balance Sheets

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Inventories | 812 | 760 |
| Total current assets | 2,410 | 2,205 |
| Long-term debt | 1,950 | 2,100 |
| Total accounts payable and othercurrent liabilities | 3,303 | 3,086 |
| Total liabilities | 4,020 | 4,115 |

### Note 7. Debt

(in millions)

| | 2024 | 2023 |
|---|---|---|
| 3.25% Senior notes due 2029 | 1,200 | 1,200 |
| Floating rate term loan due 2026 | 750 | 900 |
| Total long-term debt | 1,950 | 2,100 |
"""


def test_every_narrower_name_is_a_name_of_its_metric() -> None:
    for metric in METRICS.values():
        for kind in metric.kinds:
            assert [m.canonical for m in find_metrics(kind)] == [metric.canonical], kind


@pytest.mark.parametrize(("question", "term"), [
    ("What were the senior notes outstanding in 2024?", "senior notes"),
    ("What was the valuation allowance in 2019?", "valuation allowance"),
    ("How much were finished goods inventories?", "finished goods"),
    ("What was interest paid in 2024?", "interest paid"),
])
def test_a_narrower_name_is_a_part_the_figure_must_say(question: str, term: str) -> None:
    assert [t.text for t in scope_terms(question)] == [term]


@pytest.mark.parametrize("question", ["What was long-term debt in 2024?", "What were inventories in 2024?",
                                      "What was net interest income in 2024?"])
def test_the_metric_itself_adds_no_part(question: str) -> None:
    assert scope_terms(question) == []
    assert all(narrower_name(m) == "" for m in find_metrics(question))


@pytest.fixture(scope="module")
def litware(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("litware"), "LITWARE_2024_10K.md", FILING)


def test_the_row_that_names_the_kind_answers_in_the_tables_scale(litware: Settings) -> None:
    assert "$1,200 million" in stated(ask_once(litware, "What were Litware's senior notes at the end of 2024?"))
    assert "$750 million" in stated(ask_once(litware, "What was Litware's term loan balance in 2024?"))


def test_the_total_is_no_figure_of_a_kind_the_filing_does_not_give(litware: Settings) -> None:
    answer = ask_once(litware, "What were Litware's finished goods inventories in 2024?")
    assert "812" not in stated(answer)
    assert "not for finished goods" in answer
    answer = ask_once(litware, "What was Litware's commercial paper outstanding in 2024?")
    assert "1,950" not in stated(answer)


def test_the_metric_still_reads_its_total(litware: Settings) -> None:
    assert "$1,950 million" in stated(ask_once(litware, "What was Litware's long-term debt in 2024?"))


def test_a_name_whose_row_lost_its_spaces_is_said(litware: Settings) -> None:
    # text extraction glues words ('othercurrent'); the row still says the narrower name asked
    answer = ask_once(litware, "What was Litware's total accounts payable and other current liabilities in 2024?")
    assert "3,303" in stated(answer)
