"""Income from continuing operations is not net income: a filer with discontinued operations reports both, and a
figure of one never answers a question about the other."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance.lexicon import find_metrics

pytestmark = pytest.mark.usefixtures("no_yfinance")

HEADER = """# {name}

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 8. Financial Statements

### Consolidated Statements of Operations

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Net sales | 5,120 | 4,870 |
| Operating income | 655 | 590 |
"""

BOTH = HEADER.format(name="Tailspin Freight, Inc.") + """| Income from continuing operations | 412 | 377 |
| Loss from discontinued operations, net of tax | (58) | (21) |
| Net income | 354 | 356 |
"""

CONTINUING_ONLY = HEADER.format(name="Litware Marine, Inc.") + """| Income from continuing operations | 288 | 251 |
| Loss from discontinued operations, net of tax | (40) | (12) |
"""


@pytest.fixture(scope="module")
def tailspin(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("tailspin"), "TAILSPIN_2024_10K.md", BOTH)


@pytest.fixture(scope="module")
def litware(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("litware"), "LITWARE_2024_10K.md", CONTINUING_ONLY)


@pytest.mark.parametrize("label", [
    "Income from continuing operations", "(Loss) income from continuing operations, net of tax",
    "Net earnings from continuing operations",
])
def test_a_continuing_operations_row_is_its_own_metric(label: str) -> None:
    assert [m.canonical for m in find_metrics(label)] == ["income from continuing operations"]


def test_each_metric_reads_its_own_row(tailspin: Settings) -> None:
    assert "354" in stated(ask_once(tailspin, "What was Tailspin's net income in 2024?"))
    answer = stated(ask_once(tailspin, "What was Tailspin's income from continuing operations in 2024?"))
    assert "412" in answer and "354" not in answer, answer


def test_continuing_operations_never_stand_in_for_net_income(litware: Settings) -> None:
    answer = ask_once(litware, "What was Litware's net income in 2024?")
    assert "288" not in stated(answer), answer  # net income also carries the (40) of discontinued operations
