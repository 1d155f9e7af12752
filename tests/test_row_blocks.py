"""Which block of its table a row is in, and where it is printed: a PDF's layout carried into its typed tables
(each line's box, a row's sub-heading read from its indentation, the box of each table and row on its page, the
viewer boxing the cited row), a total that names a wider whole, a sub-heading that heads its own rows only, and a
change computed over one row's cells named with that row's sub-heading."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support import ask_once, ingested_typeset, stated, text_pdf

from agent.config import Settings
from agent.index.store import Store
from agent.ingest.layout import align_lines, placed_lines
from agent.ingest.parsing import _css_left, load_pages, normalise_text
from agent.ingest.pipeline import open_ingestor
from agent.schemas import LineBox, TableRecord

STATEMENT = "\n".join([
    "CONTOSO LTD.",
    "CONSOLIDATED STATEMENTS OF OPERATIONS",
    "(in millions) | 2024 | 2023",
    "Net revenue | 5,245 | 4,980",
    "Operating expenses:",
    "    Research and development | 1,210 | 1,105",
    "    Selling and marketing | 940 | 905",
    "Interest expense | 42 | 38",
    "Other income (expense):",
    "    Interest income | 12 | 9",
    "    Foreign exchange losses | (5) | (3)",
    "Total other income (expense) | 7 | 6",
    "Income before income taxes | 3,060 | 2,938",
])


class _Page:
    """A text page whose character ``i`` is printed at x = 10 * its column, line ``k`` at y = 700 - 12k."""

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.boxes: list[tuple[float, float, float, float]] = []
        line = column = 0
        for ch in raw:
            self.boxes.append((10.0 * column, 700 - 12.0 * line, 10.0 * column + 8, 708 - 12.0 * line))
            column += 1
            if ch == "\n":
                line, column = line + 1, 0

    def count_chars(self) -> int:
        return len(self.raw)

    def get_charbox(self, index: int, loose: bool = False) -> tuple[float, float, float, float]:
        return self.boxes[index]


def test_placed_lines_box_each_line_from_its_first_to_its_last_printed_character() -> None:
    raw = "Revenue  100\r\n\r\n   Products  60"
    placed = placed_lines(_Page(raw), raw, width=1000, height=1000)
    assert [line for line, _ in placed] == ["Revenue  100", "", "   Products  60"]
    first, blank, indented = (p for _, p in placed)
    assert blank is None
    assert first is not None and indented is not None
    assert first.box.x0 == 0.0 and indented.box.x0 == pytest.approx(0.03)  # three characters in
    assert first.box.x1 == pytest.approx(0.118)
    assert first.box.y0 < indented.box.y0  # top of the page first
    # Words a column gap apart are runs of their own; a word space keeps words in one run.
    assert [(r.text, r.x0) for r in first.runs] == [("Revenue", 0.0), ("100", pytest.approx(0.09))]
    assert [r.text for r in indented.runs] == ["Products", "60"]
    # A text whose characters do not map one to one onto boxes places nothing rather than misplacing.
    assert placed_lines(_Page(raw + "x"), raw, 1000, 1000) == []


def test_align_lines_matches_normalised_lines_in_order_and_leaves_the_rewritten_unplaced() -> None:
    box = [LineBox(x0=k / 10, y0=0, x1=1, y1=0.1) for k in range(5)]
    placed = [("Net  sales  100", box[0]), ("", None), ("", None), ("", None), ("   Products 60", box[1]),
              ("Items .......... 4", box[2])]
    text = normalise_text("\r\n".join(raw for raw, _ in placed))
    aligned = align_lines(text, placed, normalise_text)
    assert len(aligned) == len(text.split("\n"))
    assert aligned[0] is box[0] and aligned[-2] is box[1] and aligned[-1] is box[2]
    assert align_lines("Something else", placed, normalise_text) == [None]
    assert align_lines("anything", [], normalise_text) == []


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, Path]:
    folder = tmp_path_factory.mktemp("layout")
    pdf = text_pdf(folder / "CONTOSO_2024_10K.pdf", [STATEMENT])
    settings = Settings.from_env(home=folder / "home")
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(pdf).status == "ingested"
    return settings, pdf


def _record(settings: Settings) -> TableRecord:
    with Store(settings) as store:
        records = [c.table for c in store.chunks() if c.table is not None]
    assert len(records) == 1
    return records[0]


def test_the_pdf_pages_lines_are_placed(ingested: tuple[Settings, Path]) -> None:
    settings, pdf = ingested
    page = load_pages(pdf, settings).pages[0]
    lines = page.text.split("\n")
    assert len(page.lines) == len(lines) and all(box is not None for box in page.lines)
    by_line = dict(zip(lines, page.lines, strict=True))
    assert by_line["Research and development 1,210 1,105"].x0 > by_line["Operating expenses:"].x0 + 0.02


def test_a_row_back_at_its_sub_headings_indentation_has_left_its_block(ingested: tuple[Settings, Path]) -> None:
    rows = {r.label: r for r in _record(ingested[0]).rows}
    assert rows["Research and development"].parent == "Operating expenses"
    assert rows["Selling and marketing"].parent == "Operating expenses"
    # Printed at the sub-heading's indentation after its indented rows: no operating expense (no total closed it).
    assert rows["Interest expense"].parent == ""
    assert rows["Interest income"].parent == "Other income (expense)"
    # A total printed back at its sub-heading's level totals that sub-heading, and closes its block.
    assert rows["Total other income (expense)"].total
    assert rows["Total other income (expense)"].parent == "Other income (expense)"
    assert rows["Income before income taxes"].parent == ""


def test_the_table_and_each_row_carry_their_box_on_the_page(ingested: tuple[Settings, Path]) -> None:
    record = _record(ingested[0])
    x0, y0, x1, y1 = record.box
    assert 0 < x0 < x1 <= 1 and 0 < y0 < y1 <= 1
    tops = [r.box[1] for r in record.rows]
    assert all(len(r.box) == 4 for r in record.rows) and tops == sorted(tops)
    assert all(x0 <= r.box[0] and r.box[2] <= x1 + 1e-4 and y0 <= r.box[1] <= y1 for r in record.rows)
    indented = {r.label: r.box[0] for r in record.rows}
    assert indented["Selling and marketing"] > indented["Interest expense"]


def test_the_same_statement_without_a_layout_keeps_the_sub_heading_until_a_total(tmp_path: Path) -> None:
    """Markdown has no indentation to read: the sub-heading holds until a total, and no box is stored."""
    settings = Settings.from_env(home=tmp_path / "home")
    path = tmp_path / "CONTOSO_2024_10K.md"
    path.write_text("\n\n".join(["# CONTOSO LTD.", STATEMENT.replace("    ", "")]), encoding="utf-8")
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(path).status == "ingested"
    record = _record(settings)
    rows = {r.label: r for r in record.rows}
    assert rows["Interest expense"].parent == "Operating expenses"
    assert record.box == [] and all(r.box == [] for r in record.rows)


def _html_statement(indent: Callable[[int], str]) -> str:
    """The statement as EDGAR typesets it: a table whose label cells say their indentation; ``indent(level)`` is
    a label cell's opening tag and its leading text."""
    rows = []
    for line in STATEMENT.split("\n")[2:]:
        label, *figures = [c.strip() for c in line.split("|")]
        level = (len(line) - len(line.lstrip(" "))) // 4
        cells = "".join(f"<td style='text-align:right'>{f}</td>" for f in figures)
        rows.append(f"<tr>{indent(level)}{label}</td>{cells}</tr>")
    return ("<html><body><p>CONTOSO LTD.</p><p>CONSOLIDATED STATEMENTS OF OPERATIONS</p><table>"
            + "".join(rows) + "</table></body></html>")


@pytest.mark.parametrize(
    "indent",
    [
        # a hanging indent, as Workiva writes it: padding at the level, the first line pulled back
        lambda level: f"<td style='padding:0 1pt 0 {9 + 10 * level}pt;text-indent:-9pt'>",
        # the indentation on a block inside the cell, in pixels
        lambda level: f"<td><div style='margin-left:{12 * level}px'>",
        # no-break spaces before the label
        lambda level: "<td>" + "&nbsp;" * (4 * level),
    ],
    ids=["padding-and-text-indent", "nested-margin", "no-break-spaces"],
)
def test_an_html_tables_css_indentation_places_each_row_in_its_block(
    tmp_path: Path, indent: Callable[[int], str]
) -> None:
    settings = Settings.from_env(home=tmp_path / "home")
    path = tmp_path / "CONTOSO_2024_10K.htm"
    path.write_text(_html_statement(indent), encoding="utf-8")
    page = load_pages(path, settings).pages[0]
    by_line = dict(zip(page.text.split("\n"), page.indents, strict=True))
    assert by_line["Research and development | 1,210 | 1,105"] > by_line["Operating expenses:"]
    assert not page.lines  # an HTML page has no boxes: the viewer boxes nothing it cannot place
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(path).status == "ingested"
    rows = {r.label: r for r in _record(settings).rows}
    assert rows["Research and development"].parent == "Operating expenses"
    assert rows["Interest expense"].parent == ""  # back at the sub-heading's level after its rows (was its part)
    assert rows["Interest income"].parent == "Other income (expense)"
    assert rows["Total other income (expense)"].parent == "Other income (expense)"


def test_an_html_table_that_indents_nothing_keeps_the_sub_heading_until_a_total(tmp_path: Path) -> None:
    settings = Settings.from_env(home=tmp_path / "home")
    path = tmp_path / "CONTOSO_2024_10K.htm"
    path.write_text(_html_statement(lambda level: "<td>"), encoding="utf-8")
    assert not any(load_pages(path, settings).pages[0].indents)
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(path).status == "ingested"
    assert {r.label: r for r in _record(settings).rows}["Interest expense"].parent == "Operating expenses"


@pytest.mark.parametrize(
    ("style", "points"),
    [("padding-left: 12pt", 12.0), ("padding:0 1pt 0 18pt;text-indent:-9pt", 9.0), ("margin: 0 16px", 12.0),
     ("padding-left:0.25in", 18.0), ("text-indent: 2em", 20.0), ("padding-left: 5%", 0.0), ("color: red", 0.0),
     ("padding: 1pt 2pt 3pt", 2.0), ("margin-left:", 0.0)],
)
def test_css_left_reads_the_points_a_first_line_moves_right(style: str, points: float) -> None:
    assert _css_left(style) == pytest.approx(points)


def test_an_answer_names_a_row_by_the_block_it_is_printed_in(ingested: tuple[Settings, Path]) -> None:
    answer = stated(ask_once(ingested[0], "What was Contoso's interest expense in 2024?"))
    assert "$42 million" in answer
    assert "Operating expenses" not in answer


TAXES = "\n".join([
    "CONTOSO LTD.",
    "Provision for Income Taxes",
    "(in millions) | 2024 | 2023",
    "Currently payable:",
    "    Federal | 698 | 1,022",
    "    State | 109 | 59",
    "Deferred:",
    "    Federal | (38) | 162",
    "    State | (17) | 15",
    "Total | 752 | 1,258",
])


def test_the_viewer_boxes_the_cited_row_where_ingest_placed_it(tmp_path: Path) -> None:
    """'Federal' is printed twice on the page: the citation of the deferred one is boxed on the deferred row."""
    from agent.index.render import view_page

    pdf = text_pdf(tmp_path / "CONTOSO_2024_10K.pdf", [TAXES])
    settings = Settings.from_env(home=tmp_path / "home")
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(pdf).status == "ingested"
    with Store(settings) as store:
        chunk = next(c for c in store.chunks() if c.table is not None)
        rows = [r for r in chunk.table.rows if r.label == "Federal"]
        assert [r.parent for r in rows] == ["Currently payable", "Deferred"]
        doc = store.get_document(chunk.doc_id).name
        quote = "Federal | 2024: (38) | 2023: 162 | (in millions)"
        placed = view_page(store, doc, 1, quote, "(38)", chunk=chunk.chunk_id)
        searched = view_page(store, doc, 1, quote, "(38)")
    label = next(b for b in placed.boxes if b.kind == "label")
    assert label.y0 == pytest.approx(rows[1].box[1], abs=1e-3)
    figure = next(b for b in placed.boxes if b.kind == "figure")
    assert label.y0 <= (figure.y0 + figure.y1) / 2 <= label.y1  # the figure on the cited row's line
    # Searching the label alone finds the first 'Federal', the current one: the stored box is what tells them apart.
    first = next(b for b in searched.boxes if b.kind == "label")
    assert first.y0 == pytest.approx(rows[0].box[1], abs=1e-3)


def test_each_cited_figure_names_the_chunk_it_was_read_from(ingested: tuple[Settings, Path]) -> None:
    from graphs.service import Assistant

    with Assistant(ingested[0]) as assistant:
        result = assistant.ask("What was Contoso's net revenue in 2024?")
    record = _record(ingested[0])
    assert result.links and all(link.cited.chunk.startswith(record.table_id.split(":")[0]) for link in result.links)


BALANCE = "\n".join([
    "CONTOSO LTD.",
    "CONSOLIDATED BALANCE SHEETS",
    "As of December 31,",
    "(in millions) | 2024 | 2023",
    "Cash and cash equivalents | 1,150 | 980",
    "Current liabilities:",
    "    Accounts payable | 410 | 380",
    "    Accrued expenses | 220 | 205",
    "Long-term debt | 1,500 | 1,600",
    "Total liabilities | 2,130 | 2,185",
])


@pytest.fixture(scope="module", params=["pdf", "md"])
def balance(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    folder = tmp_path_factory.mktemp(f"balance-{request.param}")
    if request.param == "pdf":
        path = text_pdf(folder / "CONTOSO_2024_10K.pdf", [BALANCE])
    else:
        path = folder / "CONTOSO_2024_10K.md"
        path.write_text(BALANCE.replace("    ", ""), encoding="utf-8")
    settings = Settings.from_env(home=folder / "home")
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(path).status == "ingested"
    return settings


def test_a_total_naming_a_wider_whole_is_not_its_blocks_total(balance: Settings) -> None:
    rows = {r.label: r for r in _record(balance).rows}
    assert rows["Accounts payable"].parent == "Current liabilities"
    assert rows["Total liabilities"].total and rows["Total liabilities"].parent == ""


def test_a_sub_heading_inside_a_table_does_not_head_the_rows_past_its_block(balance: Settings) -> None:
    """'Current liabilities:' heads its two rows; total liabilities are no current liabilities, in either format."""
    answer = ask_once(balance, "What were Contoso's current liabilities in 2024?")
    assert "2,130" not in stated(answer)
    assert answer.startswith("Not found")
    assert "$410 million" in ask_once(balance, "What was Contoso's accounts payable in 2024?")


FILMS = """# Fabrikam Studios Ltd.

## Item 1. Business

Certain information regarding the films we released in fiscal 2019 and 2018 is set forth below:

| | Year ended March 31, | |
|---|---|---|
| | 2019 | 2018 |
| Worldwide (Domestic and Export) | | |
| Feature films | 7 | 10 |
| Short films | 4 | 3 |
| Export Only | | |
| Feature films | 2 | 5 |
| Short films | 1 | 1 |
| Total | 14 | 19 |
"""


@pytest.fixture(scope="module")
def films(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("films"), "FABRIKAM_2019_20F.md", FILMS)


@pytest.mark.parametrize(("question", "figure"), [
    ("What is the worldwide increase / (decrease) in feature films from 2018 to 2019?", "-3"),
    ("What is the export increase / (decrease) in feature films from 2018 to 2019?", "-3"),
    ("What is the export increase / (decrease) in short films from 2018 to 2019?", "0"),
])
def test_a_change_over_one_rows_cells_is_of_that_rows_block(films: Settings, question: str, figure: str) -> None:
    """The sub-heading is the row's, so the change computed over its cells is the block's the question names."""
    answer = ask_once(films, question)
    assert not answer.startswith("Not found")
    assert f": {figure} (computed" in answer


def test_how_many_were_there_asks_a_row_not_the_word_there(films: Settings) -> None:
    assert "was 2 " in ask_once(films, "How many export feature films were there in 2019?")
