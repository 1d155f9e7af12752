"""The content words of a text: the words that name what a figure is, as the question's plan and every evidence
reader compare them (no stop words, no periods, no question filler; a crude singular).
"""

from __future__ import annotations

import re

from agent.finance.column_periods import is_bucket
from agent.finance.numbers import name_numbers
from agent.finance.periods import without_periods
from agent.query.scope import FILLER_WORDS, STOP_WORDS

STEM_MIN_CHARS = 3  # 'gas' and 'its' are not plurals

WORD_RE = re.compile(r"[a-z][a-z0-9&'-]+")
_NEGATED_RE = re.compile(r"\bnon[-\s]+(?=[a-z])")
# One thing under the names filers and analysts give it: a non-GAAP (non-IFRS) figure is the adjusted one, a
# rate a producer prints per day ('bbl/d', 'Mcf/d') is one per day, and a net change is the change (the 'net'
# names no figure: 'the net change in amortized cost' is the 'Amortized cost' row's).
_WRITTEN_AS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bnon[-\s]?(?:gaap|ifrs)\b"), "adjusted"),
    (re.compile(r"(?<=[a-z])/d\b"), " per day"),
    (re.compile(r"\bnet\s+(?=(?:change|increase|decrease)s?\b)"), ""),
)


def numbered_names(text: str) -> dict[str, set[str]]:
    """Names that carry a number ('tier 2', 'level 3', 's&p 500'; 'class b' is not one): word -> its numbers."""
    return {word: nums for word, nums in name_numbers(text).items() if word not in STOP_WORDS}


def stem(word: str) -> str:
    """A crude singular so 'losses' meets 'loss', 'costs' meets 'cost' and 'expenses' meets 'expense'."""
    if len(word) > STEM_MIN_CHARS and word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > STEM_MIN_CHARS and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _buckets(text: str) -> set[str]:
    """The buckets a text names by their span ('1-90 days past due', '91–180', '>360'), dashes made one."""
    tokens = (t.strip("(),.;:?").replace("–", "-") for t in text.split())
    return {t for t in tokens if is_bucket(t) and not t.isdigit()}


def content_words(text: str) -> set[str]:
    """Words that name what a figure is: no stop words, no periods, no question filler; a number that is part
    of a name counts ('500' of 's&p 500' tells it from 's&p retail index'), and so does a bucket's span ('1-90':
    the 61-90 days past due are not the 1-90)."""
    buckets = _buckets(text)
    # 'long-term' meets 'long term'; 'non-current' is one word: it never names what 'current' does
    spaced = re.sub(r"[-/]", " ", text)
    based = text.lower()
    for written, meant in _WRITTEN_AS:
        based = written.sub(meant, based)
    based = re.sub(r"[-/]", " ", based)
    rest = without_periods(_NEGATED_RE.sub("non", based))
    words = {
        stem(w.removesuffix("'s").rstrip("'"))  # 'Europe's revenue' names the 'Europe' row
        for w in WORD_RE.findall(rest)
        if w not in STOP_WORDS and w not in FILLER_WORDS and not w.isdigit()
    }
    # read as written: a name's capital letter ('Customer B') is no article once lower-cased
    named = numbered_names(spaced)
    return words | buckets | {num for word, nums in named.items() if stem(word) in words for num in nums}
