"""A currency named in words is the figures' currency ('(millions of Canadian dollars)', 'All amounts are in Canadian
dollars'): a Canadian filer's C$12,480 million is never shown as $12,480 million, which reads as US dollars."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.config import Settings
from agent.finance.numbers import currency_of

pytestmark = pytest.mark.usefixtures("no_yfinance")

REPORT = """# Tamarack Energy Ltd.

FORM 20-F

For the fiscal year ended December 31, 2024

Tamarack Energy Ltd.
(Exact name of registrant as specified in its charter)

All amounts are in Canadian dollars unless otherwise stated.

## Item 5. Operating and Financial Review and Prospects

### Consolidated Statement of Income

(millions of Canadian dollars)

| | Note | 2024 | 2023 |
|---|---|---|---|
| Revenues | 4 | 8,215 | 8,960 |
| Net earnings | | 1,305 | 1,512 |
"""


@pytest.mark.parametrize(("text", "code"), [
    ("(millions of Canadian dollars)", "CAD"),
    ("All amounts are in Canadian dollars unless otherwise stated.", "CAD"),
    ("(in millions of euros)", "EUR"),
    ("(in thousands of pounds sterling)", "GBP"),
    ("(in millions of Swiss francs)", "CHF"),
    ("(in thousands of dollars)", "USD"),  # plain dollars are US dollars
    ("C$ millions", "CAD"),
    ("Euro area revenue", ""),  # a name, not the figures' unit
])
def test_a_currency_named_in_words(text: str, code: str) -> None:
    assert currency_of(text) == code


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("cad"), "TAMARACK_2024_20F.md", REPORT)


def test_a_canadian_filers_figure_is_shown_in_canadian_dollars(home: Settings) -> None:
    answer = ask_once(home, "What were Tamarack Energy's revenues in 2024?")
    assert "C$8,215 million" in answer, answer
