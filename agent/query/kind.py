"""Where a (sub-)question's evidence comes from: the filings, market data, or none (small talk, generic
definitions). The router reads this.
"""

from __future__ import annotations

import re
from enum import StrEnum

from agent.finance.lexicon import canonical, find_metrics
from agent.finance.periods import find_periods
from agent.finance.wording import groups_found
from agent.query.predicate import AUXILIARIES
from agent.schemas import QueryIntent, Relation

# Words that point at a company ('its', 'the company'); a bare 'it' may also be a term ('what does it mean?').
_OWNER = r"its|their|the\s+(?:company|firm|group)(?:'s)?"
_COMPANY_PRONOUN_RE = re.compile(rf"\b(?:(?P<owner>{_OWNER})|it)\b", re.I)


# A question word, or an auxiliary that opens a question. Without one the text is a noun phrase or a request
# ('ADTM op income FY23', 'For my model, I need ...'): all it can ask of an amount it names is the figure.
QUESTION_WORDS = frozenset(["what", "which", "who", "whose", "how", "why", "when", "where", "whether"])
_OPENING_AUXILIARIES = AUXILIARIES | {"is", "are", "was", "were"}
# The one asking, and what is theirs: 'can you pull ...', 'could I get ...' (a request, not a yes or no), 'for my model'
ASKER_WORDS = frozenset(["you", "i", "we", "my", "our"])


def in_question_form(text: str) -> bool:
    """Whether ``text`` asks in the form of a question (a question word, or an auxiliary opening it), not as a
    noun phrase or a request ('Can you pull ...' is a request)."""
    words = re.findall(r"[a-z]+", text.lower())
    if not QUESTION_WORDS.isdisjoint(words):
        return True
    return len(words) > 1 and words[0] in _OPENING_AUXILIARIES and words[1] not in ASKER_WORDS


def addresses_reader(text: str) -> bool:
    """Whether ``text`` speaks to or for the one asking ('can you pull ...', 'for my model I need ...', "we'd like
    ..."): a request's words, not what is asked."""
    words = text.lower().replace("'", " ").replace("’", " ").split()
    return not ASKER_WORDS.isdisjoint(w.strip(",.;:!?") for w in words)


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


# The filing forms a question names, each by its group (10-K, 10-Q, 8-K, an earnings release, a proxy statement),
# and other words that point at a filing.
_FORM_RE = re.compile(
    r"\b(?:(?P<k>10-?K|annual\s+report)|(?P<q>10-?Q|quarterly\s+report)|(?P<c>8-?K|current\s+report)|"
    r"(?P<e>earnings\s+(?:release|call|report|presentation)|press\s+release)|(?P<p>proxy\s+statement|DEF\s*14A)|"
    r"filing|reported|balance\s+sheet|statement)\b",
    re.IGNORECASE,
)
_FORMS = {"k": "10-K", "q": "10-Q", "c": "8-K", "e": "EARNINGS", "p": "DEF 14A"}  # in the order one is preferred


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
# A definition asked in question form ('what is EBITDA?', 'what is an operating lease?', 'define EBITDA'):
# the article decides -- 'a'/'an' or none asks what a term means, 'the' points at one company's figure.
_ASKED_TERM_RE = re.compile(
    r"^\s*(?:(?P<define>(?:please\s+)?(?:define|explain\s+what\b.*\b(?:is|are|means?)\s*[?!.]*\s*$))|"
    r"(?:(?:and|so|ok(?:ay)?|also)[\s,]+)?(?:what\s+(?:is|are)|what'?s)\s+"
    r"(?P<article>(?:an?|the)\s+)?(?P<term>[^?!.]+?)\s*[?!.]*\s*$)",
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
    if (_MARKET_RE.search(text) or (metrics and metrics <= _MARKET_METRICS)) and not points_at_filing(text):
        return QueryKind.MARKET
    if asks_definition(text, intent):  # names no company, period or pronoun of one
        return QueryKind.NO_EVIDENCE
    return QueryKind.FILING


def asks_definition(question: str, intent: QueryIntent | None = None) -> bool:
    """True when ``question`` asks what a generic term means, not what one company reported: the router sends it
    to no filing, the conversation answers it apart.

    The intent's relation says so ('what does free cash flow mean?', 'what is the definition of ROE?'), or the
    question form does: 'define EBITDA', 'explain what EBITDA is', 'what is/are' followed by a term with an
    indefinite article ('what is an operating lease?') or by a bare lexicon metric ('what is EBITDA?'). 'What
    is the EBITDA?' and 'what was the net income?' ask for a figure (definite article, past tense); a question
    that names a company or period, or says 'its' / 'the company', is about that company; and what a measure is
    made of or how it is worked out ('what does goodwill consist of?') is a filing's to say.
    """
    about_one = (intent is not None and (intent.company or intent.ticker or intent.temporal_scope.periods)) or \
        find_periods(question)
    owner = "owner" in groups_found(_COMPANY_PRONOUN_RE, question)  # 'its', 'the company'
    if about_one or owner or _COMPOSITION_RE.search(question):
        return False
    form = _ASKED_TERM_RE.match(question)
    if (intent is not None and intent.relation is Relation.DEFINITION) or (form is not None and form.group("define")):
        return True
    if form is None:
        return False
    article = (form.group("article") or "").strip().lower()
    if article == "the":
        return False
    return article in {"a", "an"} or canonical(form.group("term")) is not None


def points_at_filing(text: str) -> bool:
    """True when the wording ties a price or figure to a filing ("in the 10-K", "exercise price per share")."""
    return bool(_FORM_RE.search(text) or _FILING_PRICE_RE.search(text))


def find_form(question: str) -> str:
    """The filing form a question names: 10-K, 10-Q, 8-K, EARNINGS, DEF 14A; '' when none."""
    named = groups_found(_FORM_RE, question)
    return next((form for key, form in _FORMS.items() if key in named), "")


# A word in the Latin alphabet, a Chinese, Japanese or Korean character (kana, ideographs, hangul), or a word in
# another script.
_LATIN = r"A-Za-z\u00c0-\u024f"
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_SCRIPT_RE = re.compile(rf"(?P<latin>[{_LATIN}]+)|(?P<cjk>[{_CJK}])|(?P<other>[^\W\d_{_LATIN}{_CJK}]+)")


def readable_language(question: str) -> bool:
    """Whether finrag's offline reader can read the question: more of its words are in the Latin alphabet
    (English words, tickers, accented names) than in another script (each Chinese, Japanese or Korean character
    counts as a word). A question that is not is refused rather than answered with whatever its numbers and
    tickers retrieve."""
    scripts = [m.lastgroup for m in _SCRIPT_RE.finditer(question)]
    latin = scripts.count("latin")
    other = len(scripts) - latin
    return latin > other or other == 0
