"""A part printed under the company's own short name (a retailer's flagship banner 'Alpine Ski House' of Alpine Ski
House Outfitters, Inc.) in an analyst's shorthand: '<company> net sales FY2024' asks the company's figure, never the banner's, and
never half the banner's name taken for a part ('house' of 'Alpine Ski House'). Typeset filing."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings

FILING = """# Alpine Ski House Outfitters, Inc.

FORM 10-K

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended February 1, 2025

Alpine Ski House Outfitters, Inc.
(Exact name of registrant as specified in its charter)

## Item 7. Management's Discussion and Analysis

### Consolidated Results

(In thousands)

| | Fiscal 2024 | Fiscal 2023 |
|---|---|---|
| Net sales | 4,410,200 | 4,380,950 |
| Cost of sales | 2,690,300 | 2,701,100 |
| Gross profit | 1,719,900 | 1,679,850 |

### Net Sales by Banner

(In thousands)

| | Fiscal 2024 | Fiscal 2023 |
|---|---|---|
| Alpine Ski House | 3,120,400 | 3,150,210 |
| Summit Outlet | 1,289,800 | 1,230,740 |
| Total | 4,410,200 | 4,380,950 |
"""


@pytest.fixture(scope="module")
def alpine(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("alpine"), "ALPINE_2024_10K.md", FILING)


@pytest.mark.parametrize("question", [
    "Alpine Ski House net sales fiscal 2024",
    "What were Alpine Ski House's net sales in fiscal 2024?",
])
def test_the_company_named_as_its_banner_is_the_company(alpine: Settings, question: str) -> None:
    answer = stated(ask_once(alpine, question))
    assert "$4,410,200 thousand" in answer and "3,120,400" not in answer


def test_a_ratio_of_the_company_in_shorthand(alpine: Settings) -> None:
    answer = stated(ask_once(alpine, "Alpine Ski House gross margin fiscal 2024"))
    assert "39.0" in answer  # 1,719,900 / 4,410,200


def test_the_other_banner_is_its_own_part(alpine: Settings) -> None:
    answer = stated(ask_once(alpine, "What were Summit Outlet net sales in fiscal 2023?"))
    assert "$1,230,740 thousand" in answer
