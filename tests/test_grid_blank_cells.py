"""A grid table's row that leaves cells blank keeps each figure under its column: 'Diluted earnings per share |
1.12 | | 0.98 |' under 'Amount | Percent to Sales | Amount | Percent to Sales' is 1.12 for this year's amount and
0.98 for last year's, where written out without its blank cells it was two figures under four columns, and
unanswered. The grid (Markdown, HTML with colspans) knows the places; the text line does not."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.ingest.parsing import load_pages
from agent.ingest.tables import find_tables
from agent.ingest.typed_tables import table_record
from agent.schemas import Section

pytestmark = pytest.mark.usefixtures("no_yfinance")

RELEASE = """# Adatum Outfitters, Inc.

FORM 8-K

Date of Report: July 24, 2025

Adatum Outfitters, Inc.
(Exact name of registrant as specified in its charter)

## Adatum Outfitters Reports Second Quarter 2025 Results

### Condensed Consolidated Statements of Operations (Unaudited)

(In millions, except per share amounts)

| | Three Months Ended June 30, 2025 | | Three Months Ended June 30, 2024 | | Percent Change |
|---|---|---|---|---|---|
| | Amount | Percent to Sales | Amount | Percent to Sales | |
| Net sales | 2,418 | 100.0 | 2,301 | 100.0 | 5.1 |
| Gross profit | 1,006 | 41.6 | 942 | 40.9 | 6.8 |
| Operating income | 231 | 9.6 | 204 | 8.9 | 13.2 |
| Net income | 168 | 6.9 | 149 | 6.5 | 12.8 |
| Diluted earnings per share | 1.12 | | 0.98 | | 14.3 |
| Diluted weighted average shares | 150.0 | | 152.0 | | |
"""

# An HTML table as EDGAR writes it: '$' in a cell of its own, a period caption spanning its group of columns.
HTML_TABLE = """<html><body>
<p>Segment Results</p>
<p>(In thousands)</p>
<table>
<tr><td></td><td colspan="2">Fiscal 2025</td><td colspan="2">Fiscal 2024</td><td colspan="2">Change</td></tr>
<tr><td></td><td colspan="2">Revenue</td><td colspan="2">Backlog</td><td colspan="2">Revenue</td></tr>
<tr><td>Services</td><td>$</td><td>5,400</td><td>$</td><td>7,100</td><td></td><td>410</td></tr>
<tr><td>Licenses</td><td>$</td><td>3,200</td><td></td><td></td><td></td><td>(120)</td></tr>
<tr><td>Hardware</td><td>$</td><td>1,900</td><td>$</td><td>2,600</td><td></td><td>85</td></tr>
</table>
</body></html>
"""


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("release"), "ADATUM_2025Q2_8K.md", RELEASE)


def _typed(path: Path) -> list:
    pages = load_pages(path, Settings()).pages
    section = Section(section_id=0, title="Results", path=["Results"], kind="mdna")
    return [table_record(t, table_id=f"x:t{i}", page=0, offset=0, section=section, fy_end_month=12)
            for page in pages for i, t in enumerate(find_tables(page.text, page.runs, page.grid))]


def _cells(record, label: str) -> dict[str, str]:
    row = next(r for r in record.rows if r.label == label)
    return {record.columns[c.column].label: c.text for c in row.cells if c.column >= 0}


def _periods(record, label: str) -> dict[str, tuple[str, int, str]]:
    """Each placed figure of a row with its column's period, duration in months and unit."""
    row = next(r for r in record.rows if r.label == label)
    return {c.text: (record.columns[c.column].period, record.columns[c.column].months, record.columns[c.column].unit)
            for c in row.cells if c.column >= 0}


def test_a_markdown_row_that_leaves_cells_blank_keeps_its_columns(tmp_path: Path) -> None:
    path = tmp_path / "release.md"
    path.write_text(RELEASE, encoding="utf-8")
    (record,) = _typed(path)
    eps = _cells(record, "Diluted earnings per share")
    assert sorted(eps.values()) == ["0.98", "1.12", "14.3"] and eps["Percent Change"] == "14.3", eps
    periods = _periods(record, "Diluted earnings per share")
    assert periods["1.12"][:2] == ("FY2025Q2", 3) and periods["0.98"][:2] == ("FY2024Q2", 3), periods
    assert periods["1.12"][2] != "%" and periods["0.98"][2] != "%"
    shares = _cells(record, "Diluted weighted average shares")
    assert len(shares) == 2 and all(k.endswith("Amount") for k in shares), shares


def test_a_text_line_alone_cannot_place_them() -> None:
    # The same rows written as text, with no grid to say where the blank cells were: left unplaced, not guessed.
    text = ("(In millions)\n\n2025 Amount | 2025 Percent to Sales | 2024 Amount | 2024 Percent to Sales\n"
            "Net sales | 2,418 | 100.0 | 2,301 | 100.0\nDiluted earnings per share | 1.12 | 0.98\n")
    table = find_tables(text)[0]
    row = next(r for r in table.rows if r.label == "Diluted earnings per share")
    assert row.columns == []


def test_an_html_row_that_leaves_cells_blank_keeps_its_columns(tmp_path: Path) -> None:
    path = tmp_path / "segments.html"
    path.write_text(HTML_TABLE, encoding="utf-8")
    (record,) = _typed(path)
    licenses = _cells(record, "Licenses")
    assert licenses == {"Fiscal 2025 Revenue": "$3,200", "Change Revenue": "(120)"}, licenses
    assert _cells(record, "Services")["Fiscal 2024 Backlog"] == "$7,100"


def test_a_header_inside_the_body_ends_the_placing(tmp_path: Path) -> None:
    # A second header inside the table heads its own columns: rows under it are not placed by the first.
    path = tmp_path / "mixed.md"
    path.write_text("| Currency | Weight (%) | FY 2025 | FY 2024 | % Change |\n|---|---|---|---|---|\n"
                    "| USD | 53.6 | 70.07 | 64.49 | 8.7 |\n| GBP | 13.9 | 91.60 | 86.05 | 6.5 |\n"
                    "| Growth | FY 2025 (%) | FY 2024 (%) | | |\n| Business growth | 11.4 | 6.7 | | |\n"
                    "| Total growth | 19.0 | 4.4 | | |\n", encoding="utf-8")
    (record,) = _typed(path)
    assert _cells(record, "Business growth") == {}


@pytest.mark.parametrize(("question", "figure"), [
    ("What were Adatum's diluted earnings per share in the second quarter of 2025?", "was 1.12"),
    ("What was Adatum's diluted EPS in Q2 2024?", "was 0.98"),
])
def test_a_figure_beside_blank_cells_is_answered(release: Settings, question: str, figure: str) -> None:
    answer = stated(ask_once(release, question))
    assert figure in answer, answer


# Rows placed for the first time were read under columns and names that were wrong before it mattered.
PARTS_OVER_YEARS = """| | Financial assets | | Financial liabilities | |
|---|---|---|---|---|
| | 2025 | 2024 | 2025 | 2024 |
| Opening balance | | 7,131 | | 2,154 |
| Additions | 3,911 | 5,185 | 75 | 330 |
| Closing balance | 12,309 | 8,393 | 187 | 446 |
"""


def test_a_part_caption_over_years_heads_each_of_its_years(tmp_path: Path) -> None:
    path = tmp_path / "parts.md"
    path.write_text(PARTS_OVER_YEARS, encoding="utf-8")
    (record,) = _typed(path)
    assert [(c.period, c.part) for c in record.columns] == [
        ("FY2025", "Financial assets"), ("FY2024", "Financial assets"),
        ("FY2025", "Financial liabilities"), ("FY2024", "Financial liabilities")]
    assert _cells(record, "Opening balance") == {"Financial assets 2024": "7,131", "Financial liabilities 2024": "2,154"}
