"""Turn a filing (PDF, HTML, Markdown or plain text) into pages of clean text.

The document text is the pages joined with :data:`agent.schemas.PAGE_SEPARATOR`; every page records its offset
in it, so later stages (sections, tables, chunks) can cite exact spans. Line structure is kept on purpose:
table detection reads one row (or one cell) per line. Bad input raises :class:`agent.errors.IngestError` with
one clear reason, never a traceback.
"""

from __future__ import annotations

import re
import time
import unicodedata
import warnings
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from agent.config import Settings
from agent.errors import IngestError
from agent.ingest.bounded import bounded_call
from agent.ingest.grid import (
    GridPlace,
    fold_header,
    is_figure,
    spanned_grid,
)
from agent.ingest.grid_lines import (
    GRID_MARK_RE,
    GRID_OPEN,
    cell_texts,
    grid_lines,
    grid_places,
    marked_line,
    merged_symbol_cells,
    spanned_cells,
)
from agent.ingest.layout import PlacedLine, align_lines, placed_lines
from agent.schemas import PAGE_SEPARATOR, Page

SUPPORTED_SUFFIXES: dict[str, str] = {
    ".pdf": "pdf",
    ".htm": "html",
    ".html": "html",
    ".xhtml": "html",
    ".md": "md",
    ".markdown": "md",
    ".txt": "txt",
}
SUPPORTED_EXTENSIONS: tuple[str, ...] = tuple(sorted(SUPPORTED_SUFFIXES))
# Documents without page breaks are cut into pages of about this many words so citations stay local.
WORDS_PER_PAGE = 3000
# Lines longer than this are cut at a space before pagination; about one page of dense text.
LONG_LINE_CHARS = 20_000
# Below this many letters/digits per page on average a PDF has no usable text layer (scanned images).
MIN_TEXT_CHARS_PER_PAGE = 20
# A text file with more NUL bytes than this share is binary, not text (stray NULs in real text are dropped).
MAX_NUL_SHARE = 0.1
HTML_CHILD_MB = 4.0  # an HTML file this large is read in a child process under the parse budget (start-up ~1 s)
MAX_CONTROL_SHARE = 0.02  # real text has none; random bytes have about 10 % (26 of 256 values)
MIN_CONTROL_BYTES = 64  # a few stray control characters in a short text are dropped, not a reason to refuse it
BINARY_SAMPLE_BYTES = 65536  # the start of a file says whether it is text
MAX_COLSPAN = 64  # a colspan beyond any real table's width is markup damage, not a caption over 1,000 columns

_LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st"}
# pdfium marks a hyphen it met at a line end as U+FFFE; the word continues on the same output line.
_PDFIUM_HYPHEN = "\ufffe"
# Symbol fonts map glyphs into the private-use area at U+F000 + the ASCII code; bullets sit at 0xB7 etc.
_SYMBOL_BULLETS = {0xF0B7, 0xF0A7, 0xF0D8, 0xF0FC, 0xF06E, 0xF075, 0xF0A8}
_SPACES_RE = re.compile(r"[ \t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+")
_BLANK_RUN_RE = re.compile(r"\n{3,}")
_BARE_LF_RE = re.compile(r"(?<!\r)\n")
# Dot leaders ("Business ........ 4") carry nothing and break row parsing; an ellipsis (three dots) stays.
_DOT_LEADER_RE = re.compile(r"(?:\s?\.){4,}")

# Text extraction glues a date's day to its year ('december 312008', 'dec . 282013'): split them again, so the
# column reads as December 31, 2008. Only a month name, a two-digit day and a year, nothing else.
_GLUED_DATE_RE = re.compile(
    r"\b((?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?(?:\s\.)?\s)(0[1-9]|[12]\d|3[01])"
    r"((?:19|20)\d\d)\b",
    re.IGNORECASE,
)


# Letter-spaced headers come out of extraction digit by digit ('2 0 1 8'): a year so spaced is joined again.
_SPACED_YEAR_RE = re.compile(r"(?<![\d,.] )(?<![\d,.])\b(1 9|2 0) (\d) (\d)\b(?! \d)")


PageProgress = Callable[[int, int], None]  # (pages read, pages in the file)
PlacedLines = list[tuple[str, PlacedLine | None]]  # a PDF page's raw lines with their boxes and runs
IndentedLines = list[tuple[str, float | None]]  # an HTML page's table rows with their indentation (page fraction)
# A page's grid table lines with their table's ordinal and their cells' columns.
GriddedLines = list[tuple[str, tuple[int, list[GridPlace]] | None]]


class FactSpan(BaseModel):
    """Where an inline-XBRL fact's figure is printed: 0-based page and its span in that page's text."""

    page: int
    start: int
    end: int


class ParsedDocument(BaseModel):
    """Pages of one file; ``text`` is the document text every offset refers to."""

    pages: list[Page] = Field(default_factory=list)
    source_format: str = Field(description="pdf | html | md | txt")
    inline_xbrl: bool = Field(default=False, description="an HTML filing whose figures carry inline-XBRL tags")
    fact_spans: dict[str, FactSpan] = Field(
        default_factory=dict, description="inline-XBRL fact id -> where its figure is printed (HTML filings)"
    )

    @property
    def text(self) -> str:
        """The document text: page texts joined with PAGE_SEPARATOR."""
        return PAGE_SEPARATOR.join(p.text for p in self.pages)


# -------------------------------------------------------------------------------------------------------
# Text normalisation
# -------------------------------------------------------------------------------------------------------
def _clean_char(ch: str) -> str:
    code = ord(ch)
    if ch == _PDFIUM_HYPHEN:
        return "-"
    if ch in _LIGATURES:
        return _LIGATURES[ch]
    if 0xF000 <= code <= 0xF0FF:
        if code in _SYMBOL_BULLETS:
            return "•"
        return chr(code - 0xF000) if 0x20 <= code - 0xF000 < 0x7F else ""
    category = unicodedata.category(ch)
    if category in ("Cc", "Cf", "Cs", "Co", "Cn"):
        return ""
    if category in ("Zl", "Zp"):
        return "\n"
    return ch


_NEEDS_CLEANING_RE = re.compile(r"[^\x20-\x7e\n\t]")


def normalise_text(text: str) -> str:
    """Clean extracted text but keep its lines: one line per visual line, table rows intact.

    Line endings become ``\\n``; NULs, control and format characters go; ligatures and pdfium's hyphen
    marker are spelled out; runs of spaces collapse; lines are trimmed; blank-line runs shrink to one.
    A form feed inside a page becomes a line break (form feeds separate pages in the document text).
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n").replace("\v", "\n")
    if _NEEDS_CLEANING_RE.search(text):
        text = "".join(ch if ch in "\n\t" else _clean_char(ch) for ch in text)
    if "...." in text or ". . . ." in text:
        text = _DOT_LEADER_RE.sub(" ", text)
    text = _GLUED_DATE_RE.sub(r"\1\2 \3", text)
    if " 0 " in text or " 9 " in text:
        text = _SPACED_YEAR_RE.sub(lambda m: m.group(0).replace(" ", ""), text)
    lines = [_SPACES_RE.sub(" ", line).strip() for line in text.split("\n")]
    return _BLANK_RUN_RE.sub("\n\n", "\n".join(lines)).strip("\n")


def _short_lines(lines: list[str], max_chars: int) -> Iterator[str]:
    """Lines, with any line longer than ``max_chars`` cut at its last space before each limit (a text file
    with no line breaks is still many pages, not one)."""
    for line in lines:
        start = 0
        while len(line) - start > max_chars:
            cut = line.rfind(" ", start, start + max_chars)
            cut = cut if cut > start else start + max_chars
            yield line[start:cut]
            start = cut + 1
        yield line[start:] if start else line


def _paginate_words(lines: list[str], words_per_page: int = WORDS_PER_PAGE) -> list[str]:
    """Cut a page-less document into pages of about ``words_per_page`` words at line boundaries."""
    pages: list[str] = []
    current: list[str] = []
    words = 0
    for line in _short_lines(lines, LONG_LINE_CHARS):
        current.append(line)
        words += len(line.split())
        if words >= words_per_page:
            pages.append("\n".join(current))
            current, words = [], 0
    if current:
        pages.append("\n".join(current))
    return pages


def _assemble(path: Path, raw_pages: list[str], source_format: str, settings: Settings,
              placed: Sequence[PlacedLines] = (), indented: Sequence[IndentedLines] = (),
              gridded: Sequence[GriddedLines] = ()) -> ParsedDocument:
    """The document's pages from its raw page texts; ``placed`` gives a PDF page's lines with their boxes,
    ``indented`` an HTML page's table rows with their indentation, ``gridded`` a page's grid table lines with
    the columns of their cells."""
    texts = [normalise_text(t) for t in raw_pages]
    first, last = 0, len(texts)
    # Drop empty pages at the ends of HTML/Markdown/text splits (a break right at the start or end).
    if source_format != "pdf":
        while last > first and not texts[last - 1].strip():
            last -= 1
        while first < last and not texts[first].strip():
            first += 1
    texts, placed, indented = texts[first:last], list(placed)[first:last], list(indented)[first:last]
    gridded = list(gridded)[first:last]
    if not any(t.strip() for t in texts):
        raise IngestError(str(path), "no text found in the file")
    if len(texts) > settings.max_pages:
        raise IngestError(str(path), f"{len(texts)} pages is more than max_pages={settings.max_pages}")
    _check_doc_chars(path, sum(len(t) for t in texts), settings)
    for i, text in enumerate(texts):
        if len(text) > settings.max_page_chars:
            raise IngestError(
                str(path),
                f"page {i + 1} holds {len(text):,} characters, over max_page_chars={settings.max_page_chars:,} "
                "(no real filing page is that long)",
            )
    pages: list[Page] = []
    offset = 0
    for i, text in enumerate(texts):
        at = align_lines(text, placed[i], normalise_text) if i < len(placed) else []
        lines = [p.box if p is not None else None for p in at]
        runs = [[r.model_copy(update={"text": normalise_text(r.text)}) for r in p.runs] if p is not None else None
                for p in at]
        indents = align_lines(text, indented[i], normalise_text) if i < len(indented) else []
        marks = align_lines(text, gridded[i], normalise_text) if i < len(gridded) else []
        pages.append(Page(page=i, text=text, char_start=offset, lines=lines, runs=runs, indents=indents,
                          grid=[m[1] if m is not None else None for m in marks],
                          grid_tables=[m[0] if m is not None else None for m in marks]))
        offset += len(text) + len(PAGE_SEPARATOR)
    return ParsedDocument(pages=pages, source_format=source_format)


# -------------------------------------------------------------------------------------------------------
# PDF
# -------------------------------------------------------------------------------------------------------
_PDF_STREAM_RE = re.compile(rb"(?<!end)stream\r?\n")
_INFLATE_STEP = 1 << 20  # inflate a stream a megabyte at a time, so a bomb is caught without holding it


def _check_pdf_streams(path: Path, settings: Settings) -> None:
    """Refuse a PDF with a compressed stream that inflates beyond ``max_pdf_stream_mb``, before pdfium
    inflates it whole in memory (a 2 MB file can hold a 2 GiB page, or one huge stream shared by every page).
    Streams are inflated in steps and thrown away, so the check itself needs little memory."""
    limit = int(settings.max_pdf_stream_mb * 1024 * 1024)
    data = path.read_bytes()
    for match in _PDF_STREAM_RE.finditer(data):
        start = match.end()
        end = data.find(b"endstream", start)
        inflater = zlib.decompressobj()
        pending = data[start : end if end >= 0 else len(data)]
        total = 0
        try:
            while pending and not inflater.eof:
                total += len(inflater.decompress(pending, _INFLATE_STEP))
                pending = inflater.unconsumed_tail
                if total > limit:
                    raise IngestError(
                        str(path),
                        f"a compressed stream at byte {start:,} inflates beyond max_pdf_stream_mb="
                        f"{settings.max_pdf_stream_mb:g} (a decompression bomb, not a filing)",
                    )
        except zlib.error:
            continue  # not Flate data (images, other filters); pdfium decides what it is


def _deadline(path: Path, settings: Settings) -> Callable[[str], None]:
    """A check to call between steps of reading a file: raises once ``max_parse_seconds`` have passed."""
    stop = time.monotonic() + settings.max_parse_seconds

    def check(where: str) -> None:
        if time.monotonic() > stop:
            raise IngestError(
                str(path), f"reading stopped at {where}: over max_parse_seconds={settings.max_parse_seconds:g}"
            )

    return check


def _pdf_pages(path: Path, settings: Settings, on_page: PageProgress | None = None
               ) -> tuple[list[str], list[PlacedLines]]:
    """Each page's text as pdfium lays it out, and where each of its lines is printed."""
    import pypdfium2 as pdfium

    _check_pdf_streams(path, settings)
    check_time = _deadline(path, settings)
    try:
        pdf = pdfium.PdfDocument(str(path))
    except Exception as exc:  # pdfium raises PdfiumError (and others) for anything it cannot open
        raise IngestError(str(path), f"not a readable PDF: {exc}") from exc
    try:
        n_pages = len(pdf)
        if n_pages == 0:
            raise IngestError(str(path), "not a readable PDF: it has no pages")
        if n_pages > settings.max_pages:
            raise IngestError(str(path), f"{n_pages} pages is more than max_pages={settings.max_pages}")
        texts: list[str] = []
        placed: list[PlacedLines] = []
        total_chars = 0
        for i in range(n_pages):
            check_time(f"page {i + 1} of {n_pages}")
            try:
                page = pdf[i]
                textpage = page.get_textpage()
                # pdfium ends visual lines with CRLF; a bare LF separates words it placed apart on one line.
                texts.append(_BARE_LF_RE.sub(" ", textpage.get_text_range()))
                width, height = page.get_size()
                try:
                    placed.append(placed_lines(textpage, texts[-1], width, height))
                except Exception:  # a layout pdfium cannot box loses indentation and boxes, not the page's text
                    placed.append([])
                textpage.close()
                page.close()
            except Exception as exc:
                raise IngestError(str(path), f"not a readable PDF: page {i + 1}: {exc}") from exc
            total_chars += len(texts[-1])
            _check_doc_chars(path, total_chars, settings)
            if on_page is not None:
                on_page(i + 1, n_pages)
    finally:
        pdf.close()
    meaningful = sum(sum(ch.isalnum() for ch in t) for t in texts)
    if meaningful < MIN_TEXT_CHARS_PER_PAGE * n_pages:
        raise IngestError(
            str(path),
            f"the PDF has no text layer ({meaningful} letters or digits on {n_pages} pages): "
            "it looks scanned, so OCR is needed first (finrag reads text PDFs only)",
        )
    return texts, placed


# -------------------------------------------------------------------------------------------------------
# HTML (EDGAR .htm)
# -------------------------------------------------------------------------------------------------------
_DROP_TAGS = {"script", "style", "head", "title", "meta", "link", "noscript", "template", "svg", "iframe", "object"}
_BLOCK_TAGS = {
    "address", "article", "aside", "blockquote", "body", "center", "dd", "details", "dialog", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "html",
    "li", "main", "nav", "ol", "p", "pre", "section", "summary", "ul", "caption",
}
_BREAK_BEFORE_RE = re.compile(r"(?:page-)?break-before\s*:\s*(?:always|page|left|right)", re.IGNORECASE)
_BREAK_AFTER_RE = re.compile(r"(?:page-)?break-after\s*:\s*(?:always|page|left|right)", re.IGNORECASE)
_HIDDEN_RE = re.compile(r"display\s*:\s*none", re.IGNORECASE)
_PAGE_MARK = "\x00PAGE\x00"  # internal marker; NULs never survive normalisation, so it cannot collide
# Around an inline-XBRL figure ('<ix:nonFraction id="f-54">68,714</ix:nonFraction>') the writer puts
# '⟦f-54⟧68,714⟦/⟧', so the fact's page and span are known after normalisation; then the marks are removed.
_FACT_OPEN, _FACT_SHUT = "\u27e6", "\u27e7"
_FACT_END = f"{_FACT_OPEN}/{_FACT_SHUT}"
_FACT_MARK_RE = re.compile(f"{_FACT_OPEN}([^{_FACT_SHUT}]*){_FACT_SHUT}")
_FACT_ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,80}$")
# A table row whose label the HTML indents starts its line with '⟨13.5⟩' (points from the cell's left edge); the
# marks are read into each page's indentation and removed before anything else reads the text.
_INDENT_OPEN, _INDENT_SHUT = "\u27e8", "\u27e9"
_INDENT_MARK_RE = re.compile(f"^{_INDENT_OPEN}(-?[0-9.]+){_INDENT_SHUT}", re.MULTILINE)
HTML_PAGE_WIDTH_PT = 612.0  # EDGAR's HTML is set for US letter (8.5 in): indentation in points over the page width
NBSP_PT = 2.5  # a leading no-break space indents by about a quarter em of a 10 pt face
# CSS lengths in points; a bare number is pixels, an em is taken at a 10 pt face, a percentage is left unread.
_CSS_POINTS = {"pt": 1.0, "px": 0.75, "": 0.75, "in": 72.0, "cm": 72 / 2.54, "mm": 72 / 25.4, "em": 10.0, "pc": 12.0}
_CSS_LENGTH_RE = re.compile(r"^(-?\d*\.?\d+)\s*(pt|px|in|cm|mm|em|pc)?$", re.IGNORECASE)


class _HtmlWriter:
    """Walks a parsed HTML tree and writes lines, table rows and page-break markers."""

    def __init__(self, hr_breaks: bool, mark_facts: bool = False) -> None:
        self.parts: list[str] = []
        self.tables = 0  # grid tables written so far: each table's lines carry its ordinal in the document
        self.hr_breaks = hr_breaks
        self.mark_facts = mark_facts

    def newline(self) -> None:
        if self.parts and not self.parts[-1].endswith("\n"):
            self.parts.append("\n")

    def page_break(self) -> None:
        self.newline()
        self.parts.append(_PAGE_MARK + "\n")

    def walk(self, node: object) -> None:
        from bs4 import Comment, Declaration, Doctype, NavigableString, ProcessingInstruction, Tag

        if isinstance(node, (Comment, Declaration, Doctype, ProcessingInstruction)):
            return
        if isinstance(node, NavigableString):
            text = re.sub(r"\s+", " ", str(node))
            # Whitespace between blocks is layout, not a line of its own.
            if text and (text != " " or (self.parts and not self.parts[-1].endswith("\n"))):
                self.parts.append(text)
            return
        if not isinstance(node, Tag):
            return
        name = (node.name or "").lower()
        style = str(node.get("style") or "")
        if name in _DROP_TAGS or _HIDDEN_RE.search(style) or node.get("hidden") is not None:
            return
        if name == "hr":
            if self.hr_breaks or _BREAK_AFTER_RE.search(style) or _BREAK_BEFORE_RE.search(style):
                self.page_break()
            else:
                self.newline()
            return
        if _BREAK_BEFORE_RE.search(style):
            self.page_break()
        fact_id = str(node.get("id") or "") if self.mark_facts and name == "ix:nonfraction" else ""
        if fact_id and _FACT_ID_RE.match(fact_id):
            self.parts.append(f"{_FACT_OPEN}{fact_id}{_FACT_SHUT}")
            for child in node.children:
                self.walk(child)
            self.parts.append(_FACT_END)
        elif name == "br":
            self.parts.append("\n")
        elif name == "table":
            self.newline()
            self.table(node)
            self.newline()
        elif name in _BLOCK_TAGS:
            self.newline()
            for child in node.children:
                self.walk(child)
            self.newline()
        else:
            for child in node.children:
                self.walk(child)
        if _BREAK_AFTER_RE.search(style):
            self.page_break()

    def cell_text(self, cell: object) -> str:
        inner = _HtmlWriter(hr_breaks=False, mark_facts=self.mark_facts)
        for child in cell.children:  # type: ignore[attr-defined]
            inner.walk(child)
        text = re.sub(r"\s+", " ", "".join(inner.parts).replace(_PAGE_MARK, " ")).strip()
        # A cell that holds only an empty fact's marks is an empty cell, as it is without marks.
        return text if not self.mark_facts or unmarked(text).strip() else ""

    def table(self, table: object) -> None:
        rows = [tr for tr in table.find_all("tr") if tr.find_parent("table") is table]  # type: ignore[attr-defined]
        indents = [_label_indent(tr) for tr in rows]
        if not any(indents):
            indents = [None] * len(rows)  # a table that indents nothing says nothing of its blocks
        spanned = [
            [(self.cell_text(td), _colspan(td)) for td in tr.find_all(["td", "th"]) if td.find_parent("tr") is tr]
            for tr in rows
        ]
        # A header printed over several rows is read as the grid it is (see agent.ingest.grid); otherwise, and
        # when the grid cannot name each column, the rows are written as they are, empty cells dropped.
        lines = [merged_symbol_cells(list(spanned_cells(row))) for row in spanned]
        first, heads = _header_rows(spanned)
        folded, at = fold_header(spanned_grid(spanned)) if heads >= 2 else ([], None)
        body = len(spanned) - first
        read = grid_lines(folded, at) if at is not None else []
        if read and [cell_texts(r) for r in read[-body:]] == [cell_texts(r) for r in lines[-body:]]:
            lines = read  # the grid lost no cell of the body: its header is the better read
            indents = [None] * (len(read) - body) + indents[len(indents) - body:]
        self.tables += 1
        for line, indent in zip(lines, indents, strict=False):
            if line:
                if indent is not None:
                    self.parts.append(f"{_INDENT_OPEN}{indent:.1f}{_INDENT_SHUT}")
                self.parts.append(marked_line(line, self.tables))
                self.parts.append("\n")


def _label_indent(row: object) -> float | None:
    """How far a table row's label is indented, in points: the CSS left padding, margin and text-indent of its
    first cell holding text and of every element around that text, and the no-break spaces before it; None for a
    row without text."""
    from bs4 import NavigableString

    for cell in row.find_all(["td", "th"]):  # type: ignore[attr-defined]
        strings = [t for t in cell.find_all(string=True) if isinstance(t, NavigableString)]
        text = next((t for t in strings if t.strip()), None)
        if text is None:
            continue
        before = "".join(strings[: strings.index(text)]) + text[: len(text) - len(text.lstrip())]
        points = before.count("\xa0") * NBSP_PT
        for element in text.parents:
            points += _css_left(str(element.get("style") or "")) if hasattr(element, "get") else 0.0
            if element is cell:
                break
        return max(points, 0.0)
    return None


def _css_left(style: str) -> float:
    """The points a CSS declaration block moves a first line right: left padding, left margin, text-indent."""
    points = 0.0
    for declaration in style.split(";"):
        name, _, value = declaration.partition(":")
        name, values = name.strip().lower(), value.split()
        if name in ("padding", "margin") and values:
            values = [values[{1: 0, 2: 1, 3: 1}.get(len(values), 3)]]  # the shorthand's left value
        elif name not in ("padding-left", "margin-left", "text-indent"):
            continue
        m = _CSS_LENGTH_RE.match(values[0]) if len(values) == 1 else None
        if m is not None:
            points += float(m.group(1)) * _CSS_POINTS[(m.group(2) or "").lower()]
    return points


def _line_marks(raw_pages: list[str]) -> tuple[list[str], list[IndentedLines], list[GriddedLines]]:
    """The pages without the writer's line marks, each page's indented lines with their indentation as a
    fraction of the page width, and its grid lines with the columns of their cells."""
    pages: list[str] = []
    indented: list[IndentedLines] = []
    gridded: list[GriddedLines] = []
    for page in raw_pages:
        indents: IndentedLines = []
        grids: GriddedLines = []
        if _INDENT_OPEN in page or GRID_OPEN in page:  # most prose pages, and all of a PDF's, hold no mark
            for line in page.split("\n"):
                indent = _INDENT_MARK_RE.match(line)
                rest = line[indent.end():] if indent else line
                places = GRID_MARK_RE.match(rest)
                text = unmarked(rest[places.end():] if places else rest)
                if indent:
                    indents.append((text, float(indent.group(1)) / HTML_PAGE_WIDTH_PT))
                if places:
                    grids.append((text, (int(places.group(1)), grid_places(places.group(2)))))
            page = GRID_MARK_RE.sub("", _INDENT_MARK_RE.sub("", page))
        pages.append(page)
        indented.append(indents)
        gridded.append(grids)
    return pages, indented, gridded


def _colspan(cell: object) -> int:
    try:
        return max(1, min(int(str(cell.get("colspan") or 1)), MAX_COLSPAN))  # type: ignore[attr-defined]
    except ValueError:
        return 1


def _header_rows(rows: list[list[tuple[str, int]]]) -> tuple[int, int]:
    """Where a table's first row of figures is, and how many rows above it print something over its value
    columns."""
    count = 0
    for i, row in enumerate(rows):
        texts = [text for text, _ in row[1:] if text]
        if any(is_figure(t) for t in texts):
            return i, count
        count += bool(texts)
    return len(rows), count


def _decode(data: bytes) -> str:
    """Bytes to text: BOMs honoured, UTF-8 first, then Windows-1252 (old EDGAR files), never failing."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace").replace("\x00", "")
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace").replace("\x00", "")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("cp1252", errors="replace")
    # NULs carry no text; removing them here also keeps the internal page marker unforgeable.
    return text.replace("\x00", "")


def unmarked(text: str) -> str:
    """``text`` without the writer's inline-XBRL fact marks."""
    return _FACT_MARK_RE.sub("", text) if _FACT_OPEN in text else text


def _marks(text: str) -> tuple[str, dict[str, tuple[int, int]]]:
    """Page text with marks -> the text without them and each fact id's span in it."""
    out: list[str] = []
    spans: dict[str, tuple[int, int]] = {}
    length, open_id, opened_at, last = 0, "", 0, 0
    for m in _FACT_MARK_RE.finditer(text):
        out.append(text[last:m.start()])
        length += m.start() - last
        last = m.end()
        if m.group(1) == "/":
            if open_id:
                spans.setdefault(open_id, (opened_at, length))
            open_id = ""
        else:
            open_id, opened_at = m.group(1), length
    out.append(text[last:])
    return "".join(out), spans


def has_inline_xbrl(data: bytes) -> bool:
    """Whether an HTML file carries inline-XBRL figures (EDGAR 10-K/10-Q since 2019)."""
    return b"ix:nonFraction" in data or b"ix:nonfraction" in data


def locate_facts(marked_pages: list[str], pages: list[Page]) -> dict[str, FactSpan]:
    """Each marked fact's page and span in the final page texts (marks normalised with their page, then
    removed; where normalising moved a line's spaces, the figure is looked for in that page instead)."""
    texts = [normalise_text(t) for t in marked_pages]
    while texts and not unmarked(texts[-1]).strip():
        texts.pop()
    while texts and not unmarked(texts[0]).strip():
        texts.pop(0)
    found: dict[str, FactSpan] = {}
    for page, marked in zip(pages, texts, strict=False):
        plain, spans = _marks(marked)
        for fact_id, (start, end) in spans.items():
            if plain != page.text:  # the marks changed how spaces were trimmed: find the figure itself
                figure = plain[start:end]
                start = page.text.find(figure, max(0, start - 40)) if figure else -1
                if start < 0:
                    continue
                end = start + len(figure)
            found.setdefault(fact_id, FactSpan(page=page.page, start=start, end=end))
    return found


def _budgeted_html_pages(path: Path, data: bytes, mark_facts: bool, settings: Settings) -> list[str]:
    """:func:`_html_pages`, within the parse budget: a file over :data:`HTML_CHILD_MB` is read in a process of its own
    (:func:`agent.ingest.bounded.bounded_call`); a small one here."""
    if len(data) < HTML_CHILD_MB * 1024 * 1024:
        return _html_pages(path, data, mark_facts)
    try:
        return bounded_call(_html_pages, (path, data, mark_facts), where=str(path), seconds=settings.max_parse_seconds,
                            memory_mb=settings.max_parse_memory_mb, preload=("bs4", "lxml.etree"))
    except IngestError as exc:
        if "recursion" in exc.reason.lower():
            raise IngestError(str(path), "HTML nested too deeply to read (thousands of levels)") from None
        raise


def _html_pages(path: Path, data: bytes, mark_facts: bool = False) -> list[str]:
    from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning

    with warnings.catch_warnings():  # inline-XBRL filings are XHTML; the HTML reading is the one wanted
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        soup = BeautifulSoup(_decode(data), "lxml")
    css_breaks = any(
        _BREAK_BEFORE_RE.search(str(tag.get("style") or "")) or _BREAK_AFTER_RE.search(str(tag.get("style") or ""))
        for tag in soup.find_all(style=True)
    )
    writer = _HtmlWriter(hr_breaks=not css_breaks and soup.find("hr") is not None, mark_facts=mark_facts)
    writer.walk(soup)
    text = "".join(writer.parts)
    if _PAGE_MARK in text:
        # Consecutive breaks (a break-after followed by a break-before) would make empty pages.
        return [page for page in text.split(_PAGE_MARK) if page.strip()]
    return _paginate_words(text.split("\n"))


# -------------------------------------------------------------------------------------------------------
# Markdown and plain text
# -------------------------------------------------------------------------------------------------------
_MD_PAGE_BREAK_RE = re.compile(
    r"^\s*(?:<!--\s*page(?:\s*-?\s*break)?\b[^>]*-->|-{3,}\s*page\s*-?\s*break\s*-{3,}|\\newpage|\\pagebreak)\s*$",
    re.IGNORECASE,
)
_MD_TABLE_RULE_RE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_MD_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_MD_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_MD_LINK_RE = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_MD_EMPHASIS_RE = re.compile(r"(\*\*|__)(.+?)\1")
_HTML_COMMENT_RE = re.compile(r"<!--.*?-->", re.DOTALL)


def _md_cells(line: str) -> list[str] | None:
    """A Markdown table row's cells, empty ones kept (the grid says which column each sits under); None when
    the line is no table row."""
    stripped = line.strip()
    if stripped.startswith("|") or (stripped.endswith("|") and "|" in stripped[:-1]):
        return [normalise_text(c) for c in stripped.strip("|").split("|")]
    return None


def _inline(line: str) -> str:
    """Markdown inline and heading markup removed."""
    heading = _MD_HEADING_RE.match(line)
    if heading:
        line = heading.group(1)
    line = _MD_IMAGE_RE.sub(r"\1", line)
    line = _MD_LINK_RE.sub(r"\1", line)
    return _MD_EMPHASIS_RE.sub(r"\2", line)


def _markdown_table(rows: list[list[str]], header: int | None, table: int) -> list[str]:
    """A Markdown table's rows as lines of cells: its header folded into one row of column names (see
    :func:`agent.ingest.grid.fold_header`), empty cells dropped. ``header``: the row above the table's rule;
    ``table``: the table's ordinal on its page."""
    folded, at = fold_header(rows)
    lines = grid_lines(folded, header if at is None else at)
    return [marked_line([(_inline(text), a, b) for text, a, b in line], table) for line in lines]


def _markdown_lines(page: list[str]) -> list[str]:
    """One page of Markdown as plain lines: tables read as grids, rules and code fences dropped."""
    out: list[str] = []
    tables = 0
    i = 0
    while i < len(page):
        if _md_cells(page[i]) is None or _MD_TABLE_RULE_RE.match(page[i]):
            if not (_MD_TABLE_RULE_RE.match(page[i]) or page[i].strip().startswith("```")):
                out.append(_inline(page[i]))
            i += 1
            continue
        rows: list[list[str]] = []
        header: int | None = None
        while i < len(page) and (_MD_TABLE_RULE_RE.match(page[i]) or _md_cells(page[i]) is not None):
            if _MD_TABLE_RULE_RE.match(page[i]):
                header = len(rows) - 1 if rows and header is None else header
            else:
                rows.append(_md_cells(page[i]) or [])
            i += 1
        tables += 1
        out.extend(_markdown_table(rows, header, tables))
    return out


def _split_breaks(lines: list[str], is_break: Callable[[str], bool]) -> list[list[str]]:
    pages: list[list[str]] = [[]]
    for line in lines:
        if is_break(line):
            pages.append([])
        else:
            pages[-1].append(line)
    return pages


def _markdown_pages(text: str) -> list[str]:
    """A Markdown document's pages of text, without the grid's marks."""
    return _line_marks(_marked_markdown_pages(text))[0]


def _marked_markdown_pages(text: str) -> list[str]:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # Page-break comments must survive the comment stripping, so mark them first.
    lines = [_PAGE_MARK if _MD_PAGE_BREAK_RE.match(line) else line for line in text.split("\n")]
    text = _HTML_COMMENT_RE.sub("", "\n".join(lines).replace("\f", "\n" + _PAGE_MARK + "\n"))
    raw_pages = _split_breaks(text.split("\n"), lambda line: line.strip() == _PAGE_MARK)
    pages = [_markdown_lines(page) for page in raw_pages]
    if len(pages) == 1:
        return _paginate_words(pages[0])
    return ["\n".join(page) for page in pages]


def _text_pages(text: str) -> list[str]:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\f" in text:
        return text.split("\f")
    return _paginate_words(text.split("\n"))


def _check_doc_chars(path: Path, n_chars: int, settings: Settings) -> None:
    if n_chars > settings.max_doc_chars:
        raise IngestError(
            str(path), f"over max_doc_chars={settings.max_doc_chars:,} characters of text (no real filing holds that much)"
        )


_CONTROL_BYTES = frozenset([*range(0, 9), *range(14, 32), 127])  # no text encoding but UTF-16 writes these


def _check_not_binary(path: Path, data: bytes, kind: str) -> None:
    """Refuse bytes that are no text or markup (an image or an archive renamed .html or .txt): too many NUL or
    other control bytes in the file's first :data:`BINARY_SAMPLE_BYTES` (a few stray ones are dropped later)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return  # UTF-16 writes a NUL beside every ASCII character
    sample = data[:BINARY_SAMPLE_BYTES]
    if sample.count(b"\x00") > MAX_NUL_SHARE * len(sample):
        raise IngestError(str(path), f"looks like a binary file, not {kind} (NUL bytes); check the extension")
    controls = sum(b in _CONTROL_BYTES for b in sample)
    if controls > max(MIN_CONTROL_BYTES, MAX_CONTROL_SHARE * len(sample)):
        raise IngestError(str(path), f"looks like a binary file, not {kind} (control bytes); check the extension")


def _read_text(path: Path, data: bytes, settings: Settings) -> str:
    # Every character takes at least one byte (two in UTF-16), so a larger file is refused before decoding it.
    if len(data) > 2 * settings.max_doc_chars:
        _check_doc_chars(path, len(data) // 2, settings)
    text = _decode(data)
    _check_doc_chars(path, len(text), settings)
    return text


# -------------------------------------------------------------------------------------------------------
# Entry point
# -------------------------------------------------------------------------------------------------------
def check_file(path: Path, settings: Settings) -> None:
    """What can be said of a file without reading its text: a supported type, its size within the limits, not
    empty, not binary under a text extension, a PDF that opens within the page limit. IngestError with the
    reason; a file that passes may still have no text (a scanned PDF), which only reading it finds."""
    path = Path(path)
    source_format = _checked_format(path, settings)
    if source_format != "pdf":
        with path.open("rb") as file:
            data = file.read(BINARY_SAMPLE_BYTES)
        if not data.strip() and path.stat().st_size <= BINARY_SAMPLE_BYTES:
            raise IngestError(str(path), "no text found in the file (only whitespace)")
        _check_not_binary(path, data, "HTML" if source_format == "html" else "text")
        return
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(str(path))
    except Exception as exc:  # pdfium raises PdfiumError (and others) for anything it cannot open
        raise IngestError(str(path), f"not a readable PDF: {exc}") from exc
    try:
        if len(pdf) == 0:
            raise IngestError(str(path), "not a readable PDF: it has no pages")
        if len(pdf) > settings.max_pages:
            raise IngestError(str(path), f"{len(pdf)} pages is more than max_pages={settings.max_pages}")
    finally:
        pdf.close()


def _checked_format(path: Path, settings: Settings) -> str:
    """The file's format by its extension, once its existence and size are checked."""
    suffix = path.suffix.lower()
    source_format = SUPPORTED_SUFFIXES.get(suffix)
    if source_format is None:
        supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
        raise IngestError(str(path), f"unsupported file type '{suffix or '(none)'}'; supported: {supported}")
    if not path.exists():
        raise IngestError(str(path), "file not found")
    if not path.is_file():
        raise IngestError(str(path), "not a regular file")
    size = path.stat().st_size
    if size == 0:
        raise IngestError(str(path), "empty file (0 bytes)")
    size_mb = size / (1024 * 1024)
    if size_mb > settings.max_file_mb:
        raise IngestError(
            str(path), f"file is {size_mb:.1f} MB, over the limit max_file_mb={settings.max_file_mb:g}"
        )
    if source_format == "html" and size_mb > settings.max_markup_mb:
        raise IngestError(
            str(path), f"HTML file is {size_mb:.1f} MB, over the limit max_markup_mb={settings.max_markup_mb:g}"
        )
    return source_format


def load_pages(path: Path, settings: Settings, on_page: PageProgress | None = None) -> ParsedDocument:
    """Read a filing into pages. Raises IngestError with one clear reason for any bad input. ``on_page(done,
    total)`` is called as PDF pages are read (other formats are read in one go)."""
    path = Path(path)
    source_format = _checked_format(path, settings)
    if source_format == "pdf":
        raw_pages, placed = _pdf_pages(path, settings, on_page)
        return _assemble(path, raw_pages, source_format, settings, placed)
    else:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise IngestError(str(path), f"cannot read the file: {exc.strerror or exc}") from exc
        if not data.strip():
            raise IngestError(str(path), "no text found in the file (only whitespace)")
        _check_not_binary(path, data, "HTML" if source_format == "html" else "text")
        if source_format == "html":
            marked = settings.read_xbrl and has_inline_xbrl(data)
            try:
                raw_pages, indented, gridded = _line_marks(_budgeted_html_pages(path, data, marked, settings))
            except RecursionError as exc:
                raise IngestError(str(path), "HTML nested too deeply to read (thousands of levels)") from exc
            if marked:
                parsed = _assemble(path, [unmarked(p) for p in raw_pages], source_format, settings, indented=indented,
                                   gridded=gridded)
                parsed.inline_xbrl, parsed.fact_spans = True, locate_facts(raw_pages, parsed.pages)
                return parsed
            return _assemble(path, raw_pages, source_format, settings, indented=indented, gridded=gridded)
        elif source_format == "md":
            raw_pages, _, gridded = _line_marks(_marked_markdown_pages(_read_text(path, data, settings)))
            return _assemble(path, raw_pages, source_format, settings, gridded=gridded)
        else:
            raw_pages = _text_pages(_read_text(path, data, settings))
    return _assemble(path, raw_pages, source_format, settings)
