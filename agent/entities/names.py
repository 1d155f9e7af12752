"""Company names as words: the one list of legal-form words, name keys, proper case, ordinary words.

Every stage compares companies through :mod:`agent.entities.registry`; this module holds only what a name is
made of, so that '3M COMPANY', '3M Company' and '3M' have one key, and 'Intel' and 'Intelligent Systems' two.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from pathlib import Path

# Legal-form words: they say how a company is organised, never which company it is. The one list finrag keeps.
LEGAL_FORMS = frozenset({
    "inc", "incorporated", "corp", "corporation", "co", "company", "companies", "plc", "ltd", "limited", "llc",
    "lp", "llp", "holdings", "holding", "group", "sa", "ag", "nv", "se", "com", "the",
})  # fmt: skip
# Capitalised words that never name a company: question words, statements, measures, roles, meetings, months.
NOT_NAMES = frozenset(
    (
        "what", "which", "who", "whom", "whose", "how", "why", "when", "where", "is", "are", "was", "were", "does",
        "did", "do", "has", "have", "had", "can", "could", "should", "would", "will", "among", "for", "in", "of",
        "on", "at", "by", "as", "to", "from", "with", "and", "or", "the", "a", "an", "if", "please", "assume",
        "answer", "using", "based", "basing", "according", "give", "round", "calculate", "define", "respond",
        "here", "taking", "we", "you", "i", "our", "it", "its", "they", "their", "this", "that", "these", "those",
        "yes", "no", "fy", "q1", "q2", "q3", "q4", "h1", "h2", "ytd", "ttm", "gaap", "non-gaap", "usd", "eur",
        "gbp", "ceo", "cfo", "coo", "agm", "10-k", "10-q", "8-k", "balance", "sheet", "income", "statement",
        "statements", "cash", "flow", "flows", "operations", "p&l", "sec", "item", "note", "notes", "mda", "md&a",
        "ebit", "ebitda", "ebitdar", "eps", "roa", "roe", "roic", "capex", "ppne", "pp&e", "opex", "sg&a", "cogs",
        "dpo", "dso", "dio", "ccc", "fcf", "yoy", "qoq", "us", "usa", "u.s", "llm", "ai", "january", "february",
        "march", "april", "may", "june", "july", "august", "september", "october", "november", "december",
        # prepositions that open a question ('Between 2018 and 2019, ...') and the words of a period's name
        # ('Fiscal Year Ended April 27, 2019'): capitalised by their place, never names
        "between", "during", "over", "under", "after", "before", "since", "excluding", "including", "within",
        "across", "following", "compared", "versus", "fiscal", "year", "years", "ended", "ending", "quarter",
        "quarters", "months", "period", "periods",
        # determiners: they open a row label written in title case ('Other assets', 'Each segment'), never a name
        "other", "another", "each", "every", "all", "any", "some", "such", "both", "same",
    )
)  # fmt: skip
# How a filing names its own filer ('the Company's investments', 'the Group's revenue'): the filer, never another
# company. A name made of one of these words alone is the document's own company.
FILER_WORDS = frozenset(
    ("company", "group", "bank", "firm", "partnership", "trust", "fund", "corporation", "registrant", "issuer")
)
# A word at least this frequent in English (wordfreq's Zipf scale: 4 = once per 100,000 words) is an ordinary
# word first: 'regions', 'state', 'best', 'johnson' (4.7), 'target'. Such a word names a company only when it is
# written as a name (capitalised, not opening the sentence), and alone it is never a short form of a longer name.
COMMON_WORD_ZIPF = 4.0
# A word this frequent ('it', 'all', 'on', 'now') is a word even in capitals; a less frequent one written in capitals
# may be a ticker ('BA', 'LOW', 'COST', 'CAT').
FREQUENT_WORD_ZIPF = 6.0
COMMON_WORDS_FILE = Path(__file__).with_name("common_words.txt")  # built by build_common_words()
COMMON_WORDS_SCANNED = 50_000  # wordfreq's most frequent English words read (Zipf 4 is reached near 10,000)
_TOKEN_RE = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?|&")
_POSSESSIVE_RE = re.compile(r"['’]s?$", re.IGNORECASE)


def name_tokens(name: str) -> list[str]:
    """Lower-case words of a name, '&' read as 'and', possessives dropped: "Johnson & Johnson's" ->
    ['johnson', 'and', 'johnson']."""
    out = []
    for tok in _TOKEN_RE.findall(name or ""):
        tok = _POSSESSIVE_RE.sub("", tok.lower()) if tok != "&" else "and"
        if tok:
            out.append(tok)
    return out


def core_tokens(name: str) -> list[str]:
    """The words that identify a company: legal forms at the end and a leading 'the' dropped ('The Coca-Cola
    Company' -> ['coca', 'cola'], 'JPMorgan Chase & Co.' -> ['jpmorgan', 'chase'])."""
    tokens = name_tokens(name)
    while tokens and tokens[-1] in LEGAL_FORMS | {"and"}:
        tokens.pop()
    while tokens and tokens[0] == "the":
        tokens.pop(0)
    return tokens


def name_key(name: str) -> str:
    """The identifying words joined without spaces: '3M Company' -> '3m', 'AMERICANWATERWORKS' and 'American
    Water Works Company, Inc.' -> 'americanwaterworks'. Two names of one key are one name."""
    return "".join(core_tokens(name))


def names_company(text: str, company: str) -> bool:
    """Whether ``text`` writes ``company``'s identifying words as whole words (spacing, case, punctuation and
    legal forms aside): 'AMERICAN WATER WORKS' and 'American Water Works Co.' name one company; 'Intelligent
    Systems' does not name Intel."""
    key = name_key(company)
    if not key:
        return False
    words = name_tokens(text)
    for i in range(len(words)):
        acc = ""
        for word in words[i:]:
            acc += word
            if acc == key:
                return True
            if not key.startswith(acc):
                break
    return False


_OBJECT_TEXT = """the a an all any each every both this that these those my our your his her its their me us him them it
    how what which whether why when where who if to for by of in on with"""
# Determiners, pronouns and question words: an ordinary word opening a sentence before one of these is a verb
# ('Show me', 'Compare the', 'List all'), not a name ('Target revenue').
OBJECT_WORDS = frozenset(_OBJECT_TEXT.split())


def opening_verb(text: str) -> str:
    """The verb a question opens with ('Show' in 'Show me the revenue'), or ''."""
    words = re.findall(r"[A-Za-z][\w&'’-]*", text.strip())
    if len(words) < 2 or not words[0][0].isupper() or words[0].isupper():
        return ""
    i = 1
    while i + 1 < len(words) and words[i].lower() in {"or", "and"}:  # 'Compute or extract the answer'
        i += 2
    return words[0] if words[i].lower() in OBJECT_WORDS else ""


def opening_verbs(text: str) -> set[int]:
    """Offsets of the words that open a sentence of ``text`` as a verb ('Compute the ...', 'Show me ...')."""
    out = set()
    for m in re.finditer(r"(?:^|[.?!:;]\s+|\n)\s*(?=[A-Z])", text):
        if opening_verb(text[m.end():]):
            out.add(m.end())
    return out


def abbreviates(short: str, words: list[str]) -> bool:
    """``short`` is the words' leading letters run together, every word in order giving at least one
    ('amex' = AMerican EXpress, 'nrl' = Northwind Ridge Logistics)."""
    if not words:
        return not short
    first, rest = words[0], words[1:]
    longest = min(len(first), len(short) - len(rest))
    return any(short[:k] == first[:k] and abbreviates(short[k:], rest) for k in range(longest, 0, -1))


def same_name(a: str, b: str) -> bool:
    """Two names of one key ('3M' and '3M Company'; never 'JPMorgan' and 'JPMorgan Chase'); two empty names
    agree (neither side names a company). Callers holding a registry ask it instead (former names, tickers)."""
    return name_key(a) == name_key(b)


def is_common_word(word: str) -> bool:
    """Whether ``word`` is an ordinary English word (see COMMON_WORD_ZIPF); digits and symbols never are."""
    low = word.lower()
    return low.isalpha() and low in _common_words()


def is_frequent_word(word: str) -> bool:
    """Whether ``word`` is among the most frequent English words (see FREQUENT_WORD_ZIPF): 'it', 'all', 'now'."""
    return _common_words().get(word.lower(), 0.0) >= FREQUENT_WORD_ZIPF


@lru_cache(maxsize=1)
def _common_words() -> dict[str, float]:
    """Each common word with its Zipf frequency, as the shipped list writes them ('regions 4.52')."""
    pairs = (line.split() for line in COMMON_WORDS_FILE.read_text(encoding="ascii").splitlines() if line.strip())
    return {word: float(zipf) for word, zipf in pairs}


def build_common_words(path: Path = COMMON_WORDS_FILE) -> int:
    """Write the English words at or above COMMON_WORD_ZIPF with their Zipf frequency, from ``wordfreq`` (a test
    extra), one a line; returns how many. The list ships with finrag, so answering needs neither the library nor
    its 30 MB of data."""
    from wordfreq import top_n_list, zipf_frequency

    words = sorted(w for w in top_n_list("en", COMMON_WORDS_SCANNED)
                   if w.isascii() and w.isalpha() and zipf_frequency(w, "en") >= COMMON_WORD_ZIPF)
    path.write_text("".join(f"{w} {zipf_frequency(w, 'en'):.2f}\n" for w in words), encoding="ascii")
    return len(words)


def proper_case(name: str, text: str = "") -> str:
    """A name as the company writes it. An all-capitals cover line ('BEST BUY CO., INC.') takes the spelling
    the document uses most often in running text ('Best Buy Co., Inc.'), word by word where the whole name is
    not written out; a word never written otherwise is capitalised unless it reads as an acronym (no vowel,
    digits or '&': 'MGM', '3M', 'AT&T'). A name already in mixed case is kept as printed."""
    name = " ".join((name or "").split())
    if not name or not name.isupper():
        return name
    if text:
        whole = Counter(m.group(0) for m in re.finditer(re.escape(name), text, re.IGNORECASE))
        mixed = [(n, s) for s, n in whole.items() if not s.isupper()]
        if mixed:
            return max(mixed)[1]
    return " ".join(_word_case(word, text) for word in name.split())


def _word_case(word: str, text: str) -> str:
    core = word.strip(".,()")
    if not core or not any(ch.isalpha() for ch in core):
        return word
    if text:
        seen = Counter(m.group(0) for m in re.finditer(rf"(?<![\w&]){re.escape(core)}(?![\w&])", text, re.IGNORECASE))
        mixed = [(n, s) for s, n in seen.items() if not s.isupper() and s[0].isupper()]
        if mixed:
            return word.replace(core, max(mixed)[1])
    if core.lower() in LEGAL_FORMS or core.lower() in {"and", "of"}:
        return word.replace(core, core.lower() if core.lower() in {"and", "of"} else core.capitalize())
    acronym = not re.search(r"[aeiouy]", core, re.IGNORECASE) or any(ch.isdigit() or ch in "&" for ch in core)
    return word if acronym else word.replace(core, core.capitalize())
