"""A period header's first cell ('OPERATING REVENUES | Q4 2024 | Q4 2023') says what the rows are: it joins the
table's title, so a row named by a part of the company ('Contoso Wireless | 2,493') is that part's revenue
(typeset filing; the heading above the table names no metric)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.config import Settings
from agent.ingest.tables import find_tables

FILING = """# Contoso Communications Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 7. Management's Discussion and Analysis

| OPERATING REVENUES | Q4 2024 | Q4 2023 | $ CHANGE | % CHANGE |
|---|---|---|---|---|
| Contoso Wireless | 2,493 | 2,407 | 86 | 3.6% |
| Contoso Wireline | 3,138 | 3,137 | 1 | – |
| Contoso Media | 879 | 850 | 29 | 3.4% |
| Inter-segment eliminations | (194) | (179) | (15) | (8.4%) |
| Total Contoso operating revenues | 6,316 | 6,215 | 101 | 1.6% |
"""


def test_the_header_stub_names_the_rows_and_a_scale_or_period_does_not() -> None:
    table = find_tables("Segment results\n\nOPERATING REVENUES | Q4 2024 | Q4 2023\nWireless | 2,493 | 2,407\n"
                        "Media | 879 | 850")[0]
    assert table.stub == "OPERATING REVENUES" and table.title == "Segment results: OPERATING REVENUES"
    for stub in ("(in millions)", "Fiscal Year", "Years ended December 31,"):
        table = find_tables(f"Results\n\n{stub} | 2024 | 2023\nNet sales | 5 | 4\nCost of sales | 3 | 2")[0]
        assert table.stub == "" and table.title == "Results"


@pytest.fixture(scope="module")
def contoso(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("contoso"), "CONTOSO_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "figure"), [
    ("What was the operating revenues for Q4 2024 for Contoso Wireless?", "$2,493"),
    ("What were Contoso Media's operating revenues in Q4 2023?", "$850"),
    ("What were Contoso's operating revenues in Q4 2024?", "$6,316"),
])
def test_a_part_named_by_its_row_gets_its_row(contoso: Settings, question: str, figure: str) -> None:
    answer = ask_once(contoso, question)
    assert figure in answer and not answer.startswith("Not found")
