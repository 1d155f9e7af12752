"""A word the question asks is named by the figure's words in a regular form of its own: 'ending goodwill' is the
roll-forward's 'Goodwill, end of the year' row, whether the gate checks the word as a modifier of the metric or as
a part the plan reads around it; the 'beginning' row never answers it.

The filing is typeset here: a software company's goodwill roll-forward over two fiscal years.
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.answer.words import unnamed_modifiers
from agent.config import Settings

FILING = """# Osprey Software Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended January 31, 2025

## Item 8. Financial Statements

### Note 7. Goodwill

The following table summarizes the changes in the carrying amount of goodwill (in millions):

| | January 31, 2025 | January 31, 2024 |
|---|---|---|
| Goodwill, beginning of the year | $1,769.4 | $1,710.3 |
| Additions arising from acquisitions during the year | 866.9 | — |
| Effect of foreign currency translation | (36.3) | 59.1 |
| Goodwill, end of the year | $2,600.0 | $1,769.4 |
"""


@pytest.fixture(scope="module")
def osprey(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("osprey"), "OSPREY_2025_10K.md", FILING)


def test_a_modifier_is_named_in_a_regular_form_of_its_own() -> None:
    assert unnamed_modifiers("What was the ending goodwill in 2025?", "goodwill", "Goodwill, end of the year") == []
    assert unnamed_modifiers("What was the ending goodwill in 2025?", "goodwill",
                             "Goodwill, beginning of the year") == ["ending"]


@pytest.mark.parametrize(("question", "figure", "wrong"), [
    ("What was Osprey's ending goodwill in fiscal 2025?", "2,600", "1,769.4"),
    ("What is the total ending goodwill for fiscal 2024 and 2025?", "4,369.4", "3,479.7"),
])
def test_the_ending_balance_is_the_end_of_year_row(osprey: Settings, question: str, figure: str, wrong: str) -> None:
    answer = stated(ask_once(osprey, question))
    assert figure in answer and wrong not in answer, answer
