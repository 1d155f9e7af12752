"""Table headers as a browser or a word processor prints them to PDF: each header cell's name wrapped over lines of its
own, stacked one cell after the next ('Three Months' / 'Ended June 30,' / '2025', right-aligned over the figures);
the header's corner beside the first name's first line ('Fiscal 2024' beside 'Rigid' over 'Packaging') or on lines
of its own above the names ('Three Months Ended June' / '30, 2025'); the cover's 'Trading Symbol(s)' caption wrapped
in its narrow column; a table at a page's top whose scale line was left at the foot of the page before.

Before, each of these lost the table's columns or the filing's ticker: the fresh set's thirteen filings, printed to
PDF by Chromium, were answered 137 right / 9 wrong where their Markdown is answered 192 / 2. The filing is typeset
here, word by word where a printer puts it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import COURIER_8PT, ask_once, ingested_file, placed_pdf, stated

from agent.config import Settings
from agent.ingest.grid import _right_aligned
from agent.ingest.layout import _runs
from agent.ingest.line_cells import split_cells
from agent.ingest.parsing import load_pages
from agent.ingest.tables import find_tables, title_above
from agent.ingest.typed_tables import typed_columns
from agent.schemas import TextRun

Line = list[tuple[float, str]]


def _right(x: float, text: str) -> tuple[float, str]:
    return x - COURIER_8PT * len(text), text


def _row(label: str, cells: list[str], edges: list[float]) -> Line:
    return [(36, label), *(_right(x, c) for x, c in zip(edges, cells, strict=True) if c)]


COVER: list[Line] = [
    [(36, "Relecloud Financial Corp.")],
    [(36, "UNITED STATES SECURITIES AND EXCHANGE COMMISSION")],
    [(36, "FORM 10-Q")],
    [(36, "QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF")],
    [(36, "1934 For the quarterly period ended June 30, 2025")],
    [(36, "Relecloud Financial Corp. (Exact name of registrant as specified in its charter)")],
    [(60, "Title of each class"), _right(330, "Trading")],
    [_right(330, "Symbol(s)")],
    [_right(560, "Name of each exchange on which")],
    [_right(560, "registered")],
    [(40, "Common Stock, $1.00 par")],
    [(40, "value"), _right(330, "RLCF"), _right(560, "Nasdaq Global Select Market")],
    [(36, "Consolidated Statements of Income (Unaudited)")],
    [(36, "(In thousands, except per share data)")],
    # each header cell printed line by line, right-aligned over its figures, one cell after the next
    *[[_right(x, text)] for x, year in ((260, "2025"), (340, "2024")) for text in ("Three Months", "Ended June 30,", year)],
    *[[_right(x, text)] for x, year in ((440, "2025"), (540, "2024")) for text in ("Six Months", "Ended June 30,", year)],
    _row("Net interest income", ["241,472", "218,245", "476,225", "434,898"], [260, 340, 440, 540]),
    _row("Noninterest income", ["61,903", "58,774", "120,447", "113,609"], [260, 340, 440, 540]),
    _row("Net income", ["84,317", "76,902", "165,460", "149,631"], [260, 340, 440, 540]),
    [(36, "Segment Results")],
    [(36, "(In thousands)")],
    # the corner on lines of its own above the segments' names
    [(40, "Three Months Ended June")],
    [(70, "30, 2025")],
    [_right(300, "Commercial")], [_right(300, "Banking")],
    [_right(380, "Consumer")], [_right(380, "Banking")],
    [_right(460, "Wealth")], [_right(460, "Management"), _right(540, "Total")],
    _row("Net interest income", ["139,880", "90,412", "11,180", "241,472"], [300, 380, 460, 540]),
    _row("Net income", ["52,770", "21,114", "10,433", "84,317"], [300, 380, 460, 540]),
]
SEGMENT_EDGES = [300, 380, 460, 540]
PAGE_FOOT: list[Line] = [
    [(36, "Segment Information")],
    [(36, "We report two segments, Commercial Banking and Consumer Banking, and Wealth Management.")],
    [(36, "(In thousands)")],
]


def _segment_table(year: str, rows: list[list[str]]) -> list[Line]:
    # the corner beside the first name's first line, the names wrapped one cell after the next
    return [
        [(40, f"Fiscal {year}"), _right(300, "Commercial")], [_right(300, "Banking")],
        [_right(380, "Consumer")], [_right(380, "Banking")],
        [_right(460, "Wealth")], [_right(460, "Management"), _right(540, "Total")],
        _row("Net interest income", rows[0], SEGMENT_EDGES),
        _row("Provision for credit losses", rows[1], SEGMENT_EDGES),
        _row("Net income", rows[2], SEGMENT_EDGES),
    ]


# a table at the page's top, its scale line left at the foot of the page before; its sibling below states it
SEGMENT_PAGE: list[Line] = [
    *_segment_table("2024", [["530,100", "361,200", "44,800", "936,100"], ["60,400", "21,000", "100", "81,500"],
                             ["201,300", "88,700", "40,200", "330,200"]]),
    [(36, "(In thousands)")],
    *_segment_table("2023", [["512,900", "350,400", "41,100", "904,400"], ["49,800", "19,300", "200", "69,300"],
                             ["190,600", "84,100", "37,500", "312,200"]]),
]


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("printed")
    return placed_pdf(folder / "RELECLOUD_2025Q2_10Q.pdf", [COVER, [*PAGE_FOOT], SEGMENT_PAGE])


def _columns(pdf: Path, page: int) -> list[list[tuple[str, str]]]:
    found = load_pages(pdf, Settings()).pages[page]
    return [[(c.label, c.period) for c in typed_columns(t, 12)] for t in find_tables(found.text, found.runs)]


def test_a_header_cell_stacked_over_lines_names_its_own_column(printed: Path) -> None:
    income, segments = _columns(printed, 0)
    assert income == [("Three Months Ended June 30, 2025", "FY2025Q2"), ("Three Months Ended June 30, 2024", "FY2024Q2"),
                      ("Six Months Ended June 30, 2025", "FY2025H1"), ("Six Months Ended June 30, 2024", "FY2024H1")]
    assert [label for label, _ in segments] == ["Commercial Banking", "Consumer Banking", "Wealth Management", "Total"]


def test_a_corner_beside_the_first_name_dates_the_columns(printed: Path) -> None:
    page = load_pages(printed, Settings()).pages[2]
    tables = find_tables(page.text, page.runs)
    assert [[c for c in t.columns] for t in tables] == [["Commercial Banking", "Consumer Banking",
                                                         "Wealth Management", "Total"]] * 2
    assert [t.period_caption for t in tables] == ["Fiscal 2024", "Fiscal 2023"]
    assert [r.label for r in tables[0].rows][0] == "Net interest income"  # the header's lines head, no rows


def _boxes(line: str) -> tuple[list[int], list[tuple[float, float, float, float]]]:
    """Character boxes 5 pt apart and 8 pt high."""
    printed = [i for i, ch in enumerate(line) if not ch.isspace()]
    return printed, [(100.0 + 5 * i, 0.0, 104.0 + 5 * i, 8.0) for i in printed]


def test_a_nil_marker_beside_a_figure_is_a_cell_of_its_own() -> None:
    # '—' right-aligned in its column, the next column's figure a word space away: two cells, as '(167) 1,262' are
    assert [r.text for r in _runs("— 11,980", *_boxes("— 11,980"), 612.0)] == ["—", "11,980"]


def test_two_names_right_aligned_over_neighbouring_columns_are_two() -> None:
    # 'Eliminations' ends where its column's figures end, 'Total' where the next column's do: printed too close to be
    # two runs, they are split at the word whose place is the left column's end; a caption centred over both is not
    columns = [(0.30, 0.34), (0.40, 0.44)]
    names = [r.text for r in _right_aligned([TextRun(text="Eliminations Total", x0=0.14, x1=0.44)], columns)]
    assert names == ["Eliminations", "Total"]
    centred = [TextRun(text="Year Ended", x0=0.30, x1=0.43)]
    assert _right_aligned(centred, columns) == centred


@pytest.fixture(scope="module")
def relecloud(tmp_path_factory: pytest.TempPathFactory, printed: Path) -> Settings:
    return ingested_file(tmp_path_factory.mktemp("relecloud-home"), printed)


@pytest.mark.parametrize(("question", "figure"), [
    ("RLCF net income Q2'25", "$84,317 thousand"),  # the ticker from the cover's wrapped caption
    ("RLCF NII 1H25", "$476,225 thousand"),  # a six-month column named over three lines
    ("What was the Wealth Management segment's net income in Q2 2025?", "$10,433 thousand"),  # the corner's period
    # the scale of a table at a page's top from its sibling below it
    ("What was Relecloud's Consumer Banking net income in 2024?", "$88,700 thousand"),
    ("What was Relecloud's Commercial Banking provision for credit losses in 2023?", "$49,800 thousand"),
])
def test_printed_tables_are_answered_from_their_columns(relecloud: Settings, question: str, figure: str) -> None:
    assert figure in stated(ask_once(relecloud, question))


SPLIT_EDGES = [300, 380, 460, 540]


def _split_header(year: str) -> list[Line]:
    # the corner's first line on its own, its year beside the names' first line
    return [[(40, "Year Ended December 31,")], [(80, year), _right(300, "Consumer"), _right(380, "Business")],
            [_right(380, "Travel")], [_right(460, "Corporate and")], [_right(460, "Eliminations"), _right(540, "Total")]]


# a segment table broken by a page: one row at the foot of the first page, the rest under the header repeated
FOOT: list[Line] = [
    [(36, "Margie's Travel Holdings, Inc.")],
    [(36, "FORM 10-K")],
    [(36, "For the fiscal year ended December 31, 2024")],
    [(36, "Margie's Travel Holdings, Inc. (Exact name of registrant as specified in its charter)")],
    [(60, "Title of each class"), _right(330, "Trading Symbol(s)"), _right(560, "Name of each exchange on which registered")],
    [(40, "Common Stock"), _right(330, "MRGT"), _right(560, "Nasdaq Global Select Market")],
    [(36, "Segment Information")],
    [(36, "(In millions)")],
    *_split_header("2024"),
    _row("Revenue", ["3,391", "735", "-", "4,126"], SPLIT_EDGES),
]
TOP: list[Line] = [
    *_split_header("2024"),
    _row("Adjusted EBITDA", ["1,088", "164", "(183)", "1,069"], SPLIT_EDGES),
    # the year-ago table right below, no title between
    *_split_header("2023"),
    _row("Revenue", ["3,072", "630", "-", "3,702"], SPLIT_EDGES),
    _row("Adjusted EBITDA", ["951", "129", "(171)", "909"], SPLIT_EDGES),
    [(36, "Quarterly Results (Unaudited)")],
    [(36, "(In millions)")],
    # the corner on the names' line
    [(40, "Fiscal 2024"), _right(300, "Q1"), _right(380, "Q2"), _right(460, "Q3"), _right(540, "Q4")],
    _row("Revenue", ["903", "1,081", "1,198", "944"], SPLIT_EDGES),
    _row("Operating income", ["121", "247", "312", "138"], SPLIT_EDGES),
]


@pytest.fixture(scope="module")
def margies(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    folder = tmp_path_factory.mktemp("margies")
    return ingested_file(folder / "home", placed_pdf(folder / "MARGIES_2024_10K.pdf", [FOOT, TOP]))


def test_a_table_broken_by_a_page_is_read_in_both_parts(tmp_path: Path) -> None:
    pages = load_pages(placed_pdf(tmp_path / "MARGIES_2024_10K.pdf", [FOOT, TOP]), Settings()).pages
    (foot,) = find_tables(pages[0].text, pages[0].runs)
    top = find_tables(pages[1].text, pages[1].runs)
    assert (foot.columns, foot.period_caption) == (["Consumer", "Business Travel", "Corporate and Eliminations",
                                                    "Total"], "Year Ended December 31, 2024")
    assert [(t.period_caption, [r.label for r in t.rows]) for t in top[:2]] == [
        ("Year Ended December 31, 2024", ["Adjusted EBITDA"]),  # the continuation, under its repeated header
        ("Year Ended December 31, 2023", ["Revenue", "Adjusted EBITDA"])]  # the next table, split at its header
    assert top[2].columns == ["Q1 Fiscal 2024", "Q2 Fiscal 2024", "Q3 Fiscal 2024", "Q4 Fiscal 2024"]


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Margie's Travel's Consumer revenue in 2024?", "$3,391 million"),  # the row the page break left
    ("What was Margie's Travel's adjusted EBITDA in 2024?", "$1,069 million"),  # its continuation: the scale
    ("What was Margie's Travel's adjusted EBITDA in 2023?", "$909 million"),  # the company's, never a segment's
    ("How much revenue did Business Travel generate in 2023?", "$630 million"),
    ("MRGT op income Q3 2024", "$312 million"),
])
def test_a_broken_table_is_answered_with_its_scale(margies: Settings, question: str, figure: str) -> None:
    assert figure in stated(ask_once(margies, question))


RELEASE_EDGES = [250, 320, 400, 470, 550]
# an earnings release: the quarter in the header's corner beside the first name's first line, each name stacked
RELEASE: list[Line] = [
    [(36, "Fabrikam Containers Inc.")],
    [(36, "Fabrikam Containers Reports Second Quarter 2025 Results")],
    [(36, "CHICAGO, July 24, 2025 -- Fabrikam Containers Inc. (NYSE: FBCN) today reported results for the quarter.")],
    [(36, "Condensed Consolidated Statements of Income")],
    [(36, "(Dollars in millions, except per share)")],
    [(40, "SECOND QUARTER"), _right(250, "2025")], [_right(250, "Amount")],
    [_right(320, "2025")], [_right(320, "Percent to")], [_right(320, "Sales")],
    [_right(400, "2024")], [_right(400, "Amount")],
    [_right(470, "2024")], [_right(470, "Percent to")], [_right(470, "Sales")],
    [_right(550, "Percent Increase")], [_right(550, "(Decrease)")],
    _row("Net sales", ["1,482.6", "100.0%", "1,431.9", "100.0%", "3.5%"], RELEASE_EDGES),
    _row("Operating income", ["190.9", "12.9%", "171.1", "11.9%", "11.6%"], RELEASE_EDGES),
    _row("Net income", ["122.7", "8.3%", "108.5", "7.6%", "13.1%"], RELEASE_EDGES),
    [(36, "(Dollars in millions)")],
    # the corner reaching past the row labels' edge, on the names' line
    [(40, "SIX MONTHS"), _right(320, "2025 Amount"), _right(400, "2024 Amount"), _right(550, "Percent Change")],
    _row("Net sales", ["", "2,901.4", "2,842.7", "", "2.1%"], RELEASE_EDGES),
    _row("Net income", ["", "231.8", "209.9", "", "10.4%"], RELEASE_EDGES),
    [(36, "Segment Net Sales")],
    [(36, "(Dollars in millions)")],
    # the corner centred in a wide label column: the text alone reads '2024' as the fiscal year
    [(150, "SECOND QUARTER"), _right(470, "2025"), _right(550, "2024")],
    _row("Metal Packaging", ["", "", "", "1,013.6", "985.6"], RELEASE_EDGES),
    _row("Paper Packaging", ["", "", "", "469.0", "446.3"], RELEASE_EDGES),
    _row("Total net sales", ["", "", "", "1,482.6", "1,431.9"], RELEASE_EDGES),
]


def test_a_release_corner_dates_the_columns_it_stands_beside(tmp_path: Path) -> None:
    page = load_pages(placed_pdf(tmp_path / "FABRIKAM_2025Q2_PR.pdf", [RELEASE]), Settings()).pages[0]
    quarter, half, segments = ([(c.label, c.period) for c in typed_columns(t, 12, "FY2025Q2")]
                               for t in find_tables(page.text, page.runs))
    assert quarter[0] == ("SECOND QUARTER 2025 Amount", "FY2025Q2") and quarter[2][1] == "FY2024Q2"
    assert half[:2] == [("SIX MONTHS 2025 Amount", "FY2025H1"), ("SIX MONTHS 2024 Amount", "FY2024H1")]
    assert segments == [("SECOND QUARTER 2025", "FY2025Q2"), ("SECOND QUARTER 2024", "FY2024Q2")]


@pytest.fixture(scope="module")
def fabrikam(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    folder = tmp_path_factory.mktemp("fabrikam")
    return ingested_file(folder / "home", placed_pdf(folder / "FABRIKAM_2025Q2_PR.pdf", [RELEASE]))


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Fabrikam Containers' net income for the first six months of 2025?", "$231.8 million"),
    ("What were Fabrikam Containers' Paper Packaging net sales in Q2 2024?", "$446.3 million"),
    ("FBCN op income 2Q24", "$171.1 million"),
])
def test_release_figures_printed_to_pdf_are_answered(fabrikam: Settings, question: str, figure: str) -> None:
    assert figure in stated(ask_once(fabrikam, question))


def test_a_table_at_a_pages_top_is_titled_by_the_heading_left_on_the_page_before() -> None:
    assert title_above("\nSegment Results\n(Dollars in millions)\nPersonal Lines\n\f\n") == "Personal Lines"
    assert title_above("\nPersonal Lines\n\f\nRunning header line\n") == ""  # the table does not start its page
    assert title_above("\nNet premiums grew 8% in 2024, as rates rose.\n\f\n") == ""  # a sentence is no title


INSURER_EDGES = [440, 520]
INSURER_FOOT: list[Line] = [
    [(36, "Humongous Insurance Holdings, Inc.")],
    [(36, "FORM 10-K")],
    [(36, "For the fiscal year ended December 31, 2024")],
    [(36, "Humongous Insurance Holdings, Inc. (Exact name of registrant as specified in its charter)")],
    [(36, "Consolidated Results")],
    [(36, "(Dollars in millions)")],
    [_right(440, "2024"), _right(520, "2023")],
    _row("Net premiums written", ["8,106", "7,431"], INSURER_EDGES),
    _row("Combined ratio", ["94.0%", "97.2%"], INSURER_EDGES),
    [(36, "Segment Results")],
    [(36, "(Dollars in millions)")],
    [(36, "Personal Lines")],
]
INSURER_TOP: list[Line] = [
    [_right(440, "2024"), _right(520, "2023")],
    _row("Net premiums written", ["3,902", "3,611"], INSURER_EDGES),
    _row("Combined ratio", ["97.5%", "101.7%"], INSURER_EDGES),
    [(36, "Commercial Lines")],
    [_right(440, "2024"), _right(520, "2023")],
    _row("Net premiums written", ["3,318", "3,049"], INSURER_EDGES),
    _row("Combined ratio", ["90.7%", "92.8%"], INSURER_EDGES),
]


@pytest.fixture(scope="module")
def insurer(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    folder = tmp_path_factory.mktemp("insurer")
    return ingested_file(folder / "home", placed_pdf(folder / "HUMONGOUS_2024_10K.pdf", [INSURER_FOOT, INSURER_TOP]))


@pytest.mark.parametrize(("question", "figure"), [
    # the company's, never the first segment's, whose heading a page break left above its table
    ("What was Humongous Insurance's combined ratio in 2024?", "94.0%"),
    ("What was Humongous's Personal Lines combined ratio in 2024?", "97.5%"),
])
def test_a_segment_table_at_a_pages_top_keeps_its_segment(insurer: Settings, question: str, figure: str) -> None:
    assert figure in stated(ask_once(insurer, question))


def test_a_change_in_points_ends_a_printed_row() -> None:
    # a PDF row's text: the change column's 'pts' is the figure's unit, not a word of the label
    assert split_cells("Load factor 84.5% 83.5% 1.0 pts") == ("Load factor", ["84.5%", "83.5%", "1.0 pts"])
    assert split_cells("Segment margin 12.1% 11.0% 110 bps") == ("Segment margin", ["12.1%", "11.0%", "110 bps"])
    assert split_cells("Rates rose by 25 bps") == ("Rates rose by 25 bps", [])  # a sentence's figure stays in it


IFRS_EDGES = [330, 430, 530]
# an IFRS statement: a 'Note' column of note numbers between the labels and the years, blank on most rows
IFRS: list[Line] = [
    [(36, "Northwind Resources Ltd.")],
    [(36, "FORM 20-F")],
    [(36, "For the fiscal year ended December 31, 2024")],
    [(36, "Northwind Resources Ltd. (Exact name of registrant as specified in its charter)")],
    [(36, "Consolidated Statements of Income")],
    [(36, "(In thousands of Canadian dollars)")],
    [_right(330, "Note"), _right(430, "2024"), _right(530, "2023")],
    _row("Revenue", ["5", "2,841,560", "2,655,210"], IFRS_EDGES),
    _row("Exploration expenses", ["", "(48,700)", "(51,200)"], IFRS_EDGES),
    _row("Income before income taxes", ["", "897,330", "799,740"], IFRS_EDGES),
    _row("Income tax expense", ["10", "(251,250)", "(215,930)"], IFRS_EDGES),
    _row("Profit for the year", ["", "646,080", "583,810"], IFRS_EDGES),
]


def test_a_printed_note_column_is_no_column_of_figures(tmp_path: Path) -> None:
    page = load_pages(placed_pdf(tmp_path / "NORTHWIND_2024_20F.pdf", [IFRS]), Settings()).pages[0]
    (table,) = find_tables(page.text, page.runs)
    assert table.columns == ["2024", "2023"]
    assert [(r.label, r.cells) for r in table.rows][:2] == [("Revenue", ["2,841,560", "2,655,210"]),
                                                            ("Exploration expenses", ["(48,700)", "(51,200)"])]
    assert table.rows[3].cells == ["(251,250)", "(215,930)"]  # the note number '10' is a reference


@pytest.fixture(scope="module")
def northwind(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    folder = tmp_path_factory.mktemp("northwind")
    return ingested_file(folder / "home", placed_pdf(folder / "NORTHWIND_2024_20F.pdf", [IFRS]))


@pytest.mark.parametrize(("question", "figure"), [
    ("What were Northwind's exploration expenses in 2023?", "51,200 thousand"),  # a row the note column leaves blank
    ("What was Northwind's revenue in 2024?", "C$2,841,560 thousand"),
    # the expense printed in parentheses is its size in the rate: no note number makes its row's signs mixed
    ("What was Northwind's effective tax rate in 2024?", "28.00%"),
])
def test_a_statement_with_a_note_column_is_answered(northwind: Settings, question: str, figure: str) -> None:
    answer = stated(ask_once(northwind, question))
    assert figure in answer and "-28" not in answer


# a release page: a table continued from the page before, then a second table under its own title whose header is
# one line of two periods, printed where the second table's figures stand (not the first's)
STACKED_PAGE: list[Line] = [
    [_right(300, "Second Quarter 2025"), _right(400, "Second Quarter 2024"), _right(500, "Percent Change")],
    _row("U.S.", ["389", "380", "2.4"], [300, 400, 500]),
    _row("Total net sales", ["1,418", "1,369", "3.6"], [300, 400, 500]),
    [(36, "Reconciliation of Non-GAAP Measures (Unaudited)")],
    [_right(420, "Second Quarter 2025"), _right(540, "Second Quarter 2024")],
    _row("Diluted earnings per share (GAAP)", ["1.12", "0.98"], [420, 540]),
    _row("Restructuring and other charges", ["0.15", "0.09"], [420, 540]),
    _row("Adjusted earnings per share (non-GAAP)", ["1.31", "1.11"], [420, 540]),
]


def test_a_header_line_of_periods_is_never_a_group_of_sub_columns(tmp_path: Path) -> None:
    pdf = placed_pdf(tmp_path / "FABRIKAM_2025Q2_8K.pdf", [STACKED_PAGE])
    assert _columns(pdf, 0)[-1] == [("Second Quarter 2025", "FY2025Q2"), ("Second Quarter 2024", "FY2024Q2")]


# a release's segment table split by a page break: its scale over the first part, the second segment's sub-heading
# left alone at the page's foot, the rest under the header repeated at the next page's top
SPLIT_FIRST: list[Line] = [
    [(36, "Wingtip Packaging Corp.")],
    [(36, "Wingtip Packaging Reports Second Quarter 2025 Results")],
    [(36, "Net Sales by Segment (Unaudited)")],
    [(36, "(Dollars in millions)")],
    [_right(300, "Second Quarter 2025"), _right(400, "Second Quarter 2024"), _right(500, "Percent Change")],
    [(36, "Rigid Containers")],
    _row("U.S.", ["512", "498", "2.8"], [300, 400, 500]),
    _row("International", ["201", "188", "6.9"], [300, 400, 500]),
    _row("Total Rigid Containers", ["713", "686", "3.9"], [300, 400, 500]),
    [(36, "Flexible Films")],
]
SPLIT_SECOND: list[Line] = [
    [_right(300, "Second Quarter 2025"), _right(400, "Second Quarter 2024"), _right(500, "Percent Change")],
    _row("U.S.", ["389", "380", "2.4"], [300, 400, 500]),
    _row("International", ["316", "303", "4.3"], [300, 400, 500]),
    _row("Total Flexible Films", ["705", "683", "3.2"], [300, 400, 500]),
    _row("Total net sales", ["1,418", "1,369", "3.6"], [300, 400, 500]),
]


@pytest.fixture(scope="module")
def split_release(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    folder = tmp_path_factory.mktemp("split")
    return ingested_file(folder / "home", placed_pdf(folder / "WINGTIP_2025Q2_8K.pdf", [SPLIT_FIRST, SPLIT_SECOND]))


@pytest.mark.parametrize(("question", "figure", "never"), [
    # the rows at the next page's top are under the sub-heading left at the foot of the page before
    ("What were Wingtip's Flexible Films net sales in Q2 2024?", "$683 million", "1,369"),
    ("What were International net sales of Wingtip's Flexible Films segment in Q2 2025?", "$316 million", "201"),
    # and in the scale stated over the first part
    ("What were Wingtip's total net sales in Q2 2024?", "$1,369 million", "683"),
])
def test_a_table_continued_on_the_next_page_keeps_its_scale_title_and_open_sub_heading(
        split_release: Settings, question: str, figure: str, never: str) -> None:
    answer = stated(ask_once(split_release, question))
    assert figure in answer and never not in answer, answer
