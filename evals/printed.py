"""A typeset set's filings printed to PDF: the same questions over the same figures, read the way real filings are
(laid-out pages, no grid of cells), so the PDF reader is measured apart from the words.

Each Markdown filing is rendered to HTML (a filing's plain style: serif text, tables of right-aligned figures under
headers that wrap in their cells) and printed by headless Chromium, as a filing is printed or saved by anyone who
reads it (:func:`evals.structure_bench.print_to_pdf`). The PDFs are cached under the bench home by the Markdown's
content, so an edited filing is printed again and an unchanged one is not.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from markdown_it import MarkdownIt

from evals.structure_bench import print_to_pdf

# A filing's printed look: the width makes long column names wrap in their cells, as they do in filings.
FILING_CSS = """<style>body{font-family:'Times New Roman',serif;font-size:10pt;margin:0.6in}
table{border-collapse:collapse;margin:8px 0;width:100%} td,th{padding:1px 6px;font-weight:normal}
td:not(:first-child),th:not(:first-child){text-align:right} th{border-bottom:1px solid #000}
h1{font-size:14pt} h2{font-size:12pt} h3{font-size:11pt}</style>"""


def filing_html(markdown: str) -> str:
    """A Markdown filing as the HTML page it is printed from."""
    body = MarkdownIt("commonmark").enable("table").render(markdown)
    return f"<html><head><meta charset='utf-8'>{FILING_CSS}</head><body>{body}</body></html>"


def printed_copies(sources: Mapping[str, Path], folder: Path) -> dict[str, Path]:
    """Each Markdown source (by name) printed to a PDF of the same name under ``folder``, cached by its content."""
    out: dict[str, Path] = {}
    for name, path in sources.items():
        text = path.read_text(encoding="utf-8")
        pdf = folder / hashlib.sha256(text.encode("utf-8")).hexdigest()[:12] / f"{name}.pdf"
        if not pdf.exists():
            pdf.parent.mkdir(parents=True, exist_ok=True)
            html = pdf.with_suffix(".html")
            html.write_text(filing_html(text), encoding="utf-8")
            print_to_pdf(html, pdf)
            html.unlink()
        out[name] = pdf
    return out
