"""Parts both ways, where a filing names its segments only in a sentence: MD&A prints one table per segment
under the segment's heading ('Net sales / Operating profit / Operating margin / Backlog at year-end'), and no
segment note lists them as rows. A company-level question is never answered with one segment's figure (the
filing gives backlog per segment: refused, saying so); a segment's question gets its own table's figure, and the
answer says whose part it is."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.ingest.parts import part_sentences

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Contoso Aerospace Corporation

FORM 10-K

For the fiscal year ended December 31, 2024

Contoso Aerospace Corporation
(Exact name of registrant as specified in its charter)

## Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations

### Business Segment Results

We operate in two business segments: Aeronautics and Space. Each is discussed below.

#### Aeronautics

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Net sales | 27,500 | 26,100 |
| Operating profit | 2,610 | 2,500 |
| Operating margin | 9.5% | 9.6% |
| Backlog at year-end | 60,200 | 58,400 |

#### Space

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Net sales | 12,300 | 11,900 |
| Operating profit | 1,050 | 1,120 |
| Operating margin | 8.5% | 9.4% |
| Backlog at year-end | 36,900 | 34,100 |

## Item 8. Financial Statements and Supplementary Data

### Consolidated Statements of Earnings

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Net sales | 39,800 | 38,000 |
| Cost of sales | 35,900 | 34,200 |
| Operating profit | 3,660 | 3,620 |
| Net earnings | 2,800 | 2,750 |
"""


def test_the_sentences_that_speak_of_segments_are_found() -> None:
    text = "Revenue grew. We operate in two business segments: Aeronautics and Space. Costs fell."
    assert part_sentences(text) == ["We operate in two business segments: Aeronautics and Space."]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("segments"), "CONTOSO_2024_10K.md", FILING)



def test_each_segment_table_carries_its_part(home: Settings) -> None:
    from agent.index.store import Store

    parts = {c.table.title: c.table.part for c in Store.open(home).chunks() if c.table is not None}
    assert parts == {"Aeronautics": "Aeronautics", "Space": "Space", "Consolidated Statements of Earnings": ""}


def test_a_company_question_is_never_answered_with_a_segment_figure(home: Settings) -> None:
    answer = ask_once(home, "What was Contoso's backlog at year-end 2024?")
    assert answer.startswith("Not found") and "part by part" in answer, answer
    assert not any(f in stated(answer) for f in ("60,200", "36,900")), answer


def test_a_company_ratio_printed_only_per_segment_is_computed_from_the_companys_own_figures(home: Settings) -> None:
    # the segments' 'Operating margin' rows are theirs; the company's is its operating profit over its net sales
    answer = stated(ask_once(home, "What was Contoso's operating margin in 2024?"))
    assert "9.20%" in answer and "3,660 / 39,800" in answer, answer
    assert not any(f in answer for f in ("9.5", "8.5")), answer


@pytest.mark.parametrize(("question", "figure", "part"), [
    ("What was the Space segment's backlog at year-end 2024?", "$36,900 million", "Space"),
    ("What was Contoso's Aeronautics operating profit in 2023?", "$2,500 million", "aeronautics"),
])
def test_a_segment_question_gets_its_own_table_and_says_whose(home: Settings, question: str, figure: str,
                                                               part: str) -> None:
    answer = ask_once(home, question)
    assert figure in stated(answer) and f"({part})" in answer, answer


def test_the_company_figure_comes_from_its_statement(home: Settings) -> None:
    assert "$3,660 million" in ask_once(home, "What was Contoso's operating profit in 2024?")
