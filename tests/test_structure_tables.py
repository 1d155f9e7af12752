"""Sectioning of 10-K text and recognition/linearisation of statement tables in every layout."""

from __future__ import annotations

from agent.finance.numbers import find_numbers
from agent.finance.periods import normalise_period
from agent.ingest.columns import detect_columns
from agent.ingest.line_cells import split_cells
from agent.ingest.linearise import linearise, table_header_line
from agent.ingest.structure import detect_sections, running_lines
from agent.ingest.tables import find_tables
from agent.schemas import PAGE_SEPARATOR, Page

_TOPICS = ["sensors", "pumps", "valves", "meters", "motors", "filters", "cables", "drives", "panels", "relays"]


def prose(i: int) -> str:
    """A two-line paragraph; each call site gets its own, so no line repeats like a running header."""
    topic = _TOPICS[i % len(_TOPICS)]
    return (
        f"The Company designs and sells industrial {topic} in many markets around the world, and it reports its\n"
        f"{topic} results in five business segments that are described in this section of the annual report.\n"
    )


def make_pages(texts: list[str]) -> list[Page]:
    pages, offset = [], 0
    for i, text in enumerate(texts):
        pages.append(Page(page=i, text=text, char_start=offset))
        offset += len(text) + len(PAGE_SEPARATOR)
    return pages


SYNTHETIC_10K = [
    # 0: cover
    "UNITED STATES SECURITIES AND EXCHANGE COMMISSION\nFORM 10-K\nFor the fiscal year ended December 31, 2023\n"
    "ACME CORPORATION\n(Exact name of registrant as specified in its charter)",
    # 1: table of contents (headings that end in page numbers)
    "Table of Contents\nPART I\nItem 1. Business 3\nItem 1A. Risk Factors 4\nPART II\n"
    "Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations 5\n"
    "Item 8. Financial Statements and Supplementary Data 6\nNotes to Consolidated Financial Statements 8\n2",
    # 2
    "Table of Contents\nPART I\nItem 1. Business\n" + prose(1) + "3",
    # 3
    "Table of Contents\nItem 1A. Risk Factors\n" + prose(2) + "Competition could hurt margins.\n" + prose(3) + "4",
    # 4
    "Table of Contents\nPART II\n"
    "Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations\n"
    "Overview\n" + prose(4) + "Results of Operations\n" + prose(5)
    + "Item 1A. Risk Factors discusses the risks that could affect these results.\n5",
    # 5
    "Table of Contents\nItem 8. Financial Statements and Supplementary Data\nACME Corporation and Subsidiaries\n"
    "Consolidated Statement of Cash Flows\nYears ended December 31\n(Millions) 2023 2022 2021\n"
    "Net income $ 5,363 $ 4,869 $ 5,058\nDepreciation and amortization 1,488 1,544 1,474\n6",
    # 6: the statement continues; its heading repeats
    "Table of Contents\nConsolidated Statement of Cash Flows (continued)\n(Millions) 2023 2022 2021\n"
    "Purchases of property, plant and equipment (PP&E) (1,577) (1,373) (1,420)\n"
    "Net cash used in investing activities (1,403) (2,005) (1,977)\n7",
    # 7
    "Table of Contents\nNotes to Consolidated Financial Statements\nNote 1. Significant Accounting Policies\n"
    + prose(6) + "Note 12 for more detail on the debt issued during the year.\n8",
    # 8: running header "Notes to ..." again, then the next note
    "Table of Contents\nNotes to Consolidated Financial Statements\nNote 2. Revenue\n" + prose(7) + "9",
]


# ---------------------------------------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------------------------------------
def test_sections_of_a_synthetic_10k() -> None:
    pages = make_pages(SYNTHETIC_10K)
    sections = detect_sections(pages)
    got = [(s.kind, s.path, s.page_start, s.page_end) for s in sections]
    assert got == [
        ("cover", ["Cover"], 0, 2),
        ("other", ["Part I"], 2, 2),
        ("item", ["Item 1"], 2, 3),
        ("risk", ["Item 1A"], 3, 4),
        ("other", ["Part II"], 4, 4),
        ("mdna", ["Item 7"], 4, 4),
        ("mdna", ["Item 7", "Overview"], 4, 4),
        ("mdna", ["Item 7", "Results of Operations"], 4, 5),
        ("item", ["Item 8"], 5, 5),
        ("statement", ["Item 8", "Consolidated Statement of Cash Flows"], 5, 7),
        ("note", ["Item 8", "Notes to Consolidated Financial Statements"], 7, 7),
        ("note", ["Item 8", "Notes to Consolidated Financial Statements", "Note 1. Significant Accounting Policies"], 7, 8),
        ("note", ["Item 8", "Notes to Consolidated Financial Statements", "Note 2. Revenue"], 8, 8),
    ]
    assert sections[3].title == "Item 1A. Risk Factors"
    assert sections[5].title == (
        "Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations"
    )


def test_sections_tile_the_document_without_gaps() -> None:
    pages = make_pages(SYNTHETIC_10K)
    doc_text = PAGE_SEPARATOR.join(p.text for p in pages)
    sections = detect_sections(pages)
    assert sections[0].char_start == 0 and sections[-1].char_end == len(doc_text)
    for before, after in zip(sections, sections[1:], strict=False):
        assert before.char_end == after.char_start and before.char_start < before.char_end
    assert [s.section_id for s in sections] == list(range(len(sections)))
    # Each section starts at its heading line.
    assert doc_text[sections[2].char_start:].startswith("Item 1. Business\n")
    assert doc_text[sections[9].char_start:].startswith("Consolidated Statement of Cash Flows\n")


def test_toc_and_running_headers_never_open_sections() -> None:
    pages = make_pages(SYNTHETIC_10K)
    sections = detect_sections(pages)
    assert all(s.page_start != 1 for s in sections[1:])  # page 1 is the table of contents
    assert "table of contents" in running_lines(pages)
    assert sum(s.title == "Notes to Consolidated Financial Statements" for s in sections) == 1
    assert sum(s.kind == "statement" for s in sections) == 1  # "(continued)" does not reopen it


def test_document_without_headings_is_one_cover_section() -> None:
    pages = make_pages(["just some text", "more text"])
    sections = detect_sections(pages)
    assert [(s.kind, s.char_start, s.char_end, s.page_end) for s in sections] == [("cover", 0, 26, 1)]


def test_ten_q_parts_disambiguate_repeated_items() -> None:
    pages = make_pages([
        "PART I. FINANCIAL INFORMATION\nITEM 1. FINANCIAL STATEMENTS\nCONDENSED CONSOLIDATED BALANCE SHEETS\n" + prose(8),
        "ITEM 2. MANAGEMENT’S DISCUSSION AND ANALYSIS OF FINANCIAL CONDITION AND RESULTS OF OPERATIONS\n" + prose(9),
        "PART II. OTHER INFORMATION\nITEM 1. LEGAL PROCEEDINGS\n" + prose(10) + "ITEM 1A. RISK FACTORS\n" + prose(11),
    ])
    got = [(s.kind, s.path) for s in detect_sections(pages)]
    assert got == [
        ("other", ["Part I"]),
        ("item", ["Item 1"]),
        ("statement", ["Item 1", "CONDENSED CONSOLIDATED BALANCE SHEETS"]),
        ("mdna", ["Item 2"]),
        ("other", ["Part II"]),
        ("item", ["Part II Item 1"]),
        ("risk", ["Item 1A"]),
    ]


# ---------------------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------------------
CASH_FLOW_EXPECTED = [
    "Cash Flows from Operating Activities",
    "Net income including noncontrolling interest | 2018: $5,363 | 2017: $4,869 | 2016: $5,058 | (in millions)",
    "Adjustments to reconcile net income including noncontrolling interest to net cash provided by operating activities",
    "Depreciation and amortization | 2018: 1,488 | 2017: 1,544 | 2016: 1,474 | (in millions)",
    "Purchases of property, plant and equipment (PP&E) | 2018: (1,577) | 2017: (1,373) | 2016: (1,420) | (in millions)",
    "Other — net | 2018: 9 | 2017: (6) | 2016: (4) | (in millions)",
]


def test_pdfium_inline_rows() -> None:
    page = (
        "Table of Contents\n3M Company and Subsidiaries\nConsolidated Statement of Cash Flows\nYears ended December 31\n"
        "(Millions) 2018 2017 2016\nCash Flows from Operating Activities\n"
        "Net income including noncontrolling interest $ 5,363 $ 4,869 $ 5,058\n"
        "Adjustments to reconcile net income including noncontrolling interest to net cash\n"
        "provided by operating activities\nDepreciation and amortization 1,488 1,544 1,474\n"
        "Purchases of property, plant and equipment (PP&E) (1,577) (1,373) (1,420)\nOther — net 9 (6) (4)\n"
        "The accompanying Notes to Consolidated Financial Statements are an integral part of this statement.\n60"
    )
    (table,) = find_tables(page)
    assert table.title == "Consolidated Statement of Cash Flows"
    assert table.columns == ["2018", "2017", "2016"]
    assert table.scale == 1e6 and table.scale_label == "(in millions)"
    assert linearise(table) == CASH_FLOW_EXPECTED
    assert table_header_line(table) == (
        "Consolidated Statement of Cash Flows | Years ended December 31 | columns: 2018, 2017, 2016 | (in millions)"
    )
    assert page[table.char_start:].startswith("Consolidated Statement of Cash Flows")
    assert page[:table.char_end].endswith("Other — net 9 (6) (4)")
    ppe = table.rows[4]
    assert ppe.cells == ["(1,577)", "(1,373)", "(1,420)"]
    assert page[ppe.char_start:ppe.char_end] == "Purchases of property, plant and equipment (PP&E) (1,577) (1,373) (1,420)"
    # Parentheses stay negatives for the number parser, in the table's scale.
    values = find_numbers(linearise(table)[4], default_scale=table.scale)
    assert [(v.value, v.scale) for v in values] == [(-1577.0, 1e6), (-1373.0, 1e6), (-1420.0, 1e6)]


def test_one_cell_per_line_layout_reads_the_same() -> None:
    page = (
        "Table of Contents \n3M Company and Subsidiaries\nConsolidated Statement of Cash Flows\nYears ended December 31\n"
        " \n(Millions)\n \n2018\n \n2017\n \n2016\n \nCash Flows from Operating Activities\n \n \n"
        "Net income including noncontrolling interest\n \n$\n5,363 \n$\n4,869 \n$\n5,058 \n"
        "Adjustments to reconcile net income including noncontrolling interest to net cash\n"
        "provided by operating activities\n \n \nDepreciation and amortization\n \n \n1,488 \n \n1,544 \n \n1,474 \n"
        "Purchases of property, plant and equipment (PP&E)\n \n \n(1,577) \n \n(1,373) \n \n(1,420) \n"
        "Other — net\n \n \n 9 \n \n(6) \n \n(4) \n"
    )
    (table,) = find_tables(page)
    assert table.columns == ["2018", "2017", "2016"]
    assert linearise(table) == CASH_FLOW_EXPECTED


def test_one_duration_over_its_columns_is_named_once() -> None:
    # a Markdown header whose cells share 'Three Months Ended June 30,' is split into that caption and the years
    page = (
        "Commercial Banking\n(in millions)\nThree Months Ended June 30,\n2024 | 2023\n"
        "Net interest income | 298 | 284\nNet income | 128 | 147"
    )
    (table,) = find_tables(page)
    assert table.columns == ["Three Months Ended June 30, 2024", "Three Months Ended June 30, 2023"]
    assert [normalise_period(c) for c in table.columns] == ["FY2024Q2", "FY2023Q2"]


def test_pipe_rows_with_quarter_and_half_year_columns() -> None:
    page = (
        "Condensed Consolidated Statements of Operations\n($ in thousands)\n"
        "Three Months Ended June 30, | Six Months Ended June 30,\n2023 | 2022 | 2023 | 2022\n"
        "Net revenues | $4,396,500 | $3,253,496 | $8,838,203 | $6,145,640\n"
        "Operating income (loss) | 543,002 | (112,180) | 1,102,513 | 401,122\n"
        "Basic EPS | $1.45 | $(0.45) | $3.09 | $0.25"
    )
    (table,) = find_tables(page)
    assert table.scale == 1e3
    # The closing day stays with each year: without it a quarter column would read as a whole fiscal year.
    assert table.columns == [
        "Three Months Ended June 30, 2023", "Three Months Ended June 30, 2022",
        "Six Months Ended June 30, 2023", "Six Months Ended June 30, 2022",
    ]
    assert [normalise_period(c) for c in table.columns] == ["FY2023Q2", "FY2022Q2", "FY2023H1", "FY2022H1"]
    assert linearise(table)[1] == (
        "Operating income (loss) | Three Months Ended June 30, 2023: 543,002 | Three Months Ended June 30, 2022: "
        "(112,180) | Six Months Ended June 30, 2023: 1,102,513 | Six Months Ended June 30, 2022: 401,122 | "
        "(USD in thousands)"  # the currency the scale line states stays with the scale
    )


def test_a_header_row_of_numeric_dates_names_the_columns() -> None:
    page = (
        "12/09 | 12/10 | 12/11\n"
        "e*trade financial corporation | 100 | 90.91 | 45.23\n"
        "s&p 500 index | 100 | 115.06 | 117.49"
    )
    (table,) = find_tables(page)
    assert table.columns == ["12/09", "12/10", "12/11"]
    assert linearise(table)[0] == "e*trade financial corporation | 12/09: 100 | 12/10: 90.91 | 12/11: 45.23"
    page = (
        "december 29 2001 | december 28 2002 | january 3 2004\n"
        "cadence design systems inc . | 100 | 54.38 | 81.52\ns & p 500 | 100 | 77.9 | 100.24"
    )
    (table,) = find_tables(page)
    assert table.columns == ["december 29 2001", "december 28 2002", "january 3 2004"]


def test_a_date_then_years_header_keeps_every_year_column() -> None:
    page = (
        "CONSOLIDATED BALANCE SHEETS\nDecember 31, 2017 2016\n(In millions except par value)\nASSETS\n"
        "Cash and cash equivalents $ 6,006 $ 8,555\nInventories 2,655 2,675\nTOTAL ASSETS 87,896 87,270"
    )
    (table,) = find_tables(page)
    assert table.columns == ["2017", "2016"]
    assert "Inventories | 2017: 2,655 | 2016: 2,675 | (in millions)" in linearise(table)


def test_split_date_headers_pair_month_days_with_years() -> None:
    page = (
        "SUPPLEMENTAL DATA – NET REVENUES\n(In thousands)\n(Unaudited)\nThree months ended Twelve months ended\n"
        "December 31,\n2022\nDecember 31,\n2021\nDecember 31,\n2022\nDecember 31,\n2021\n"
        "Las Vegas Strip Resorts $ 2,297,282 $ 1,806,686 $ 8,398,372 $ 4,737,185\n"
        "Regional Operations 991,452 899,607 3,815,885 3,392,363"
    )
    (table,) = find_tables(page)
    assert table.title == "SUPPLEMENTAL DATA – NET REVENUES"
    assert table.columns == [
        "Three months ended December 31, 2022", "Three months ended December 31, 2021",
        "Twelve months ended December 31, 2022", "Twelve months ended December 31, 2021",
    ]
    assert linearise(table)[1].endswith("Twelve months ended December 31, 2021: 3,392,363 | (in thousands)")


def test_scale_from_the_sentence_above_and_mismatched_cells_stay_unlabelled() -> None:
    page = (
        "Revenue by segment for the years ended December 31 was as follows (in millions):\n"
        "Segment 2023 2022\nSensors $ 2,905 $ 2,640\nDevices 1,907 1,665\nTotal $ 4,812 $ 4,305 12%"
    )
    (table,) = find_tables(page)
    assert table.scale == 1e6
    assert linearise(table) == [
        "Sensors | 2023: $2,905 | 2022: $2,640 | (in millions)",
        "Devices | 2023: 1,907 | 2022: 1,665 | (in millions)",
        "Total | $4,812 | $4,305 | 12% | (in millions)",  # three values under two periods: no guessing
    ]


def test_prose_with_numbers_is_not_a_table() -> None:
    page = (
        "Net sales increased 18.3% to $10.2 billion compared to $8.6 billion in fiscal 2021, primarily due to\n"
        "the favorable impact from the continued resilience of the beauty category in fiscal 2022.\n"
        "At December 31, 2018, the Company employed 93,516 people.\nPage 13 of 15"
    )
    assert find_tables(page) == []


def test_split_cells_edge_cases() -> None:
    assert split_cells("Net loss attributable ($4,935) ($4,202)") == ("Net loss attributable", ["($4,935)", "($4,202)"])
    assert split_cells("Equity income (loss) — net 62 18 (17 ) 9") == ("Equity income (loss) — net", ["62", "18", "(17)", "9"])
    assert split_cells("Comparable sales 15.6% (4.8%)") == ("Comparable sales", ["15.6%", "(4.8%)"])
    assert split_cells("1.500% Notes due 2026") == ("1.500% Notes due 2026", [])
    assert split_cells("Years ended December 31") == ("Years ended December 31", [])
    assert split_cells("Page 13 of 15") == ("Page 13 of 15", [])
    assert split_cells("Assets held-for-sale $ 183 $ —") == ("Assets held-for-sale", ["$183", "$—"])
    assert split_cells("Receivables (Note 4) 120") == ("Receivables (Note 4)", ["120"])


def test_detect_columns_labels() -> None:
    assert detect_columns("(Millions) 2018 2017 2016") == ["2018", "2017", "2016"]
    assert detect_columns("Years ended December 31, 2022 2021 2020") == ["2022", "2021", "2020"]
    assert detect_columns("June 30, 2023 December 31, 2022") == ["June 30, 2023", "December 31, 2022"]
    assert detect_columns("Q2 2023 Q1 2023 Q2 2022") == ["Q2 2023", "Q1 2023", "Q2 2022"]
    assert detect_columns("Fiscal 2023 Fiscal 2022") == ["Fiscal 2023", "Fiscal 2022"]
    assert detect_columns("13 Weeks Ended 52 Weeks Ended January 28, January 29, January 28, January 29, 2023 2022 2023 2022", 4) == [
        "13 Weeks Ended January 28, 2023", "13 Weeks Ended January 29, 2022",
        "52 Weeks Ended January 28, 2023", "52 Weeks Ended January 29, 2022",
    ]


def test_heading_above_an_index_page_counts_but_the_index_does_not() -> None:
    pages = make_pages([
        "Item 7. Management's Discussion and Analysis\n" + prose(20),
        "Table of Contents\nItem 8. Financial Statements and Supplementary Data\nIndex to Financial Statements\n"
        "Consolidated Statements of Operations 40\nConsolidated Balance Sheets 41\nConsolidated Statements of Cash Flows 42\n"
        "Notes to Consolidated Financial Statements 43",
        "Consolidated Statements of Operations\n(in millions) 2023 2022\nRevenue 100 90\nCosts 60 50",
    ])
    got = [(s.path, s.page_start) for s in detect_sections(pages)]
    assert got == [
        (["Item 7"], 0),
        (["Item 8"], 1),
        (["Item 8", "Consolidated Statements of Operations"], 2),
    ]


def test_a_line_of_column_names_above_year_rows_heads_the_table() -> None:
    page = (
        "the following table summarizes the activity under this share repurchase program .\n\n"
        "total cost of shares purchased | total number of shares purchased | average price paid per share\n"
        "2012 | 971883 | 14087.8 | 68.99\n2011 | 2997688 | 36940.4 | 81.15\n2010 | 1716675 | 26624.8 | 64.48\n"
    )
    table = find_tables(page)[0]
    assert table.title.startswith("total cost of shares purchased | total number")
    assert table_header_line(table).startswith(table.title)



def test_a_header_of_years_and_named_columns_labels_every_value() -> None:
    page = (
        "payments due by period\n"
        "total | 2007 | 2008 | 2009 - 2010 | thereafter\n"
        "long-term debt obligations | 4134 | 1340 | 198 | 538 | 1451\n"
        "lease obligations | 2328 | 351 | 281 | 387 | 1151\n"
    )
    table = find_tables(page)[0]
    assert table.columns == ["total", "2007", "2008", "2009 - 2010", "thereafter"]
    assert table.title == "payments due by period"
    assert linearise(table)[0] == (
        "long-term debt obligations | total: 4134 | 2007: 1340 | 2008: 198 | 2009 - 2010: 538 | thereafter: 1451"
    )
    # One year among names is no header of periods and names.
    lone = find_tables("results by segment\ntotal | 2008 | other\nrevenue | 1 | 2 | 3\ncosts | 4 | 5 | 6\n")[0]
    assert "total" not in lone.columns


def test_an_untitled_table_takes_the_sentence_that_introduces_it() -> None:
    page = (
        "fair values are classified as level 2 in the fair value hierarchy . the annual long-term debt maturities "
        "for debt outstanding as of december 31 , 2013 , for the next five years are as follows : amount .\n"
        "2014 | 385373\n2015 | 1110566\n2016 | 270852\n"
    )
    table = find_tables(page)[0]
    assert table.title == (
        "the annual long-term debt maturities for debt outstanding as of december 31 , 2013 , for the next five years"
    )
    # Prose that introduces nothing gives no title.
    plain = find_tables("revenue grew in every segment this year and margins held up well overall .\n"
                        "2014 | 385373\n2015 | 1110566\n")[0]
    assert plain.title == ""


def test_a_title_line_that_states_the_scale_titles_its_table() -> None:
    page = ("Note 12. Segment Information\n\nRevenue by geographic region (in millions):\n\n2023 | 2022\n"
            "Americas | 3,000 | 2,800\nEurope | 1,100 | 1,020\nTotal revenue | 5,245 | 4,880\n")
    table = find_tables(page)[0]
    assert table.title == "Revenue by geographic region"  # not the note's heading further up
    assert table.scale == 1e6  # the line still states the scale
    # A line of scale alone ('(Dollars in millions)') titles nothing: the heading above does.
    plain = find_tables("Segment Information\n\n(Dollars in millions)\n\n2023 | 2022\nAmericas | 3,000 | 2,800\n"
                        "Europe | 1,100 | 1,020\n")[0]
    assert plain.title == "Segment Information" and plain.scale == 1e6


# An earnings release's segment table: the period header is printed as plain lines, and a sub-heading naming the
# first metric sits between it and the first values.
SEGMENT_PAGE = """Contoso Foods Corporation and Subsidiaries
Supplemental Financial Information
(in millions and unaudited)
12 Weeks Ended
3/25/2023
3/19/2022
Net Revenue
Snacks North America
$ 5,583 $ 4,839
Beverages Europe
1,886 1,797
Total
$ 7,469 $ 6,636
Operating Profit/(Loss)
Snacks North America
$ 1,599 $ 1,296
Beverages Europe
71 (136)
Total
$ 1,670 $ 1,160
"""


def test_a_sub_heading_under_a_period_header_keeps_the_header() -> None:
    (table,) = find_tables(SEGMENT_PAGE)
    assert table.columns == ["12 Weeks Ended 3/25/2023", "12 Weeks Ended 3/19/2022"]
    assert table.scale == 1e6 and table.title == "Supplemental Financial Information"
    lines = linearise(table)
    # Both sub-headings stay in the body, in order, each above its rows; every value has its period column.
    assert lines[0] == "Net Revenue" and "Operating Profit/(Loss)" in lines
    assert "Beverages Europe | 12 Weeks Ended 3/25/2023: 71 | 12 Weeks Ended 3/19/2022: (136) | (in millions)" in lines
    assert [normalise_period(c) for c in table.columns] == ["FY2023Q1", "FY2022Q1"]


def test_a_hyphenated_quarter_caption_names_the_column_once() -> None:
    # 'First-Quarter 2023 Results' above a 'First-Quarter' column: one column, the quarter, never the year.
    assert detect_columns("Reported (GAAP) First-Quarter 2023 Results First-Quarter") == ["First-Quarter 2023"]
    assert normalise_period(detect_columns("First-Quarter 2023")[0]) == "FY2023Q1"


def test_a_change_column_headed_by_two_years_is_no_period_column() -> None:
    # '2019 vs 2018' heads the % change column: the years are the first three columns, in order, and the change
    # columns are changes, no period's.
    page = (
        "Years ended December 31, | 2019 vs 2018 | 2018 vs 2017\n"
        "2019 | 2018 | 2017 | % Change | % Change\n"
        "(in thousands, except percentages)\n"
        "Sales and marketing | $ 472,841 | $ 350,069 | $ 225,694 | 35.1 % | 55.1 %\n"
        "Percentage of total revenues | 30.0 % | 32.6 % | 33.5 %\n"
    )
    (table,) = find_tables(page)
    assert table.columns == ["2019", "2018", "2017", "% Change", "% Change"]
    assert linearise(table)[0].startswith(
        "Sales and marketing | 2019: $472,841 | 2018: $350,069 | 2017: $225,694 | % Change: 35.1%")


def test_periods_over_groups_of_named_columns_head_each_group() -> None:
    # '2019 | 2018' over 'Amount | % | Amount | %': the second value of a row is 2019's share, not 2018's amount.
    page = (
        "Revenue by segment\n"
        "2019 | 2018\n"
        "Amount | % | Amount | %\n"
        "Americas | 1,200 | 60% | 1,000 | 55%\n"
        "Europe | 800 | 40% | 820 | 45%\n"
    )
    (table,) = find_tables(page)
    assert table.columns == ["2019 Amount", "2019 %", "2018 Amount", "2018 %"]
    assert linearise(table) == [
        "Americas | 2019 Amount: 1,200 | 2019 %: 60% | 2018 Amount: 1,000 | 2018 %: 55%",
        "Europe | 2019 Amount: 800 | 2019 %: 40% | 2018 Amount: 820 | 2018 %: 45%",
    ]
    assert normalise_period("2019 Amount") == "FY2019" and normalise_period("2019 %") == ""


def test_named_columns_over_a_period_head_every_value() -> None:
    # 'USD denominated | Non-USD denominated' over 'As at 31 December 2019': each value is under its column's
    # name; the period heads the table, and the next block's period line heads that block's rows.
    page = (
        "USD denominated | Non-USD denominated\n"
        "As at 31 December 2019\n"
        "Monetary assets, current | 27,728 | 2,899\n"
        "Monetary assets, non-current | 373 | –\n"
        "As at 31 December 2018\n"
        "Monetary assets, current | 18,041 | 1,994\n"
    )
    (table,) = find_tables(page)
    assert table.columns == ["USD denominated", "Non-USD denominated"]
    assert table.period_caption == "As at 31 December 2019"
    assert linearise(table) == [
        "Monetary assets, current | USD denominated: 27,728 | Non-USD denominated: 2,899",
        "Monetary assets, non-current | USD denominated: 373 | Non-USD denominated: –",
        "As at 31 December 2018",
        "Monetary assets, current | USD denominated: 18,041 | Non-USD denominated: 1,994",
    ]


def test_a_row_label_wrapped_before_its_aside_is_one_label() -> None:
    # a printed label too long for its column: 'Europe, Middle East and Africa' over '(EMEA) | 512.3 | 498.2'
    page = ("Revenue by region\n(In millions) 2025 2024\nAmericas 1,200.1 1,100.0\nEurope, Middle East and Africa\n"
            "(EMEA) 512.3 498.2\nTotal 1,712.4 1,598.2\n")
    table = find_tables(page)[0]
    assert [(r.label, r.cells) for r in table.rows] == [
        ("Americas", ["1,200.1", "1,100.0"]), ("Europe, Middle East and Africa (EMEA)", ["512.3", "498.2"]),
        ("Total", ["1,712.4", "1,598.2"])]


def test_a_half_labelled_in_short_is_a_half_not_a_year() -> None:
    # 'H1 FY25' over a column is the first half of fiscal 2025; read as 'FY25' it was the whole year
    from agent.ingest.columns import detect_columns

    columns = detect_columns("Q2 FY25 Q2 FY24 H1 FY25 H1 FY24", 4)
    assert columns == ["Q2 FY25", "Q2 FY24", "H1 FY25", "H1 FY24"]
    assert [normalise_period(c) for c in columns] == ["FY2025Q2", "FY2024Q2", "FY2025H1", "FY2024H1"]
    assert normalise_period(detect_columns("1H 2024 1H 2023", 2)[0]) == "FY2024H1"
