"""MD&A states a figure's change in the sentence that gives its level ('Net revenues of $28.7 billion increased by
$1.8 billion (6.7%) in 2017'). The change is typed at ingest as a change (signed, with the level's period); a level
question is never answered with it, and a question asking how much the figure moved is answered with it when the
filing prints no level for the year before."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.ingest.prose import read_sentences

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Halden Brands Inc.

FORM 10-K

For the fiscal year ended December 31, 2017

## Item 7. Management's Discussion and Analysis

### Results of Operations

Net revenues of $28.7 billion increased by $1.8 billion (6.7%) in 2017 compared with 2016, driven by price.

Net earnings of $6.0 billion decreased by $932 million (13.4%) in 2017. This decrease was due primarily to a
higher effective tax rate.

Operating income increased to $11.5 billion in 2017 from $10.8 billion in 2016.

Royalty income increased $41.0 million to $310.5 million in 2017.
"""


def _figures(text: str) -> list[tuple[str, float, str, bool]]:
    return [(f.text, f.value, f.period, f.change) for s in read_sentences(text, 12, "FY2017", False)
            for f in s.figures]


def test_a_stated_change_is_typed_signed_with_its_levels_period() -> None:
    figures = _figures("Net earnings of $6.0 billion decreased by $932 million (13.4%) in 2017.")
    assert [(v, p, c) for _, v, p, c in figures] == [(6.0, "FY2017", False), (-932.0, "FY2017", True),
                                                    (-13.4, "FY2017", True)]
    rise = _figures("Net revenues of $28.7 billion increased by $1.8 billion (6.7%) in 2017 compared with 2016.")
    assert [(v, p, c) for _, v, p, c in rise] == [(28.7, "FY2017", False), (1.8, "FY2017", True),
                                                 (6.7, "FY2017", True)]


def test_a_change_on_another_basis_listed_after_it_is_that_change_too() -> None:
    figures = _figures("Net revenues were $28.7 billion in 2017, an increase of 12% as reported and 10% at constant "
                       "exchange rates.")
    assert [(v, c) for _, v, _, c in figures] == [(28.7, False), (12.0, True), (10.0, True)]
    fall = _figures("Net revenues decreased 4% in 2017, or 2% on an organic basis.")
    assert [(v, c) for _, v, _, c in fall] == [(-4.0, True), (-2.0, True)]
    # a percentage after a change without a basis between them is no change of its own ('and 35% of sales')
    assert [c for *_, c in _figures("Revenue increased 12% in 2017 and 35% of it came from services.")] == [
        True, False]


def test_a_level_moved_to_or_from_is_no_change() -> None:
    assert [c for *_, c in _figures("Gross margin decreased to 35% in 2017.")] == [False]
    assert [c for *_, c in _figures("Revenue was $5.0 billion in 2017, up from $4.6 billion in 2016.")] == [
        False, False]
    # the verb right before the figure states it; a fall of a percentage is negative as before
    assert _figures("Comparable sales decreased 1.8% in 2017.")[0][1:] == (-1.8, "FY2017", True)


def test_the_level_a_change_reached_shares_its_period_and_each_clause_is_its_own() -> None:
    figures = _figures("In 2002, operating revenues increased $411.0 million to $1.2 billion; fuel expenses "
                       "increased $29.4 million to $105.2 million.")
    assert [(v, p, c) for _, v, p, c in figures][:2] == [(411.0, "FY2002", True), (1.2, "FY2002", False)]
    # the next clause's change is no change of the level before it: it names its own figure
    assert [c for *_, c in figures[2:]] == [True, False]


def test_a_period_compared_with_is_never_the_levels() -> None:
    # '(6.7%) compared with 2016': 2016 is the base of the comparison, so the level and change get no period from it
    figures = _figures("Net revenues of $28.7 billion increased by $1.8 billion (6.7%) compared with 2016.")
    assert [p for _, _, p, _ in figures][:2] == ["", ""]


@pytest.fixture(scope="module")
def halden(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("halden"), "HALDEN_2017_10K.md", FILING)


def test_a_level_question_reads_the_level_not_the_change(halden: Settings) -> None:
    answer = stated(ask_once(halden, "What were net revenues in 2017?"))
    assert "$28.7 billion" in answer and "1.8" not in answer
    earnings = stated(ask_once(halden, "What were net earnings in 2017?"))
    assert "was $6 billion" in earnings and "932" not in earnings


def test_a_row_the_lexicon_does_not_know_reads_the_level_reached(halden: Settings) -> None:
    answer = stated(ask_once(halden, "What was royalty income in 2017?"))
    assert "310.5" in answer and "41" not in answer
    change = stated(ask_once(halden, "By how much did royalty income increase in 2017?"))
    assert "41" in change and "310.5" not in change


def test_the_change_asked_is_the_one_the_filing_states(halden: Settings) -> None:
    answer = stated(ask_once(halden, "By what amount did net earnings decrease over the year, in millions?"))
    assert "decreased by $932 million" in answer
    rise = stated(ask_once(halden, "How much did net revenues increase in 2017?"))
    assert "increased by $1.8 billion" in rise and "[HALDEN_2017_10K, p. 1]" in rise


def test_a_change_both_levels_print_is_computed(halden: Settings) -> None:
    answer = stated(ask_once(halden, "What was the change in operating income from 2016 to 2017?"))
    assert "11.5 - 10.8 = 0.7" in answer


def test_a_lists_figures_take_the_one_period_its_lead_in_reports_on() -> None:
    lead_in = ("2017 compared to 2016: the fluctuations of Harbor Power in 2017 were caused by the acquisition of "
               "Unit 3: operating revenues increased $41.0 million to $1.2 billion; fuel expenses increased "
               "$29.4 million to $105.2 million.")
    figures = _figures(lead_in)
    assert [(v, p) for _, v, p, _ in figures if v != 3] == [(41.0, "FY2017"), (1.2, "FY2017"), (29.4, "FY2017"),
                                                           (105.2, "FY2017")]
    # a lead-in naming two periods of its own, or items naming their own, gives the items none
    both = _figures("The components at December 31, 2017 and 2016 were: cash $5.0 million; bonds $7.5 million.")
    assert [p for *_, p, _ in both][1:] == [""]  # (the first is read with the nearest period before it)
    own = _figures("In 2017 the changes were: revenue $4.0 million in 2016 terms; costs $2.0 million.")
    assert "FY2017" not in [p for *_, p, _ in own]
