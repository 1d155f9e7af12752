"""A 'Total X' row sums the 'X' line its table lists: a question naming the line gets the line, one saying
'total' gets the total (typeset filing)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.config import Settings

FILING = """# Fabrikam Holdings, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 7. Management's Discussion and Analysis

### Other operating expenses

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Impairment charges | 94.2 | 394.0 |
| Losses on disposals of assets | 45.1 | 85.6 |
| Other operating expenses | 27.0 | 33.7 |
| Total other operating expenses | 166.3 | 513.3 |
"""


@pytest.fixture(scope="module")
def fabrikam(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("fabrikam"), "FABRIKAM_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "figure"), [
    ("What were Fabrikam's other operating expenses in 2024?", "$27 million"),
    ("What were the other operating expenses in 2023?", "$33.7 million"),
    ("What were Fabrikam's total other operating expenses in 2024?", "$166.3 million"),
])
def test_the_line_asked_not_the_total_that_lists_it(fabrikam: Settings, question: str, figure: str) -> None:
    assert figure in ask_once(fabrikam, question)
