"""A row label that prints amounts of its own is lines of a table the extraction ran into one (a quarterly table whose
header, 'Net sales' and 'Gross margin' lines fell into the label of 'Net earnings'): it names no one line item, and
none of its figures is read as the metric its words mention. Typeset filing."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.ingest.figures import merged_label

FILING = """# Northwind Foods, Inc.

FORM 10-K

For the fiscal year ended May 29, 2022

## Item 8. Financial Statements and Supplementary Data

### Consolidated Statements of Earnings

(In millions)

| Fiscal Year | 2022 | 2021 |
|---|---|---|
| Net sales | 18,992.8 | 18,127.0 |
| Cost of sales | 12,590.6 | 11,678.7 |
| Net earnings attributable to Northwind | 2,707.3 | 2,339.8 |

### Note 20. Quarterly Data (Unaudited)

| | First Quarter | | Second Quarter | |
|---|---|---|---|---|
| Share Amounts 2022 2021 Net sales $ 4,539.9 $ 4,364.0 Gross margin 1,597.4 1,590.4 Net earnings attributable to Northwind | 627.0 | 638.9 | 597.2 | 688.4 |
"""


@pytest.fixture(scope="module")
def northwind(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("northwind"), "NORTHWIND_2022_10K.md", FILING)


@pytest.mark.parametrize(("question", "figure"), [
    ("What were Northwind's net sales in fiscal 2022?", "18,992.8"),
    ("Northwind net sales FY22", "18,992.8"),  # before: the merged label's 627.0, named by its 'Net sales'
    ("What were Northwind's net earnings in fiscal 2022?", "2,707.3"),
])
def test_a_merged_label_is_no_line_item(northwind: Settings, question: str, figure: str) -> None:
    out = stated(ask_once(northwind, question))
    assert figure in out and "627.0" not in out, out


@pytest.mark.parametrize(("label", "merged"), [
    ("Share Amounts 2022 2021 Net sales $ 4,539.9 $ 4,364.0 Gross margin 1,597.4", True),
    ("3.25% Senior notes due 2029", False),  # one rate names the instrument
    ("Cash paid for income taxes (net of refunds of $11.2, $25.0 and $20.7, respectively)", False),  # a list
    ("Balance at December 31, 2022", False),
    ("Net earnings attributable to Northwind", False),
])
def test_merged_label(label: str, merged: bool) -> None:
    assert merged_label(label) is merged
