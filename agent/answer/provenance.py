"""What says what a figure is: its row label, its table's title and header, its sentence's own clause and the
section headings its chunk sits under. The trust gate's checks (company, metric, scope) read a figure through these,
never through the words around it on the page.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import groupby

from agent.answer.reading import (
    Evidence,
    EvidenceReader,
    clause_at,
    letter_runs,
    naming_context,
    record_naming,
    through_clause,
)
from agent.answer.records import SubAnswer
from agent.entities.names import abbreviates, is_common_word, name_tokens
from agent.ingest.typed_tables import same_label

LABEL_WINDOW_WORDS = 8  # words before a figure in a sentence that say what it is


def chunk_text(reader: EvidenceReader, chunk_id: str) -> str:
    return " ".join(ev.text for ev in reader.evidence if ev.chunk_id == chunk_id)


def page_headings(reader: EvidenceReader | None, answer: SubAnswer) -> str:
    """The lines of the figure's page that can say what its table is: its own table's header lines ('Domestic |
    International | columns: 2019, 2018, 2019, 2018'), the page's headings ('5. Property and Equipment, Net') and
    the sentences that introduce a table ('Revenue by geographic area was as follows:', or the last sentence of the
    paragraph above it). Not the tables' rows, which name other figures, nor the page's other sentences, which
    state figures of their own: 'Total amortization expense on capitalized internal-use software was $2.5 million'
    says nothing of the table's 'Software' row."""
    if reader is None or answer.citation is None:
        return ""
    cited = next((ev for ev in reader.evidence if ev.chunk_id == answer.citation.chunk_id), None)
    if cited is None:
        return ""
    # The page's lines in reading order (a chunk's paragraphs and tables are evidence items one after another).
    # A table's sub-heading row ('Current liabilities:') heads its own block only: the rows under it carry it as
    # their parent, and a row printed after the block ('Long-term debt') is no part of it.
    on_page = [ev for ev in reader.evidence if ev.doc_name == cited.doc_name and ev.page == cited.page]
    skipped = [_sub_heading_lines(ev) for ev in on_page]
    lines = [(ev is cited, _header_line(ev, k), line.strip()) for ev, skip in zip(on_page, skipped, strict=True)
             for k, line in enumerate(ev.text.split("\n")) if k not in skip]
    kept: list[str] = []
    above = ""  # the last sentence of the last paragraph since the previous table line
    for own, header, line in lines:
        if "|" in line:
            kept.append(above)  # the sentence above a table (past its headings) introduces it
            above = ""
            if own and header:
                kept.append(line)  # its own table's header; another table's names other figures' columns
        elif line.endswith(":") or _heading(line):
            kept.append(line)
        elif line.lower().startswith("columns:"):
            kept.append(line if own else "")  # a table's header, linearised on a line of its own
        elif sentence := _last_sentence(line):
            above = sentence
    return " ".join(x for x in kept if x)


_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=\S)")


def last_sentence(text: str) -> str:
    """The text's last sentence (all of it when it ends none)."""
    return _SENTENCE_END_RE.split(text.rstrip())[-1]


INTRODUCTION_MIN_WORDS = 4  # 'millions of dollars 2006 2005 2004' is the table's unit line, not its introduction


def _last_sentence(line: str) -> str:
    """The last sentence of a paragraph line that says something ('... the following table summarizes the
    activity in our gross unrecognized tax benefits for the years ended december 31: .'), past a unit line the
    page glued after it ('millions of dollars 2006 2005 2004 .')."""
    sentences = [s for s in _SENTENCE_END_RE.split(line.rstrip(" .")) if s.strip(" .")]
    return next((s for s in reversed(sentences) if letter_runs(s, 3) >= INTRODUCTION_MIN_WORDS), "")


def _sub_heading_lines(ev: Evidence) -> frozenset[int]:
    """The lines of ``ev``'s text that are sub-heading rows its typed table's rows sit under (read once per
    evidence, not once per line)."""
    if ev.table is None:
        return frozenset()
    parents = [r.parent for r in ev.table.rows if r.parent]
    return frozenset(r.chunk_line for r in ev.table.rows
                     if r.heading and r.chunk_line >= 0 and any(same_label(p, r.label) for p in parents))


def _header_line(ev: Evidence, line: int) -> bool:
    """Line ``line`` of a table chunk is no row of figures its typed record holds (its header of names or periods)."""
    row = ev.table.row_at_line(line) if ev.table is not None else None
    return ev.table is not None and (row is None or not any(c.figures for c in row.cells))


_SECTION_NUMBER_RE = re.compile(r"^\s*(?:(?i:note|item|part)\s+)?(?:\d+|[IVX]+)[A-Z]?[.:)]?\s+")  # 'Note 6.'
HEADING_MAX_WORDS = 12  # 'Note 6. Property and Equipment, Net'; a wrapped line of a paragraph runs longer


def _heading(line: str) -> bool:
    """A line that heads what follows: short, no sentence ending in it or at its end, no figure of its own
    (a line of a wrapped paragraph is none of these)."""
    text = _SECTION_NUMBER_RE.sub("", line)
    return (len(text.split()) <= HEADING_MAX_WORDS and ". " not in text and not text.endswith((".", ";", ","))
            and not any(ch.isdigit() for ch in text))


def row_label(answer: SubAnswer) -> str:
    """The label of the table row the figure was read from (a computed figure: its first operand's); '' for a
    sentence."""
    return answer.citation.row if answer.citation is not None else ""


def naming_words(answer: SubAnswer) -> str:
    """The words that say what the figure is: its row label, or the words just before it in its sentence."""
    if answer.named:
        return answer.named
    label = row_label(answer)
    if label:
        return label
    if answer.value is None or not answer.quote:
        return ""
    at = answer.quote.find(answer.value.text.strip()) if answer.value.text.strip() else -1
    if at < 0:
        return ""
    return " ".join(answer.quote[:at].split()[-LABEL_WINDOW_WORDS:])


def figure_context(answer: SubAnswer, reader: EvidenceReader | None) -> str:
    """The words that say what the answer's figure is, wider than its label (see :func:`naming_context`)."""
    ev = next((e for e in reader.evidence if e.chunk_id == answer.citation.chunk_id), None) if (
        reader is not None and answer.citation) else None
    text = ev.text if ev is not None else ""
    at = answer.value.start if answer.value is not None else -1
    if text and not 0 <= at < len(text):
        at = _one_row_at(text, answer.quote)
    if ev is None or not 0 <= at < len(text):
        return row_label(answer) or answer.quote
    row = reader.row_at(answer.citation.chunk_id, at) if reader is not None and answer.citation else None
    if row is not None and answer.value is not None and reader is not None:
        own = record_naming(reader.evidence[row.ev], row, answer.value, row_label(answer))
        if own is not None:
            return own
    parent = row.parent if row is not None else ""  # the sub-heading the row sits under ('Cost of revenue:')
    return " ".join(x for x in (naming_context(ev, at, row_label(answer)), parent) if x)


def _one_row_at(text: str, quote: str) -> int:
    """Where the one row a computed figure's quote prints sits in its chunk's text (a change over one row's
    cells is that row's: 'Feature films | 2019: 7 | 2018: 10', under its sub-heading); -1 for a figure computed
    from several rows, or a quote not in the text."""
    rows = {part.strip() for part in quote.split("; ")}
    one = rows.pop() if len(rows) == 1 else ""
    return text.find(one) if "|" in one else -1


def own_clause(answer: SubAnswer, reader: EvidenceReader | None) -> str:
    """The words that are the figure's own: a row's label with its table's title and header, a sentence
    figure's clause (see :func:`clause_at`)."""
    return _sentence_words(answer, reader, clause_at)


def figure_provenance(answer: SubAnswer, reader: EvidenceReader | None) -> str:
    """Everything that says what the figure is: its row label with its table's title and header, its sentence up
    to the end of its own clause (:func:`through_clause`: never the words after it), and the section headings its
    chunk sits under."""
    sections = ""
    if reader is not None and answer.citation:
        ev = next((e for e in reader.evidence if e.chunk_id == answer.citation.chunk_id), None)
        sections = " ".join(ev.section_path) if ev is not None else ""
    return " ".join([answer.named, naming_words(answer), _sentence_words(answer, reader, through_clause), sections])


def _sentence_words(answer: SubAnswer, reader: EvidenceReader | None, read: Callable[[str, int, int], str]) -> str:
    """A row's label with its table's title and header; for a sentence figure, what ``read`` takes of its sentence
    around it (its clause, or the sentence up to its clause's end)."""
    if row_label(answer):
        return figure_context(answer, reader)
    text = chunk_text(reader, answer.citation.chunk_id) if reader is not None and answer.citation else ""
    value = answer.value
    if not text or value is None or not 0 <= value.start < value.end <= len(text):
        return figure_context(answer, reader)
    return read(text, value.start, value.end)


def mentioned(text: str, name: str) -> bool:
    """``text`` writes ``name``, its last word perhaps as an adjective or plural ('Europe' in 'European')."""
    # '&' is read as 'and': either is written, the sign perhaps glued ('S&P', 'AT&T'); a number beside a word may be
    # written apart or glued to it ('IFRS 9' and 'IFRS9', 'Tier 1' and 'Tier1')
    words = ["".join(run) for w in name_tokens(name) for _, run in groupby(w, key=str.isdigit)]
    pattern = "".join(
        ("" if not i else r"\W*" if w[0].isdigit() != words[i - 1][0].isdigit() else r"\W+") + re.escape(w)
        for i, w in enumerate(words)
    ).replace(r"\W+and\W+", r"(?:\W+and\W+|\s*&\s*)")
    tail = r"(?!\d)" if words and words[-1].isdigit() else r"\w*"  # 'Tier 1' is not 'Tier 10'
    return bool(words) and re.search(r"(?<!\w)" + pattern + tail, text, re.IGNORECASE) is not None


def covers(provenance: str, name: str) -> bool:
    """The figure's provenance names ``name``: its words (the last one perhaps as an adjective or plural:
    'Europe' in 'European'), an acronym's words ('RSUs' for 'restricted stock units', 'U.S.' for 'United States'),
    or the acronym of its words ('% Change at CER' for 'constant exchange rates')."""
    if mentioned(provenance, name):
        return True
    acronym = _acronym(name.rstrip("s"))
    if acronym:
        return bool(spelled(acronym, provenance))
    words = _initialled(name)
    # Two capitals alone may be a word ('NA' in a cell, 'OR'): written for a name of two words only with stops
    return len(words) >= MIN_ACRONYM_LETTERS and any(
        len(found) == len(words) and abbreviates(found, words)
        for token in provenance.split()
        if (found := _acronym(token.rstrip("s"))) and ("." in token or len(found) > MIN_ACRONYM_LETTERS))


MIN_ACRONYM_LETTERS = 2  # 'U.S.', 'EU': an acronym of a single letter is no name


def _acronym(token: str) -> str:
    """The letters of an acronym in capitals, stops left out ('U.S.' -> 'us', 'CER' -> 'cer'); '' for a word."""
    letters = token.strip("()[],;:|'\"").replace(".", "")
    return letters.lower() if len(letters) >= MIN_ACRONYM_LETTERS and letters.isupper() and letters.isalpha() else ""


MIN_SPELLED_LETTERS = 3  # a word asked read as an acronym ('CRE'); two letters are too often a word of their own


def spelled_out(word: str, text: str) -> list[str]:
    """The words of ``text`` an acronym asked stands for ('cre' -> 'commercial real estate'): a word of
    :data:`MIN_SPELLED_LETTERS` letters or more that is no ordinary word (see :func:`spelled`); empty otherwise."""
    return spelled(word, text) if len(word) >= MIN_SPELLED_LETTERS and not is_common_word(word) else []


def spelled(letters: str, text: str) -> list[str]:
    """The words of ``text`` that write out the acronym ``letters`` (lower case): one letter per word, its initials
    over as many words as it has letters ('cre' -> 'commercial real estate'); empty when ``text`` has none."""
    words = _initialled(text)
    return next((words[i : i + len(letters)] for i in range(len(words) - len(letters) + 1)
                 if abbreviates(letters, words[i : i + len(letters)])), [])


def _initialled(text: str) -> list[str]:
    """The words of ``text`` an acronym takes an initial from: no 'and', 'of' or 'the'."""
    return [w for w in name_tokens(text) if w not in {"and", "of", "the"}]
