"""What a page break splits stays one: a segment's table continued at the next page's top keeps the segment (its
rows there are still the segment's, never the company's), a table printed at a page's top takes the scale line
left under its title at the foot of the page before, and a header right-aligned over tight columns is split at the
columns' ends. A change 'from Q2 2024 to Q2 2025' reads the span's two ends only. Typeset filings printed to PDF."""

from __future__ import annotations

import pytest
from support import ask_once, printed_filing, stated

from agent.config import Settings
from agent.ingest.grid import placed_header
from agent.ingest.parts import carried_parts
from agent.ingest.tables import scale_above
from agent.query.decompose import decompose
from agent.query.intent import extract_intent
from agent.schemas import PAGE_SEPARATOR, TextRun

PAGE_ONE = """Osprey Casualty Group, Inc.
FORM 10-K
For the fiscal year ended December 31, 2024
Our segments: Specialty Lines, Standard Lines.
Item 7. Management's Discussion and Analysis
Consolidated Results
(In millions)
| | 2024 | 2023 |
| Net premiums earned | 5,120 | 4,870 |
| Underwriting income | 284 | 218 |
| Net income | 611 | 498 |
Standard Lines
(In millions)
| | 2024 | 2023 |
| Net premiums earned | 2,880 | 2,765 |
| Underwriting income | 96 | 77 |
| Combined ratio | 96.7% | 97.2% |
Specialty Lines
(In millions)
| | 2024 | 2023 |
| Net premiums written | 2,315 | 2,160 |
| Net premiums earned | 2,240 | 2,105 |
"""
PAGE_TWO = """| | 2024 | 2023 |
| Underwriting income | 188 | 141 |
| Combined ratio | 91.6% | 93.3% |
Osprey's investment portfolio was conservatively positioned throughout the year.
"""


@pytest.fixture(scope="module")
def osprey(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return printed_filing(tmp_path_factory.mktemp("osprey-pdf"), "OSPREY_2024_10K.pdf", [PAGE_ONE, PAGE_TWO])


def test_a_segments_rows_past_a_page_break_are_the_segments(osprey: Settings) -> None:
    company = stated(ask_once(osprey, "What was Osprey's underwriting income in 2023?"))
    assert "218" in company and "141" not in company, company
    segment = stated(ask_once(osprey, "What was Osprey's Specialty Lines underwriting income in 2023?"))
    assert "141" in segment, segment


def test_a_continued_or_stacked_table_keeps_the_part_of_the_one_it_continues() -> None:
    assert carried_parts(["Specialty Lines", "", ""], [False, True, False]) == ["Specialty Lines", "Specialty Lines", ""]


def test_a_page_top_table_takes_the_scale_line_left_at_the_foot_of_the_page_before() -> None:
    lead = f"Reconciliation of Net Income to FFO\n(In thousands, except per share amounts)\n{PAGE_SEPARATOR}"
    scale, label = scale_above(lead)
    assert scale == 1e3 and label.startswith("(in thousands")
    assert scale_above("(In thousands)\nWe believe FFO is useful.\n" + PAGE_SEPARATOR) == (1.0, "")
    assert scale_above("(In thousands)\n") == (1.0, "")  # the table does not start its page


def test_a_right_aligned_header_is_split_at_the_columns_ends() -> None:
    # 'Q2 2025 Q2 2024 YTD 2025 YTD 2024' printed in tight right-aligned columns, read in runs that straddle them
    header = [[TextRun(text="Q2", x0=0.526, x1=0.548), TextRun(text="2025 Q2", x0=0.555, x1=0.631),
               TextRun(text="2024 YTD 2025 YTD 2024", x0=0.638, x1=0.876)]]
    body = [[TextRun(text="Net income", x0=0.124, x1=0.4), TextRun(text="44,185", x0=0.54, x1=0.592),
             TextRun(text="34,030", x0=0.624, x1=0.676), TextRun(text="86,820", x0=0.723, x1=0.776),
             TextRun(text="68,685", x0=0.824, x1=0.876)]]
    found = placed_header(header, body)
    assert found is not None and found[0] == ["Q2 2025", "Q2 2024", "YTD 2025", "YTD 2024"]


def test_a_change_over_a_span_reads_its_two_ends() -> None:
    question = "How much did net income increase from Q2 2024 to Q2 2025?"
    plan = decompose(question, extract_intent(question))
    assert sorted(sq.period for sq in plan.sub_queries) == ["FY2024Q2", "FY2025Q2"]
