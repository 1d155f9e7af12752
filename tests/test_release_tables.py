"""Earnings-release tables (issue 58, item 3): a period printed over a group of columns ('2023' over 'Amount |
Percent to Sales'), a span of the year printed over the years ('SECOND QUARTER' over '2023 | 2022'), and two
spans side by side ('SECOND QUARTER' and 'YEAR TO DATE'). Before, a PDF's header was read from its text alone --
'SECOND QUARTER 2023 | 2022' for five columns of figures -- and every question on the release was refused; the
same table as HTML read its columns as the fiscal years, so the quarter's net sales were stated as the year's.
Now the header is read column by column from where its words are printed (a PDF) or from its grid (HTML,
Markdown); a 'Year to Date' column is the half or nine months the filing's quarter closes, and a figure under a
dated column has that column's period, never what its name's words read as alone. The filings are typeset
here."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import COURIER_8PT, ask_once, ingested_file, placed_pdf, stated

from agent.config import Settings
from agent.ingest.grid import placed_header
from agent.ingest.parsing import _markdown_pages, load_pages
from agent.ingest.pipeline import open_ingestor
from agent.ingest.tables import find_tables
from agent.ingest.typed_tables import typed_columns
from agent.schemas import TextRun

Line = list[tuple[float, str]]


def _right(x: float, text: str) -> tuple[float, str]:
    return x - COURIER_8PT * len(text), text


def _centred(left: float, right: float, text: str) -> tuple[float, str]:
    return (left + right) / 2 - COURIER_8PT * len(text) / 2, text


def _row(label: str, cells: list[str], edges: list[float], indent: float = 0) -> Line:
    return [(36 + indent, label), *(_right(x, c) for x, c in zip(edges, cells, strict=True) if c)]


EARNINGS_EDGES = [300, 350, 420, 470, 550]
EARNINGS: list[Line] = [
    [(36, "Litware Stores, Inc. Reports Second Quarter 2023 Results")],
    [(36, "CONSOLIDATED STATEMENTS OF EARNINGS (Unaudited)")],
    [(36, "(in thousands, except per share data)")],
    [_centred(240, 550, "SECOND QUARTER")],
    [_centred(240, 350, "2023"), _centred(370, 470, "2022"), _right(550, "Percent")],
    [_right(300, "Amount"), _right(350, "Percent"), _right(420, "Amount"), _right(470, "Percent"),
     _right(550, "Increase")],
    [_right(350, "to Sales"), _right(470, "to Sales"), _right(550, "(Decrease)")],
    _row("Net sales", ["$ 5,221,400", "100.00%", "$ 5,010,900", "100.00%", "4.2%"], EARNINGS_EDGES),
    _row("Cost of sales", ["3,401,200", "65.14", "3,280,100", "65.46", "3.7"], EARNINGS_EDGES),
    _row("Gross margin", ["1,820,200", "34.86", "1,730,800", "34.54", "5.2"], EARNINGS_EDGES),
    _row("Operating income", ["717,900", "13.75", "680,400", "13.58", "5.5"], EARNINGS_EDGES),
    _row("Net earnings", ["540,100", "10.34", "512,300", "10.22", "5.4"], EARNINGS_EDGES),
    _row("Diluted earnings per share", ["$ 2.41", "", "$ 2.25", "", "7.1%"], EARNINGS_EDGES),  # blank columns
]
SEGMENT_EDGES = [300, 370, 460, 530]
SEGMENTS: list[Line] = [
    [(36, "NET SALES BY SEGMENT (Unaudited)")],
    [(36, "(in thousands)")],
    [_centred(250, 370, "SECOND QUARTER"), _centred(410, 530, "YEAR TO DATE")],
    [_right(300, "2023"), _right(370, "2022"), _right(460, "2023"), _right(530, "2022")],
    _row("Home Improvement", ["", "", "", ""], SEGMENT_EDGES),
    _row("U.S.", ["2,400,100", "2,310,500", "4,650,200", "4,480,900"], SEGMENT_EDGES, 10),
    _row("International", ["610,300", "590,200", "1,180,400", "1,150,100"], SEGMENT_EDGES, 10),
    _row("Total Home Improvement", ["3,010,400", "2,900,700", "5,830,600", "5,631,000"], SEGMENT_EDGES),
    _row("Garden", ["", "", "", ""], SEGMENT_EDGES),
    _row("U.S.", ["1,700,000", "1,620,000", "3,100,000", "2,990,000"], SEGMENT_EDGES, 10),
    _row("International", ["511,000", "490,200", "980,000", "940,000"], SEGMENT_EDGES, 10),
    _row("Total Garden", ["2,211,000", "2,110,200", "4,080,000", "3,930,000"], SEGMENT_EDGES),
    _row("Total net sales", ["5,221,400", "5,010,900", "9,910,600", "9,561,000"], SEGMENT_EDGES),
]

HTML = """<html><body><p>Litware Stores, Inc. Reports Second Quarter 2023 Results</p>
<p>CONSOLIDATED STATEMENTS OF EARNINGS (Unaudited)</p><p>(in thousands, except per share data)</p>
<table>
<tr><td></td><td colspan="5">SECOND QUARTER</td></tr>
<tr><td></td><td colspan="2">2023</td><td colspan="2">2022</td><td>Percent</td></tr>
<tr><td></td><td>Amount</td><td>Percent to Sales</td><td>Amount</td><td>Percent to Sales</td><td>Increase (Decrease)</td></tr>
<tr><td>Net sales</td><td>$ 5,221,400</td><td>100.00%</td><td>$ 5,010,900</td><td>100.00%</td><td>4.2%</td></tr>
<tr><td>Cost of sales</td><td>3,401,200</td><td>65.14</td><td>3,280,100</td><td>65.46</td><td>3.7</td></tr>
<tr><td>Operating income</td><td>717,900</td><td>13.75</td><td>680,400</td><td>13.58</td><td>5.5</td></tr>
<tr><td>Net earnings</td><td>540,100</td><td>10.34</td><td>512,300</td><td>10.22</td><td>5.4</td></tr>
</table></body></html>
"""

MARKDOWN = """### CONSOLIDATED STATEMENTS OF EARNINGS (Unaudited)

(in thousands, except per share data)

| | SECOND QUARTER | | | | |
|---|---|---|---|---|---|
| | 2023 | | 2022 | | Percent |
| | Amount | Percent to Sales | Amount | Percent to Sales | Increase (Decrease) |
| Net sales | $ 5,221,400 | 100.00% | $ 5,010,900 | 100.00% | 4.2% |
| Operating income | 717,900 | 13.75 | 680,400 | 13.58 | 5.5 |
"""

GROUPED_COLUMNS = [
    ("SECOND QUARTER 2023 Amount", "FY2023Q2", "period", ""),
    ("SECOND QUARTER 2023 Percent to Sales", "FY2023Q2", "period", "%"),
    ("SECOND QUARTER 2022 Amount", "FY2022Q2", "period", ""),
    ("SECOND QUARTER 2022 Percent to Sales", "FY2022Q2", "period", "%"),
]


def _typed(table) -> list[tuple[str, str, str, str]]:  # type: ignore[no-untyped-def]
    return [(c.label, c.period, c.kind, c.unit) for c in typed_columns(table, 12)]


@pytest.fixture(scope="module")
def release_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("release")
    return placed_pdf(folder / "LITWARE_2023Q2_EARNINGS.pdf", [EARNINGS, SEGMENTS])


def test_a_pdf_header_is_read_column_by_column_from_where_its_words_stand(release_pdf: Path) -> None:
    earnings, segments = (load_pages(release_pdf, Settings()).pages)
    (table,) = find_tables(earnings.text, earnings.runs)
    assert _typed(table)[:4] == GROUPED_COLUMNS
    assert _typed(table)[4][2] == "change"  # 'Percent Increase': no period's value
    assert [r.label for r in table.rows][:2] == ["Net sales", "Cost of sales"]  # the header's lines head, no rows
    eps = table.rows[-1]
    assert (eps.cells, eps.columns) == (["$2.41", "$2.25", "7.1%"], [0, 2, 4])  # each figure where it stands
    # The same text without where its words stand cannot say which column a year heads (the old reading).
    (text_only,) = find_tables(earnings.text)
    assert len(text_only.columns) != 5
    (table,) = find_tables(segments.text, segments.runs)
    assert [(c.label, c.period) for c in typed_columns(table, 12)] == [
        ("SECOND QUARTER 2023", "FY2023Q2"), ("SECOND QUARTER 2022", "FY2022Q2"),
        ("YEAR TO DATE 2023", ""), ("YEAR TO DATE 2022", "")]  # year to date is never the fiscal year...
    # ... it is the months to the end of the quarter the filing reports
    assert [(c.period, c.months) for c in typed_columns(table, 12, "FY2023Q2")][2:] == [("FY2023H1", 6),
                                                                                         ("FY2022H1", 6)]
    assert [c.period for c in typed_columns(table, 12, "FY2023Q3")][2:] == ["FY2023M9", "FY2022M9"]
    assert [r.label for r in table.rows][:2] == ["Home Improvement", "U.S."]  # the sub-heading stays a row


def test_html_and_markdown_grids_name_the_same_columns(tmp_path: Path) -> None:
    html = tmp_path / "LITWARE_2023Q2_EARNINGS.htm"
    html.write_text(HTML, encoding="utf-8")
    (page,) = load_pages(html, Settings()).pages
    (table,) = find_tables(page.text)
    assert _typed(table)[:4] == GROUPED_COLUMNS
    (page_text,) = _markdown_pages(MARKDOWN)
    (table,) = find_tables(page_text)
    assert _typed(table)[:4] == GROUPED_COLUMNS  # a last caption that is no period heads only its own column


def test_placed_header_gives_up_when_figures_stand_in_no_clear_columns() -> None:
    def run(text: str, x0: float, x1: float) -> TextRun:
        return TextRun(text=text, x0=x0, x1=x1)

    header = [[run("2023", 0.5, 0.55), run("2022", 0.7, 0.75)]]
    clear = [[run("Sales", 0.1, 0.2), run("1,200", 0.5, 0.55), run("1,100", 0.7, 0.75)]]
    assert placed_header(header, clear) == (["2023", "2022"], [], [(0.5, 0.55), (0.7, 0.75)])
    # two figures of one row inside one column: no columns to head
    ragged = [*clear, [run("Costs", 0.1, 0.2), run("800", 0.5, 0.53), run("700", 0.54, 0.56)]]
    assert placed_header(header, ragged) is None


@pytest.fixture(scope="module")
def litware(tmp_path_factory: pytest.TempPathFactory, release_pdf: Path) -> Settings:
    return ingested_file(tmp_path_factory.mktemp("litware-home"), release_pdf)


@pytest.mark.parametrize(("question", "figure"), [
    ("What were Litware's net sales in the second quarter of 2023?", "$5,221,400 thousand"),
    ("What was Litware's operating income for Q2 2022?", "$680,400 thousand"),
    ("LITWARE net sales 2Q23", "$5,221,400 thousand"),
    ("What were Litware's Home Improvement international net sales in the second quarter of 2023?",
     "$610,300 thousand"),
    ("What were Litware's net sales in the first half of 2023?", "$9,910,600 thousand"),  # the year to date
    ("What was Litware's diluted EPS in Q2 2023?", "$2.41"),  # a row that leaves the percent columns blank
    ("What were Litware's net sales year to date 2023?", "$9,910,600 thousand"),  # the release's own column
    # a segment's total row under the segment's heading, in a table titled by the metric
    ("What were Garden net sales in the second quarter of 2022?", "$2,110,200 thousand"),
    ("What were Litware's Home Improvement net sales in Q2 2023?", "$3,010,400 thousand"),
    ("What were Litware's Home Improvement net sales year to date 2023?", "$5,830,600 thousand"),
    ("Litware YTD 2022 net sales", "$9,561,000 thousand"),
    # the 'Percent to Sales' column is the margin asked; computed from the amounts it is the same
    ("What was Litware's gross margin as a percent of sales in the second quarter of 2023?", "34.86%"),
    ("What was Litware's operating income as a percentage of net sales in Q2 2022?", "13.58%"),
])
def test_release_figures_are_answered_from_their_columns(litware: Settings, question: str, figure: str) -> None:
    assert figure in stated(ask_once(litware, question))


def test_a_quarter_or_year_to_date_column_is_never_the_fiscal_year(litware: Settings, tmp_path: Path) -> None:
    answer = stated(ask_once(litware, "What were Litware's net sales in fiscal 2023?"))
    assert "Not found" in answer
    assert not any(f in answer.split("Not found")[0] for f in ("5,221,400", "9,910,600"))
    html = tmp_path / "LITWARE_2023Q2_EARNINGS.htm"
    html.write_text(HTML, encoding="utf-8")
    settings = Settings.from_env(home=tmp_path / "home")
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(html).status == "ingested"
    assert "Not found" in stated(ask_once(settings, "What were Litware's net sales in fiscal 2023?"))
    assert "$5,221,400 thousand" in stated(ask_once(settings, "What were Litware's net sales in Q2 2023?"))
