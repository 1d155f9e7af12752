"""Closed world for figures read from a table cell by the words they share with the question: every word the
question asks with must be printed on the figure's page -- its row, column, table, or the sentences beside it -- (or
name a metric the page names in the lexicon's words); otherwise the answer says what the filing gives instead.

The filing is typeset here: a software company's revenue table that never says 'deferred'.
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.config import Settings

FILING = """# Litware Software plc

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 8. Financial Statements

### Note 4. Revenue

Consolidated (US$000)

| | 2024 | 2023 |
|---|---|---|
| Software license revenue | 82,575 | 64,420 |
| Subscription and maintenance revenue | 64,955 | 56,996 |
| Interest income | 933 | 192 |
| Revenue | 172,752 | 140,368 |

### Note 5. Geographic Information

Income before income taxes by jurisdiction was as follows (US$000):

| | 2024 | 2023 |
|---|---|---|
| Domestic | (20,597) | 12,404 |
| Foreign | 87,791 | 150,051 |
"""


@pytest.fixture(scope="module")
def litware(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("litware"), "LITWARE_2024_10K.md", FILING)


def test_a_word_the_table_never_prints_refuses_the_cell(litware: Settings) -> None:
    answer = ask_once(litware, "What is the amount of long-term deferred revenue as at 2023?")
    assert answer.startswith("Not found in the filings")
    assert "deferred" in answer.split("Closest evidence", 1)[0]
    assert "140,368" not in answer.split("Closest evidence", 1)[0]


@pytest.mark.parametrize(
    ("question", "figure"),
    [
        ("What was the interest income in 2024?", "933"),
        ("What was the software license revenue in 2023?", "64,420"),
    ],
)
def test_a_cell_whose_table_prints_every_word_is_answered(litware: Settings, question: str, figure: str) -> None:
    answer = ask_once(litware, question)
    assert figure in answer and not answer.startswith("Not found")


def test_the_sentence_above_a_table_says_what_its_rows_are(litware: Settings) -> None:
    # 'Foreign' alone does not say income before income taxes; the sentence introducing its table does.
    answer = ask_once(litware, "What was the foreign income before income taxes in 2023?")
    assert "150,051" in answer and not answer.startswith("Not found"), answer
