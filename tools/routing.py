"""The rule-based market router (the offline twin of function calling): which market tool a question needs
(quote, price history, statements), for which ticker, over which span; and whether it asks for live data at all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tools.calls import HistoryInterval, HistoryPeriod, MarketCall, StatementFrequency, StatementKind

# ---------------------------------------------------------------------------------------------------------
# Offline router: cue words and a company -> ticker table
# ---------------------------------------------------------------------------------------------------------
# Company names (lower case, as people write them) -> Yahoo ticker. Extend per deployment with the
# ``aliases`` argument of :func:`route_market_query` / :func:`resolve_ticker`.
DEFAULT_TICKERS: Mapping[str, str] = {
    "3m": "MMM", "activision blizzard": "ATVI", "adobe": "ADBE", "aes": "AES", "alphabet": "GOOGL",
    "google": "GOOGL", "amazon": "AMZN", "amazon.com": "AMZN", "amd": "AMD", "advanced micro devices": "AMD",
    "american express": "AXP", "amex": "AXP", "american water works": "AWK", "american water": "AWK",
    "apple": "AAPL", "at&t": "T", "bank of america": "BAC", "berkshire hathaway": "BRK-B", "best buy": "BBY",
    "block": "XYZ", "boeing": "BA", "broadcom": "AVGO", "chevron": "CVX", "cisco": "CSCO", "citigroup": "C",
    "coca-cola": "KO", "coca cola": "KO", "coke": "KO", "corning": "GLW", "costco": "COST", "cvs health": "CVS",
    "cvs": "CVS", "disney": "DIS", "walt disney": "DIS", "ebay": "EBAY", "exxon mobil": "XOM", "exxonmobil": "XOM",
    "exxon": "XOM", "foot locker": "FL", "general electric": "GE", "general mills": "GIS", "general motors": "GM",
    "goldman sachs": "GS", "home depot": "HD", "ibm": "IBM", "intel": "INTC", "johnson & johnson": "JNJ",
    "johnson and johnson": "JNJ", "jpmorgan": "JPM", "jpmorgan chase": "JPM", "jp morgan": "JPM",
    "kraft heinz": "KHC", "lockheed martin": "LMT", "mastercard": "MA", "mcdonald's": "MCD", "mcdonalds": "MCD",
    "meta platforms": "META", "meta": "META", "facebook": "META", "mgm resorts": "MGM", "microsoft": "MSFT",
    "morgan stanley": "MS", "netflix": "NFLX", "nike": "NKE", "nvidia": "NVDA", "oracle": "ORCL",
    "paypal": "PYPL", "pepsico": "PEP", "pepsi": "PEP", "pfizer": "PFE", "pg&e": "PCG", "procter & gamble": "PG",
    "procter and gamble": "PG", "salesforce": "CRM", "starbucks": "SBUX", "tesla": "TSLA", "ulta beauty": "ULTA",
    "ulta": "ULTA", "unitedhealth": "UNH", "verizon": "VZ", "visa": "V", "walmart": "WMT", "wells fargo": "WFC",
}  # fmt: skip


_QUOTE_CUES = (
    "stock price", "share price", "price per share today", "current price", "price today", "trading at",
    "stock trading", "market cap", "market capitalization", "market capitalisation", "stock quote",
    "52-week", "52 week", "fifty-two week", "worth right now", "shares trading",
)  # fmt: skip


# Filings use these too ("aggregate market value of voting stock held by non-affiliates"): live only with "now".
_NOW_QUOTE_CUES = ("market value", "valued at", "valuation")


_HISTORY_CUES = (
    "price history", "historical price", "stock performance", "share price performance", "price chart",
    "price trend", "stock has performed", "shares have performed", "stock performed", "year to date", "ytd",
)  # fmt: skip


# A span ("over the past 3 months") turns a price question into a history question.
_SPAN_RE = re.compile(
    r"\b(?:past|last|previous)\s+(?:(\d+|one|two|three|six|twelve)\s+)?(day|week|month|year)s?\b"
)


_SPAN_WORDS: Mapping[str, int] = {"one": 1, "two": 2, "three": 3, "six": 6, "twelve": 12}


_PRICE_WORDS_RE = re.compile(r"\b(?:price|prices|stock|shares|share|trading|traded|performance|performed)\b")


_STATEMENT_CUES: Mapping[str, StatementKind] = {
    "income statement": "income", "profit and loss": "income", "p&l": "income", "balance sheet": "balance",
    "cash flow statement": "cashflow", "cash-flow statement": "cashflow", "statement of cash flows": "cashflow",
}  # fmt: skip


# Words that ask for the present even when a year is named ("today, compared with 2018"). Not "current":
# "current ratio" and "current assets" are balance-sheet terms.
_NOW_RE = re.compile(r"\b(?:today|now|currently|live|real[- ]time)\b")


# Statements are in the filings too; only an explicit ask for the newest figures goes to the tool.
_LATEST_RE = re.compile(r"\b(?:latest|most recent|newest|yahoo)\b")


# A named year or fiscal period means history, which live tools cannot answer ("market cap in FY2018").
_PAST_PERIOD_RE = re.compile(r"\b(?:fy\s?'?\d{2,4}|(?:19|20)\d{2}|q[1-4]\s?(?:fy)?\s?'?\d{2,4})\b")


_CASHTAG_RE = re.compile(r"\$([A-Za-z]{1,5}(?:[.\-][A-Za-z])?)\b")


_EXPLICIT_TICKER_RE = re.compile(
    r"\b(?:ticker|symbol|nyse|nasdaq|amex)\s*[:=]?\s*\(?([A-Z]{1,5}(?:[.\-][A-Z])?)\b", re.IGNORECASE
)


_UPPER_TOKEN_RE = re.compile(r"\b([A-Z]{2,5}(?:[.\-][A-Z])?)\b")


def _plain(text: str) -> str:
    """Lower case, possessives blanked, curly quotes straightened: "Nike's" -> 'nike  '."""
    text = text.replace("\u2019", "'").lower()
    return re.sub(r"'s\b", "  ", text)  # same length, so positions still point into the original text


def resolve_ticker(text: str, aliases: Mapping[str, str] | None = None) -> str | None:
    """The ticker a question names: a cashtag ($AAPL) or an explicit 'ticker: X' / '(NYSE: X)' first, else the
    first company name from the table or known ticker in capitals (longest name at the same place); None when
    none is found."""
    table = {_plain(k).strip(): v for k, v in {**DEFAULT_TICKERS, **(aliases or {})}.items()}
    m = _CASHTAG_RE.search(text) or _EXPLICIT_TICKER_RE.search(text)
    if m:
        return m.group(1).upper()
    plain = _plain(text)
    found: list[tuple[int, int, str]] = []  # (position, -length, ticker): earliest mention wins
    for name, symbol in table.items():
        hit = re.search(rf"(?<![\w&]){re.escape(name)}(?![\w&])", plain)
        if hit:
            found.append((hit.start(), -len(name), symbol.upper()))
    known = {v.upper() for v in table.values()}
    for hit in _UPPER_TOKEN_RE.finditer(text):
        if hit.group(1) in known:
            found.append((hit.start(), -len(hit.group(1)), hit.group(1)))
    return min(found)[2] if found else None


def _history_period(plain: str) -> HistoryPeriod:
    if "year to date" in plain or re.search(r"\bytd\b", plain):
        return "ytd"
    m = _SPAN_RE.search(plain)
    if not m:
        return "1mo"
    raw, unit = m.group(1), m.group(2)
    n = int(raw) if raw and raw.isdigit() else _SPAN_WORDS.get(raw or "", 1)
    days = {"day": 1, "week": 7, "month": 30, "year": 365}[unit] * n
    # Smallest Yahoo range that covers the span.
    for period, span_days in (("5d", 7), ("1mo", 31), ("3mo", 92), ("6mo", 183), ("1y", 366), ("2y", 731),
                              ("5y", 1827), ("10y", 3653)):  # fmt: skip
        if days <= span_days:
            return period  # type: ignore[return-value]
    return "max"


def _history_interval(period: HistoryPeriod) -> HistoryInterval:
    # Daily bars up to a year, weekly to five years, monthly beyond: a few hundred bars at most.
    if period in ("1d", "5d", "1mo", "3mo", "6mo", "1y", "ytd"):
        return "1d"
    if period in ("2y", "5y"):
        return "1wk"
    return "1mo"


def asks_live_data(question: str) -> bool:
    """True when the question asks for today's or the newest market data ('the share price today')."""
    plain = _plain(question)
    return bool(_NOW_RE.search(plain) or _LATEST_RE.search(plain))


def route_market_query(
    question: str, aliases: Mapping[str, str] | None = None, ticker: str = ""
) -> MarketCall | None:
    """Pick a market tool and its arguments from cue words, or None when the question is not a live-market
    question (no cue, a named past period, or no ticker found). ``ticker`` overrides the name lookup (e.g. the
    ticker in the query intent); ``aliases`` extends the company -> ticker table."""
    plain = _plain(question)
    now = bool(_NOW_RE.search(plain))
    past = bool(_PAST_PERIOD_RE.search(plain))
    if past and not now:
        return None
    symbol = ticker.strip().upper() or resolve_ticker(question, aliases)
    if not symbol:
        return None
    history_cue = next((c for c in _HISTORY_CUES if re.search(rf"(?<!\w){re.escape(c)}(?!\w)", plain)), "")
    span = _SPAN_RE.search(plain)
    if history_cue or (span and _PRICE_WORDS_RE.search(plain)):
        period = _history_period(plain)
        return MarketCall(
            tool="get_price_history",
            ticker=symbol,
            period=period,
            interval=_history_interval(period),
            cue=history_cue or (span.group(0) if span else ""),
        )
    quote_cue = next((c for c in _QUOTE_CUES if c in plain), "") or (
        next((c for c in _NOW_QUOTE_CUES if c in plain), "") if now else ""
    )
    if quote_cue:
        return MarketCall(tool="get_quote", ticker=symbol, cue=quote_cue)
    statement_cue = next((c for c in _STATEMENT_CUES if c in plain), "")
    if statement_cue and not past and (now or _LATEST_RE.search(plain)):
        frequency: StatementFrequency = "quarterly" if re.search(r"\bquarter(?:ly)?\b", plain) else "annual"
        return MarketCall(
            tool="get_financial_statement",
            ticker=symbol,
            statement=_STATEMENT_CUES[statement_cue],
            frequency=frequency,
            cue=statement_cue,
        )
    return None
