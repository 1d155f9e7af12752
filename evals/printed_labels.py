"""Labels for the unprinted-words model: which words of a question the gold figure's row, columns or sentence print.

A ConvFinQA turn's program and a TAT-QA question's derivation (or its numeric answer) name the figures the answer is
made of. Each is found on the question's page -- a table cell (its row's label and its columns' headings are its
provenance) or, failing that, a sentence of the page's text -- and every word of the question, as the closed world
reads it, is labelled printed or not. A question is labelled only when all its figures are found, so a miss never
reads as 'not printed'.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from agent.answer.words import _content_words, same_root
from agent.query.unprinted import LabelledWords
from evals.datasets import load_convfinqa, load_tatqa

_NUMBER_RE = re.compile(r"\(?-?\$?\s*\d[\d,]*(?:\.\d+)?")
_PROGRAM_NUMBER_RE = re.compile(r"(?<![#\w.])-?\d+(?:\.\d+)?")  # not '#0' (a step) nor 'const_100'
_DERIVATION_NUMBER_RE = re.compile(r"\d[\d,]*(?:\.\d+)?")
_SENTENCE_END_RE = re.compile(r"(?<=[.;])\s+")
_YEAR_RE = re.compile(r"(?:19|20)\d\d")
_SEPARATOR_RE = re.compile(r"^\|[-|: ]+\|$")
# The multiplier that makes a share a percentage ('/ 56.7 * 100') is no figure of the page.
_PERCENT_FACTOR = 100.0
_RELATIVE_TOLERANCE = 1e-4

Table = list[list[str]]


def _number(text: str) -> float | None:
    cleaned = text.replace("$", "").replace(",", "").replace("%", "").replace("(", "-").replace(")", "").strip()
    try:
        return float(cleaned)
    except ValueError:
        return None


def _same(value: float | None, wanted: float) -> bool:
    return value is not None and abs(abs(value) - abs(wanted)) <= max(1e-6, abs(wanted) * _RELATIVE_TOLERANCE)


def _is_body(row: Sequence[str]) -> bool:
    """A row with a label and a figure that is no bare year (a header row prints years or nothing)."""
    return bool(row and row[0].strip()) and any(
        _number(c) is not None and not _YEAR_RE.fullmatch(c.strip()) for c in row[1:])


def markdown_table(markdown: str) -> Table:
    """The cells of a pipe table, row by row (the separator line dropped)."""
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in markdown.splitlines()
            if line.strip().startswith("|") and not _SEPARATOR_RE.match(line.strip())]


def provenance(table: Table, texts: Sequence[str], figures: Sequence[float]) -> str | None:
    """The words that say what ``figures`` are: each cell's row label and column headings, or the sentence that
    states it when no cell does; None when one of them is on neither."""
    header = next((i for i, row in enumerate(table) if _is_body(row)), len(table))
    found: list[str] = []
    for wanted in figures:
        cells = [(row[0], [h[j] for h in table[:header] if j < len(h)])
                 for row in table[header:] for j, cell in enumerate(row[1:], 1) if _same(_number(cell), wanted)]
        if cells:
            found.extend(f"{label} {' '.join(heads)}" for label, heads in cells)
            continue
        sentences = [s for text in texts for s in _SENTENCE_END_RE.split(text)
                     if any(_same(_number(m), wanted) for m in _NUMBER_RE.findall(s))]
        if not sentences:
            return None
        found.extend(sentences)
    return " ".join(found)


def label_words(question: str, printed: str) -> dict[str, bool]:
    """Each of the question's words, and whether ``printed`` prints it (in any of its forms)."""
    own = _content_words(printed)
    return {w: w in own or any(same_root(w, o) for o in own) for w in sorted(_content_words(question))}


def convfinqa_words(data_dir: Path) -> Iterator[LabelledWords]:
    """Every ConvFinQA turn whose program's figures are all on its page."""
    data = load_convfinqa(data_dir)
    for conversation in data.conversations:
        page = data.pages.get(conversation.doc_name)
        if page is None:
            continue
        table = markdown_table(page.table_markdown)
        for turn in conversation.turns:
            figures = [float(n) for n in _PROGRAM_NUMBER_RE.findall(turn.program)]
            where = provenance(table, (page.pre_text, page.post_text), figures) if figures else None
            if where is not None:
                yield LabelledWords(group=f"convfinqa:{conversation.company or conversation.doc_name.split('/')[0]}",
                                    source=f"{conversation.id}#{turn.turn}", printed=label_words(turn.question, where))


def tatqa_words(data_dir: Path) -> Iterator[LabelledWords]:
    """Every TAT-QA question whose derivation's (or numeric answer's) figures are all in its context."""
    data = load_tatqa(data_dir)
    for question in data.questions:
        context = data.contexts.get(question.evidence[0].doc if question.evidence else question.doc_name)
        if context is None:
            continue
        if question.answer_type == "arithmetic":
            figures = [_number(n) for n in _DERIVATION_NUMBER_RE.findall(question.derivation)]
        elif question.answer_type in {"span", "multi-span"}:
            answers = question.answer if isinstance(question.answer, list) else [str(question.answer)]
            figures = [_number(a) for a in answers]
        else:
            continue
        figures = [f for f in figures if f is not None and f != _PERCENT_FACTOR]
        where = provenance(context.table, [p.get("text", "") for p in context.paragraphs], figures) if figures else None
        if where is not None:
            yield LabelledWords(group=f"tatqa:{question.doc_name}", source=question.id,
                                printed=label_words(question.question, where))


def labelled_words(data_dir: Path) -> list[LabelledWords]:
    """All labelled questions of the findata layout (ConvFinQA turns, then TAT-QA questions)."""
    return [*convfinqa_words(data_dir), *tatqa_words(data_dir)]
