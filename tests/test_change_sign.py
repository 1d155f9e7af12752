"""A change a sentence states by its verb keeps its sign ('Comparable sales decreased 1.8%' is -1.8%, never 1.8%),
and a row named by the company's own name (a banner, a brand) answers no figure the question names beyond it."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated, typed_evidence

from agent.answer.reading import EvidenceReader
from agent.config import Settings

pytestmark = pytest.mark.usefixtures("no_yfinance")

REPORT = """# Larkspur Home Stores, Inc.

FORM 10-K

For the fiscal year ended February 1, 2025

Larkspur Home Stores, Inc.
(Exact name of registrant as specified in its charter)

Our common stock trades on the New York Stock Exchange under the symbol "LKHS".

## Item 7. Management's Discussion and Analysis

### Net Sales by Banner

(In thousands)

| | Fiscal 2024 | Fiscal 2023 |
|---|---|---|
| Larkspur | 5,120,330 | 5,318,902 |
| Nesting Co. | 1,904,210 | 1,951,877 |
| Total | 7,024,540 | 7,270,779 |

Comparable sales decreased 1.8% in fiscal 2024. Gross margin declined to 35.2% in fiscal 2024.
"""


def _percentages(sentence: str) -> list[float]:
    reader = EvidenceReader([typed_evidence(chunk_id="x:0", doc_name="X", page=1, text=sentence)])
    return [n.value for seg in reader.segments for n in seg.numbers if n.unit == "%"]


def test_a_fall_stated_by_its_verb_is_negative() -> None:
    assert _percentages("Comparable sales decreased 1.8% in fiscal 2024.") == [-1.8]
    assert _percentages("Organic sales declined by 3% in 2024.") == [-3.0]
    assert _percentages("Net sales increased 4.1% in 2024.") == [4.1]
    assert _percentages("Gross margin declined to 35.2% in 2024.") == [35.2]  # the level it fell to


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("banner"), "LARKSPUR_2024_10K.md", REPORT)


def test_comps_in_shorthand_keep_their_sign(home: Settings) -> None:
    answer = stated(ask_once(home, "LKHS comps FY24"))
    assert "-1.8" in answer and "5,120,330" not in answer, answer


def test_a_banner_named_after_the_company_answers_only_for_its_own_sales(home: Settings) -> None:
    # the filing states no comparable sales for fiscal 2023: the banner row named 'Larkspur' is no answer
    answer = ask_once(home, "LKHS comps FY23")
    assert answer.startswith("Not found") and "5,318,902" not in stated(answer), answer
