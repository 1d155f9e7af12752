"""Tables of a part of the company: a segment's, a region's, a product line's.

A 10-K's segment discussion prints one table per segment, each under the segment's name, with the same rows
('Net sales', 'Operating profit', 'Backlog at year-end') and the same columns. Such a family is read from the
document's own layout, not from a list of segment or region names: tables outside the primary statements that
share their period columns and at least ``MIN_SHARED_ROWS`` row labels, state other figures in those rows and
carry different titles. Each member's title names the part all its figures are of, so a figure of it answers
only a question that names the part; the company's own figure is elsewhere (or not in the filing).

A part's title is a name: a few words, no sentence ('The following table summarizes ...:'), no period ('Fourth
Quarter', 'Fiscal 2024': the same rows a period apart), no metric ('Net Sales' over rows by segment: the parts are
then the rows); and the filing names the part elsewhere, as a row (the segment note's 'Aeronautics | 3,100') or in a
sentence about its segments ('We operate in two business segments: Aeronautics and Space'), which tells a segment's
heading from a topic's ('Fair Value' over an option roll-forward); or the family sits under a heading that
speaks of segments ('Business Segment Results' over 'Aeronautics' and 'Space'), which says what its titles are even
where the filing names them nowhere else. The rows the siblings share include a metric: a part's figures are the
company's metrics, counted for the part -- unless the filing says the titles are segments (in a sentence about its
segments or a heading over the family), which holds for an industry's metrics the lexicon lacks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.entities.names import is_common_word
from agent.finance.lexicon import canonical, find_metrics
from agent.finance.periods import find_periods
from agent.ingest.prose import split_sentences
from agent.ingest.structure import is_statement_title
from agent.ingest.tables import TableBlock
from agent.schemas import Chunk, TableRecord

MIN_SHARED_ROWS = 2  # one shared label ('Total') is a coincidence; two shared rows are a repeated layout
MAX_PART_WORDS = 6  # 'Europe, Middle East & Africa' is a name; a longer title is a caption or a sentence
MAX_HEADING_WORDS = 8  # 'Results of Operations by Reportable Segment' is a heading; a longer line is prose

# A title that dates its table: the siblings are periods of one thing, not parts of the company.
_PERIOD_WORD_RE = re.compile(r"\b(?:quarters?|months?|weeks?|years?|fiscal|half|ended|as\s+of)\b", re.IGNORECASE)
# A name's words: letters (with '&', '.', ',', "'" and '-' inside names such as 'U.S.' or 'Europe, Middle East').
_NAME_WORD_RE = re.compile(r"[A-Za-z][A-Za-z.'’&-]*,?|&")
_SEGMENT_SUFFIX_RE = re.compile(r"\s+(?:segments?|business(?:es)?|division)$")
# The registrant without its subsidiaries (Regulation S-X Schedule I: 'PARENT COMPANY - CONDENSED BALANCE SHEETS',
# 'Condensed Financial Information of Registrant'): its statements are a part's, never the consolidated company's.
_PARENT_ONLY_RE = re.compile(r"\bparent\s+company\b|\bregistrant\s+only\b|\bfinancial\s+information\s+of\s+"
                             r"(?:the\s+)?registrant\b", re.IGNORECASE)
PARENT_ONLY = "Parent company only"


# Words by which a filing's prose calls its parts what they are ('our two business segments: Aeronautics and Space').
_PART_NOUN_RE = re.compile(r"\b(?:segments?|divisions?|business\s+units?|operating\s+groups?)\b", re.IGNORECASE)


def part_sentences(text: str) -> list[str]:
    """The sentences of ``text`` that speak of the filer's segments, divisions or business units, each on one line:
    a sentence wrapped over lines ('... two segments: Electric Utility and Gas' / 'Utility.') names its parts whole."""
    sentences = (" ".join(text[start:end].split()) for start, end in split_sentences(text))
    return [s for s in sentences if _PART_NOUN_RE.search(s)]


def label_key(label: str) -> str:
    """A row label as tables are compared by it: lower case, spaces collapsed, no trailing colon."""
    return " ".join(label.lower().split()).strip(" :")


def _rows(table: TableBlock) -> dict[str, tuple[str, ...]]:
    return {label_key(r.label): tuple(r.cells) for r in table.data_rows if label_key(r.label)}


def _is_name(title: str) -> bool:
    """A title written as a name: a few words, no sentence, no period, no metric, no statement."""
    words = title.split()
    if not words or len(words) > MAX_PART_WORDS or title.rstrip().endswith((":", ".")):
        return False
    if not all(_NAME_WORD_RE.fullmatch(w) for w in words) or max(len(w) for w in words) < 2:
        return False
    return not (is_statement_title(title) or _PERIOD_WORD_RE.search(title) or find_periods(title)
                or find_metrics(title))


def _names_part(title: str, labels: set[str], sentences: Sequence[str] = ()) -> bool:
    """A title the filing names as a part elsewhere: ``labels`` are its row labels and ``sentences`` those of its
    prose that speak of segments (:func:`part_sentences`); a part is named as a row, or in such a sentence as
    written in the title."""
    name = _SEGMENT_SUFFIX_RE.sub("", label_key(title))
    return any(label == name or label.startswith(f"{name} ") for label in labels) or _said_part(title, sentences)


def _said_part(title: str, sentences: Sequence[str]) -> bool:
    """A title written, as printed, in a sentence about the filer's segments ('three reportable segments: Personal
    Lines, Commercial Lines and Reinsurance')."""
    written = _SEGMENT_SUFFIX_RE.sub("", title.strip(" :"), count=1) if title[:1].isupper() else ""
    return bool(written) and any(re.search(rf"\b{re.escape(written)}\b", s) for s in sentences)


def under_part_heading(lead: str) -> bool:
    """``lead`` (the text between a table and the one before it) holds a heading that speaks of segments,
    divisions or business units: a short line that is no sentence."""
    for line in lead.splitlines():
        line = line.strip(" #*:")
        if line and len(line.split()) <= MAX_HEADING_WORDS and not line.endswith(".") and _PART_NOUN_RE.search(line):
            return True
    return False


def _siblings(a: TableBlock, b: TableBlock, rows_a: dict[str, tuple[str, ...]], rows_b: dict[str, tuple[str, ...]],
              said: bool = False) -> bool:
    """Two tables of one layout under different titles, stating different figures. Unless the filing ``said`` what
    the titles are (segments, in its prose or a heading), a row they share is a metric the lexicon knows: rows of
    no metric ('Granted', 'Exercised') are a topic's, not a part's; an industry's own metrics ('Net premiums
    written') the lexicon may lack are a part's when the filing says so."""
    if label_key(a.title) == label_key(b.title) or a.columns != b.columns:
        return False
    shared = rows_a.keys() & rows_b.keys()
    return (len(shared) >= MIN_SHARED_ROWS and any(rows_a[k] != rows_b[k] for k in shared)
            and (said or any(canonical(k) is not None for k in shared)))


def table_parts(tables: Sequence[TableBlock], in_statement: Sequence[bool], text: str = "",
                leads: Sequence[str] = (), continued: Sequence[bool] = ()) -> list[str]:
    """For each table, the part of the company its title names ('' when it is no part's): see the module
    docstring; a parent company's own statements are :data:`PARENT_ONLY`'s. ``in_statement[i]`` says table i
    sits in a primary statement's section (a sibling of no part); ``text`` is the filing's, whose sentences about
    its segments name parts too; ``leads[i]`` is the text between table i and the table before it, whose
    headings say what a family of siblings is; ``continued[i]`` says table i continues table i - 1 past a page break
    (its rows are that table's too: a segment's rows split by the break are compared whole)."""
    rows = [_rows(t) for t in tables]
    for i in range(len(tables) - 1, 0, -1):
        if i < len(continued) and continued[i]:
            rows[i - 1] = {**rows[i - 1], **rows[i]}
    labels = {label for r in rows for label in r}
    sentences = part_sentences(text) if text else []
    nameable = [not stated and _is_name(t.title) for t, stated in zip(tables, in_statement, strict=True)]
    named = [ok and _names_part(t.title, labels, sentences) for t, ok in zip(tables, nameable, strict=True)]
    said = [ok and _said_part(t.title, sentences) for t, ok in zip(tables, nameable, strict=True)]
    parts = [PARENT_ONLY if _PARENT_ONLY_RE.search(f"{t.title} {t.caption}") else "" for t in tables]
    headed = False  # the family being read sits under a heading about segments
    for i, a in enumerate(tables):
        if not nameable[i]:
            continue
        if not parts[i]:
            headed = i < len(leads) and under_part_heading(leads[i])
        for j in range(i + 1, len(tables)):
            if nameable[j] and (headed or named[i] and named[j]) and _siblings(
                    a, tables[j], rows[i], rows[j], said=headed or said[i] and said[j]):
                parts[i], parts[j] = a.title, tables[j].title
    return parts


def carried_parts(parts: Sequence[str], continued: Sequence[bool]) -> list[str]:
    """``parts`` (:func:`table_parts`) with each table that continues the one before it (``continued[i]``: past a
    page break, or stacked right under it) given that table's part: the rows left at the next page's top are still
    the segment's."""
    out = list(parts)
    for i in range(1, len(out)):
        if not out[i] and i < len(continued) and continued[i]:
            out[i] = out[i - 1]
    return out


# Lower-case words inside a name written in capitals ('Bank of America', 'Research and Development Services').
_NAME_LINKS = frozenset(("and", "&", "of", "the", "for"))


def _printed_name(label: str) -> str:
    """``label`` when it is written as the name of a part ('Zorvexa', 'Commercial Banking', 'Defense Systems'): a
    few capitalised words, no metric, period, number, total or statement, and not one ordinary word ('Digital',
    'International', 'Other'); '' otherwise."""
    name = " ".join(label.split()).strip(" :")
    words = name.split()
    if not words or len(words) > MAX_PART_WORDS or any(ch.isdigit() for ch in name):
        return ""
    if not all(_NAME_WORD_RE.fullmatch(w) and (w[:1].isupper() or w.lower() in _NAME_LINKS) for w in words):
        return ""
    if not words[0][:1].isupper() or (len(words) == 1 and is_common_word(words[0].strip(".,"))):
        return ""
    if (words[0].lower() == "total" or is_statement_title(name) or find_metrics(name) or find_periods(name)
            or name == PARENT_ONLY):
        return ""
    return name


def printed_names(records: Sequence[TableRecord]) -> list[str]:
    """The names a filing prints for parts of its company, in order: its part tables' titles, its named columns and
    its row labels written as names (see :func:`_printed_name`). A question naming one of them names the company
    whose filing prints it, narrowed to that part ('What were Zorvexa sales?' is about Zorvexa's maker)."""
    names: list[str] = []
    for record in records:
        # a part table's title is a part by the table's layout, an ordinary word too ('Marine', 'Property')
        names += [record.part] if record.part and record.part != PARENT_ONLY else []
        labels = (*(c.label for c in record.columns if c.kind == "name"), *(r.label for r in record.rows))
        names += [n for label in labels if (n := _printed_name(label))]
    return list(dict.fromkeys(names))


def sentence_parts(chunks: Sequence[Chunk]) -> list[Chunk]:
    """``chunks`` with each sentence figure given the part of the company its own words name: the last of the
    filing's part-table titles (:func:`table_parts`) written in its sentence before it ('Personal Lines catastrophe
    losses were $455 million in 2024 compared with $370 million in 2023': both are Personal Lines'). A part named
    after the figure ('..., led by Data Center') is no part of it; a sentence naming none states the company's."""
    names = sorted({c.table.part for c in chunks if c.table is not None and c.table.part}, key=len, reverse=True)
    if not names:
        return list(chunks)
    pattern = re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(n) for n in names) + r")(?![\w-])")
    out: list[Chunk] = []
    for chunk in chunks:
        if not chunk.sentences:
            out.append(chunk)
            continue
        sentences = []
        for sentence in chunk.sentences:
            figures = []
            for figure in sentence.figures:
                before = list(pattern.finditer(chunk.text, sentence.start, max(sentence.start, figure.start)))
                figures.append(figure.model_copy(update={"part": before[-1].group()}) if before else figure)
            sentences.append(sentence.model_copy(update={"figures": figures}))
        out.append(chunk.model_copy(update={"sentences": sentences}))
    return out
