"""Whether a question asks for a figure is read from what its metric is, not from the lexicon section it sits in: a
headcount, interest income or other income is an amount or a count ('What was the headcount at the end of 2024?'
asks for a figure, like 'how many employees'), while risk factors or litigation are described in words. Before,
every metric filed under 'Other' or 'Risk' was read as asked in words unless the question said 'how many' or
'amount', so its change was never computed and a headcount was looked for among the end-of-year rows (typeset
filing)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.config import Settings
from agent.finance.metrics import METRICS
from agent.query.decompose import is_numeric
from agent.query.intent import extract_intent

FILING = """# Wingtip Optics Corp.

Annual Report on Form 10-K for the fiscal year ended December 31, 2024

## Item 1. Business

Wingtip Optics Corp. grinds lenses for industrial cameras. At December 31, 2024, the company employed
approximately 2,150 people, most of them in Ohio.

## Item 1A. Risk Factors

Our sales depend on a small number of camera makers, and a loss of any of them would hurt our results.

## Item 8. Financial Statements and Supplementary Data

### Consolidated Statements of Operations

| (in millions) | 2024 | 2023 |
|---|---|---|
| Net sales | 610 | 540 |
| Cost of sales | 400 | 360 |
| Gross profit | 210 | 180 |
| Operating income | 95 | 80 |
| Interest income | 14 | 10 |
| Other income, net | 6 | 2 |
| Income before income taxes | 115 | 92 |
| Net income | 90 | 72 |

### Consolidated Statements of Cash Flows

| (in millions) | 2024 | 2023 |
|---|---|---|
| Net cash provided by operating activities | 120 | 101 |
| Cash and cash equivalents at end of year | 330 | 260 |
"""


@pytest.fixture(scope="module")
def wingtip(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("wingtip"), "WINGTIP_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "numeric"), [
    ("What was the headcount at the end of 2024?", True),
    ("What was the interest income in 2024?", True),
    ("What was the change in other income from 2023 to 2024?", True),
    ("What are the main risk factors?", False),
    ("What does the company say about cybersecurity?", False),
    # a quantity named in an imperative is a figure; a procedure asked of one is words (the answer-kind model)
    ("Give me Wingtip's 2024 capex.", True),
    ("How is goodwill tested for impairment?", False),
    ("How are inventories valued?", False),
])
def test_a_counted_metric_asks_for_a_figure(question: str, numeric: bool) -> None:
    assert is_numeric(extract_intent(question, [])) is numeric


def test_every_metric_is_an_amount_a_statement_or_a_topic() -> None:
    assert {m.kind for m in METRICS.values()} == {"metric", "statement", "topic"}
    assert METRICS["employees"].kind == "metric" and METRICS["risk factors"].described


@pytest.mark.parametrize(("question", "figure", "not_figure"), [
    # the cash row 'at end of year' shares the question's period words; the headcount is in a sentence
    ("What was Wingtip's headcount at the end of 2024?", "2,150", "330"),
    ("What was the change in Wingtip's interest income from 2023 to 2024?", "14 - 10 = 4", "Not found"),
    ("What was Wingtip's other income in 2024?", "$6 million", "Not found"),
])
def test_counted_metrics_are_answered_with_their_figures(wingtip: Settings, question: str, figure: str,
                                                         not_figure: str) -> None:
    out = ask_once(wingtip, question)
    assert figure in out, out
    assert not_figure not in out, out


def test_a_described_topic_is_answered_in_words(wingtip: Settings) -> None:
    out = ask_once(wingtip, "What are Wingtip's main risk factors?")
    assert "camera makers" in out, out


# A company whose name says what it counts, and a table of sales by channel with a 'Stores' row.
STORES = """# Wingtip Stores, Inc.

Annual Report on Form 10-K for the fiscal year ended December 31, 2024

## Item 7. Management's Discussion and Analysis

We operated 1,134 stores at December 31, 2024, compared with 1,090 stores at December 31, 2023.

### Net Sales by Channel

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Stores | 1,980 | 1,905 |
| Digital | 660 | 575 |
| Total net sales | 2,640 | 2,480 |
"""


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("stores"), "WINGTIP_STORES_2024_10K.md", STORES)


def test_a_count_the_company_name_says_is_read_from_its_sentence(stores: Settings) -> None:
    answer = ask_once(stores, "How many stores did Wingtip operate at the end of 2024?")
    assert "1,134" in answer.split("Closest evidence")[0], answer
    assert "1,980" not in answer  # the 'Stores' row of the sales table is sales, not a count of stores
