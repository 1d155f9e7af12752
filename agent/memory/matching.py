"""How the memory bank matches a question to an entry: fiscal periods written any way ('FY18', 'Q2 2023',
'second quarter of fiscal 2023') as one form, the question's own words without the company and period, and
the metric qualifiers ('adjusted', 'diluted') that make two otherwise equal questions different.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from agent.entities.names import core_tokens

# Two-digit years up to this are 20xx, above it 19xx ("FY18" -> FY2018, "FY98" -> FY1998).
TWO_DIGIT_YEAR_PIVOT = 50


def _year4(text: str) -> int:
    year = int(text)
    if year < 100:
        year += 2000 if year <= TWO_DIGIT_YEAR_PIVOT else 1900
    return year


_FY_RE = re.compile(r"^(?:FY|FISCAL(?:YEAR)?|YEAR|CY)?'?(\d{4}|\d{2})(?:FY)?$")
_QUARTER_RES = (
    re.compile(r"^(?:FY|FISCAL(?:YEAR)?)?'?(?P<y>\d{4}|\d{2})[-/]?(?:Q|QUARTER)(?P<q>[1-4])$"),
    re.compile(r"^(?:Q|QUARTER)(?P<q>[1-4])[-/,]?(?:FY|FISCAL(?:YEAR)?)?'?(?P<y>\d{4}|\d{2})$"),
    re.compile(r"^(?P<q>[1-4])Q(?:FY)?'?(?P<y>\d{4}|\d{2})$"),
    re.compile(r"^(?:FIRST|SECOND|THIRD|FOURTH)QUARTER(?:OF)?(?:FY|FISCAL(?:YEAR)?)?(?P<y>\d{4})$"),
)
_HALF_RES = (
    re.compile(r"^(?:FY)?(?P<y>\d{4})[-/]?H(?P<h>[12])$"),
    re.compile(r"^H(?P<h>[12])(?:FY)?'?(?P<y>\d{4}|\d{2})$"),
)
_ORDINAL_QUARTER = {"FIRST": "1", "SECOND": "2", "THIRD": "3", "FOURTH": "4"}


def normalize_period(text: str) -> str:
    """A fiscal period in the project's form: 'FY2018', '2018', 'fiscal 2018', "FY18" -> 'FY2018';
    'Q2 2023', '2023Q2', '2Q23', 'FY2023 Q2' -> 'FY2023Q2'; '1H 2023' / 'H1 2023' -> 'FY2023H1'.
    Anything else comes back upper-cased without spaces, so equal spellings still compare equal."""
    compact = re.sub(r"[\s_.]+", "", (text or "").upper())
    if not compact:
        return ""
    m = _FY_RE.match(compact)
    if m:
        return f"FY{_year4(m.group(1))}"
    for pattern in _QUARTER_RES:
        m = pattern.match(compact)
        if m:
            quarter = m.groupdict().get("q") or _ORDINAL_QUARTER[compact.split("QUARTER")[0]]
            return f"FY{_year4(m.group('y'))}Q{quarter}"
    for pattern in _HALF_RES:
        m = pattern.match(compact)
        if m:
            return f"FY{_year4(m.group('y'))}H{m.group('h')}"
    return compact




_PERIOD_TEXT_RE = re.compile(
    r"\b(?:fiscal\s+(?:year\s+)?)?(?:fy\s?'?\d{2,4}|(?:19|20)\d{2}|q[1-4]|[1-4]q|h[12])\b|\bfiscal\s+year\b|\bfiscal\b"
)
# Function words of question templates ("What was the ... of ... in ...?"). Dropped before matching: in short
# templated questions they would otherwise carry most of the similarity ("what was the total revenue" and
# "what was the capital expenditure" share 60% of their words).
_STOPWORDS = frozenset({
    "a", "an", "the", "of", "in", "on", "for", "to", "by", "at", "as", "and", "or", "is", "was", "were", "are",
    "be", "been", "did", "does", "do", "what", "which", "how", "much", "many", "its", "their", "it", "this",
    "that", "from", "with", "during", "year",
})  # fmt: skip


def question_key(question: str) -> str:
    """Lower case, punctuation dropped, spaces collapsed: the spelling-insensitive form of a question."""
    text = (question or "").lower().replace("&", " and ").replace("\u2019", "'")
    text = re.sub(r"'s\b", "", text)
    return " ".join(re.split(r"[^a-z0-9%]+", text)).strip()


def match_text(question: str, company: str = "", period: str = "") -> str:
    """The question as the matchers see it (VeritasFi 4.4): normalised, with the company name and period
    expressions removed, since those are checked separately by entity and period agreement."""
    text = (question or "").lower().replace("\u2019", "'")
    text = _PERIOD_TEXT_RE.sub(" ", re.sub(r"'s\b", "", text))
    text = question_key(text)
    name = " ".join(core_tokens(company))
    if name:
        text = re.sub(rf"\b{re.escape(name)}\b", " ", text)
        # 'JPMorgan' for 'JPMorgan Chase' goes too; a one- or two-letter first word is too common to remove.
        first = name.split()[0]
        if len(first) > 2:
            text = re.sub(rf"\b{re.escape(first)}\b", " ", text)
    return " ".join(text.split())


# Words that turn one metric into another ("gross" vs "operating" margin, "basic" vs "diluted" EPS). Two
# questions that each carry one the other lacks ask for different figures, however similar they read: with
# the packaged MiniLM embedder "gross margin percentage" vs "operating margin percentage" scores cosine 0.855,
# above the reference threshold, while true paraphrases score 0.23-0.73.
METRIC_QUALIFIERS = frozenset({
    "gross", "net", "operating", "free", "basic", "diluted", "adjusted", "gaap", "non", "organic",
    "comprehensive", "current", "noncurrent", "long", "short", "effective", "statutory", "pre", "after",
    "average", "levered", "unlevered", "core", "continuing", "discontinued", "domestic", "foreign",
})  # fmt: skip


def qualifiers_conflict(query: str, canonical: str) -> bool:
    """True when each text has a metric qualifier the other lacks ('gross margin' vs 'operating margin');
    a qualifier on one side only ('total net sales' vs 'total revenue') is no conflict."""
    q = METRIC_QUALIFIERS.intersection(query.split())
    c = METRIC_QUALIFIERS.intersection(canonical.split())
    return bool(q - c) and bool(c - q)


def _singular(token: str) -> str:
    """Light plural folding so 'revenues' ~ 'revenue', 'taxes' ~ 'tax'; short words and -ss/-us/-is kept."""
    if len(token) <= 3 or not token.endswith("s") or token.endswith(("ss", "us", "is")):
        return token
    if token.endswith(("xes", "ches", "shes", "sses")):
        return token[:-2]
    return token[:-1]


def content_tokens(text: str) -> list[str]:
    """The content words of a match text, in order and singularised: what the lexical matchers compare."""
    return [_singular(t) for t in text.split() if t not in _STOPWORDS]


def subsequence_ratio(query: str, canonical: str) -> float:
    """difflib's ratio (2 * matched / total, built on longest contiguous matching blocks, VeritasFi 4.4) over
    the content-word sequences. Words, not characters: at character level one-word metric differences pass the
    0.55 reference threshold ('gross margin' vs 'operating margin' scores 0.57)."""
    a, b = content_tokens(query), content_tokens(canonical)
    if not a or not b:
        return 0.0
    return SequenceMatcher(None, a, b, autojunk=False).ratio()
