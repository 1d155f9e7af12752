"""Helpers shared by the graph, CLI and Studio tests."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agent.config import Settings
from agent.ingest.pipeline import open_ingestor

SAMPLE = Path(__file__).resolve().parent.parent / "agent" / "samples" / "NORTHWIND_2024_10K.md"


def ingested_typeset(folder: Path, name: str, text: str) -> Settings:
    """Settings for ``folder/home`` holding one filing typeset by a test (written as ``folder/name``)."""
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return ingested_file(folder / "home", path)


def ingested_file(home: Path, path: Path) -> Settings:
    """Settings for ``home`` holding one filing a test wrote (``path``: a PDF it printed, a text it typeset)."""
    settings = Settings.from_env(home=home)
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(path).status == "ingested"
    return settings


def ask_once(settings: Settings, question: str) -> str:
    """The answer to ``question`` on a new thread of a fresh assistant over ``settings``' index."""
    from graphs.service import Assistant

    with Assistant(settings) as assistant:
        return assistant.ask(question, assistant.new_thread()).answer


def ask_thread(settings: Settings, turns: Sequence[str]) -> list[str]:
    """The answers to ``turns`` asked in order on one new thread of a fresh assistant over ``settings``' index."""
    from graphs.service import Assistant

    with Assistant(settings) as assistant:
        thread = assistant.new_thread()
        return [assistant.ask(turn, thread).answer for turn in turns]


def stated(answer: str) -> str:
    """The answer without its closest evidence: figures shown there are evidence, not stated."""
    return answer.split("Closest evidence", 1)[0]


def ingested_sample(home: Path) -> Settings:
    """Settings for ``home`` with the sample filing ingested (one index shared by a test module)."""
    settings = Settings.from_env(home=home)
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(SAMPLE).status == "ingested"
    return settings


def text_pdf(path: Path, pages: list[str]) -> Path:
    """A text PDF (Courier, one text line per line of each page's text, table cells spaced into columns; a line's
    leading spaces indent it, as a filing indents a row under its sub-heading)."""
    placed = []
    for page in pages:
        lines = []
        for line in page.splitlines()[:70]:
            cells = [c.strip() for c in line.strip().strip("|").split("|")] if "|" in line else [line.strip()]
            row = cells[0].ljust(46)[:46] + "".join(c.rjust(12) for c in cells[1:])
            lines.append([(36 + COURIER_8PT * (len(line) - len(line.lstrip(" "))), row)])
        placed.append(lines)
    return placed_pdf(path, placed)


COURIER_8PT = 4.8  # the advance of every character of Courier at 8 pt


def placed_pdf(path: Path, pages: list[list[list[tuple[float, str]]]]) -> Path:
    """A text PDF (Courier 8 pt, a line every 10.5 pt from the top of a letter page): each line a list of (x in
    points from the left edge, text) pieces, each printed where it says -- a header's caption centred over the
    columns it heads, figures right-aligned in their column, as a filing is typeset."""
    import zlib

    from evals.hostile import write_pdf

    def escape(text: str) -> str:
        text = text.encode("latin-1", "replace").decode("latin-1")
        return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    streams = []
    for page in pages:
        ops = [f"BT /F1 8 Tf {x:.1f} {760 - 10.5 * i:.1f} Td ({escape(text)}) Tj ET"
               for i, line in enumerate(page) for x, text in line]
        streams.append(zlib.compress("\n".join(ops).encode("latin-1")))
    pdf = write_pdf(path, list(range(len(pages))), streams)
    pdf.write_bytes(pdf.read_bytes().replace(b"/BaseFont /Helvetica", b"/BaseFont /Courier"))
    return pdf
