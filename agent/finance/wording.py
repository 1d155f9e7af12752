"""The word classes of financial questions, each defined once: every way of saying a change, a rise, a fall, a
share, a scale, a small count.

A question's reader, its operation model (as features), the cell reader and the gate all ask whether a wording is
an instance of one of these classes. Each was once spelled out again in each pattern that needed it, and the
copies drifted apart ('the rise in' was a change to one reader and not to the next). Patterns that need a class
embed its fragment (``rf"\\b(?:{CHANGE_NOUN})\\s+in\\b"``), so a word added to a class reaches every reader.
"""

from __future__ import annotations

import re

# Going up and going down, in any form of the verb or noun ('increased', 'growth', 'rose'; 'declining', 'fell',
# 'shrank'). Judgements ('improved', 'worsened') are not directions of a figure: they are read apart.
RISE = r"increas\w*|ris(?:e|es|en|ing)|rose|gr[eo]w\w*"
FALL = r"decreas\w*|declin\w*|drop\w*|fell|fallen|shr[aiu]nk\w*"
# Words of a fall that also name other things ('amounts falling due', 'items that fall under', 'Compensation expense
# reduction' as a row's name): read only where a direction is asked (a ranking, a yes/no judgement), never as a
# change to compute.
FALL_OR_NAME = r"fall(?:s|ing)?|reduc\w*"
# A figure's change over time, in any form: the directions, and the words that name no direction.
MOVEMENT = rf"chang\w*|variation|variance|fluctuat\w*|var(?:y|ied)|delta|move[ds]?|{RISE}|{FALL}"
# Any change or difference: over time, or between two items of one period ('the difference between Wireless and
# Internet subscribers in 2018').
CHANGE = rf"{MOVEMENT}|differences?"
# A change as a noun, the thing a follow-up points back to ('that increase', 'the change in ...').
CHANGE_NOUN = r"change|difference|variation|variance|fluctuation|increase|decrease|growth|decline|rise|drop"
# The same comparison with the prior year, abbreviated or spelled out ('y/y', 'year-over-year').
YEAR_ON_YEAR = r"year[\s-](?:over|on)[\s-]year|yoy|y/y"
# A part of a whole ('what share of', 'as a percentage of').
SHARE_NOUN = r"percent(?:age)?|portion|proportion|share|fraction|slice"
# 'what share of', 'as a percentage of', '% of': a part of a whole is asked ('per share of Class A' is a unit, 'the
# current portion of debt' and 'the long-term portion of' are lines of a balance sheet).
SHARE_OF = rf"(?<!per\s)(?<!current\s)(?<!-term\s)\b(?:as\s+an?\s+)?(?:{SHARE_NOUN})\s+of\b|(?:\bas\s+an?\s+)?%\s*of\b"
# A result asked as a part of a whole, the whole named or not ('what is that as a percentage?').
AS_SHARE = rf"{SHARE_OF}|\bas\s+an?\s+(?:{SHARE_NOUN})\b"
# The scales a figure is written in.
SCALE = r"thousands|millions|billions"
# Words that ask figures to be added up; 'total' is apart, as it also names a row ('total revenue').
SUM_WORD = r"sum|combined|altogether|together|in\s+aggregate"
# Small counts written as words ('the three years', 'a five-year average').
COUNT_WORD = r"two|three|four|five|six|seven|eight|nine|ten"
COUNT_VALUES = {w: n for n, w in enumerate(COUNT_WORD.split("|"), start=2)}

CHANGE_RE = re.compile(rf"\b(?:{CHANGE}|(?P<yoy>{YEAR_ON_YEAR}))\b", re.IGNORECASE)
SHARE_RE = re.compile(SHARE_OF, re.IGNORECASE)
AS_SHARE_RE = re.compile(AS_SHARE, re.IGNORECASE)
# The scale a question asks its answer in ('in USD millions', '(answer in thousands)', 'in $ billions').
SCALE_ASKED_RE = re.compile(
    rf"\(?(?:\banswer\s+)?\b(?:in|usd|us\$|\$)\s*(?:usd\s+|us\s*\$\s*|\$\s*|us\s+dollars?\s+|dollars\s+)?"
    rf"(?P<scale>{SCALE})\b\)?",
    re.IGNORECASE,
)
SUM_WORD_RE = re.compile(rf"\b(?:{SUM_WORD})\b", re.IGNORECASE)
TOTAL_RE = re.compile(r"\btotal\b", re.IGNORECASE)  # a whole named as such ('the total', 'total debt')
FALL_RE = re.compile(rf"\b(?:{FALL}|{FALL_OR_NAME})\b", re.IGNORECASE)  # where a direction is asked

_WORD_RUN_RE = re.compile(r"[a-z&]+")
_POSSESSIVE_RE = re.compile(r"['’]s\b")


def year_on_year(text: str) -> bool:
    """Whether ``text`` compares with the same period a year before ('y/y', 'year-over-year')."""
    return any(m.group("yoy") for m in CHANGE_RE.finditer(text))


def plain_words(text: str, min_length: int = 2) -> list[str]:
    """The text's lower-case runs of letters (and '&', as in 'R&D') of at least ``min_length``, in order."""
    return [w for w in _WORD_RUN_RE.findall(text.lower()) if len(w) >= min_length]


def groups_found(pattern: re.Pattern[str], text: str) -> set[str]:
    """The named groups of ``pattern`` that some match in ``text`` fills: the word classes a pattern with one group
    per class finds ('up', 'down', 'event' of a yes/no question's words)."""
    return {name for m in pattern.finditer(text) for name, found in m.groupdict().items() if found}


def without_possessive(text: str) -> str:
    """The text with every possessive 's dropped ("Space's operating income" -> "Space operating income")."""
    return _POSSESSIVE_RE.sub("", text)
# An average per unit of time inside the period asked ('average quarterly net income in the first half', 'per
# month'): the mean of the units' figures, never of the period and the one before it.
PER_UNIT_ADJECTIVES = frozenset(("quarterly", "monthly", "weekly", "daily"))
PER_UNIT_NOUNS = frozenset(("quarter", "month", "week", "day"))


def per_unit(words: list[str]) -> bool:
    """Whether lower-case ``words`` ask a figure per unit of time ('quarterly', 'per month')."""
    return any(w in PER_UNIT_ADJECTIVES for w in words) or any(
        a == "per" and b in PER_UNIT_NOUNS for a, b in zip(words, words[1:], strict=False))


# 'respectively' closes a list of figures given in the order of the periods or items named with them
RESPECTIVE_RE = re.compile(r",?\s*\b(?P<respectively>respectively)\b|\brespective\b", re.IGNORECASE)
