"""A segment's or region's table answers only for that part: sibling tables (the same rows under each part's
heading) are read at ingest, kept apart at retrieval, and the gate states none of their figures as the company's.

The filing is typeset here: a 10-K whose MD&A gives net sales, operating profit and backlog segment by segment,
whose income statement gives the company's totals, and whose segment note lists the segments as rows.
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.config import Settings
from agent.index.store import Store
from agent.ingest.parts import table_parts
from agent.ingest.tables import find_tables

FILING = """# Tailspin Aerospace Corporation

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 7. Management's Discussion and Analysis

### Business Segment Results

#### Aeronautics

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Net sales | 3,100 | 2,900 |
| Operating profit | 310 | 280 |
| Backlog at year-end | 9,800 | 9,100 |

#### Space

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Net sales | 1,900 | 1,750 |
| Operating profit | 150 | 140 |
| Backlog at year-end | 4,200 | 3,900 |

## Item 8. Financial Statements

### Consolidated Statements of Earnings

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Net sales | 5,000 | 4,650 |
| Operating profit | 420 | 390 |
| Net earnings | 301 | 280 |

### Note 12. Segment Information

Net sales by segment

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Aeronautics | 3,100 | 2,900 |
| Space | 1,900 | 1,750 |
| Total net sales | 5,000 | 4,650 |
"""


@pytest.fixture(scope="module")
def tailspin(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("tailspin"), "TAILSPIN_2024_10K.md", FILING)


def test_ingest_marks_each_segment_table_with_its_part(tailspin: Settings) -> None:
    with Store.open(tailspin) as store:
        chunks = [c for c in store.chunks() if c.is_table]
    parts = {c.text.splitlines()[1].split(" | ")[0]: c.part for c in chunks}
    assert parts == {"Aeronautics": "Aeronautics", "Space": "Space", "Consolidated Statements of Earnings": "",
                     "Net sales by segment": ""}


def _table(title: str, rows: str) -> str:
    """A table as the parser lays one out in a page's text: title, scale, period header, rows."""
    return f"{title}\n\n(in millions)\n\n2024 | 2023\n{rows}\n"


def test_only_a_family_of_differently_titled_tables_with_other_figures_makes_parts() -> None:
    rows_a = "Revenue | 700 | 650\nOperating income | 90 | 80"
    rows_b = "Revenue | 300 | 280\nOperating income | 40 | 35"
    # The filing's list of its regions: a part's name is one of its rows elsewhere.
    regions = _table("Revenue by region", "Americas | 1,000 | 930\nEurope | 300 | 280\nFourth Quarter | 1 | 2")

    def parts(*texts: str, statement: tuple[bool, ...] = ()) -> list[str]:
        tables = [find_tables(t)[0] for t in [*texts, regions]]
        return table_parts(tables, [*(statement or [False] * len(texts)), False])[:-1]
    assert parts(_table("Americas", rows_a), _table("Europe", rows_b)) == ["Americas", "Europe"]
    # The same figures under another title repeat the table; they are no part of it.
    assert parts(_table("Americas", rows_a), _table("Selected Data", rows_a)) == ["", ""]
    # Tables a period apart, or titled by a metric, or one of them a primary statement's: no parts.
    assert parts(_table("Fourth Quarter", rows_a), _table("Third Quarter", rows_b)) == ["", ""]
    assert parts(_table("Net Sales", rows_a), _table("Operating Income", rows_b)) == ["", ""]
    assert parts(_table("Americas", rows_a), _table("Consolidated Statements of Income", rows_b)) == ["", ""]
    assert parts(_table("Americas", rows_a), _table("Europe", rows_b), statement=(False, True)) == ["", ""]
    # A title the filing never names as a row is a topic's, not a part's; so is a sentence or a caption.
    assert parts(_table("Americas", rows_a), _table("Fair Value", rows_b)) == ["", ""]
    assert parts(_table("Americas", rows_a), _table("The table below shows Europe:", rows_b)) == ["", ""]
    # Sibling rows that are no metric (an option roll-forward's 'Granted', 'Exercised') make no parts.
    assert parts(_table("Americas", "Granted | 7 | 6\nExercised | 9 | 8"),
                 _table("Europe", "Granted | 3 | 2\nExercised | 4 | 5")) == ["", ""]
    # One shared row is a coincidence, not a layout.
    assert parts(_table("Americas", "Revenue | 700 | 650\nBacklog | 90 | 80"),
                 _table("Europe", "Revenue | 300 | 280\nOrders | 40 | 35")) == ["", ""]


def test_a_segments_figure_is_never_stated_as_the_companys(tailspin: Settings) -> None:
    answer = ask_once(tailspin, "What was Tailspin's backlog at year-end 2024?")
    assert answer.startswith("Not found") and "9,800" not in answer.split("Closest evidence")[0]
    assert "part by part" in answer and "Aeronautics" in answer


def test_the_company_figure_comes_from_its_statement_not_a_segment(tailspin: Settings) -> None:
    assert "$5,000 million" in ask_once(tailspin, "What were Tailspin's net sales in 2024?")
    assert "$390 million" in ask_once(tailspin, "What was Tailspin's operating profit in 2023?")


@pytest.mark.parametrize(("question", "figure"), [
    ("What was the backlog of Aeronautics at year-end 2024?", "$9,800 million"),
    ("What was the operating profit of the Space business in 2024?", "$150 million"),
    ("Space segment net sales in 2023?", "$1,750 million"),
])
def test_a_question_naming_the_segment_gets_its_figure(tailspin: Settings, question: str, figure: str) -> None:
    answer = ask_once(tailspin, question)
    assert figure in answer and not answer.startswith("Not found")


def test_a_change_in_one_segment_reads_both_years_from_its_table(tailspin: Settings) -> None:
    answer = ask_once(tailspin, "How did Space operating profit change from 2023 to 2024?")
    assert "150 - 140" in answer and "420" not in answer and "310" not in answer
