"""The verb a question asks with. In 'How many available seat miles did Lucerne fly in 2024?' or 'How much did
Woodgrove set aside for credit losses?' the word after the auxiliary and its subject is the question's verb: it
says what the company did with the figure, never what the figure is, so no row has to print it. Read by position
(English puts the verb right after the subject of an inverted question), not from a list of verbs, so a verb no
one wrote down ('fly', 'book', 'ship') is read like any other.
"""

from __future__ import annotations

import re

from agent.entities.names import FILER_WORDS
from agent.finance.wording import without_possessive

# Closed classes of English, one place for every reader of the question's grammar: the auxiliaries that invert a
# question, the personal pronouns that can be its subject (who asks: 'can you pull', 'I need'), and the particles of
# a phrasal verb ('set aside', 'pay out', 'put into').
AUXILIARIES = frozenset(("do", "does", "did", "will", "would", "can", "could", "should", "has", "have", "had"))
SUBJECT_PRONOUNS = frozenset(("i", "you", "we", "they", "it"))
VERB_PARTICLES = frozenset(("into", "onto", "upon", "toward", "towards", "out", "up", "down", "off", "through", "via",
                            "aside"))
TOKEN_RE = re.compile(r"[A-Za-z][\w&'’.-]*|\d[\w,.&'’-]*%?|\S")  # '3M', '10-K', '1,234', 'Inc.' are one token each
_NAME_JOINERS = "&,"  # inside a written name ('Lucerne Air Group, Inc.', 'Procter & Gamble')


def _subject_end(tokens: list[str], start: int) -> int:
    """The index after the subject that begins at ``start``; ``start`` when no subject is read there. A subject is
    a pronoun, 'the' and a noun for the filer, or a name written with capitals; a possessive ('Lucerne's revenue')
    begins a longer subject, whose end position does not tell."""
    if start >= len(tokens):
        return start
    word = tokens[start]
    if word.lower() in SUBJECT_PRONOUNS:
        return start + 1
    if word.lower() == "the" and start + 1 < len(tokens) and tokens[start + 1].lower() in FILER_WORDS:
        return start + 2
    if not word[:1].isupper():
        return start
    end = start
    while end < len(tokens) and (tokens[end][:1].isupper() or (
            tokens[end] in _NAME_JOINERS and end + 1 < len(tokens) and tokens[end + 1][:1].isupper())):
        if without_possessive(tokens[end]) != tokens[end]:
            return start
        end += 1
    return end


def asked_predicate(question: str) -> list[str]:
    """The verb (with its particle) that follows an auxiliary and its subject in ``question``, lower-cased: ['fly']
    of 'How many seat miles did Lucerne fly', ['set', 'aside'] of 'How much did Woodgrove set aside'; [] when no
    inverted clause is read."""
    tokens = TOKEN_RE.findall(question)
    for i, token in enumerate(tokens[:-2]):
        if token.lower() not in AUXILIARIES:
            continue
        end = _subject_end(tokens, i + 1)
        if end == i + 1 or end >= len(tokens):
            continue
        verb = tokens[end]
        if not verb.isalpha() or not verb.islower():
            continue
        words = [verb]
        if end + 1 < len(tokens) and tokens[end + 1].lower() in VERB_PARTICLES:
            words.append(tokens[end + 1].lower())
        return words
    return []
