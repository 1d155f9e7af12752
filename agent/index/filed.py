"""A filing's own HTML as filed, made safe to show beside an answer, with the cited row or sentence marked.

EDGAR filings are HTML: their tables line a figure up under its column header, which the stored text cannot. The
file the filing was ingested from is read again (only while its bytes are still the ones indexed), cleaned by an
allow-list sanitiser (``nh3``: no scripts, no event handlers, no links, frames, forms or images, only layout
styles), and the row a figure was read from (its label and its figure) or the sentence quoted is marked and given
the anchor :data:`CITED_ID`, so the page opens scrolled to it. The server sends it with a content security policy
that loads nothing and runs nothing, into a sandboxed frame.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import nh3
from lxml import html as lxml_html

from agent.errors import NotFoundError
from agent.index.render import quote_parts
from agent.index.store import Store

CITED_ID = "finrag-cited"  # the anchor of the marked row or sentence
MAX_FILED_HTML_MB = 40  # a larger file is shown as its stored text (a 10-K's HTML is 2-10 MB)
SENTENCE_CHARS = 60  # a quoted sentence is found by its opening words
# Tags that lay out text and tables; no links, images, frames, forms, scripts or media.
_TAGS = frozenset(nh3.ALLOWED_TAGS) - {"a", "img", "area", "map"} | {"font", "center"}
_ATTRIBUTES = {"*": {"style", "align", "valign", "width", "height", "colspan", "rowspan", "border", "cellpadding",
                     "cellspacing", "bgcolor", "color", "size", "face"}}
# CSS properties that place and dress text; none loads anything ('background-image', 'content' are left out).
_STYLE_PROPERTIES = frozenset((
    "text-align", "vertical-align", "font", "font-family", "font-size", "font-style", "font-weight",
    "font-variant", "color", "background-color", "margin", "margin-top", "margin-bottom", "margin-left",
    "margin-right", "padding", "padding-top", "padding-bottom", "padding-left", "padding-right", "border",
    "border-top", "border-bottom", "border-left", "border-right", "border-collapse", "border-spacing", "width",
    "height", "min-width", "max-width", "display", "line-height", "white-space", "text-indent", "text-decoration",
    "text-transform", "letter-spacing", "page-break-before", "page-break-after", "break-before", "break-after",
))
# Content security policy of the served page: nothing loads, nothing runs, and the frame is a sandbox.
CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
_MARK_STYLE = (f"<style>#{CITED_ID}{{background:#fff3bf;outline:2px solid #e60000}}"
               ".finrag-figure{background:#ffe45c;outline:2px solid #e60000}</style>")


def _squash(text: str) -> str:
    return " ".join(text.replace("\xa0", " ").split()).lower()


def filed_html(store: Store, doc: str, page: int = 1, quote: str = "", figure: str = "") -> str:
    """The filing ``doc`` as filed, sanitised, with the cited row or sentence marked (near ``page``, 1-based, when
    the quote is printed more than once). NotFoundError when the filing is no HTML or its file is gone or changed."""
    meta = store.get_document(doc)
    path = Path(meta.path) if meta.path else None
    if meta.source_format != "html" or path is None or not path.is_file():
        raise NotFoundError(f"{meta.name}: no HTML file to show as filed (its stored text is shown instead)")
    if path.stat().st_size > MAX_FILED_HTML_MB * 1024 * 1024:
        raise NotFoundError(f"{meta.name}: the HTML is over {MAX_FILED_HTML_MB} MB; its stored text is shown instead")
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != meta.doc_id:
        raise NotFoundError(f"{meta.name}: the file at {meta.path} changed since it was indexed; ingest it again")
    clean = nh3.clean(data.decode("utf-8", errors="replace"), tags=set(_TAGS), attributes=_ATTRIBUTES,
                      url_schemes=set(), filter_style_properties=set(_STYLE_PROPERTIES), strip_comments=True,
                      link_rel=None)
    tree = lxml_html.document_fromstring(clean or "<p></p>")
    _mark(tree, quote, figure, (page - 0.5) / max(1, meta.n_pages))
    body = lxml_html.tostring(tree, encoding="unicode", method="html")
    return f"<!doctype html><meta charset='utf-8'>{_MARK_STYLE}{body}"


def _mark(tree: lxml_html.HtmlElement, quote: str, figure: str, where: float) -> None:
    """Mark the row (label and figure) or the sentence ``quote`` cites; of several, the one nearest ``where`` (a
    share of the way through the document)."""
    parts = quote_parts(quote, figure)
    label = next((_squash(t) for t, kind in parts if kind == "label"), "")
    shown = next((_squash(t) for t, kind in parts if kind == "figure"), "")
    sentence = next((_squash(t)[:SENTENCE_CHARS] for t, kind in parts if kind == "sentence"), "")
    if label:
        rows = list(tree.iter("tr"))
        found = [(i, row) for i, row in enumerate(rows) if _row_matches(row, label, shown)]
        if found:
            _, row = min(found, key=lambda f: abs(f[0] / max(1, len(rows)) - where))
            row.set("id", CITED_ID)
            cell = next((c for c in row.iter("td", "th") if shown and shown in _squash(c.text_content())), None)
            if cell is not None:
                cell.set("class", "finrag-figure")
        return
    if sentence:
        blocks = [e for e in tree.iter("p", "div", "td", "li", "span", "font")
                  if sentence in _squash(e.text_content())]
        if blocks:  # the innermost element that holds the whole opening: the shortest
            min(blocks, key=lambda e: len(e.text_content())).set("id", CITED_ID)


def _row_matches(row: lxml_html.HtmlElement, label: str, shown: str) -> bool:
    cells = [_squash(c.text_content()) for c in row.iter("td", "th")]
    first = next((c for c in cells if c), "")
    return bool(first) and (first == label or first.startswith(label)) and (not shown or any(shown in c for c in cells))
