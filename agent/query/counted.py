"""What a count question counts: 'stores' in 'How many stores did Tailspin operate?', 'the number of holders of
record', 'the store count'. Read into the plan once, as the words the filing's count facts are keyed by
(:mod:`agent.finance.counted`). A question that counts a change ('How many stores did it open?') counts no thing,
and neither does one that says more of the thing than its name, its company and its date ('stores in Canada',
'the headquarters' square feet', 'a year earlier'): a company's count at a date is not that.
"""

from __future__ import annotations

from agent.entities.names import name_tokens
from agent.finance.counted import EMPLOY_RE, WORD_RE, counted_key, counted_words, is_event
from agent.finance.periods import without_periods

# The words that open the name of what is counted: 'how many <thing>', 'the number of <thing>', 'count of <thing>'.
_OPENERS = (("how", "many"), ("number", "of"), ("count", "of"))
WORKFORCE_METRIC, WORKFORCE_KEY = "employees", counted_key(["employees"])  # the lexicon's metric, the count's key
MAX_WORDS_BEFORE_COUNT = 2  # '<thing> count': 'store count', 'distribution center count'
# Words a plain count question holds besides its thing, company and date: question and function words, and the
# verbs of having ('How many stores did Tailspin operate at the end of fiscal 2024?').
_PLAIN = frozenset((
    "how", "many", "what", "which", "was", "were", "is", "are", "be", "been", "did", "does", "do", "has", "have",
    "had", "there", "the", "a", "an", "of", "at", "as", "on", "in", "by", "for", "to", "end", "year", "fiscal",
    "number", "count", "total", "its", "their", "it", "they", "we", "our", "company", "company's", "operate",
    "operates", "operated", "own", "owns", "owned", "employ", "employs", "employed", "maintain", "maintains",
    "maintained", "currently", "worldwide", "overall", "altogether", "approximately", "about", "s", "fy",
))
_NOT_A_THING = frozenset(("the", "a", "an", "its", "their", "total", "year", "end", "what", "was", "is", "how",
                          "many", "of", "fiscal"))


def _letter_words(text: str) -> list[str]:
    """The runs of letters of ``text``, lower-cased ("Tailspin's part-time" -> tailspin, s, part, time)."""
    return "".join(c if c.isalpha() else " " for c in text.lower()).split()


def counted_thing(question: str, company: str = "") -> str:
    """The words of the thing ``question`` asks the count of, as the filing's count facts key them ('store',
    'distribution center'); '' when it asks no count of a thing or counts a change."""
    words = _letter_words(question)
    if is_event(words):
        return ""
    own = set(name_tokens(company)) if company else set()
    # the company's name as the question writes it ('Litware' ends the thing; 'centers' of 'Home Centers' does not)
    stops = [w for w in WORD_RE.findall(question)
             if w[:1].isupper() and w.lower().removesuffix("'s").removesuffix("’s") in own]
    found = _thing(question, stops)
    said = set(_letter_words(without_periods(question)))
    more = said - _PLAIN - own - set(found) - {p for w in found for p in w.split("-")}
    return counted_key(found, employed=any(EMPLOY_RE.match(w) for w in words)) if found and not more else ""


def _thing(question: str, stops: list[str]) -> list[str]:
    """The words naming the thing ``question`` counts ([] for none)."""
    found = list(WORD_RE.finditer(question))
    low = [m.group().lower() for m in found]
    for i in range(len(low) - 1):
        if (low[i], low[i + 1]) in _OPENERS:
            return counted_words(question, found[i + 1].end(), stops)
    tokens = low
    if "count" not in tokens:
        return []
    found: list[str] = []
    named = {stop.lower() for stop in stops}  # the tokens are lower-cased, the company's words as written
    for token in reversed(tokens[: tokens.index("count")]):
        if (token.endswith(("'s", "’s")) or token in _NOT_A_THING or token in named
                or len(found) >= MAX_WORDS_BEFORE_COUNT):
            break
        found.insert(0, token)
    return found
