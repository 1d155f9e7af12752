"""Terms a filing defines by an acronym: 'Annual recurring revenue (ARR)', 'Europe, Middle East and Africa (EMEA)'.

An analyst asks in the filing's own shorthand ('WWIM ARR Q2 FY25'); the acronym is vocabulary the filing gives, so
it is read at ingest and the question's acronym is written out as the filing prints it. A definition is an acronym
in parentheses whose letters begin, in order, the words just before it (each word giving at least one letter). An
acronym the filing's own table rows print ('Same-property NOI', 'FFO per diluted share') where no row prints its words
is the filing's word for the thing: the analyst's acronym then matches its rows as written, and it is no term to
write out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.entities.names import abbreviates, name_tokens
from agent.schemas import DefinedTerm

MIN_ACRONYM_LETTERS = 2  # 'IT' defines; one letter ('(a)') is a list marker or a footnote
MAX_ACRONYM_LETTERS = 8
MAX_EXTRA_WORDS = 2  # words beyond one per letter a definition may take ('Europe, Middle East and Africa')
# '(ARR)', '(EMEA)', '(CET1)': capitals (digits after the first letter), in parentheses.
_DEFINED_RE = re.compile(rf"\(\s*([A-Z][A-Z0-9&]{{{MIN_ACRONYM_LETTERS - 1},{MAX_ACRONYM_LETTERS - 1}}})\s*\)")
_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*|&")
_LINKS = frozenset(("and", "of", "the", "for", "in"))  # words a definition's acronym may skip ('Middle East and Africa')


def defined_terms(text: str, row_labels: Sequence[str] = ()) -> list[DefinedTerm]:
    """The acronyms ``text`` defines, each with the words it stands for as printed (first definition wins), but
    those its tables' ``row_labels`` print as a word and never write out."""
    out: dict[str, DefinedTerm] = {}
    for m in _DEFINED_RE.finditer(text):
        short = m.group(1)
        letters = "".join(ch for ch in short.lower() if ch.isalnum())
        if short in out or len(letters) < MIN_ACRONYM_LETTERS:
            continue
        line = text[max(0, m.start() - 200) : m.start()].split("\n")[-1]
        words = list(_WORD_RE.finditer(line))
        for k in range(1, min(len(words), len(letters) + MAX_EXTRA_WORDS) + 1):
            run = words[-k:]
            if run[0].group()[:1].lower() != letters[0] or not run[0].group()[:1].isalpha():
                continue
            printed = line[run[0].start() : run[-1].end()]
            tokens = name_tokens(printed)
            if abbreviates(letters, tokens) or abbreviates(letters, [t for t in tokens if t not in _LINKS]):
                out[short] = DefinedTerm(short=short, long=printed)
                break
    in_rows = {word for label in row_labels for word in _WORD_RE.findall(label)}
    rows = " ".join(" ".join(name_tokens(label)) for label in row_labels)
    return [t for t in out.values()
            if t.short not in in_rows or f" {' '.join(name_tokens(t.long))} " in f" {rows} "]
