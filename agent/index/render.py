"""The cited page as a reader sees it: a PDF page rendered to PNG with the boxes of the cited span, or, for HTML,
Markdown and text filings, the stored page text with the span's character offsets.

A citation names a document, a page and a quote: a table row as finrag linearises it ("Purchases of property,
plant and equipment | 2024: (437) | ... | (in millions)") or a sentence. The row label and the stated figure are
looked up on the page separately (the row is not one string on the page), the sentence by its opening words.
Only documents in the index are reachable: a request names a document, never a path.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from pydantic import BaseModel, Field

from agent.errors import FinragError, NotFoundError
from agent.index.store import Store
from agent.schemas import DocumentMeta

DEFAULT_RENDER_SCALE = 1.5  # 108 dpi: a 10-K page is legible on a laptop screen and renders in ~60 ms
MAX_RENDER_SCALE = 4.0  # 288 dpi; more only costs memory
SENTENCE_PROBE_WORDS = (8, 5, 3)  # words of a sentence quote tried in turn (line breaks end a PDF search)
_LINE_TOLERANCE = 0.3  # character boxes overlapping vertically by this share of the smaller one share a line


class Box(BaseModel):
    """A highlight rectangle as fractions of the page (0..1, origin top left), with what it marks."""

    x0: float
    y0: float
    x1: float
    y1: float
    kind: str = Field(description="label | figure | sentence")


# A page number sits in the first or last lines of a page (running header or footer).
PRINTED_NUMBER_LINES = 2
_PRINTED_NUMBER_RE = re.compile(r"^(?:page\s+)?[-–—]?\s*((?:[A-Z]-)?\d{1,3}|[ivxlc]{1,6})\s*[-–—]?$", re.IGNORECASE)


class PageView(BaseModel):
    """What the viewer shows for one cited page."""

    doc: str
    page: int = Field(description="1-based")
    n_pages: int
    source_format: str
    image: bool = Field(description="True: fetch the PNG; False: show ``text`` with ``spans`` marked")
    boxes: list[Box] = Field(default_factory=list)
    text: str = ""
    spans: list[tuple[int, int]] = Field(default_factory=list, description="character offsets into ``text``")
    found: bool = Field(default=False, description="whether the cited span was located on the page")
    note: str = ""
    printed: str = Field(default="", description="the page number printed on the page ('45'), when it has one")


def printed_page_number(text: str) -> str:
    """The number a page prints as its own ('45', 'Page 45', '- 45 -', 'F-7', 'ii'), from its first or last
    lines; '' when none is printed (the PDF's page index is then the only number)."""
    lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
    for line in [*reversed(lines[-PRINTED_NUMBER_LINES:]), *lines[:PRINTED_NUMBER_LINES]]:
        m = _PRINTED_NUMBER_RE.match(line)
        if m:
            return m.group(1)
    return ""


def quote_parts(quote: str, figure: str = "") -> list[tuple[str, str]]:
    """(text to find, kind) for a citation quote: a row's label and its figure, or a sentence's opening."""
    quote = " ".join(quote.split())
    if " | " in quote:
        label = quote.split(" | ", 1)[0].strip()
        parts = [(label, "label")] if label else []
        if figure.strip():
            parts.append((figure.strip(), "figure"))
        return parts
    return [(quote, "sentence")] if quote else []


def _resolve(store: Store, doc: str, page: int) -> DocumentMeta:
    meta = store.get_document(doc)
    if not 1 <= page <= meta.n_pages:
        raise NotFoundError(f"{meta.name} has pages 1 to {meta.n_pages}; there is no page {page}.")
    return meta


def _pdf_path(meta: DocumentMeta) -> Path | None:
    path = Path(meta.path) if meta.path else None
    return path if meta.source_format == "pdf" and path is not None and path.is_file() else None


def render_png(store: Store, doc: str, page: int, scale: float = DEFAULT_RENDER_SCALE) -> bytes:
    """The page of a PDF filing as PNG bytes."""
    import pypdfium2 as pdfium

    meta = _resolve(store, doc, page)
    path = _pdf_path(meta)
    if path is None:
        raise NotFoundError(f"{meta.name} has no PDF to render (its text is shown instead).")
    scale = min(max(scale, 0.25), MAX_RENDER_SCALE)
    pdf = pdfium.PdfDocument(str(path))
    try:
        image = pdf[page - 1].render(scale=scale).to_pil()
    finally:
        pdf.close()
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()


def view_page(store: Store, doc: str, page: int, quote: str = "", figure: str = "", chunk: str = "") -> PageView:
    """Where the cited span is on the page: boxes on the PDF page, or offsets into the stored page text. A quote
    of a table row read from ``chunk`` is boxed where ingest placed that row (a label printed twice on the page,
    'Federal' under 'Currently payable' and under 'Deferred', is the cited one), else found by searching."""
    meta = _resolve(store, doc, page)
    parts = quote_parts(quote, figure)
    path = _pdf_path(meta)
    text = store.page(meta.doc_id, page - 1).text
    view = PageView(doc=meta.name, page=page, n_pages=meta.n_pages, source_format=meta.source_format,
                    image=path is not None, printed=printed_page_number(text))
    if path is not None:
        view.boxes = _pdf_boxes(path, page, parts, _placed_row(store, chunk, page, quote, figure))
        view.found = bool(view.boxes) or not parts
        return view
    view.text = text
    view.spans = _text_spans(text, parts)
    view.found = bool(view.spans) or not parts
    if meta.source_format == "pdf":
        view.note = f"the original PDF is no longer at {meta.path}; showing the stored text of the page"
    return view


def _placed_row(store: Store, chunk_id: str, page: int, quote: str, figure: str) -> Box | None:
    """The box ingest stored for the row a quote is of: the chunk's typed table row with the quote's label (and,
    when several rows have it, the one printing the figure); None when the chunk has no placed row."""
    if not chunk_id or " | " not in quote:
        return None
    chunk = store.chunks_by_id([chunk_id]).get(chunk_id)
    record = chunk.table if chunk is not None else None
    if record is None or record.page != page - 1:
        return None
    label = " ".join(quote.split(" | ", 1)[0].split())
    rows = [r for r in record.rows if r.cells and len(r.box) == 4 and " ".join(r.label.split()) == label]
    printing = [r for r in rows if figure.strip() and any(figure.strip() in c.text for c in r.cells)]
    row = (printing or rows or [None])[0]
    if row is None:
        return None
    x0, y0, x1, y1 = row.box
    return Box(x0=x0, y0=y0, x1=x1, y1=y1, kind="label")


def _pdf_boxes(path: Path, page: int, parts: list[tuple[str, str]], placed: Box | None = None) -> list[Box]:
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(str(path))
    except Exception as exc:  # pdfium raises its own error types for unreadable files
        raise FinragError(f"cannot open {path.name}: {exc}") from exc
    try:
        pdf_page = pdf[page - 1]
        width, height = pdf_page.get_size()
        textpage = pdf_page.get_textpage()
        label_lines: list[Box] = []
        boxes: list[Box] = []
        for text, kind in parts:
            if kind == "label" and placed is not None:
                lines = [placed]
            else:
                lines = [_normalised(rect, width, height, kind) for rect in _search(textpage, text, kind)]
            if kind == "figure" and label_lines and lines:
                # The figure in the label's row: the occurrence whose line is nearest the label's.
                centre = (label_lines[0].y0 + label_lines[0].y1) / 2
                lines = [min(lines, key=lambda b: abs((b.y0 + b.y1) / 2 - centre))]
            elif kind == "figure":
                lines = lines[:1]
            if kind == "label":
                label_lines = lines
            boxes.extend(lines)
        return boxes
    finally:
        pdf.close()


def _search(textpage: object, text: str, kind: str) -> list[tuple[float, float, float, float]]:
    """Line rectangles (PDF points) of the first match of ``text`` (every match for a figure)."""
    probes = [text]
    if kind == "figure":  # "(437)" in the row may be typeset "437" with the brackets apart
        probes.append(re.sub(r"[^\d.,]", "", text))
    if kind == "sentence":
        words = text.split()
        probes = [" ".join(words[:n]) for n in SENTENCE_PROBE_WORDS if len(words) >= n] or [text]
    for probe in dict.fromkeys(p for p in probes if p.strip()):  # pdfium refuses an empty search ('—' has no digits)
        searcher = textpage.search(probe, match_case=False)  # type: ignore[attr-defined]
        rects: list[tuple[float, float, float, float]] = []
        while (occurrence := searcher.get_next()) is not None:
            index, count = occurrence
            chars = [textpage.get_rect(i) for i in range(textpage.count_rects(index, count))]  # type: ignore[attr-defined]
            rects.extend(_merge_lines(chars))
            if kind != "figure":
                break
        if rects:
            return rects
    return []


def _merge_lines(rects: list[tuple[float, float, float, float]]) -> list[tuple[float, float, float, float]]:
    """Character rectangles (left, bottom, right, top) joined into one rectangle per text line."""
    lines: list[list[float]] = []
    for left, bottom, right, top in rects:
        for line in lines:
            # Same line when the boxes overlap vertically (a comma or '&' sits lower than a capital letter).
            overlap = min(line[3], top) - max(line[1], bottom)
            if overlap > _LINE_TOLERANCE * min(max(top - bottom, 0.1), max(line[3] - line[1], 0.1)):
                line[:] = [min(line[0], left), min(line[1], bottom), max(line[2], right), max(line[3], top)]
                break
        else:
            lines.append([left, bottom, right, top])
    return [(a, b, c, d) for a, b, c, d in lines]


def _normalised(rect: tuple[float, float, float, float], width: float, height: float, kind: str) -> Box:
    left, bottom, right, top = rect
    return Box(x0=left / width, y0=1 - top / height, x1=right / width, y1=1 - bottom / height, kind=kind)


def _text_spans(text: str, parts: list[tuple[str, str]]) -> list[tuple[int, int]]:
    """Character spans of each part in the page text (whitespace-insensitive; a figure near the label)."""
    spans: list[tuple[int, int]] = []
    label_at = -1
    for part, kind in parts:
        words = part.split()
        if kind == "sentence":
            words = words[: max(SENTENCE_PROBE_WORDS)]
        pattern = re.compile(r"\s+".join(re.escape(w) for w in words), re.IGNORECASE)
        matches = list(pattern.finditer(text))
        if not matches:
            continue
        if kind == "figure" and label_at >= 0:
            after = [m for m in matches if m.start() >= label_at]
            match = after[0] if after else matches[0]
        else:
            match = matches[0]
        if kind == "label":
            label_at = match.start()
        spans.append((match.start(), match.end()))
    return spans
