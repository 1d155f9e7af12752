"""Where a (sub-)question's evidence comes from: the filings, market data, or none (small talk, generic
definitions). The router reads this.
"""

from __future__ import annotations

import re
from enum import StrEnum

from agent.finance.lexicon import canonical, find_metrics
from agent.finance.periods import find_periods
from agent.schemas import QueryIntent, Relation

_COMPANY_PRONOUN_RE = re.compile(r"\b(?:its|their|the company's|the company|the firm's|the firm|it)\b", re.I)


# Router cues.
_MARKET_RE = re.compile(
    r"\b(?:stock|share)\s+price|"
    r"\bprice\s+(?:of\s+(?:the\s+)?(?:stock|shares?)|history|target|performance|chart)\b|"
    r"\bmarket\s+cap(?:italization|italisation)?\b|\bstock\s+(?:performance|perform\w*|return|chart|quote)\b|"
    r"\bhow\s+(?:has|have|did|is|are)\s+(?:the\s+)?(?:stock|shares?)\b|\btrading\s+(?:at|price|volume)\b|"
    r"\b52[- ]week\b|\b(?:current|latest|today'?s?|live)\s+(?:stock\s+|share\s+)?(?:price|quote|valuation)\b|"
    r"\bshares?\s+(?:traded|trading)\b|\bticker\s+price\b",
    re.IGNORECASE,
)


_FILING_REFERENCE_RE = re.compile(
    r"\b10-?[KQ]\b|\b8-?K\b|\bfiling\b|\bannual\s+report\b|\breported\b|"
    r"\bbalance\s+sheet\b|\bstatement\b",
    re.IGNORECASE,
)


# A price the filing itself reports: option exercise and grant prices, buyback prices paid, offering prices.
_FILING_PRICE_RE = re.compile(
    r"\b(?:exercise|strike|grant(?:-date)?|weighted[- ]average|options?|awards?|repurchased?|purchased?|paid|"
    r"offering|conversion|redemption|issuance|tender|acquisition)\b[^?.!]{0,40}\bprices?\b|"
    r"\bprices?\b[^?.!]{0,30}\b(?:paid|exercis\w*|granted|options?|awards?|units)\b",
    re.IGNORECASE,
)


_SMALL_TALK_RE = re.compile(
    r"^\s*(?:hi|hello|hey|good\s+(?:morning|afternoon|evening)|thanks?(?:\s+you)?|thank\s+you|cheers|bye|"
    r"goodbye|"
    r"ok(?:ay)?|great|cool|who\s+are\s+you|what\s+can\s+you\s+do|help)\b[\s!.?,]*(?:\w+[\s!.?]*){0,4}$",
    re.IGNORECASE,
)


# 'What does order intake represent?', 'What does goodwill consist of?': what a filing says its measure holds
# (each company draws it differently), not a glossary entry.
COMPOSED = r"represent|consist|comprise|include"  # what a measure is made of
WORKED_OUT = r"calculated|computed|determined|derived|measured|estimated"  # how a measure is worked out
_COMPOSITION_RE = re.compile(rf"\b(?:{COMPOSED}|component|{WORKED_OUT})s?\b", re.I)
_GENERIC_DEFINITION_RE = re.compile(
    r"^\s*(?:what\s+(?:is|are|does)\s+(?:an?\s+|the\s+)?|define\s+|explain\s+(?:what\s+)?|"
    r"what'?s\s+(?:an?\s+)?|"
    r"meaning\s+of\s+)",
    re.IGNORECASE,
)


_MARKET_METRICS = frozenset(
    {"market capitalization", "share price", "dividend yield", "price to earnings ratio", "enterprise value"}
)


class QueryKind(StrEnum):
    """Where a (sub-)question's evidence comes from."""

    FILING = "filing"
    MARKET = "market"
    NO_EVIDENCE = "no_evidence"


# ---------------------------------------------------------------------------------------------------------
# Router helper
# ---------------------------------------------------------------------------------------------------------
def classify_query(question: str, intent: QueryIntent | None = None) -> QueryKind:
    """Filing question, market-data question (price, market cap, stock performance) or no-evidence question.

    No evidence: small talk, and definitions of generic terms that name no company and no period ("What is
    EBITDA?"). Market: live-market cues, unless the question points at a filing ("in the 10-K").
    """
    text = question.strip()
    if not text or _SMALL_TALK_RE.match(text):
        return QueryKind.NO_EVIDENCE
    metrics = set(intent.metrics) if intent is not None else {m.canonical for m in find_metrics(text)}
    has_company = bool(intent and (intent.company or intent.ticker))
    has_period = bool(intent and intent.temporal_scope.periods) or bool(find_periods(text))
    if (_MARKET_RE.search(text) or (metrics and metrics <= _MARKET_METRICS)) and not points_at_filing(text):
        return QueryKind.MARKET
    opener = _GENERIC_DEFINITION_RE.match(text)
    rest = text[opener.end() :].strip(" ?.!") if opener else ""
    generic = bool(opener) and not _COMPOSITION_RE.search(text) and (
        (intent is not None and intent.relation is Relation.DEFINITION)
        or bool(rest)
        and canonical(re.sub(r"\s+(?:mean|stand\s+for)$", "", rest, flags=re.I)) is not None
    )
    if generic and not has_company and not has_period and not _COMPANY_PRONOUN_RE.search(text):
        return QueryKind.NO_EVIDENCE
    return QueryKind.FILING


def points_at_filing(text: str) -> bool:
    """True when the wording ties a price or figure to a filing ("in the 10-K", "exercise price per share")."""
    return bool(_FILING_REFERENCE_RE.search(text) or _FILING_PRICE_RE.search(text))


def needs_evidence(question: str, intent: QueryIntent | None = None) -> bool:
    """True unless the question can be answered without filings or market data."""
    return classify_query(question, intent) is not QueryKind.NO_EVIDENCE


_LATIN_WORD_RE = re.compile(r"[A-Za-z\u00c0-\u024f]+")
_OTHER_WORD_RE = re.compile(r"[^\W\dA-Za-z\u00c0-\u024f_]+")
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")  # kana, ideographs, hangul


def readable_language(question: str) -> bool:
    """Whether finrag's offline reader can read the question: more of its words are in the Latin alphabet
    (English words, tickers, accented names) than in another script (each Chinese, Japanese or Korean character
    counts as a word). A question that is not is refused rather than answered with whatever its numbers and
    tickers retrieve."""
    latin = len(_LATIN_WORD_RE.findall(question))
    other = sum(len(_CJK_RE.findall(w)) or 1 for w in _OTHER_WORD_RE.findall(question))
    return latin > other or other == 0
