"""The typeset sets printed to PDF (`finrag eval answers --dataset fresh_printed`, `analyst_printed`): each typeset
filing rendered to HTML and printed by Chromium, cached by its content, so the PDF reader is scored on the questions
the Markdown is."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent.config import Settings
from agent.ingest.parsing import load_pages
from evals.printed import filing_html, printed_copies
from evals.runner import load_eval_set

needs_chromium = pytest.mark.skipif(
    not (shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")),
    reason="Chromium prints the filing to PDF (Debian: apt-get install chromium; CI installs it)",
)

FILING = """# Tailspin Toys, Inc.

FORM 10-K

(In millions)

| Fiscal 2024 | Toys | Games | Total |
|---|---|---|---|
| Net sales | 1,204 | 611 | 1,815 |
| Operating income | 140 | 52 | 192 |
"""


def test_a_filing_is_rendered_with_its_tables_and_right_aligned_figures() -> None:
    html = filing_html(FILING)
    assert "<table>" in html and "<th>Fiscal 2024</th>" in html and "<td>1,204</td>" in html
    assert "text-align:right" in html


@needs_chromium
def test_filings_are_printed_once_and_read_as_pdfs(tmp_path: Path) -> None:
    source = tmp_path / "TAILSPIN_2024_10K.md"
    source.write_text(FILING, encoding="utf-8")
    (pdf,) = printed_copies({"TAILSPIN_2024_10K": source}, tmp_path / "printed").values()
    assert pdf.name == "TAILSPIN_2024_10K.pdf" and pdf.read_bytes().startswith(b"%PDF")
    printed_at = pdf.stat().st_mtime_ns
    assert printed_copies({"TAILSPIN_2024_10K": source}, tmp_path / "printed")["TAILSPIN_2024_10K"] == pdf
    assert pdf.stat().st_mtime_ns == printed_at  # unchanged: not printed again
    text = "\n".join(p.text for p in load_pages(pdf, Settings()).pages)
    assert "Net sales" in text and "1,204" in text
    source.write_text(FILING.replace("1,204", "1,205"), encoding="utf-8")
    assert printed_copies({"TAILSPIN_2024_10K": source}, tmp_path / "printed")["TAILSPIN_2024_10K"] != pdf


@needs_chromium
@pytest.mark.parametrize("typeset", ["fresh", "analyst"])
def test_a_printed_set_asks_its_questions_of_pdfs(tmp_path: Path, typeset: str) -> None:
    settings = Settings.from_env(home=tmp_path / "home")
    printed = load_eval_set(settings, None, f"{typeset}_printed", limit=3)
    base = load_eval_set(settings, None, typeset, limit=3)
    assert [i.question for i in printed.items] == [i.question for i in base.items]
    assert {i.dataset for i in printed.items} == {f"{typeset}_printed"}
    assert set(printed.sources) == set(base.sources)
    assert all(s.path.suffix == ".pdf" and s.path.exists() for s in printed.sources.values())
    assert all(s.path.suffix == ".md" for s in base.sources.values())
