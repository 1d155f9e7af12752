"""A filing that prints the prior year's figure as a comparative in parentheses ('exchange gains of RMB77 million
(2018: RMB229 million)', as IFRS reporters do) gives that period to the figure after it, never to the figure before,
which is the year after the comparative's; and the day of a date written day first ('the year ended 31 December
2019') is the date's, no figure of the sentence."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.ingest.prose import read_sentences

pytestmark = pytest.mark.usefixtures("no_yfinance")


def _figures(text: str) -> list[tuple[float, str]]:
    return [(f.value, f.period) for s in read_sentences(text, 12, "", False) for f in s.figures]


def test_a_comparative_in_parentheses_is_the_prior_years_and_the_figure_before_it_the_years_after() -> None:
    assert _figures("During the year ended 31 December 2019, the Group reported exchange gains of approximately "
                    "RMB77 million (2018: RMB229 million) within finance costs.") == [(77, "FY2019"), (229, "FY2018")]
    assert _figures("The Group provided guarantees amounting to US$261,518 (2018: US$283,752).") == [
        (261518, "FY2019"), (283752, "FY2018")]
    # a period labelling each figure is each figure's own
    assert _figures("The ratio was 2019: 5.1%, 2018: 4.2%.") == [(5.1, "FY2019"), (4.2, "FY2018")]
    # words between a figure and the parenthesis leave the figure's period unsaid
    assert _figures("Revenue was $5.0 million in the first half (H1 2018: $4.1 million).")[0] == (5.0, "")


FILING = """# Tamarind Group plc

ANNUAL REPORT

For the year ended 31 December 2019

## Finance costs

During the year ended 31 December 2019, the Group reported exchange gains of approximately RMB77 million (2018:
RMB229 million) within finance costs, net.
"""


@pytest.fixture(scope="module")
def tamarind(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("tamarind"), "TAMARIND_2019_AR.md", FILING)


def test_each_year_asked_reads_its_own_figure(tamarind: Settings) -> None:
    current = stated(ask_once(tamarind, "How much exchange gains did the Group report for 2019?"))
    assert "77" in current and "229" not in current, current
    prior = stated(ask_once(tamarind, "How much exchange gains did the Group report for 2018?"))
    assert "229" in prior and "77 million" not in prior, prior
