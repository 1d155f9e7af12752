"""A line of figures with no label after the rows of a block is the block's total, as statements print it (a 10-Q's
'Expenses' / 'Casino' / 'General and administrative' / '2,170,135'): ingest names it by its block ('Total Expenses'),
the reader states it for the block's metric, and a quarter's figure is never read for the half year. Typeset
filing."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.index.store import Store

FILING = """# Woodgrove Resorts International

QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the quarterly period ended June 30, 2023

## Item 1. Financial Statements

### CONSOLIDATED STATEMENTS OF OPERATIONS

(In thousands, except per share data)

| | Three Months Ended June 30, 2023 | Three Months Ended June 30, 2022 | Six Months Ended June 30, 2023 | Six Months Ended June 30, 2022 |
|---|---|---|---|---|
| Net revenues | 3,521,496 | 2,819,546 | 6,985,214 | 5,302,289 |
| Expenses | | | | |
| Casino | 1,025,745 | 622,166 | 2,016,635 | 1,296,531 |
| General and administrative | 1,144,390 | 1,028,765 | 2,279,930 | 1,805,602 |
| | 2,170,135 | 1,650,931 | 4,296,565 | 3,102,133 |
| Other income (expense) | | | | |
| Interest expense, net | (105,312) | (98,401) | (210,877) | (199,012) |
| | 4,117 | 3,870 | 8,002 | 7,411 |
| Operating income | 1,351,361 | 1,168,615 | 2,688,649 | 2,200,156 |
"""


@pytest.fixture(scope="module")
def woodgrove(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("woodgrove"), "WOODGROVE_2023Q2_10Q.md", FILING)


def test_ingest_names_a_blocks_unlabelled_line_its_total(woodgrove: Settings) -> None:
    with Store.open(woodgrove) as store:
        doc = store.list_documents()[0]
        rows = [r for c in store.chunks([doc.doc_id]) if c.table is not None for r in c.table.rows]
    labels = {r.label: r for r in rows}
    assert labels["Total Expenses"].total and labels["Total Expenses"].parent == "Expenses"
    # one row under a heading is that heading's figure, not a block: its unlabelled line stays unnamed
    assert "Total Other income (expense)" not in labels


@pytest.mark.parametrize(("question", "figure"), [
    ("What were Woodgrove's total expenses for the six months ended June 30, 2022?", "3,102,133"),
    ("Woodgrove Q2 2023 total expenses", "2,170,135"),
])
def test_a_blocks_total_answers_for_the_block(woodgrove: Settings, question: str, figure: str) -> None:
    out = stated(ask_once(woodgrove, question))
    assert figure in out and not out.startswith("Not found"), out
