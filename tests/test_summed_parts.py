"""Parts read from the layout, both ways: a utility's MD&A prints each segment's revenue by customer class
('Residential / Commercial / Public authority') over the segment's 'Total <segment> operating revenues', under the
segment's heading, and names its segments in a sentence wrapped over two lines. The class rows are parts of the
revenue their total sums (the sum is checked); a segment is named by the words of its name no other segment's has
('water' of 'Water Services' beside 'Power Services'); a class asked for with no segment is one the filing gives
only segment by segment, and is refused."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, printed_filing, stated

from agent.ingest.parts import part_sentences
from agent.ingest.tables import find_tables
from agent.ingest.typed_tables import table_record
from agent.schemas import Section

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Northwind Water & Power Company

FORM 10-K

For the fiscal year ended December 31, 2024

Northwind Water & Power Company is a regulated utility. It reports its results in two segments, Water Services
and Power Services, each discussed below.

## Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations

### Consolidated Results

(In millions)

| | 2024 | 2023 |
|---|---|---|
| Operating revenues | 3,880 | 3,610 |
| Operating income | 910 | 842 |
| Net income | 512 | 470 |

### Water Services

(In millions)

| | 2024 | 2023 |
|---|---|---|
| Residential | 1,120 | 1,040 |
| Commercial | 410 | 395 |
| Public authority | 150 | 141 |
| Total water operating revenues | 1,680 | 1,576 |
| Segment operating income | 402 | 371 |

### Power Services

(In millions)

| | 2024 | 2023 |
|---|---|---|
| Residential | 1,305 | 1,210 |
| Commercial | 720 | 664 |
| Public authority | 175 | 160 |
| Total power operating revenues | 2,200 | 2,034 |
| Segment operating income | 508 | 471 |
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory):
    return ingested_typeset(tmp_path_factory.mktemp("summed"), "NORTHWIND_2024_10K.md", FILING)


def test_a_sentence_wrapped_over_lines_names_its_parts_whole() -> None:
    text = "Revenue grew.\nWe report two segments: Electric Utility and Gas\nUtility.\n\n| a | 1 |"
    assert part_sentences(text) == ["We report two segments: Electric Utility and Gas Utility."]


def _parents(page: str) -> dict[str, str]:
    """Each row's sub-heading, as ingest types a table printed as ``page`` (a PDF page's text)."""
    section = Section(section_id=0, title="Item 7", path=["Item 7"], kind="mdna")
    record = table_record(find_tables(page)[0], table_id="x:t0", page=0, offset=0, section=section, fy_end_month=12)
    return {r.label: r.parent for r in record.rows}


def test_rows_summed_by_a_total_are_parts_of_what_it_totals() -> None:
    parents = _parents("Water Services\n(in millions)\n2024 2023\nResidential 1,120 1,040\nCommercial 410 395\n"
                       "Public authority 150 141\nTotal water operating revenues 1,680 1,576\n"
                       "Segment operating income 402 371\n")
    assert {parents[k] for k in ("Residential", "Commercial", "Public authority")} == {"Water operating revenues"}
    assert parents["Total water operating revenues"] == parents["Segment operating income"] == ""


def test_rows_that_do_not_add_up_to_the_total_stay_as_printed() -> None:
    # the lines above a total they do not sum to are no parts of it
    parents = _parents("Results\n(in millions)\n2024 2023\nNet income 512 470\nDepreciation 300 280\n"
                       "Total operating revenues 3,880 3,610\n")
    assert parents == {"Net income": "", "Depreciation": "", "Total operating revenues": ""}


def test_each_segment_table_carries_its_part_and_its_siblings(home) -> None:
    from agent.index.store import Store

    records = {c.table.title: c.table for c in Store.open(home).chunks() if c.table is not None}
    assert records["Water Services"].part == "Water Services"
    assert records["Water Services"].other_parts == ["Power Services"]
    assert records["Consolidated Results"].part == "" and records["Consolidated Results"].other_parts == []


@pytest.mark.parametrize(("question", "figure"), [
    ("What were Northwind's residential water revenues in 2023?", "$1,040 million"),
    ("What were Northwind's commercial power revenues in 2024?", "$720 million"),
    ("What was Northwind's power segment operating income in 2023?", "$471 million"),
])
def test_a_class_of_a_segment_named_by_its_own_word_is_read(home, question: str, figure: str) -> None:
    answer = ask_once(home, question)
    assert figure in stated(answer), answer


def test_a_class_asked_without_its_segment_is_refused(home) -> None:
    answer = ask_once(home, "What were Northwind's residential revenues in 2024?")
    assert answer.startswith("Not found") and "part by part" in answer, answer
    assert not any(f in stated(answer) for f in ("1,120", "1,305")), answer


def test_the_company_figure_is_still_the_company_s(home) -> None:
    assert "$3,880 million" in stated(ask_once(home, "What were Northwind's operating revenues in 2024?"))


# The same layout printed, the Power Services table broken after two class rows: the total on the next page adds up
# the rows on both.
PAGE_ONE = """Northwind Water & Power Company
FORM 10-K
For the fiscal year ended December 31, 2024
We report two segments: Water Services
and Power Services.
Item 7. Management's Discussion and Analysis
Consolidated Results
(In millions)
| | 2024 | 2023 |
| Operating revenues | 3,880 | 3,610 |
| Operating income | 910 | 842 |
Water Services
(In millions)
| | 2024 | 2023 |
| Residential | 1,120 | 1,040 |
| Commercial | 410 | 395 |
| Public authority | 150 | 141 |
| Total water operating revenues | 1,680 | 1,576 |
| Segment operating income | 402 | 371 |
Power Services
(In millions)
| | 2024 | 2023 |
| Residential | 1,305 | 1,210 |
| Commercial | 720 | 664 |
"""
PAGE_TWO = """| | 2024 | 2023 |
| Public authority | 175 | 160 |
| Total power operating revenues | 2,200 | 2,034 |
| Segment operating income | 508 | 471 |
"""


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory):
    return printed_filing(tmp_path_factory.mktemp("summed-pdf"), "NORTHWIND_2024_10K.pdf", [PAGE_ONE, PAGE_TWO])


@pytest.mark.parametrize(("question", "figure"), [
    ("What were Northwind's residential power revenues in 2023?", "$1,210 million"),  # above the page break
    ("What were Northwind's public authority power revenues in 2024?", "$175 million"),  # below it
])
def test_a_total_past_a_page_break_adds_up_the_rows_before_it(printed, question: str, figure: str) -> None:
    answer = ask_once(printed, question)
    assert figure in stated(answer), answer
