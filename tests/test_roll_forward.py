"""A roll-forward table (a beginning balance, its movements, an ending balance) under a title that names its
subject: a balance question reads a balance row, a movement row answers only a question naming the movement
(typeset filing)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings

FILING = """# Contoso Software, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended November 30, 2024

## Item 8. Financial Statements and Supplementary Data

### Note 9. Income Taxes

During fiscal 2024 and 2023, the aggregate changes in our total gross amount of unrecognized tax benefits are
summarized as follows (in thousands):

| | 2024 | 2023 |
|---|---|---|
| Beginning balance | 181,240 | 175,905 |
| Gross increases in unrecognized tax benefits - prior year tax positions | 12,615 | 4,210 |
| Gross decreases in unrecognized tax benefits - prior year tax positions | (3,050) | (21,480) |
| Gross increases in unrecognized tax benefits - current year tax positions | 48,930 | 30,115 |
| Lapse of statute of limitations | (38,770) | (7,510) |
| Ending balance | 200,965 | 181,240 |

We file income tax returns in the United States and in many foreign jurisdictions.
"""


@pytest.fixture(scope="module")
def contoso(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("contoso"), "CONTOSO_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Contoso's ending balance of unrecognized tax benefits in 2024?", "200,965"),
    ("What was the beginning balance of the gross unrecognized tax benefits in 2024?", "181,240"),
    ("What were the gross increases in unrecognized tax benefits from prior year tax positions in 2024?", "12,615"),
])
def test_a_balance_or_a_movement_by_its_own_row(contoso: Settings, question: str, figure: str) -> None:
    assert figure in stated(ask_once(contoso, question))


def test_a_movement_is_no_balance(contoso: Settings) -> None:
    """'The total gross amount' is the table's subject, a balance: the rows that say only the subject's words
    and a movement of their own ('gross increases ... prior year tax positions') are no answer to it."""
    said = stated(ask_once(contoso, "What was the total gross amount of unrecognized tax benefits in 2024?"))
    for movement in ("12,615", "3,050", "48,930", "38,770"):
        assert movement not in said
