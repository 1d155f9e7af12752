"""A REIT's release that defines its measures once in prose ('Funds from operations (FFO)', 'net operating income
(NOI)') and prints them by the acronym in its tables ('FFO per diluted share', 'Same-property NOI'), with 'YTD 2025'
columns in a second quarter's release. The analyst's acronym matches the rows as printed; a year to date is never
the year; a lexicon metric the filing does not print ('net operating income' is no operating income) is never
answered by another metric's row. Typeset filing; a second filer defines FFO and prints its words in its rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ask_once, ask_thread, ingested_file, stated

from agent.config import Settings
from agent.ingest.parsing import load_pages
from agent.ingest.tables import find_tables
from agent.ingest.terms import defined_terms
from agent.ingest.typed_tables import typed_columns
from evals.metrics.answers import is_refusal

OCELOT = """# Ocelot Logistics Trust

EXHIBIT 99.1

Ocelot Logistics Trust Reports Second Quarter 2025 Results

DALLAS, Texas, July 30, 2025 -- Ocelot Logistics Trust (NYSE: OCLT) today reported results for the quarter ended
June 30, 2025.

- Funds from operations (FFO) was $0.84 per diluted share.
- Same-property net operating income (NOI) increased 4.1% over the second quarter of 2024.

### Consolidated Statements of Operations

(In thousands, except per share amounts)

| | Three Months Ended June 30, 2025 | Three Months Ended June 30, 2024 | Six Months Ended June 30, 2025 | Six Months Ended June 30, 2024 |
|---|---|---|---|---|
| Rental revenue | 181,240 | 170,115 | 360,020 | 338,400 |
| Property operating expenses | 52,310 | 49,870 | 104,905 | 99,120 |
| Net income | 30,415 | 26,880 | 61,250 | 52,940 |
| Net income per share - diluted | 0.25 | 0.22 | 0.50 | 0.44 |

### Reconciliation of Net Income to FFO

(In thousands, except per share amounts)

| | Q2 2025 | Q2 2024 | YTD 2025 | YTD 2024 |
|---|---|---|---|---|
| Net income | 30,415 | 26,880 | 61,250 | 52,940 |
| Depreciation and amortization of real estate | 72,105 | 68,330 | 143,870 | 136,215 |
| FFO attributable to common shareholders | 102,520 | 95,210 | 205,120 | 189,155 |
| FFO per diluted share | 0.84 | 0.78 | 1.68 | 1.55 |

### Same-Property NOI

(In thousands)

| | Q2 2025 | Q2 2024 | % Change |
|---|---|---|---|
| Same-property revenues | 165,480 | 158,930 | 4.1% |
| Same-property operating expenses | 46,720 | 44,850 | 4.2% |
| Same-property NOI | 118,760 | 114,080 | 4.1% |
"""

LYNX = """# Lynx Storage Properties

EXHIBIT 99.1

Lynx Storage Properties Reports Second Quarter 2025 Results

July 28, 2025 -- Lynx Storage Properties (NYSE: LYNX) today reported results for the quarter ended June 30, 2025.

### Funds From Operations

(In thousands)

| | Q2 2025 | Q2 2024 |
|---|---|---|
| Net income | 41,230 | 38,905 |
| Funds from operations (FFO) | 88,415 | 83,070 |
| FFO per share - diluted | 0.91 | 0.86 |
"""


@pytest.fixture(scope="module")
def reits(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    folder = tmp_path_factory.mktemp("reits")
    for name, text in (("OCELOT_2025Q2_PR.md", OCELOT), ("LYNX_2025Q2_PR.md", LYNX)):
        (folder / name).write_text(text, encoding="utf-8")
        settings = ingested_file(folder / "home", folder / name)
    return settings


def test_an_acronym_the_rows_print_is_no_term_to_write_out() -> None:
    rows = ["FFO per diluted share", "Same-property NOI"]
    assert defined_terms("Funds from operations (FFO) rose; net operating income (NOI) too.", rows) == []
    # where a row prints the words too, the question's acronym is written out as they are
    terms = defined_terms("Funds from operations (FFO) rose.", ["Funds from operations (FFO)", "FFO per share"])
    assert [(t.short, t.long) for t in terms] == [("FFO", "Funds from operations")]


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Ocelot's FFO per diluted share in Q2 2025?", "0.84"),
    ("OCLT FFO per share 1H25", "1.68"),  # 'YTD 2025' of a second quarter's release is the half
    ("What was Ocelot's same-property NOI in Q2 2024?", "114,080 thousand"),
    ("LYNX FFO Q2 25", "88,415 thousand"),  # the other filer's row prints the words
])
def test_the_analysts_acronym_reads_the_rows_as_printed(reits: Settings, question: str, figure: str) -> None:
    assert figure in stated(ask_once(reits, question))


def test_a_year_to_date_column_is_never_the_year(reits: Settings, tmp_path: Path) -> None:
    (tmp_path / "ocelot.md").write_text(OCELOT, encoding="utf-8")
    page = load_pages(tmp_path / "ocelot.md", reits).pages[0]
    table = next(t for t in find_tables(page.text, page.runs, page.grid, page.grid_tables) if "YTD 2025" in t.columns)
    assert [c.period for c in typed_columns(table, 12, "FY2025Q2")] == ["FY2025Q2", "FY2024Q2", "FY2025H1", "FY2024H1"]
    assert [c.period for c in typed_columns(table, 12, "")][2:] == ["", ""]  # no quarter known: no period at all
    assert is_refusal(ask_once(reits, "What was Ocelot's FFO attributable to common shareholders for fiscal 2025?"))


def test_a_follow_up_on_an_acronym_row(reits: Settings) -> None:
    turns = ask_thread(reits, ["What was Ocelot's same-property NOI in Q2 2025?", "and in Q2 2024?",
                               "what's the difference?"])
    assert "118,760 thousand" in stated(turns[0]) and "4,680 thousand" in stated(turns[2])


def test_no_other_metrics_row_answers_a_metric_the_filing_does_not_print(reits: Settings) -> None:
    # 'net operating income' is read as the lexicon's operating income, which Ocelot does not print: its 'Net income'
    # row is another metric, never the answer
    answer = ask_once(reits, "What was Ocelot's net operating income in Q2 2025?")
    assert "30,415" not in stated(answer)
