"""A currency named in words is the figures' currency ('(millions of Canadian dollars)', 'All amounts are in Canadian
dollars'): a Canadian filer's C$12,480 million is never shown as $12,480 million, which reads as US dollars. A
figure's prefix is its own ('C$5,407 million'), and the prior year's figure such filers print in parentheses
('(2023 – C$5,407 million)') is that year's, positive: a spaced dash separates, it is no minus."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance.numbers import currency_of, find_numbers

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

Adjusted funds flow was C$3,912 million in 2024 (2023 – C$4,407 million).
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


def test_a_prefix_is_the_figures_and_a_spaced_dash_no_minus() -> None:
    assert [(n.text, n.value, n.unit) for n in find_numbers("(2023 – C$4,407 million)")] == [
        ("C$4,407 million", 4407.0, "CAD")]
    assert [n.value for n in find_numbers("(2023 – $5 million) and a change of –5")] == [5.0, -5.0]


def test_the_prior_years_figure_in_parentheses(home: Settings) -> None:
    answer = ask_once(home, "What was Tamarack Energy's adjusted funds flow in 2023?")
    assert "C$4,407 million" in stated(answer) and "3,912" not in stated(answer), answer  # quoted: evidence
