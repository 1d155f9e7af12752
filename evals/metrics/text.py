"""Lexical answer metrics: normalisation, token F1 (SQuAD style) and ROUGE-L (LCS F-measure).

Tokens are lower-cased words and numbers; a number keeps its decimal point and sign but loses thousands
separators, so "$1,577.0" and "1577.0" share the token ``1577.0``. Articles and punctuation are dropped,
as in the SQuAD evaluation script.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_TOKEN_RE = re.compile(r"-?\d[\d,]*(?:\.\d+)?%?|[a-z]+(?:'[a-z]+)?")
_ARTICLES = frozenset({"a", "an", "the"})
_DASHES = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2014": " ", "\u2019": "'", "\xa0": " "})


def normalize_text(text: str) -> str:
    """Lower-case, unify dashes and quotes, collapse white space."""
    return " ".join(str(text).translate(_DASHES).lower().split())


def tokenize(text: str, drop_articles: bool = True) -> list[str]:
    """Words and numbers of ``text`` after :func:`normalize_text`; commas inside numbers removed."""
    tokens = [t.replace(",", "").rstrip(".") for t in _TOKEN_RE.findall(normalize_text(text))]
    tokens = [t for t in tokens if t and t != "-"]
    return [t for t in tokens if t not in _ARTICLES] if drop_articles else tokens


# Abbreviations whose period does not end a sentence ("U.S. revenue", "Apple Inc. reported", "approx. 5%").
_ABBREVIATIONS = frozenset({
    "inc", "corp", "co", "ltd", "llc", "plc", "u.s", "u.k", "e.g", "i.e", "vs", "approx", "est", "no",
    "nos", "fig", "mr", "mrs", "ms", "dr", "st", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep",
    "sept", "oct", "nov", "dec"
})
# Function words carry no fact; a text gold's recall is measured over the rest.
STOPWORDS = frozenset({
    "a", "an", "the", "of", "in", "on", "at", "to", "for", "from", "by", "with", "and", "or", "but", "as",
    "is", "are", "was", "were", "be", "been", "being", "it", "its", "this", "that", "these", "those",
    "which", "who", "whom", "what", "when", "where", "how", "there", "their", "they", "them", "he", "she",
    "his", "her", "has", "have", "had", "do", "does", "did", "not", "no", "yes", "so", "than", "then",
    "also", "such", "any", "all", "each", "per", "into", "over", "under", "about", "after", "before",
    "during", "while", "s"
})
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])(?P<close>[\"”')\]]*)\s+(?=[\"“(\[]?[A-Z0-9$€£-])")
_BULLET_RE = re.compile(r"^\s*(?:[-*•●▪‣–]|\d{1,2}[.)]|[a-z][.)])\s+")


def content_tokens(text: str) -> list[str]:
    """Tokens of ``text`` without function words: what a claim is about."""
    return [t for t in tokenize(text) if t not in STOPWORDS]


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``: lines first (bullets and headings are their own units), then sentence ends.

    A period after a known abbreviation or inside a number ("3.5%") does not end a sentence. Bullet markers
    are removed; empty pieces are dropped.
    """
    out: list[str] = []
    for line in str(text).translate(_DASHES).splitlines():
        line = _BULLET_RE.sub("", line).strip()
        if not line:
            continue
        start = 0
        for m in _SENTENCE_END_RE.finditer(line):
            head = line[start : m.start()].rstrip("\"”')]")
            last_word = head.rsplit(None, 1)[-1].lower().rstrip(".") if head.split() else ""
            if last_word in _ABBREVIATIONS:
                continue
            piece = line[start : m.start() + len(m.group("close"))].strip()
            if piece:
                out.append(piece)
            start = m.end()
        tail = line[start:].strip()
        if tail:
            out.append(tail)
    return out


def bow_cosine(a: str, b: str) -> float:
    """Cosine of bag-of-words count vectors (articles dropped): a lexical stand-in for embedding similarity."""
    ca, cb = Counter(tokenize(a)), Counter(tokenize(b))
    if not ca or not cb:
        return 0.0
    dot = sum(n * cb[t] for t, n in ca.items())
    norm = math.sqrt(sum(n * n for n in ca.values())) * math.sqrt(sum(n * n for n in cb.values()))
    return dot / norm


def _f_measure(precision: float, recall: float, beta: float = 1.0) -> float:
    if precision <= 0 or recall <= 0:
        return 0.0
    b2 = beta * beta
    return (1 + b2) * precision * recall / (recall + b2 * precision)


def token_f1(prediction: str, reference: str) -> float:
    """Harmonic mean of token precision and recall (bag of tokens, counts clipped), in [0, 1]."""
    pred, ref = tokenize(prediction), tokenize(reference)
    if not pred and not ref:
        return 1.0
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    return _f_measure(common / len(pred), common / len(ref))


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence (dynamic programming, O(len(a) * len(b)), two rows)."""
    if len(a) < len(b):
        a, b = b, a
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        for j, y in enumerate(b, start=1):
            cur[j] = prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1])
        prev = cur
    return prev[-1]


def rouge_l(prediction: str, reference: str, beta: float = 1.0) -> float:
    """ROUGE-L F-measure (Lin 2004): LCS over prediction length (P) and reference length (R), F_beta.

    ``beta = 1`` is the F1 that the EMS paper's ROUGE scorer and the ``rouge-score`` package report.
    """
    pred, ref = tokenize(prediction, drop_articles=False), tokenize(reference, drop_articles=False)
    if not pred and not ref:
        return 1.0
    if not pred or not ref:
        return 0.0
    lcs = lcs_length(pred, ref)
    return _f_measure(lcs / len(pred), lcs / len(ref), beta)
