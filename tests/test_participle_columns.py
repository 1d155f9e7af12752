"""A roll of counts printed with the periods as rows and the movements as columns ('Restaurants at beginning of
year | Opened | Closed | Restaurants at end of year'), under a heading that names what it counts: 'how many
restaurants did X open' is the 'Opened' column -- a verb asked in the form the column prints it -- and the table
is titled by its heading where its only title line is its columns' names. A roll-forward printed down the page
('... at beginning of year / ... opened / ... closed / ... at end of year') answers the verb with its movement row."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.answer.words import inflected

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Wingtip Grill Holdings, Inc.

FORM 10-K

For the fiscal year ended December 29, 2024

Wingtip Grill Holdings, Inc.
(Exact name of registrant as specified in its charter)

## Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations

### Results of Operations

(In millions)

| | Fiscal 2024 | Fiscal 2023 |
|---|---|---|
| Revenue | 2,140 | 1,985 |
| Operating income | 188 | 171 |

### Restaurant Development

| | Restaurants at beginning of year | Opened | Closed | Restaurants at end of year |
|---|---|---|---|---|
| Fiscal 2024 | 612 | 34 | 9 | 637 |
| Fiscal 2023 | 590 | 29 | 7 | 612 |

### Franchise Development

| | Fiscal 2024 | Fiscal 2023 |
|---|---|---|
| Franchise restaurants at beginning of year | 210 | 198 |
| Franchise restaurants opened | 15 | 14 |
| Franchise restaurants closed | (3) | (2) |
| Franchise restaurants at end of year | 222 | 210 |
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory):
    return ingested_typeset(tmp_path_factory.mktemp("participles"), "WINGTIP_2024_10K.md", FILING)


def test_a_word_and_its_regular_forms() -> None:
    assert inflected("open", "opened") and inflected("closed", "close") and inflected("grant", "granting")
    assert not inflected("open", "operating") and not inflected("cost", "costs")


@pytest.mark.parametrize(("question", "figure"), [
    ("How many restaurants did Wingtip open in fiscal 2024?", "34"),
    ("How many restaurants did Wingtip open in fiscal 2023?", "29"),
    # a roll-forward's movement row asked by its verb is that movement, not the balance the table is about
    ("How many franchise restaurants did Wingtip open in fiscal 2024?", "15"),
])
def test_the_column_printing_the_verb_asked_answers(home, question: str, figure: str) -> None:
    answer = stated(ask_once(home, question))
    assert f" {figure} " in answer and not any(f in answer for f in ("612", "210", "222")), answer
