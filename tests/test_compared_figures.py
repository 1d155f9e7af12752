"""A sentence that states a figure 'compared with' another ('Net charge-offs were $81 million in the second quarter
of 2024, compared with $52 million in the second quarter of 2023') states both of the same subject, each for its
own period, though no lexicon metric names it."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Fabrikam Bancorp, Inc.

QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the quarterly period ended June 30, 2024

## Item 2. Management's Discussion and Analysis

Net charge-offs were $81 million in the second quarter of 2024, compared with $52 million in the second quarter of
2023. Mortgage originations were $1.9 billion in the second quarter of 2024 versus $2.4 billion in the second quarter
of 2023.
"""


@pytest.fixture(scope="module")
def fabrikam(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("fabrikam"), "FABRIKAM_2024_10Q.md", FILING)


@pytest.mark.parametrize(("question", "figure"), [
    ("What were Fabrikam's net charge-offs in Q2 2024?", "$81 million"),
    ("What were Fabrikam's net charge-offs in Q2 2023?", "$52 million"),
    ("What were Fabrikam's mortgage originations in the second quarter of 2023?", "$2.4 billion"),
])
def test_each_figure_of_a_comparison_is_its_subjects(fabrikam: Settings, question: str, figure: str) -> None:
    assert figure in stated(ask_once(fabrikam, question))
