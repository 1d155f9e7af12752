"""A company's part printed only segment by segment ('International' under each segment's heading): the company's
figure of the part is the sum of the segments' rows, computed in code and cited, only when every segment prints
the part once and the segments' totals add up to the company's total; otherwise the question stays refused."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

pytestmark = pytest.mark.usefixtures("no_yfinance")

HEAD = """# {name} Inc.

EXHIBIT 99.1

{name} Reports Second Quarter 2025 Results

{name} Inc. (NYSE: {ticker}) today reported results for the second quarter ended June 28, 2025.

### Segment Net Sales

(Dollars in millions)

| SECOND QUARTER | 2025 | 2024 |
|---|---|---|
"""

ADDS_UP = """| Glass Containers | | |
| U.S. | 512.4 | 498.0 |
| International | 208.3 | 190.1 |
| Total Glass Containers | 720.7 | 688.1 |
| Closures | | |
| U.S. | 150.2 | 147.9 |
| International | 44.6 | 41.0 |
| Total Closures | 194.8 | 188.9 |
| Total net sales | 915.5 | 877.0 |
"""

# eliminations between the segments: the segments' totals are not the company's
WITH_ELIMINATIONS = ADDS_UP.replace("| Total net sales | 915.5 | 877.0 |",
                                    "| Intersegment eliminations | (12.5) | (10.0) |\n| Total net sales | 903.0 | 867.0 |")

# one segment prints no international row
PART_MISSING = """| Glass Containers | | |
| U.S. | 512.4 | 498.0 |
| International | 208.3 | 190.1 |
| Total Glass Containers | 720.7 | 688.1 |
| Closures | | |
| North America | 194.8 | 188.9 |
| Total Closures | 194.8 | 188.9 |
| Total net sales | 915.5 | 877.0 |
"""


def _home(factory: pytest.TempPathFactory, name: str, ticker: str, body: str):
    text = HEAD.format(name=name, ticker=ticker) + body
    return ingested_typeset(factory.mktemp(name.lower()), f"{name.upper()}_2025Q2_PR.md", text)


def test_the_part_is_summed_over_the_segments(tmp_path_factory: pytest.TempPathFactory) -> None:
    home = _home(tmp_path_factory, "Vitrum", "VTRM", ADDS_UP)
    answer = ask_once(home, "What were Vitrum's international net sales in Q2 2025?")
    assert "$252.9 million" in stated(answer) and "208.3 + 44.6" in answer, answer
    assert "'Glass Containers: International' + 'Closures: International'" in answer, answer
    earlier = ask_once(home, "What were Vitrum's international net sales in Q2 2024?")
    assert "$231.1 million" in stated(earlier), earlier


def test_no_sum_when_the_segments_are_not_the_whole(tmp_path_factory: pytest.TempPathFactory) -> None:
    home = _home(tmp_path_factory, "Crystalline", "CRYS", WITH_ELIMINATIONS)
    answer = ask_once(home, "What were Crystalline's international net sales in Q2 2025?")
    assert answer.startswith("Not found") and "252.9" not in stated(answer), answer


def test_no_sum_when_a_segment_does_not_print_the_part(tmp_path_factory: pytest.TempPathFactory) -> None:
    home = _home(tmp_path_factory, "Opaline", "OPLN", PART_MISSING)
    answer = ask_once(home, "What were Opaline's international net sales in Q2 2025?")
    assert answer.startswith("Not found") and "208.3" not in stated(answer), answer
