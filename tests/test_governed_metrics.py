"""A metric named as the object of another noun is that noun's figure: 'a loss on disposal of fixed assets of $0.02
million' is a loss, not property and equipment; 'Effect of exchange rate changes on cash and cash equivalents' is no
cash balance. The question that asks the noun gets the figure (typeset filing)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.answer.gate import _governed_metric
from agent.config import Settings

# The cash-flow excerpt both filings print; each ends it with its own net change row.
CASH_FLOW_EXCERPT = """### Consolidated Statements of Cash Flows (excerpt)

(in thousands)

| | 2024 | 2023 |
|---|---|---|
| Net cash provided by operating activities | 18,442 | 15,907 |
| Net cash used in investing activities | (6,118) | (4,260) |
| Effect of exchange rate changes on cash and cash equivalents | (1,204) | 388 |
"""

FILING = """# Wingtip Devices, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 8. Financial Statements and Supplementary Data

### Note 5. Property and equipment

For each of the years ended December 31, 2024 and 2023, we recorded a loss on disposal of fixed assets of
approximately $0.02 million. Depreciation expense related to property and equipment was approximately $0.05 million
and $0.03 million in 2024 and 2023, respectively.

""" + CASH_FLOW_EXCERPT + """| Net increase in cash | 11,120 | 12,035 |
"""


@pytest.fixture(scope="module")
def wingtip(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("wingtip"), "WINGTIP_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "never"), [
    ("What was the percentage change in Wingtip's property and equipment from 2023 to 2024?", ("0.02", "0.05")),
    ("What were Wingtip's cash and cash equivalents in 2024?", ("1,204",)),
])
def test_a_metric_that_is_another_nouns_object_is_not_stated_as_the_metric(
    wingtip: Settings, question: str, never: tuple[str, ...]
) -> None:
    out = ask_once(wingtip, question)
    first = out.split("Closest evidence")[0]
    assert out.startswith("Not found"), out
    assert not any(figure in first for figure in never), out


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Wingtip's effect of exchange rate changes on cash in 2024?", "1,204"),
    ("What was Wingtip's depreciation expense related to property and equipment in 2023?", "0.03"),
    ("What was Wingtip's net cash provided by operating activities in 2024?", "18,442"),
])
def test_the_noun_asked_gets_its_figure(wingtip: Settings, question: str, figure: str) -> None:
    out = ask_once(wingtip, question)
    assert figure in out and not out.startswith("Not found"), out



CASH_FLOWS = """# Wingtip Devices, Inc.

## Item 8. Financial Statements and Supplementary Data

""" + CASH_FLOW_EXCERPT + """| Net (decrease) increase in cash and cash equivalents | 11,120 | 12,035 |
"""


@pytest.fixture(scope="module")
def cash_flows(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("cash_flows"), "WINGTIP_2024_10K.md", CASH_FLOWS)


def test_a_question_asking_another_noun_of_the_metric_is_not_answered_by_the_metric(cash_flows: Settings) -> None:
    # the question asks the effect of exchange rate changes: the net change in cash (12,035 -> 11,120, -7.60%),
    # whose row names cash and cash equivalents too, is not it
    out = ask_once(cash_flows, "What was the total percentage change in effect of exchange rate changes on cash and "
                               "cash equivalents between 2023 and 2024?")
    stated = out.split("Closest evidence")[0]
    assert "11,120" not in stated and "-7.60" not in stated, out


COMPREHENSIVE = """# Woodgrove Pharma, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 8. Financial Statements and Supplementary Data

### Consolidated Statements of Comprehensive Income

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Unrealized holding gains/(losses) on derivative financial instruments, net | 512 | (208) |
| Reclassification adjustments for (gains)/losses included in net income | (664) | 134 |
| Other comprehensive income/(loss), before tax | (152) | (74) |
"""


def test_a_figure_counted_inside_the_metric_is_not_the_metric(tmp_path) -> None:
    """'(gains)/losses included in net income' are gains and losses, placed in net income by a participle: never
    the company's net income."""
    settings = ingested_typeset(tmp_path, "woodgrove-10k-2024.md", COMPREHENSIVE)
    answer = ask_once(settings, "What was Woodgrove's net income in 2024?").split("Closest evidence", 1)[0]
    assert "664" not in answer and answer.startswith("Not found"), answer


@pytest.mark.parametrize(("naming", "governor"), [
    ("Cost of license and subscription revenue", "Cost"),
    ("Cost of maintenance revenue", "Cost"),
    ("Total revenue", ""),
    ("License and subscription revenue", ""),
])
def test_a_cost_of_a_revenue_is_no_revenue(naming: str, governor: str) -> None:
    # the metric's own modifiers may stand between the preposition and it, joined by 'and'
    assert _governed_metric("revenue", naming, "What was license and subscription revenue in 2025?") == governor
