"""A note on earnings per share prints the inputs under long label-only headings that say what the rows below
count or in what unit they are: 'Weighted average number of shares used in earnings per share (shares, millions)'
over 'Basic earnings per share | 1,305.7' (a number of shares, never a per-share amount) and 'Basic earnings per
share (cents per share)' over 'Continuing operations | 114.3' (cents, never dollars). A footnote mark after such a
heading ('(1)', '(1,2)') is no figure, and a per-share amount is in the currency its table states, never one
invented. A header of years with the weeks each spans ('2019 53 WEEKS | 2018 52 WEEKS') names the columns."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance.numbers import format_number
from agent.ingest.parsing import _markdown_pages
from agent.ingest.tables import find_tables

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Woolara Group Limited

Annual Report for the year ended 30 June 2019

## Note 6. Earnings per share

| | 2019 | 2018 |
|---|---|---|
| | 53 WEEKS | 52 WEEKS |
| Profit for the period attributable to equity holders of the parent entity used in | | |
| earnings per share ($M) | | |
| Continuing operations | 1,493 | 1,605 |
| Discontinued operations | 1,200 | 119 |
| | 2,693 | 1,724 |
| Weighted average number of shares used in earnings per share (shares, millions) (1) | | |
| Basic earnings per share | 1,305.7 | 1,300.5 |
| Diluted earnings per share (2) | 1,313.7 | 1,303.9 |
| Basic earnings per share (cents per share) (1) | | |
| Continuing operations | 114.3 | 123.4 |
| Discontinued operations | 91.9 | 9.2 |
| | 206.2 | 132.6 |
| Diluted earnings per share (cents per share) (1,2) | | |
| Continuing operations | 113.6 | 123.1 |
| Discontinued operations | 91.3 | 9.2 |
| | 204.9 | 132.3 |

(1) Weighted average number of shares excludes shares held in trust.

(2) Includes shares deemed to be issued for no consideration.
"""


@pytest.fixture(scope="module")
def woolara(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("eps"), "WOOLARA_2019_AR.md", FILING)


def test_years_with_the_weeks_they_span_name_the_columns() -> None:
    (page,) = _markdown_pages(FILING)
    (table,) = find_tables(page)
    assert table.columns == ["2019 53 WEEKS", "2018 52 WEEKS"]


@pytest.mark.parametrize("question", [
    "What was basic earnings per share in 2019?",
    "What is total basic earnings per share (cents per share) for 2019?",
])
def test_a_count_of_shares_is_never_stated_as_earnings_per_share(woolara: Settings, question: str) -> None:
    answer = stated(ask_once(woolara, question))
    assert "1,305.7" not in answer and "$1,305" not in answer  # the weighted average number of shares
    assert "206.20 cents" in answer  # the total of the block in cents per share, in cents


def test_rows_under_a_cents_heading_are_in_cents(woolara: Settings) -> None:
    answer = stated(ask_once(woolara, "What was basic earnings per share from continuing operations in 2018?"))
    assert ("123.4 cents" in answer or "123.40 cents" in answer) and "$123" not in answer


def test_a_change_of_figures_in_cents_is_in_cents(woolara: Settings) -> None:
    answer = stated(ask_once(woolara, "What is the change in diluted earnings per share (cents per share) between 2018 "
                                      "and 2019?"))
    assert "72.6 cents" in answer and "204.9 - 132.3" in answer


def test_cents_are_shown_as_cents() -> None:
    assert format_number(206.2, "cents", 1.0, 2) == "206.20 cents"
    assert format_number(12.5, "pence", 1.0, 2) == "12.50 pence"


PENCE = """# Harrowgate plc

Annual Report for the year ended 31 March 2024

## Note 9. Dividends

| | 2024 | 2023 |
|---|---|---|
| Dividend per share (pence) | 12.5 | 11.0 |
| Dividends paid (£m) | 41.2 | 36.3 |
"""


def test_a_row_in_pence_is_in_pence(tmp_path_factory: pytest.TempPathFactory) -> None:
    settings = ingested_typeset(tmp_path_factory.mktemp("pence"), "HARROWGATE_2024_AR.md", PENCE)
    answer = stated(ask_once(settings, "What was the dividend per share in 2024?"))
    assert "12.5 pence" in answer or "12.50 pence" in answer
    assert "$12.5" not in answer and "£12.5" not in answer


EUROS = """# Lindqvist Industrier AB

Annual Report 2019

## Consolidated income statement

| € million | 2019 | 2018 |
|---|---|---|
| Revenue | 4,210 | 3,980 |
| Net income | 312 | 290 |
| Basic earnings per share | 1.23 | 1.10 |
"""


def test_a_per_share_amount_is_in_its_tables_currency(tmp_path_factory: pytest.TempPathFactory) -> None:
    settings = ingested_typeset(tmp_path_factory.mktemp("euros"), "LINDQVIST_2019_AR.md", EUROS)
    answer = stated(ask_once(settings, "What was basic earnings per share in 2019?"))
    assert "€1.23" in answer and "$1.23" not in answer  # never a currency the filing does not state
