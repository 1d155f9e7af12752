"""Where each line of a PDF page is printed, so tables can read what their text alone loses.

pdfium gives every character a box; a line's box runs from its first to its last printed character. The boxes are
matched to the page's normalised text lines in order (normalising drops blank lines and rewrites some), so a
table row knows its line's indentation -- a row printed further right sits under the row above it -- and a table
knows the rectangle it covers on its page. An HTML filing has no boxes, but its table cells say how far each row's
label is indented (CSS padding, margins and text-indent; leading no-break spaces), which is all indentation needs.
Markdown and text filings have neither.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol, TypeVar

from agent.schemas import LineBox, Page, TextRun

# pdfium ends each visual line with CRLF, and each of the two counts as a character of the text page.
PDFIUM_LINE_END = "\r\n"
# A normalised line is looked for among this many raw lines after the last one matched: normalising removes
# blank-line runs (a few lines), never whole paragraphs.
ALIGN_LOOKAHEAD = 8
# Two words are in one run unless the space between them is wider than this many times the line's tallest
# character (a '$' or a parenthesis is ~0.75 em): a word space is at most ~0.6 em (a monospaced font's), a column
# gap in a statement more than one.
RUN_GAP_HEIGHTS = 1.6
_FIGURE_ENDS = frozenset("0123456789%)—–")  # a nil marker ends a cell as a figure does
_FIGURE_STARTS = frozenset("0123456789($-—–")


T = TypeVar("T")


class TextPage(Protocol):
    """What is read of a pypdfium2 ``PdfTextPage``."""

    def count_chars(self) -> int: ...

    def get_charbox(self, index: int, loose: bool = False) -> tuple[float, float, float, float]: ...


class PlacedLine(NamedTuple):
    """Where a PDF line is printed: its box, and its words in runs split at column gaps."""

    box: LineBox
    runs: list[TextRun]


def placed_lines(textpage: TextPage, raw: str, width: float, height: float) -> list[tuple[str, PlacedLine | None]]:
    """Each visual line of a pdfium text page's ``raw`` text (its CRLF-separated lines) with where it is printed,
    or None for a blank line. Empty when the text does not map one character to one character box (then nothing
    is placed)."""
    if width <= 0 or height <= 0 or textpage.count_chars() != len(raw):
        return []
    out: list[tuple[str, PlacedLine | None]] = []
    pos = 0
    for line in raw.split(PDFIUM_LINE_END):
        printed = [i for i, ch in enumerate(line) if not ch.isspace()]
        if printed:
            boxes = [textpage.get_charbox(pos + i) for i in printed]
            (left, bottom, _, top), (_, bottom_end, right, top_end) = boxes[0], boxes[-1]
            box = LineBox(x0=_fraction(left, width), y0=_fraction(height - max(top, top_end), height),
                          x1=_fraction(right, width), y1=_fraction(height - min(bottom, bottom_end), height))
            out.append((line, PlacedLine(box, _runs(line, printed, boxes, width))))
        else:
            out.append((line, None))
        pos += len(line) + len(PDFIUM_LINE_END)
    return out


def _runs(line: str, printed: list[int], boxes: list[tuple[float, float, float, float]], width: float
          ) -> list[TextRun]:
    """A line's printed characters grouped into runs: a new run starts where the gap from the last printed
    character is wider than a word space (see RUN_GAP_HEIGHTS); a space between two characters of one run is kept."""
    gap = RUN_GAP_HEIGHTS * max(top - bottom for _, bottom, _, top in boxes)
    runs: list[TextRun] = []
    text, x0, x1 = "", 0.0, 0.0
    for k, (i, (left, _, right, _)) in enumerate(zip(printed, boxes, strict=True)):
        spaced = k and i > printed[k - 1] + 1
        # two figures are never one run, however tight their columns ('5,221,400 100.00%')
        figures = spaced and line[printed[k - 1]] in _FIGURE_ENDS and line[i] in _FIGURE_STARTS
        if k and (left - x1 > gap or figures):
            runs.append(TextRun(text=text, x0=_fraction(x0, width), x1=_fraction(x1, width)))
            text = ""
        if not text:
            text, x0, x1 = line[i], left, right
        else:
            text += (" " if spaced else "") + line[i]
            x1 = max(x1, right)
    runs.append(TextRun(text=text, x0=_fraction(x0, width), x1=_fraction(x1, width)))
    return runs


def _fraction(value: float, whole: float) -> float:
    return min(1.0, max(0.0, value / whole))


def align_lines(text: str, placed: Sequence[tuple[str, T | None]], normalise: Callable[[str], str]) -> list[T | None]:
    """What is known of each line of a page's normalised ``text`` (a PDF line's box, an HTML row's indentation): that
    of the placed raw line that normalises to it, searched in order; None where a line was rewritten across lines,
    is blank or was not placed."""
    if not placed:
        return []
    cleaned = [normalise(raw) for raw, _ in placed]
    out: list[T | None] = []
    at = 0
    for line in text.split("\n"):
        match = -1
        if line:
            match = next((k for k in range(at, min(at + ALIGN_LOOKAHEAD, len(cleaned))) if cleaned[k] == line), -1)
        if match < 0:
            out.append(None)
            continue
        out.append(placed[match][1])
        at = match + 1
    return out


def _line_index(page: Page, start: int) -> int:
    """The line of the page's text holding ``start`` (an offset into it)."""
    return page.text.count("\n", 0, start)


def line_box(page: Page, start: int) -> LineBox | None:
    """The box of the line holding ``start`` (an offset into the page's text), when the page has a layout."""
    if not page.lines:
        return None
    index = _line_index(page, start)
    return page.lines[index] if index < len(page.lines) else None


def line_indent(page: Page, start: int) -> float | None:
    """How far the line holding ``start`` is indented, as a fraction of the page width, when the source says so:
    where its box starts on a PDF page, what an HTML row's CSS says."""
    if page.lines:
        box = line_box(page, start)
        return box.x0 if box is not None else None
    if not page.indents:
        return None
    index = _line_index(page, start)
    return page.indents[index] if index < len(page.indents) else None


def span_box(page: Page, start: int, end: int) -> LineBox | None:
    """The rectangle covering the lines from ``start`` to ``end`` (offsets into the page's text), or None."""
    if not page.lines:
        return None
    first, last = page.text.count("\n", 0, start), page.text.count("\n", 0, max(start, end - 1))
    boxes = [b for b in page.lines[first:last + 1] if b is not None]
    if not boxes:
        return None
    return LineBox(x0=min(b.x0 for b in boxes), y0=min(b.y0 for b in boxes),
                   x1=max(b.x1 for b in boxes), y1=max(b.y1 for b in boxes))
