"""Parse and format financial numbers without losing unit, scale or sign.

``(1,577)`` is -1577, ``$4.2 billion`` is 4.2 with scale 1e9 and unit USD, ``12.5%`` is 12.5 with unit ``%``.
Table headers such as ``(in millions)`` or ``(Millions)`` set a default scale for the numbers below them.
"""

from __future__ import annotations

import math
import re

from agent.schemas import NumericValue

SCALE_WORDS: dict[str, float] = {
    "thousand": 1e3,
    "thousands": 1e3,
    "k": 1e3,
    "million": 1e6,
    "millions": 1e6,
    "mm": 1e6,
    "mn": 1e6,
    "m": 1e6,
    "billion": 1e9,
    "billions": 1e9,
    "bn": 1e9,
    "b": 1e9,
    "trillion": 1e12,
    "trillions": 1e12,
    "tn": 1e12,
}
SCALE_NAMES: dict[float, str] = {1e3: "thousand", 1e6: "million", 1e9: "billion", 1e12: "trillion"}

# Currencies by ISO code, with how a figure in each is written before its digits: one table for reading a figure's
# currency, typing a table's and showing an answer's. A figure with no sign of its own takes its table's.
CURRENCIES: dict[str, str] = {
    "USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CNY": "RMB ", "HKD": "HK$", "SGD": "S$", "AUD": "A$",
    "CAD": "C$", "NZD": "NZ$", "TWD": "NT$", "BRL": "R$", "INR": "₹", "KRW": "₩", "CHF": "CHF ",
}
MONEY_UNITS: frozenset[str] = frozenset(CURRENCIES)
# Hundredths of a currency, as a row or its heading says ('cents per share', 'Dividend (pence)'): shown by name.
SUBUNITS: frozenset[str] = frozenset(("cents", "pence"))
# What a country's letters before '$' make of it ('HK$', 'S$'); the ISO codes and signs written before a figure
# ('RMB200 billion', '¥3,000').
_DOLLARS = {"US": "USD", "HK": "HKD", "S": "SGD", "SG": "SGD", "A": "AUD", "AU": "AUD", "C": "CAD", "CA": "CAD",
            "NZ": "NZD", "NT": "TWD", "R": "BRL"}
_CODES = {**{code: code for code in CURRENCIES}, "RMB": "CNY", "¥": "JPY", "₹": "INR", "₩": "KRW", "€": "EUR",
          "£": "GBP"}
_DOLLAR_PREFIX_RE = re.compile(r"(?<![A-Za-z])(" + "|".join(sorted(_DOLLARS, key=len, reverse=True)) + r")\$")
_CODE_BEFORE_RE = re.compile(r"(?<![A-Za-z])(" + "|".join(sorted(_CODES, key=len, reverse=True)) + r")\s?$")
# A code is a word of its own ('RMB', not the 'eur' of 'Europe'; not the 'CAD' of 'CAD/CAM'); a sign is one wherever
# it stands ('£m').
_CODE_RE = re.compile("|".join([*(rf"(?<![A-Za-z/-])({c})(?![A-Za-z/-])" for c in sorted(_CODES, key=len, reverse=True)
                                   if c.isalpha()), *(f"({re.escape(c)})" for c in _CODES if not c.isalpha())]))
# A currency named in words as the unit of figures ('millions of Canadian dollars', 'in thousands of euros', 'in
# Canadian dollars'), never a word of a name ('Euro area'); plain 'dollars' are US dollars.
_CURRENCY_WORDS = {"canadian dollar": "CAD", "australian dollar": "AUD", "hong kong dollar": "HKD",
                   "singapore dollar": "SGD", "new zealand dollar": "NZD", "new taiwan dollar": "TWD", "euro": "EUR",
                   "pounds sterling": "GBP", "sterling": "GBP", "swiss franc": "CHF", "japanese yen": "JPY",
                   "yen": "JPY", "renminbi": "CNY", "indian rupee": "INR", "brazilian real": "BRL"}
_CURRENCY_WORDS_RE = re.compile(
    r"\b(?:thousands|millions|billions|in)\s+(?:of\s+)?("
    + "|".join(w.replace(" ", r"\s+") for w in sorted(_CURRENCY_WORDS, key=len, reverse=True)) + r")s?\b",
    re.IGNORECASE)
_CODE_REACH = 4  # characters before a figure searched for its currency code ('RMB ')
_CURRENCY = r"(?P<cur>US\$|\$|USD|€|EUR|£|GBP)?"
_NUMBER = r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
# Whitespace between a number's parts is bounded: unbounded runs next to optional groups backtrack
# polynomially on PDF text with long blank runs. pdfium splits "$" and "5,363" by at most a few blanks.
_WS = r"\s{0,4}"
_SCALE = r"(?:" + _WS + r"(?P<scale>thousands?|millions?|billions?|trillions?|bn|mm|mn|tn|[kKmMbB](?![a-zA-Z])))?"
_UNIT = r"(?:" + _WS + r"(?P<unit>%|percent(?:age)?(?:\s+points?)?|pp|bps|basis\s+points|x(?![a-zA-Z])|times|shares))?"

# The leading lookahead lets the scan skip characters that cannot start a number (every group after it is
# optional, so without it the engine tries a match at each position: ~25x slower on filing text).
NUMBER_RE = re.compile(
    r"(?=[(\-−–$€£\dUuEeGg.])(?P<open>\()?" + _WS + r"(?P<neg>[-−–])?" + _WS + _CURRENCY + _WS
    + r"(?P<neg2>[-−–])?" + _WS + _NUMBER + _SCALE + _UNIT + _WS + r"(?P<close>\))?",
    re.IGNORECASE,
)
# An en dash is a minus only glued to what follows ('–5'); spaced, it separates ('(2023 – $5,407 million)': the prior
# year's figure, not a negative one).
_SPACED_EN_DASH_RE = re.compile(r"\u2013(?=\s)")
_YEAR_RE = re.compile(r"^(19|20)\d{2}$")
_HEADER_SCALE_RE = re.compile(
    r"(?:in|\$|amounts?\s+in|dollars\s+in|expressed\s+in|\()\s*(?:u\.?s\.?\s+)?(?:dollars\s+)?(?:\$\s*)?"
    r"(thousands|millions|billions)\b",
    re.IGNORECASE,
)


# 'tier 1', 's&p 500', 'level 3', 'item vii', 'december 31': a number right after a word is part of a name (or a
# date), not a figure; not a year, not an operand after 'less' or 'plus'.
_NAME_NUMBER_RE = re.compile(r"(?<![\w&$])([a-z][a-z&]*)\s(\d{1,4}|[ivx]{1,4})\b(?![\d.,%/])", re.IGNORECASE)
_OPERAND_AFTER = frozenset(["less", "plus", "minus", "times"])
# Words before a number that make it a stated figure ('was 500 million'), never part of a name ('tier 1').
_FUNCTION_WORDS = frozenset(
    ["a", "an", "the", "of", "to", "by", "at", "in", "on", "for", "from", "than", "and", "or", "was", "were", "is",
     "are", "be", "been", "about", "approximately", "nearly", "over", "under", "with", "per", "totaled", "totaling",
     "only", "least", "most", "some"]
)
_SCALE_AFTER_RE = re.compile(r"\s*(?:%|percent|thousands?|millions?|billions?|trillions?|bps|basis)\b")
NAME_NUMBER_REACH = 40  # characters searched back for the word a number names with


# 'Customer A', 'Class B': a capital letter after a word, as written, names one of several things of that word.
_NAME_LETTER_RE = re.compile(r"(?<![\w&$])([A-Za-z][A-Za-z&]+)\s([A-Z])\b(?![\w.&'’-])")


def without_code_before(text: str) -> str:
    """``text`` without the currency code or sign it ends with, which is the unit of the figure after it, no word
    naming it (the 'RMB' of 'exchange gains of RMB77 million')."""
    return _CODE_BEFORE_RE.sub("", text)


def is_name_letter(word: str, letter: str) -> bool:
    """Whether ``letter`` after ``word`` is the letter of a name ('Customer A', 'Class B'), not an article
    ('was A' is none: a function word before it)."""
    return (len(letter) == 1 and letter.isupper() and word.isalpha() and len(word) > 1
            and word.lower() not in _FUNCTION_WORDS)


def is_ordinal(word: str) -> bool:
    """A number written as an ordinal ('1st', '53rd', '112th'), its suffix the one English gives it."""
    digits, suffix = word[:-2], word[-2:].lower()
    if not digits.isdigit():
        return False
    n = int(digits)
    return suffix == ("th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th"))


def is_year(text: str) -> bool:
    """A year written bare ('2039'): four digits from 1900 to 2099, no separator, sign or currency."""
    return bool(_YEAR_RE.match(text.strip()))


def name_numbers(text: str) -> dict[str, set[str]]:
    """Words that carry a number as part of their name ('s&p 500' -> {'s&p': {'500'}}), or a capital letter as
    written ('Customer B' -> {'customer': {'b'}}), lower-cased."""
    out: dict[str, set[str]] = {}
    for word, num in _NAME_NUMBER_RE.findall(text.lower()):
        if not _YEAR_RE.match(num) and word not in _OPERAND_AFTER:
            out.setdefault(word, set()).add(num)
    for word, letter in _NAME_LETTER_RE.findall(text):
        if is_name_letter(word, letter):
            out.setdefault(word.lower(), set()).add(letter.lower())
    return out


# A unit of measure a table's title or caption states its figures in ('Retail electric sales (GWh)', '(in thousands of
# barrels)'): its figures are quantities of it, never money, whatever the filing's currency.
_MEASURES = r"[kmgt]wh|b?cf|mmbtu|bbls?|barrels|tonnes|tons"
_MEASURE_RE = re.compile(rf"\(\s*(?:in\s+)?(?:\w+\s+of\s+)?(?P<unit>{_MEASURES})\s*\)", re.IGNORECASE)
# ... and one a question asks its answer in ('..., in GWh?', 'in thousands of barrels')
_MEASURE_ASKED_RE = re.compile(rf"\b(?:in|as)\s+(?:\w+\s+of\s+)?(?P<unit>{_MEASURES})\b", re.IGNORECASE)


def stated_measure(text: str) -> str:
    """The unit of measure ``text`` (a table's title or caption) states in parentheses ('GWh'), or ''."""
    m = _MEASURE_RE.search(text)
    return m.group("unit") if m else ""


def stated_currency(header: str) -> str:
    """The currency a table's header states in its units ('($ in millions)', "HK$'000" -> 'USD', 'HKD'), or ''."""
    return currency_of(" ".join(p for p in header.split("|") if units_only(p) or header_scale(p) != 1.0))


def is_measure(unit: str) -> bool:
    """Whether a figure's ``unit`` is a unit of measure ('GWh', 'barrels'), a quantity never an amount of money."""
    return bool(unit) and bool(stated_measure(f"({unit})"))


def asked_measure(question: str) -> str:
    """The unit of measure a question asks its answer in ('in GWh', '(GWh)'), or '' (an amount, a count, a ratio)."""
    m = _MEASURE_ASKED_RE.search(question) or _MEASURE_RE.search(question)
    return m.group("unit") if m else ""


def same_measure(a: str, b: str) -> bool:
    """Whether two units of measure are one ('GWh', 'gwh'; 'bbl', 'bbls', 'barrels')."""
    def key(unit: str) -> str:
        unit = unit.lower().rstrip("s")
        return "bbl" if unit == "barrel" else unit
    return key(a) == key(b)


def is_name_number(text: str, start: int, end: int) -> bool:
    """True when the number at ``text[start:end]`` is part of a name ('tier 1 capital', 'level 3 assets'), not a
    figure."""
    window_start = max(0, start - NAME_NUMBER_REACH)
    for m in _NAME_NUMBER_RE.finditer(text.lower(), window_start, min(len(text), end + 1)):
        if m.start(2) == start and m.end(2) == end:
            after = text[end : end + NAME_NUMBER_REACH].lower()
            return (
                not _YEAR_RE.match(m.group(2))
                and m.group(1) not in _OPERAND_AFTER
                and m.group(1) not in _FUNCTION_WORDS  # 'was 500 million' states a figure
                and not m.group(1).lower().endswith("ed")  # so does a verb's past: 'opened 9 new stores'
                and not _SCALE_AFTER_RE.match(after)
            )
    return False


# A currency followed by its scale, as filings outside the US head their tables: '$ million', '£m', 'US$ million',
# 'S$ Mil', 'RMB'000', '$'000', '€ bn' (a figure between them, '$5m', is an amount, not a heading).
_CURRENCY_SCALE_RE = re.compile(
    r"(?:[$€£¥₹₩]|(?<![A-Za-z])(?:usd|eur|gbp|rmb|cny|hkd|sgd|aud|cad|nzd|jpy|inr|krw|chf)(?![A-Za-z]))\s*"
    r"(?:in\s+)?(?P<scale>['’]?\s*000s?|thousands?|millions?|mil|mn|m|billions?|bn)(?![A-Za-z0-9])",
    re.IGNORECASE,
)


def own_measure(label: str) -> bool:
    """A row label stating its own scale and no currency ('Available seat miles (millions)', 'Revenue passenger
    miles (millions)'): its figures count something of their own, never in the money of the table or the metric."""
    return header_scale(label) != 1.0 and not currency_of(label)


def header_scale(text: str) -> float:
    """The scale a table header or caption declares: '(in millions)', '(Millions)', '$ in thousands', '$ million',
    '£m', "RMB'000" -> 1e6 ..."""
    m = _HEADER_SCALE_RE.search(text)
    if m:
        return SCALE_WORDS[m.group(1).lower()]
    m = re.search(r"\((thousands|millions|billions)\b", text, re.IGNORECASE)
    if m:
        return SCALE_WORDS[m.group(1).lower()]
    m = _CURRENCY_SCALE_RE.search(text)
    if m is None:
        return 1.0
    scale = re.sub(r"['’\s]", "", m.group("scale").lower())
    return 1e3 if scale.startswith("000") else SCALE_WORDS.get(scale, SCALE_WORDS.get(scale.rstrip("s"), 1e6))


def currency_of(text: str) -> str:
    """The ISO code of the first currency ``text`` states by sign, code or name ('HK$'000' -> 'HKD', '(RMB in
    millions)' -> 'CNY', '$' -> 'USD', 'millions of Canadian dollars' -> 'CAD'), 'USD' for plain dollars in words;
    '' for none."""
    prefixed = _DOLLAR_PREFIX_RE.search(text)
    found = [(prefixed.start(), _DOLLARS[prefixed.group(1)])] if prefixed else []
    codes = _CODE_RE.search(text)
    if codes:
        found.append((codes.start(), _CODES[next(g for g in codes.groups() if g)]))
    dollar = text.find("$")
    if dollar >= 0:
        found.append((dollar + 1, "USD"))  # after a 'HK$' at the same place
    named = _CURRENCY_WORDS_RE.search(text)
    if named:
        found.append((named.start(), _CURRENCY_WORDS[" ".join(named.group(1).lower().split())]))
    if found:
        return min(found)[1]
    return "USD" if re.search(r"\bdollars?\b", text, re.IGNORECASE) else ""


def _written_currency(m: re.Match[str]) -> tuple[str, bool, int]:
    """The currency a number's own prefix names: letters before its '$' ('HK$5 million'), or a code or sign just
    before it ('RMB200 billion', '¥3,000'); '' for none beyond the matched sign. With it, whether a parenthesis
    opens before the prefix ('(HK$1,234)' is negative), and where the letters before a '$' start (the figure is
    written from there: 'C$5,407 million'; -1 for none)."""
    cur = m.group("cur")
    if cur == "$":
        at = m.start("cur")
        prefix = _DOLLAR_PREFIX_RE.search(m.string, max(0, at - 2), at + 1)
        if prefix is None or prefix.end() != at + 1:
            return "", False, -1
        return _DOLLARS[prefix.group(1)], m.string[: prefix.start()].rstrip().endswith("("), prefix.start()
    if cur:
        return "", False, -1
    start = max(0, m.start() - _CODE_REACH)
    before = _CODE_BEFORE_RE.search(m.string[start : m.start()])
    if before is None:
        return "", False, -1
    return _CODES[before.group(1)], m.string[: start + before.start()].rstrip().endswith("("), -1


def _unit_of(cur: str | None, unit: str | None) -> str:
    if unit:
        u = unit.lower()
        if u.startswith("%") or u.startswith("percent") or u == "pp":
            return "%"
        if u in {"bps"} or u.startswith("basis"):
            return "bps"
        if u in {"x", "times"}:
            return "x"
        if u == "shares":
            return "shares"
    if cur:
        return {"$": "USD", "us$": "USD", "usd": "USD", "€": "EUR", "eur": "EUR", "£": "GBP", "gbp": "GBP"}[cur.lower()]
    return ""


# Words a filing writes right before a figure to qualify it, by what they make of the figure: an approximation
# keeps it a figure ('approximately $120 million'); a bound gives only a limit ('less than $300 million').
_QUALIFIERS: dict[str, str] = {
    **dict.fromkeys(["approximately", "approx.", "about", "around", "roughly", "some", "an estimated"],
                    "approximately"),
    **dict.fromkeys(["nearly", "almost", "close to"], "nearly"),
    **dict.fromkeys(["more than", "over", "greater than", "in excess of", "exceeding", "above", "upwards of"],
                    "more than"),
    **dict.fromkeys(["less than", "fewer than", "under", "below"], "less than"),
    **dict.fromkeys(["at least", "no less than", "not less than", "a minimum of"], "at least"),
    **dict.fromkeys(["up to", "at most", "as much as", "as many as", "no more than", "not more than", "a maximum of"],
                    "up to"),
}
_QUALIFIER_REACH = 40  # characters before a figure searched for its qualifier
# 'grew 12% over $2.1 billion', '5% above 2023 levels': after a figure these words compare, they bound nothing.
_COMPARING = frozenset(["over", "above", "below", "under"])
# 'amortized over 5 years': a span of time is measured, not bounded.
_DURATION_AFTER_RE = re.compile(r"\s*(?:years?|months?|weeks?|days?|quarters?)\b", re.IGNORECASE)


_QUALIFIER_WORDS = max(len(w.split()) for w in _QUALIFIERS)


def figure_qualifier(text: str, start: int, end: int) -> str:
    """How the words right before ``text[start:end]`` qualify the figure: '' or a value of ``_QUALIFIERS``.
    Looked up by the last words before it (a table cell, after '|' or ':', is passed over at once)."""
    window = text[max(0, start - _QUALIFIER_REACH) : start]
    if not window[-1:].isspace() or not window.rstrip()[-1:].isalpha() and not window.rstrip().endswith("."):
        return ""
    words = [w.lstrip("(\"'“") for w in window.lower().split()]
    for n in range(min(_QUALIFIER_WORDS, len(words)), 0, -1):
        word = " ".join(words[-n:])
        if word in _QUALIFIERS:
            if word in _COMPARING and (
                re.search(r"[\d%]", "".join(words[-n - 1 : -n])) or _DURATION_AFTER_RE.match(text, end)
            ):
                return ""
            return _QUALIFIERS[word]
    return ""


# Integer digits a figure may print: a float holds 15 to 17 significant digits, and no filing states an amount of
# more than 18 digits even in units (a quintillion); a longer run of digits is text, never a figure.
MAX_FIGURE_DIGITS = 18


def too_long(num: str) -> bool:
    """Whether the digits ``num`` prints before its decimal point are more than a figure may have."""
    return sum(c.isdigit() for c in num.split(".", 1)[0]) > MAX_FIGURE_DIGITS


def overlong_figures(text: str) -> list[tuple[int, int]]:
    """(offset, integer digits) of every figure in ``text`` too long to be read as one (:data:`MAX_FIGURE_DIGITS`)."""
    return [(m.start("num"), sum(c.isdigit() for c in m.group("num").split(".", 1)[0]))
            for m in NUMBER_RE.finditer(text) if too_long(m.group("num"))]


def _from_match(m: re.Match[str], default_scale: float, offset: int = 0) -> NumericValue | None:
    num = m.group("num")
    # beyond what a float holds as printed: the figure keeps its place, unreadable (ingest warns where it stands)
    readable = not too_long(num)
    value = float(num.replace(",", "")) if readable else 0.0
    scale_word = (m.group("scale") or "").lower()
    cur, unit = m.group("cur"), m.group("unit")
    unit_name = _unit_of(cur, unit)
    written, opened, prefixed = _written_currency(m) if unit_name in {"", "USD"} else ("", False, -1)
    unit_name = written or unit_name
    # A bare single letter (m, b, k) only counts as a scale right after a currency amount: "5 m" is ambiguous.
    if scale_word in {"m", "b", "k"} and not cur and not written:
        scale_word = ""
    scale = SCALE_WORDS.get(scale_word, 0.0)
    parenthesised = (bool(m.group("open")) or opened) and bool(m.group("close"))
    negative = parenthesised or bool(m.group("neg")) or bool(m.group("neg2"))
    if not scale:
        # Percentages, ratios and per-share figures are never scaled by a table's "(in millions)".
        scale = 1.0 if unit_name in {"%", "bps", "x"} else default_scale
    text = m.group(0).strip()
    if not parenthesised:
        text = text.strip("()").strip()
    local = m.start() + (len(m.group(0)) - len(m.group(0).lstrip()))
    if 0 <= prefixed < local and m.string[local] == "$":
        # 'C$5,407 million', '(HK$1,234)': the prefix, and a parenthesis before it, are the figure's
        begin = m.string.rfind("(", 0, prefixed) if opened else prefixed
        text, local = m.string[begin:local] + text, begin
    start = local + offset
    return NumericValue(
        text=text,
        value=-value if negative else value,
        scale=scale,
        unit=unit_name,
        start=start,
        end=start + len(text),
        bound=figure_qualifier(m.string, local, local + len(text)),
        readable=readable,
    )


# A table cell that prints nothing but a dash ('—', '$ —', '-') states a nil amount, by the convention of
# financial statements; 'n/a', 'nm' or an empty cell state nothing.
_NIL_CELL_RE = re.compile(r"\s*(?P<cur>[$€£¥])?\s*(?P<dash>[\u2014\u2013\u2012\u2212-]{1,3})\s*")


def nil_cell(text: str, default_scale: float = 1.0) -> NumericValue | None:
    """The zero a table cell prints as a dash (``nil_cell("$ —").value == 0.0``), at the dash's offset in
    ``text``; None for any other cell."""
    m = _NIL_CELL_RE.fullmatch(text)
    if m is None:
        return None
    return NumericValue(text=m.group("dash"), value=0.0, scale=default_scale, unit=currency_of(m.group("cur") or ""),
                        start=m.start("dash"), end=m.end("dash"))


def parse_number(text: str, default_scale: float = 1.0) -> NumericValue | None:
    """Parse the first number in ``text``; None when there is none.

    >>> parse_number("(1,577)").value
    -1577.0
    >>> parse_number("$4.2 billion").absolute
    4200000000.0
    """
    if not text:
        return None
    m = NUMBER_RE.search(_cleaned(text))
    return _from_match(m, default_scale) if m else None


def _cleaned(text: str) -> str:
    """``text`` with its minus signs as hyphens and no-break spaces as spaces, each character where it was."""
    return _SPACED_EN_DASH_RE.sub(" ", text).replace("\u2212", "-").replace("\u2013", "-").replace("\xa0", " ")


def find_numbers(text: str, default_scale: float = 1.0, include_years: bool = False) -> list[NumericValue]:
    """Every number in ``text`` with offsets; four-digit years are skipped unless asked for. A range ('1.74% -
    1.94%', '$4.5-$4.7 billion') is one figure: its lower end with its upper end (``high``), never a negative."""
    out: list[NumericValue] = []
    for m in NUMBER_RE.finditer(_cleaned(text)):
        num = m.group("num")
        if not include_years and _YEAR_RE.match(num) and not m.group("cur") and not m.group("unit"):
            continue
        nv = _from_match(m, default_scale)
        if nv is None:
            continue
        if out and (joined := _range(text, out[-1], nv)) is not None:
            out[-1] = joined
            continue
        out.append(nv)
    return out


_RANGE_DASH_RE = re.compile(r"\s*[-\u2013\u2014\u2212]\s*")
_RANGE_UNITS = frozenset({"%", "bps", "x"})
_BETWEEN_RE = re.compile(r"\bbetween\s+$", re.IGNORECASE)  # 'between $4.5 and $4.7 billion'
_RANGE_AND_RE = re.compile(r"\s+and\s+")


def _range(text: str, low: NumericValue, nv: NumericValue) -> NumericValue | None:
    """``low`` and the figure after it as one range when a dash joins them ('1.74% - 1.94%', '$4.5-$4.7 billion',
    '2.0%–2.5%') or 'between' and 'and' hold them ('between $4.5 and $4.7 billion'): figures of one kind, each
    stated as one (a unit, a currency or decimals: '12-31' is a date's), the second no smaller; None otherwise. The
    dash is the range's, never the second figure's minus sign."""
    dash = text[low.end:nv.start] + (nv.text[:1] if nv.text[:1] in "-\u2013\u2014\u2212" else "")
    between = bool(_BETWEEN_RE.search(text[:low.start]) and _RANGE_AND_RE.fullmatch(text[low.end:nv.start]))
    if not (_RANGE_DASH_RE.fullmatch(dash) or between) or not (low.readable and nv.readable) or low.is_bound or nv.bound:
        return None
    if low.value < 0 or "(" in low.text or "(" in nv.text:
        return None
    unit = nv.unit or low.unit
    if low.unit not in {"", unit} or not (unit in _RANGE_UNITS or unit in CURRENCIES or "." in low.text + nv.text):
        return None
    scale = nv.scale if low.scale in {1.0, nv.scale} else low.scale  # '$4.5-$4.7 billion': one scale for both
    high = abs(nv.value) * (nv.scale or 1.0) / scale
    if high < low.value * (1 - 1e-9) or high == low.value == 0:
        return None
    return low.model_copy(update={"unit": unit, "scale": scale, "high": high, "end": nv.end,
                                  "text": text[low.start:nv.end]})


def decimals_of(text: str) -> int:
    """Digits after the decimal point as written ('12.50%' -> 2), to round a comparison to the gold's precision."""
    m = re.search(r"\d+\.(\d+)", text.replace(",", ""))
    return len(m.group(1)) if m else 0


def format_number(value: float, unit: str = "", scale: float = 1.0, decimals: int | None = None) -> str:
    """Format a value for people: ``format_number(-1577, 'USD', 1e6)`` -> ``-$1,577 million``."""
    if decimals is None:
        decimals = 0 if float(value).is_integer() else (1 if abs(value) >= 100 else 2)
    body = f"{abs(value):,.{decimals}f}"
    sign = "-" if value < 0 and not math.isclose(value, 0.0) else ""
    scale_name = SCALE_NAMES.get(scale, "")
    if unit == "%":
        return f"{sign}{body}%"
    if unit == "x":
        return f"{sign}{body}x"
    if unit == "bps":
        return f"{sign}{body} bps"
    if unit in SUBUNITS:
        return f"{sign}{body} {unit}"
    prefix = CURRENCIES.get(unit, "")
    suffix = f" {scale_name}" if scale_name else ""
    tail = " shares" if unit == "shares" else f" {unit}" if is_measure(unit) else ""
    return f"{sign}{prefix}{body}{suffix}{tail}"


# ---------------------------------------------------------------------------------------------------------
# Units stated in headers
# ---------------------------------------------------------------------------------------------------------
_SCALE_WORDS = frozenset({"thousand", "thousands", "million", "millions", "mil", "mn", "m", "billion", "billions", "bn",
                          "k"})
_UNIT_WORDS = _SCALE_WORDS | {"us", "in", "amounts", "dollars"} | {c.lower() for c in _CODES if c.isalpha()}


def units_only(text: str) -> bool:
    """'$ million', 'S$ Mil', '£m', "$'000", '(in millions)': text stating the figures' currency and scale and
    naming nothing else."""
    text = _DOLLAR_PREFIX_RE.sub("$", text)  # 'HK$', 'S$': a dollar
    words = re.findall(r"[a-z]+", text.lower())
    rest = re.sub(r"[a-z$€£¥₹₩'’().,\s0]", "", text.lower())  # the zeros of '000
    return bool(words or re.search(r"[$€£¥₹₩]", text)) and not rest and all(w in _UNIT_WORDS for w in words)


def without_units(label: str) -> str:
    """A column or row label without the currency and scale it states ('USD denominated RMB’Million' -> 'USD
    denominated'): what the label names, not how its figures are stated."""
    kept = []
    for token in label.split():
        pieces = {p.lower() for p in re.findall(r"[A-Za-z]+", token)}
        if pieces & _SCALE_WORDS and pieces <= _UNIT_WORDS or not pieces and re.fullmatch(r"[$€£¥'’()0-9]+", token):
            continue  # 'RMB’Million', '$’000', "S$'000": a scale with its currency
        kept.append(token)
    return " ".join(kept)
