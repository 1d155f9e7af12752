"""A scale stated once over tables of one layout holds for each: a release prints '(In millions)' over the
quarter's segment table and none over the year-ago quarter's just below it. A table of percentages, a table of
another layout, or one after a sentence of prose takes no scale from the one before.

The release is typeset here: a health company's segment tables, one per quarter, the second with no scale; and its
segments are named after the company ('Fabrikam Care Delivery' of Fabrikam Health).
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.index.store import Store
from agent.ingest.families import carried_scales
from agent.ingest.tables import find_tables

RELEASE = """# Fabrikam Health Corporation

EXHIBIT 99.1

Fabrikam Health Corporation Reports Third Quarter 2025 Results

### Segment Information

(In millions)

| Three Months Ended September 30, 2025 | Health Plans | Fabrikam Care Delivery | Consolidated |
|---|---|---|---|
| Revenues | 8,410 | 1,620 | 10,030 |
| Earnings from operations | 520 | 148 | 668 |

| Three Months Ended September 30, 2024 | Health Plans | Fabrikam Care Delivery | Consolidated |
|---|---|---|---|
| Revenues | 7,905 | 1,488 | 9,393 |
| Earnings from operations | 455 | 131 | 586 |
"""


@pytest.fixture(scope="module")
def fabrikam(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("fabrikam"), "FABRIKAMHEALTH_2025Q3_PR.md", RELEASE)


def test_the_year_ago_table_below_takes_the_scale_stated_over_the_first(fabrikam: Settings) -> None:
    answer = stated(ask_once(fabrikam, "What were Health Plans revenues in Q3 2024?"))
    assert "$7,905 million" in answer


def test_a_segment_named_after_the_company_keeps_its_name(fabrikam: Settings) -> None:
    answer = stated(ask_once(fabrikam, "Fabrikam Care Delivery revenues Q3 2024"))
    assert "$1,488 million" in answer


def _block(title: str, rows: str, scale: str = "") -> str:
    return f"{title}\n\n{scale}\n\n2024 | 2023\n{rows}\n"


ROWS = "Net sales | 700 | 650\nOperating income | 90 | 80"


def _scales(*blocks: str, leads: tuple[str, ...] = ()) -> list[float]:
    tables = [find_tables(b)[0] for b in blocks]
    return [t.scale for t in carried_scales(tables, leads or ("",) * len(tables))]


def test_only_a_table_of_the_same_layout_after_no_prose_takes_the_scale() -> None:
    first = _block("Americas", ROWS, "(in millions)")
    assert _scales(first, _block("Europe", ROWS)) == [1e6, 1e6]
    # a table of percentages over the same rows is in no scale
    assert _scales(first, _block("Percentage of net sales", ROWS)) == [1e6, 1.0]
    # other rows, or other columns: another table
    assert _scales(first, _block("Europe", "Backlog | 7 | 6\nHeadcount | 9 | 8")) == [1e6, 1.0]
    assert _scales(first, "Europe\n\n2024 | 2023 | 2022\nNet sales | 1 | 2 | 3\nOperating income | 4 | 5 | 6\n") == [1e6, 1.0]
    # a sentence between the two ends the family
    assert _scales(first, _block("Europe", ROWS), leads=("", "The following table shows our results by region.")) == [
        1e6, 1.0]


def test_a_segments_operating_margin_is_a_margin_not_its_income(fabrikam: Settings) -> None:
    # 'segment operating margin' was a name of segment operating income in the lexicon: the margin asked was
    # looked up as an amount
    answer = stated(ask_once(fabrikam, "What was the Health Plans segment's operating margin in Q3 2025?"))
    assert "6.18%" in answer and "$520 million" not in answer


GRIDS = """# Fabrikam Health Corporation

EXHIBIT 99.1

Fabrikam Health Corporation Reports Results

| (In millions of dollars) | Years ended December 31 | | |
|---|---|---|---|
| | 2024 | 2023 | %Chg |
| Capital expenditures 1 | | | |
| Clinics | 1,320 | 1,086 | 22 |
| Pharmacies | 1,153 | 1,429 | (19) |
| Capital expenditures 1 | 2,473 | 2,515 | (2) |
"""


def test_a_grid_table_starts_at_its_own_rows(tmp_path) -> None:
    # 'EXHIBIT 99.1' above is text, not the table's first row; a sub-heading the writer left unmarked inside the grid
    # ('Capital expenditures 1', its footnote mark read as a figure) is the grid's, whose header came before it
    settings = ingested_typeset(tmp_path, "FABRIKAMHEALTH_2024_PR.md", GRIDS)
    with Store.open(settings) as store:
        records = [c.table for c in store.chunks() if c.table is not None]
    assert [[c.period for c in r.columns] for r in records] == [["FY2024", "FY2023", ""]]
