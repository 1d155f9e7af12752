"""A sentence that names no period, right after one that names the filing's own period in the same paragraph,
reports on that period ('Revenue for 2024 was C$2,841.6 million, up 7% from 2023. Adjusted EBITDA was C$1,102.3
million.'): the figure is the filing's period's, and was refused for it. A sentence after one naming another
period, or in another paragraph, gets none: 'In 2023, ... Adjusted EBITDA was ...' is never the 2024 figure."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated, typed_evidence

from agent.answer.reading import EvidenceReader
from agent.config import Settings

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Trey Minerals Ltd.

FORM 20-F

For the fiscal year ended December 31, 2024

Trey Minerals Ltd.
(Exact name of registrant as specified in its charter)

All amounts are in millions of U.S. dollars unless otherwise stated.

## Item 5. Operating and Financial Review and Prospects

Revenue for 2024 was $1,840.2 million, up 6% from 2023. Adjusted EBITDA was $702.5 million. Free cash flow was
$311.0 million.

In 2023, the company completed the Kestrel acquisition. Sustaining capital expenditure was $95.4 million.

Exploration spending was $41.7 million.

## Item 18. Financial Statements

### Consolidated Statements of Income

| | 2024 | 2023 |
|---|---|---|
| Revenue | 1,840.2 | 1,736.0 |
| Operating income | 512.3 | 470.8 |
| Net income | 355.9 | 318.4 |
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("undated"), "TREY_2024_20F.md", FILING)


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Trey Minerals' adjusted EBITDA in 2024?", "$702.5 million"),
    ("What was Trey Minerals' free cash flow in 2024?", "$311 million"),
])
def test_an_undated_sentence_after_the_filings_period_is_of_that_period(home: Settings, question: str,
                                                                          figure: str) -> None:
    answer = stated(ask_once(home, question))
    assert figure in answer, answer


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Trey Minerals' adjusted EBITDA in 2023?", "702.5"),  # the comparison's year is not the sentence's
    ("What was Trey Minerals' sustaining capital expenditure in 2024?", "95.4"),  # after a sentence about 2023
])
def test_an_undated_sentence_gets_no_other_period(home: Settings, question: str, figure: str) -> None:
    answer = stated(ask_once(home, question))
    assert figure not in answer, answer


def test_a_paragraph_or_a_table_row_ends_the_period_reported() -> None:
    text = ("Revenue for 2024 was $1,840.2 million, up 6% from 2023. Adjusted EBITDA was $702.5 million.\n\n"
            "Exploration spending was $41.7 million.\n"
            "Revenue for 2024 was $1,840.2 million.\nSegment | 2024\nMining | 1,200.0\nCapex was $88.0 million.")
    reader = EvidenceReader([typed_evidence(chunk_id="x:1", doc_name="TREY", text=text, filing_period="FY2024",
                                      fy_end_month=12)])
    periods = {n.text: n.period for seg in reader.segments if seg.kind == "sentence" for n in seg.numbers}
    assert periods["$702.5 million"] == "FY2024" and periods["$1,840.2 million"] == "FY2024"
    assert periods["$41.7 million"] == "" and periods["$88.0 million"] == ""
    other = EvidenceReader([typed_evidence(chunk_id="x:2", doc_name="TREY", text=text, filing_period="FY2025",
                                     fy_end_month=12)])
    assert all(n.period != "FY2025" for seg in other.segments for n in seg.numbers)  # not the filing's own period
