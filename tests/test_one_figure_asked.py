"""What one question asks is one figure, however many lexicon metrics its words name: a metric linked to another
by words that are no list and no arithmetic narrows it ('debt issuance costs associated with the credit
facility'), and one metric's figure in one year 'in relation to' another year's is their ratio, computed in code."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings

pytestmark = pytest.mark.usefixtures("no_yfinance")

ANNUAL_REPORT = """# Tailwind Freight Corporation

## Annual Report on Form 10-K for the fiscal year ended December 31, 2024

### Item 7. Management's Discussion and Analysis

Fuel surcharge revenue was $2.8 billion in 2024 and $2.6 billion in 2023 (in billions):

| | 2024 | 2023 |
|---|---|---|
| Fuel surcharge revenue | 2.8 | 2.6 |
| Freight revenue | 21.4 | 20.9 |

### Operating statistics

| | 2024 | 2023 |
|---|---|---|
| Locomotives in service | 7,200 | 6,000 |
| Route miles | 32,100 | 32,000 |

### Note 9. Debt

| (In millions) | December 31, 2024 | December 31, 2023 |
|---|---|---|
| Senior notes due 2030 | 600 | 600 |
| Less unamortized debt issuance costs | (26) | (27) |
| Total long-term debt | 574 | 573 |

Unamortized debt issuance costs associated with the credit facility were $11 million as of December 31, 2024.
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("one_figure"), "TAILWIND_2024_10K.md", ANNUAL_REPORT)


def test_a_metric_narrowed_by_another_is_one_figure_never_the_wider_one(home: Settings) -> None:
    # the table's debt issuance costs are all the notes', not the credit facility's: refused, never stated (the
    # sentence reader gives a number to the last metric named before it, so the $11 million is no candidate)
    answer = ask_once(home, "What were Tailwind's unamortized debt issuance costs associated with the credit "
                            "facility in 2024?")
    assert answer.startswith("Not found") and "credit facility" in answer, answer
    assert not any(f in stated(answer) for f in ("26", "600", "574")), answer


@pytest.mark.parametrize("question", [
    "How much did Tailwind's fuel surcharge revenue in 2024 represent in relation to the one in 2023?",
    "What is the ratio of Tailwind's fuel surcharge revenue in 2024 to 2023?",
])
def test_one_years_figure_in_relation_to_anothers_is_their_ratio(home: Settings, question: str) -> None:
    answer = ask_once(home, question)
    assert "1.08" in answer and "2.8 / 2.6" in answer.replace(",", ""), answer


def test_a_ratio_computed_from_a_rows_cells_is_not_refused_for_its_arithmetic_word(home: Settings) -> None:
    answer = ask_once(home, "What is the ratio of Tailwind's locomotives in service in 2024 to 2023?")
    assert "1.20" in answer and "7,200 / 6,000" in answer, answer

