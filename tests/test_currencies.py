"""A figure keeps the currency it is written in: a Hong Kong, Singapore or Chinese filer's amounts are never shown
as US dollars ('RMB200 billion' was '$200 billion'); a table's currency is the one its header states, never a
currency a row's label happens to name. And a sentence's figures keep their roles: in 'revenue increased by 13%
year-on-year to RMB200 billion' the increase is the 13%, so the 200 billion is no answer to 'the change in revenue'.
The filing is typeset here: a Hong Kong-listed games company reporting in renminbi.
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance.numbers import currency_of, format_number, parse_number
from agent.index.store import Store

FILING = """# Lantern Interactive Holdings Limited

ANNUAL REPORT 2024
For the year ended 31 December 2024

## Management Discussion and Analysis

### Revenues

Revenues from our online games business increased by 13% year-on-year to RMB200 billion, driven by new titles.

### Revenues by line of business

| (RMB in millions, unless specified) | 2024 | 2023 |
|---|---|---|
| Online games | 199,991 | 176,646 |
| Advertising | 68,377 | 58,079 |
| Total revenues | 268,368 | 234,725 |

### Borrowings by currency

| | 2024 | 2023 |
|---|---|---|
| USD-denominated notes | 12,500 | 11,000 |
| EUR-denominated notes | 3,400 | 3,100 |
| Total borrowings | 15,900 | 14,100 |
"""


@pytest.fixture(scope="module")
def lantern(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("lantern"), "LANTERN_2024_AR.md", FILING)


@pytest.mark.parametrize(
    ("text", "value", "unit", "shown"),
    [
        ("RMB200 billion", 200.0, "CNY", "RMB 200 billion"),
        ("HK$5 million", 5.0, "HKD", "HK$5 million"),
        ("S$ 12.5 million", 12.5, "SGD", "S$12.50 million"),
        ("(HK$1,234)", -1234.0, "HKD", "-HK$1,234"),
        ("¥3,000", 3000.0, "JPY", "¥3,000"),
        ("US$5 million", 5.0, "USD", "$5 million"),
        ("$5 million", 5.0, "USD", "$5 million"),
        ("€5 million", 5.0, "EUR", "€5 million"),
    ],
)
def test_a_figure_keeps_the_currency_it_is_written_in(text: str, value: float, unit: str, shown: str) -> None:
    n = parse_number(text)
    assert n is not None and (n.value, n.unit) == (value, unit)
    assert format_number(n.value, n.unit, n.scale) == shown


def test_a_word_before_a_dollar_sign_names_no_currency() -> None:
    n = parse_number("payable FOR$5")  # letters of a word, not a country's prefix
    assert n is not None and n.unit == "USD"
    assert currency_of("CLASS A shares") == "" and currency_of("(in US dollars)") == "USD"
    assert currency_of("CAD/CAM systems for $5") == "USD"  # an acronym, not Canadian dollars


def test_a_tables_currency_is_the_one_its_header_states(lantern: Settings) -> None:
    with Store(lantern) as store:
        records = [c.table for c in store.chunks() if c.table is not None]
    revenues = next(r for r in records if any(row.label == "Online games" for row in r.rows))
    borrowings = next(r for r in records if any(row.label == "Total borrowings" for row in r.rows))
    assert revenues.currency == "CNY" and revenues.scale == 1e6
    # the rows name currencies ('USD-denominated notes'); the header states none, and no figure is written in one:
    # the figures are in the filing's own currency, never in one a row names
    assert borrowings.currency == "CNY"


def test_an_answer_states_the_currency_of_the_filing(lantern: Settings) -> None:
    answer = stated(ask_once(lantern, "What were Lantern's total revenues in 2024?"))
    assert "268,368" in answer
    assert "$" not in answer.split("[")[0], answer  # never US dollars


def test_the_level_a_change_rose_to_is_no_answer_to_the_change(lantern: Settings) -> None:
    answer = ask_once(lantern, "What is the year-on-year change in online games business revenue?")
    # the sentence's 200 billion is the level after the 13% increase: stating it as the change is wrong
    assert answer.startswith("Not found") and "200 billion" not in stated(answer), answer
    answer = stated(ask_once(lantern, "By how much did Lantern's online games revenues change year-on-year in 2024?"))
    assert "RMB 23,345 million" in answer and "199,991 - 176,646" in answer, answer
