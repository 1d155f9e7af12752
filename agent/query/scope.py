"""What part of a company a question asks about, read once into the Query Intent: the words before a metric
that narrow it ('**adjusted** net income', '**fuel surcharge** revenue') and the words after it that name a
segment, a region, a product, a customer or a kind ('operating profit **of the aerospace business**', 'revenue
**from software maintenance**', 'net sales **in APAC**').

The trust gate states a figure only when its own row, column, table title or section headings name every word
of these terms (a closed world): a company's total never answers for a part the filing gives no figure of. The
words that name no part are left out by what they are: periods, the company, scale and document words, the
kind of part itself ('segment', 'business'), widening words ('total', 'consolidated') and function words.
"""

from __future__ import annotations

import re

from agent.entities import EntityRegistry
from agent.entities.names import name_tokens
from agent.finance.lexicon import find_metrics
from agent.finance.periods import find_periods
from agent.schemas import ScopeTerm

# A preposition right after a metric opens the part it is asked of ('revenue from X', 'assets in X').
_OPENS = frozenset(("of", "in", "from", "for", "within", "at", "across", "among", "excluding", "excl", "ex",
                    "attributable", "related", "generated", "derived", "earned", "contributed"))
# Words that end the part: links to another clause, a comparison, a question verb.
_ENDS = frozenset((
    "and", "or", "but", "between", "to", "compared", "versus", "vs", "than", "over", "as", "by", "during", "since",
    "through", "until", "when", "while", "which", "that", "who", "whom", "what", "how", "whether", "if", "with",
    "based", "according", "on", "per", "after", "before", "under", "into", "did", "does", "do", "was", "were", "is",
    "are", "be", "been", "being", "has", "have", "had", "will", "would", "could", "should", "can", "may", "exceed",
    "exceeded", "exceeds", "increase", "increased", "decrease", "decreased", "change", "changed", "grow", "grew",
    "rise", "rose", "fall", "fell", "represent", "represented", "compare", "amount", "amounted", "recognized",
    "recognised", "recorded", "reported", "respectively", "give", "using", "rely", "relying", "shown",
))
# Words inside a part that name no part: the kind of part, periods, scale, the filer as a whole, widening.
_NO_PART = frozenset((
    "the", "a", "an", "its", "their", "our", "his", "her", "this", "these", "those", "each", "all", "both", "such",
    "segment", "segments", "business", "businesses", "division", "divisions", "unit", "units", "region", "regions",
    "reportable", "operating", "geographic", "geographical", "area", "areas", "category", "categories",
    "company", "companies", "firm", "entity", "group", "corporation", "statement", "statements", "table", "tables",
    "report", "filing", "note", "notes", "quarter", "quarters", "month", "months", "week", "weeks", "half", "year",
    "years", "fy", "fys", "fiscal", "ended", "ending", "end", "period", "periods", "date", "beginning", "first",
    "second", "third", "fourth", "last", "prior", "previous", "current", "next", "same", "latest", "usd", "dollars",
    "dollar", "millions", "million", "billions", "billion", "thousands", "thousand", "percent", "percentage",
    "amount", "amounts", "value", "values", "figure", "number", "total", "totals", "overall", "consolidated",
    "combined", "whole", "entire", "worldwide", "global", "aggregate", "net", "respective", "following", "above",
    "below", "it", "they", "them", "time", "times", "to",
))
FILLER_WORDS = frozenset(
    (
        *("value", "values", "amount", "amounts", "figure", "number", "total", "much", "many", "then"),
        *("again", "specific", "year", "years", "fiscal", "during", "period", "respectively"),
    )
)  # question words that never name a row ('what was the value of ...', 'how much ...')


STOP_WORDS = frozenset((
    "the", "a", "an", "of", "in", "on", "for", "to", "and", "or", "is", "was", "were", "are", "be", "what", "how",
    "why", "which", "does", "did", "do", "its", "it", "their", "this", "that", "with", "by", "from", "as", "at",
    "company", "company's",
))  # function words that never name a row or a part


_TOKEN_RE = re.compile(r"[A-Za-z][\w&'’.-]*|\d[\w,.&'’-]*%?|\S")  # '3M', '10-K', '1,234' are one token each
# Words before a metric's name that widen or merely describe it ('total net revenue', 'annual capex').
_PLAIN_MODIFIERS = frozenset(
    ("total", "net", "gross", "annual", "yearly", "quarterly", "reported", "reporting", "consolidated", "overall",
     "aggregate", "combined", "full", "cash", "current", "actual", "basic", "diluted", "gaap", "unadjusted")
)
# Possessive and demonstrative words and the verbs questions ask with end a metric's modifiers ('payments
# following his acquisitions', 'Has MGM paid dividends', 'Does AWK have positive working capital').
_MODIFIER_BREAKS = frozenset(
    ("his", "her", "our", "your", "my", "these", "those", "each", "every", "all", "both", "such", "any", "some",
     "no", "per", "have", "has", "had", "having", "been", "being", "pay", "pays", "paid", "spend", "spends", "spent",
     "make", "makes", "made", "earn", "earns", "earned", "generate", "generates", "generated", "record", "records",
     "recorded", "incur", "incurs", "incurred", "see", "saw", "seen", "positive", "negative")
)
# Words that ask for an operation on the metric ('the average SG&A', 'a higher EBITDA'), not a kind of it.
_OPERATION_WORD_RE = re.compile(
    r"(?:larg|high|great|small|low|bigg?|wid|narrow)(?:er|est)|most|least|more|less|fewer|better|best|worse|worst|"
    r"top|maximum|minimum|average|mean|median|change[sd]?|growth|increase[sd]?|decrease[sd]?|decline[sd]?|"
    r"difference|percent(?:age)?|ratio|proportion|share|portion|sum|variation|variance|fluctuation|cumulative",
    re.IGNORECASE,
)
MAX_MODIFIER_WORDS = 4  # a metric's own modifiers sit right before it ('north american consumer packaging net sales')


def _before(question: str, start: int, company: str) -> list[str]:
    """The words right before offset ``start`` (a metric's name) that narrow it, in order."""
    owner = {w.lower() for w in name_tokens(company)} if company else set()
    mods: list[str] = []
    tokens = _TOKEN_RE.findall(question[:start])
    depth = 0
    for tok in reversed(tokens):
        if tok == ")":  # 'adjusted (non-GAAP) net income': an aside between a qualifier and its metric
            depth += 1
            continue
        if depth:
            depth -= tok == "("
            continue
        low = tok.lower().rstrip(".")
        if (
            not low.isalpha()
            or len(low) < 2  # a letter left of a garbled word ('segment 2019s' for "segment's")
            or low in STOP_WORDS
            or low in _MODIFIER_BREAKS
            or low in FILLER_WORDS
            or low in owner
            or low.removesuffix("s") in owner
            or tok.endswith(("'s", "’s"))
            or find_periods(tok)
            or _OPERATION_WORD_RE.fullmatch(low)
            or len(mods) >= MAX_MODIFIER_WORDS
        ):
            break
        if low not in _PLAIN_MODIFIERS:
            mods.append(low)
    return mods[::-1]


def metric_modifiers(question: str, metric: str, company: str = "") -> list[str]:
    """The words the question puts right before the name of ``metric`` that narrow it: 'fuel surcharge' in
    'fuel surcharge revenue', 'adjusted' in 'adjusted (non-GAAP) net income'. Stops at function words, periods,
    numbers, possessives and the company's own name; widening words ('total', 'net') and the operation asked
    ('average', 'higher') do not count."""
    mention = next((m for m in find_metrics(question) if m.canonical == metric), None)
    return _before(question, mention.start, company) if mention is not None else []


_MONTHS = frozenset((
    "jan", "january", "feb", "february", "mar", "march", "apr", "april", "may", "jun", "june", "jul", "july", "aug",
    "august", "sep", "sept", "september", "oct", "october", "nov", "november", "dec", "december",
))
# The legal forms that end a registrant's name (not 'group' or 'holdings', which also name parts of a company).
REGISTRANT_FORMS = frozenset(("inc", "incorporated", "corp", "corporation", "plc", "ltd", "limited", "llc", "lp", "llp",
                              "sa", "ag", "nv"))
MAX_PART_WORDS = 5  # a part is a short name ('software delivery, support'); longer runs are clauses


def _names_no_part(token: str, company_words: set[str]) -> bool:
    low = token.lower().rstrip(".").removesuffix("'s").removesuffix("’s")
    return (
        not low.isalpha()
        or low in _NO_PART
        or low in _MONTHS
        or low in company_words
        or bool(find_periods(token))
    )


def _names_registrant(words: list[str], rest: list[str]) -> bool:
    """Whether a part's words are a company's name ('entergy texas , inc .', 'Acme Holdings Ltd'): a legal form
    ends them or follows them. A company is the company check's, never a part of the filer's figure."""
    following = next((t.lower().rstrip(".") for t in rest if t not in {",", "."}), "")
    return any(w.lower().rstrip(".") in REGISTRANT_FORMS for w in words) or following in REGISTRANT_FORMS


def scope_terms(question: str, company: str = "", registry: EntityRegistry | None = None) -> list[ScopeTerm]:
    """The parts the question narrows each metric to, in order: 'aerospace' for 'operating profit of the
    aerospace business', 'external customers' and 'UK' for 'revenue from external customers in the UK'.
    The company asked about, indexed companies, periods and instructions after the question mark are no part."""
    asked = question[: question.rfind("?")] if "?" in question else question
    company_words = set(name_tokens(company)) if company else set()
    terms: list[ScopeTerm] = []
    # Words inside a period ('for the three months ended July 29, 2023') name when, never a part.
    spans = [(p.start, p.end) for p in find_periods(asked)]
    for mention in find_metrics(asked):
        before = " ".join(_before(asked, mention.start, company))
        if before:
            terms.append(ScopeTerm(text=before, metric=mention.canonical))
        tokens = [m.group() for m in _TOKEN_RE.finditer(asked, mention.end)
                  if not any(s <= m.start() < e for s, e in spans)]
        i = 0
        while i < len(tokens) and tokens[i].lower() in _OPENS:
            j, words = i + 1, []
            if tokens[i].lower() in {"attributable", "related", "generated", "derived", "earned", "contributed"}:
                j += 1  # 'attributable to X', 'generated by X'
            while j < len(tokens):
                token = tokens[j]
                low = token.lower().rstrip(".")
                if not token[0].isalnum() or low in _ENDS or low in _OPENS or len(words) >= MAX_PART_WORDS:
                    break
                j += 1
                if not _names_no_part(token, company_words):
                    words.append(token.rstrip(".").removesuffix("'s").removesuffix("’s"))
            text = " ".join(words)
            if (text and find_metrics(text) == [] and not (registry is not None and registry.knows(text))
                    and not _names_registrant(words, tokens[j:])):
                terms.append(ScopeTerm(text=text, metric=mention.canonical))
            i = j
    return list({(t.text.lower(), t.metric): t for t in terms}.values())
