"""Counted things: what a count in prose counts, read the same way from a filing's sentence and from a question.

'As of January 31, 2025, we operated 312 stores in 28 states' counts stores; 'How many stores did Tailspin
operate?' asks for that count. Both sides reduce the words of the counted thing to the same key (their stems, in
order), so a count answers a question only when it counts exactly what was asked: 'part-time employees' is not
'employees', 'distribution centers' is not 'stores'.

A count is a state at a date ('we had', 'we operated', 'there were') or an event over a period ('we opened 25
stores', 'we hired 3,000 people'). Only states are facts of the thing they count: an event counts a change of it,
so a question or a sentence with an event verb is no count of the thing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

MAX_COUNTED_WORDS = 4  # 'full-time equivalent employees'; a longer run is a clause, not the name of a thing

# Words that end the name of a counted thing: function words, pronouns, auxiliaries, conjunctions and the
# prepositions that open where or when it is ('312 stores in 28 states', 'employees, of whom', '298 stores a year
# earlier'). 'of' is let through once before a noun ('holders of record').
_ENDS = frozenset((
    "a", "an", "the", "in", "on", "at", "for", "from", "to", "by", "with", "as", "across", "into", "within", "and",
    "or", "but", "nor", "that", "which", "who", "whom", "whose", "where", "when", "while", "than", "compared",
    "including", "included", "is", "was", "were", "are", "be", "been", "being", "has", "have", "had", "do", "does",
    "did", "will", "would", "can", "could", "may", "might", "should", "shall", "we", "our", "us", "it", "its",
    "they", "their", "them", "he", "she", "his", "her", "this", "these", "those", "there", "here", "each", "per",
    "during", "since", "through", "over", "under", "after", "before", "until", "about", "approximately", "around",
    "worldwide", "globally", "total", "respectively", "year", "years", "month", "months", "week", "weeks", "day",
    "days", "quarter", "quarters", "earlier", "later", "ago", "end", "not", "no", "of",
))
# Pronouns and determiners after 'of' end the name ('holders of record of our common stock').
_OF_ENDS = frozenset(("a", "an", "the", "our", "its", "their", "his", "her", "which", "whom", "these", "those",
                      "this", "each", "all", "such"))
# Words that make a number an amount, a rate, a date or a share, never a count of a thing.
NOT_COUNTED = frozenset((
    "million", "millions", "billion", "billions", "thousand", "thousands", "trillion", "percent", "percentage",
    "basis", "bps", "dollars", "dollar", "cents", "cent", "euros", "pounds", "yen", "times", "x", "shares", "share",
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
    "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "fiscal",
    "st", "nd", "rd", "th", "k", "q", "h", "fy", "per", "x",
))
# Verbs that count a change, not a state ('we opened 25 stores', 'how many stores did it close'), as bases: every
# regular form of each is one ('opens', 'opened', 'opening').
_EVENT_VERBS = ("open", "close", "add", "acquire", "hire", "build", "sell", "remodel", "relocate", "repurchase",
                "buy", "issue", "grant", "lose", "cut", "eliminate", "terminate", "reduce", "increase", "decrease",
                "launch", "introduce", "divest", "exit", "retire", "lay", "shut", "convert", "renovate", "expand",
                "complete", "finish", "start", "begin")
_IRREGULAR_EVENTS = frozenset(("built", "sold", "bought", "lost", "laid", "began", "begun"))


def _forms(base: str) -> set[str]:
    stem_ = base[:-1] if base.endswith("e") else base
    double = stem_ + stem_[-1] if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", stem_) else stem_
    third = base + "es" if base.endswith(("s", "x", "ch", "sh")) else base + "s"
    return {base, third, stem_ + "ed", stem_ + "ing", double + "ed", double + "ing"}


EVENT_WORDS = frozenset(w for base in _EVENT_VERBS for w in _forms(base)) | _IRREGULAR_EVENTS
WORD_RE = re.compile(r"[A-Za-z][A-Za-z'’-]*")  # a word, hyphenated or with an apostrophe


def stem(word: str) -> str:
    """A word of a counted thing without case or plural ending ('Stores' -> 'store', 'centers' -> 'center')."""
    low = word.lower().strip("'’")
    if low.endswith("ies") and len(low) > 4:
        return low[:-3] + "y"
    if low.endswith(("ches", "shes", "sses", "xes")):
        return low[:-2]
    if low.endswith("s") and not low.endswith(("ss", "us", "is")) and len(low) > 3:
        return low[:-1]
    return low


# The names filers give their workforce ('21,600 associates', 'team members'): one thing, keyed as 'employee', its
# modifiers kept ('part-time associates' -> 'part-time employee'). People are the workforce only when employed.
_WORKFORCE = ("employee", "associate", "team member", "teammate", "coworker", "co-worker", "worker", "staff member")
_PEOPLE = ("people", "person", "individual")
EMPLOY_RE = re.compile(r"^employ(?:s|ed|ing)?$", re.IGNORECASE)


def counted_key(words: Iterable[str], employed: bool = False) -> str:
    """The key two names of one counted thing share: their words' stems, in order ('Distribution Centers' ->
    'distribution center'); a name of the workforce is 'employee' (people too when ``employed``: the count
    follows a form of 'employ')."""
    key = " ".join(stem(w) for w in words if w)
    for name in (*_WORKFORCE, *(_PEOPLE if employed else ())):
        if key == name or key.endswith(f" {name}"):
            return f"{key[: len(key) - len(name)]}employee"
    return key


def counted_words(text: str, start: int, stop_words: Sequence[str] = ()) -> list[str]:
    """The words at ``text[start:]`` that name a counted thing, up to :data:`MAX_COUNTED_WORDS` (none when the
    first word makes the number an amount or a date, or is a verb or an adverb); ``stop_words``, as written, end it
    too (the company's own name)."""
    words: list[str] = []
    stops = set(stop_words)
    pos = start
    while len(words) < MAX_COUNTED_WORDS:
        while text[pos : pos + 1] == " ":
            pos += 1
        m = WORD_RE.match(text, pos)
        if m is None:
            break
        word = m.group().rstrip("'’")
        low = word.lower()
        if low == "of" and words and len(words) + 1 < MAX_COUNTED_WORDS:
            nxt = WORD_RE.match(text, m.end() + 1)
            if nxt is None or text[m.end() : nxt.start()] != " " or nxt.group().lower() in _OF_ENDS | _ENDS:
                break
            words += [low, nxt.group().lower()]
            pos = nxt.end()
            continue
        if low in _ENDS or word in stops or (not words and (low in NOT_COUNTED or _not_a_noun(low))):
            break
        if low in NOT_COUNTED:
            break
        words.append(low)
        pos = m.end()
        if text[pos : pos + 1] not in (" ",):  # a comma or a full stop ends the name
            break
    return words if words and not _not_a_noun(words[-1]) else []


def _not_a_noun(low: str) -> bool:
    """A verb form or an adverb ('worked', 'operating', 'primarily'), which names no counted thing."""
    return low.endswith(("ed", "ly")) or (low.endswith("ing") and len(low) > 5)


def is_event(words: Iterable[str]) -> bool:
    """Whether one of ``words`` is a verb that counts a change ('opened', 'hire', 'closing')."""
    return any(w.lower() in EVENT_WORDS for w in words)
