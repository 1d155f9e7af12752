"""A release's tables whose header's first cell is the span every column is of, over bare years ('SECOND QUARTER |
2025 | 2024', 'SIX MONTHS | 2025 Amount | 2024 Amount'): the quarter's and the half's figures, never the fiscal
year's. Its segment table prints regions under each segment's sub-heading ('Metal Packaging' / 'U.S.' /
'International'): a region's row under one segment is that segment's, never the company's region (issue 58, parts
both ways)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings

pytestmark = pytest.mark.usefixtures("no_yfinance")

RELEASE = """# Nordwind Cans Inc.

EXHIBIT 99.1

Nordwind Cans Reports Second Quarter 2025 Results

CHICAGO, July 24, 2025 -- Nordwind Cans Inc. (NYSE: NWCN) today reported results for the second quarter ended
June 28, 2025.

### Six Months

(Dollars in millions)

| SIX MONTHS | 2025 Amount | 2024 Amount | Percent Increase (Decrease) |
|---|---|---|---|
| Net sales | 2,901.4 | 2,842.7 | 2.1% |
| Operating income | 362.0 | 331.4 | 9.2% |

### Segment Net Sales

(Dollars in millions)

| SECOND QUARTER | 2025 | 2024 |
|---|---|---|
| Metal Packaging | | |
| U.S. | 702.1 | 688.4 |
| International | 311.5 | 297.2 |
| Total Metal Packaging | 1,013.6 | 985.6 |
| Paper Packaging | | |
| U.S. | 398.3 | 381.0 |
| International | 70.7 | 65.3 |
| Total Paper Packaging | 469.0 | 446.3 |
| Total net sales | 1,482.6 | 1,431.9 |
"""


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("release"), "NORDWIND_2025Q2_PR.md", RELEASE)


@pytest.mark.parametrize(("question", "figure"), [
    ("What were Nordwind Cans' net sales for the first six months of 2025?", "2,901.4"),
    ("Nordwind Cans operating income 1H24", "331.4"),
    ("What were Nordwind Cans' Paper Packaging net sales in Q2 2024?", "446.3"),
    ("What were Metal Packaging's U.S. net sales in the second quarter of 2025?", "702.1"),
])
def test_a_span_in_the_headers_first_cell_dates_every_column(release: Settings, question: str, figure: str) -> None:
    answer = stated(ask_once(release, question))
    assert figure in answer, answer


def test_the_quarters_figures_are_never_the_years(release: Settings) -> None:
    answer = ask_once(release, "What were Nordwind Cans' Metal Packaging net sales in fiscal 2025?")
    assert "1,013.6" not in stated(answer), answer


def test_one_segments_region_is_not_the_companys(release: Settings) -> None:
    # the company's international sales are the segments' International rows summed (the segments' totals add up
    # to the company's), never one segment's row
    answer = ask_once(release, "What were Nordwind Cans' international net sales in Q2 2025?")
    assert "$382.2 million" in stated(answer) and "311.5 + 70.7" in answer, answer
    assert "Metal Packaging: International" in answer, answer  # says which rows it adds
