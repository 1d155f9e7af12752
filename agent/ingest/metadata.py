"""Guess what a filing is (company, ticker, form, fiscal period, dates) from its file name and cover page.

The cover page wins where it is explicit ("FORM 10-K", "For the fiscal year ended December 31, 2018",
"(Exact name of registrant as specified in its charter)", the trading-symbol table); the file name
(``3M_2018_10K.pdf``, ``MGMRESORTS_2023Q2_10Q.pdf``, ``PEPSICO_2023_8K_dated-2023-05-05.pdf``) fills the
rest. Every field may stay empty; people can edit the result. Only the period normalisation metadata needs
lives here (``FY2018``, ``FY2023Q2``); general period parsing is elsewhere.
"""

from __future__ import annotations

import math
import re
from datetime import date, timedelta
from pathlib import Path

from pydantic import BaseModel, Field

from agent.entities import proper_case
from agent.entities.names import LEGAL_FORMS
from agent.finance.fiscal_calendar import fiscal_quarter_of
from agent.finance.periods import MONTH, fiscal_naming, infer_fy_end_month, month_of, quarter_naming
from agent.schemas import PAGE_SEPARATOR, Page

# The cover and the trading-symbol table sit on the first pages; phrases naming the ticker may come later.
COVER_PAGES = 3
TICKER_PAGES = 8
# Lines after "Trading Symbol(s)" searched for the symbol.
TICKER_TABLE_LINES = 12
CAPTION_UNDER_LINES = 2  # lines above a "Trading symbol" caption printed under its row, searched after those below
# Period ends fall on or just after a quarter's last month (52/53-week years end a few days into the next
# month): stepping back this many days lands in the month the period is named after.
PERIOD_END_SHIFT_DAYS = 15
# Longest plausible registrant name.
MAX_NAME_WORDS = 10

_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}
_DATE_RE = re.compile(
    r"\b(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+(?P<day>\d{1,2}),?\s+(?P<year>(?:19|20)\d{2})\b",
    re.IGNORECASE,
)
_ANNUAL_RE = re.compile(r"for\s+the\s+(?:fiscal\s+)?year\s+ended\s+", re.IGNORECASE)
_QUARTER_RE = re.compile(
    r"for\s+the\s+(?:quarterly\s+period|quarter|(?:three|thirteen|twelve|13|12)[\s-]+(?:months?|weeks?))"
    r"(?:\s+and\s+(?:full\s+|fiscal\s+)?year)?\s+ended\s+",
    re.IGNORECASE,
)
_EVENT_DATE_RE = re.compile(r"date\s+of\s+report[^:]*:\s*|^\s*(?:filed|filing\s+date|dated)\s*:?\s*", re.IGNORECASE | re.MULTILINE)
_FORM_LINE_RE = re.compile(r"^[_\s]*form\s+(10-K405|10-KT|10-K|10-Q|8-K|20-F|40-F|6-K)\b[_\s]*$", re.IGNORECASE)
_FORM_INLINE_RE = re.compile(r"(?:^|_{3,}\s*)form\s+(10-K|10-Q|8-K|20-F|40-F|6-K)\s*(?:_{3,}|\(mark one\)|$)", re.IGNORECASE)
_REPORT_KIND_RE = (
    (re.compile(r"annual\s+report\s+pursuant\s+to\s+section\s+13", re.IGNORECASE), "10-K"),
    (re.compile(r"quarterly\s+report\s+pursuant\s+to\s+section\s+13", re.IGNORECASE), "10-Q"),
    (re.compile(r"^\s*current\s+report\s*$", re.IGNORECASE | re.MULTILINE), "8-K"),
)
_EARNINGS_RE = re.compile(
    r"\b(?:reports?|announces?|reported)\b[^.]{0,80}\b(?:first|second|third|fourth|full[- ]year|q[1-4])\b[^.]{0,40}\bresults\b",
    re.IGNORECASE,
)
_FILE_FORMS = {
    "10K": "10-K", "10Q": "10-Q", "8K": "8-K", "20F": "20-F", "40F": "40-F", "6K": "6-K",
    "EARNINGS": "EARNINGS", "ER": "EARNINGS", "PR": "EARNINGS", "ANNUAL": "10-K",
}
_FILE_RE = re.compile(
    r"^(?P<company>.+?)[_\s-]+(?P<year>(?:19|20)\d{2})(?:[_\s-]?Q(?P<q>[1-4]))?"
    r"(?:[_\s-]+(?P<form>10-?K|10-?Q|8-?K|20-?F|40-?F|6-?K|EARNINGS|ER|PR|ANNUAL)(?![A-Za-z0-9]))?",
    re.IGNORECASE,
)
_DATED_RE = re.compile(r"dated[-_\s]?((?:19|20)\d{2})-(\d{2})-(\d{2})", re.IGNORECASE)
_EXACT_NAME_RE = re.compile(r"^\(?exact\s+name\s+of\s+(?:the\s+)?registrant", re.IGNORECASE)
_INLINE_EXACT_NAME_RE = re.compile(r"^(\S.*?)\s*\(\s*exact\s+name\s+of\s+(?:the\s+)?registrant", re.IGNORECASE)
_COMMISSION_RE = re.compile(r"commission\s+file\s+(?:number|no\.?)", re.IGNORECASE)
# A cover line that ends in a legal form ('Inc.', 'N.V.') is a registrant's name.
_COMPANY_WORD_RE = re.compile(
    rf"\b(?:{'|'.join(sorted(LEGAL_FORMS - {'the', 'com'}))}|l\.p|n\.v|s\.a|international)\b\.?", re.IGNORECASE
)
_FILE_NUMBER_RE = re.compile(r"commission\s+file\s+(?:number|no\.?)s?\s*:?\s*(\d{1,3})-(\d{3,6})\b", re.IGNORECASE)
_FILE_NUMBER_AFTER_RE = re.compile(r"^\s*(\d{1,3})-(\d{3,6})\s*$")
_CIK_RE = re.compile(r"\b(?:CIK|central\s+index\s+key)\s*(?:no\.?|number)?\s*[:#]?\s*(\d{4,10})\b", re.IGNORECASE)
_FORMERLY_RE = re.compile(
    r"\(?\bformerly(?:\s+known\s+as)?\s*:?\s+([A-Z0-9][\w&.,'’\- ]{1,80}?)(?:\)|;|\n|\s+(?:and|until|which)\b|$)",
    re.MULTILINE,
)
_FORMER_NAME_LINE_RE = re.compile(r"^\(?former\s+name", re.IGNORECASE)
_NOT_APPLICABLE_RE = re.compile(r"^\W*(?:n/?a|none|not\s+applicable|no\s+change)\W*$", re.IGNORECASE)
SPELLING_PAGES = 20  # pages searched for how the company writes its own name in running text
_EXCHANGES = r"(?:The\s+)?(?:New\s+York\s+Stock\s+Exchange|NYSE(?:\s+American)?|Nasdaq|NASDAQ|Chicago\s+Stock\s+Exchange)"
_TICKER_ROW_RE = re.compile(rf"(?:^|[\s|])([A-Z][A-Z.]{{0,5}})[\s|]+{_EXCHANGES}")
_TICKER_PAREN_RE = re.compile(r"\((?:NYSE|NASDAQ|Nasdaq|NYSE\s+American|NYSE\s+Arca)\s*:\s*([A-Z][A-Z.]{0,5})\)")
_TICKER_PHRASE_RE = re.compile(
    r"(?:ticker|trading)\s+symbol\s+(?:is\s+|of\s+)?[“\"']?([A-Z][A-Z.]{0,5})\b"
    r"|under\s+the\s+(?:ticker\s+|trading\s+)?symbols?\s+[“\"']([A-Z][A-Z.]{0,5})[”\"']"
)
# Item 5 of a 10-K: "Our common stock is traded on the Nasdaq ... under the symbol “ADBE”" (anywhere in the filing).
_TICKER_ITEM5_RE = re.compile(
    r"common\s+(?:stock|shares)[^.]{0,200}?under\s+the\s+(?:ticker\s+|trading\s+)?symbols?\s+[“\"']?([A-Z]{1,5}(?:\.[A-Z])?)\b"
)
_NOT_TICKERS = {"NYSE", "USD", "LLC", "INC", "THE", "NA", "N/A", "OTC", "ADR", "CUSIP", "ISIN", "I", "A"}


class MetadataGuess(BaseModel):
    """What the file name and cover page say a filing is; any field may be empty."""

    company: str = ""
    company_source: str = Field(default="", description="cover | release | file name")
    cik: str = ""
    file_number: str = ""
    former_names: list[str] = Field(default_factory=list)
    ticker: str = ""
    form: str = Field(default="", description="10-K, 10-Q, 8-K, EARNINGS, ...")
    fiscal_year: int | None = None
    fiscal_period: str = Field(default="", description="FY2018 or FY2023Q2")
    period_end: str = Field(default="", description="ISO date")
    fy_end_month: int = Field(default=0, description="1-12 (13-24: a month of the next year, for years named by the "
                              "year they began); 0 when neither the cover nor the columns say")
    filing_date: str = Field(default="", description="ISO date")


class _FileHints(BaseModel):
    company: str = ""
    year: int | None = None
    quarter: int | None = None
    form: str = ""
    dated: str = ""


# -------------------------------------------------------------------------------------------------------
# File name
# -------------------------------------------------------------------------------------------------------
def parse_file_name(path: Path) -> _FileHints:
    """Hints from names like ``MGMRESORTS_2023Q2_10Q`` or ``PEPSICO_2023_8K_dated-2023-05-05``."""
    stem = Path(path).stem
    hints = _FileHints()
    dated = _DATED_RE.search(stem)
    if dated:
        hints.dated = "-".join(dated.groups())
    m = _FILE_RE.match(stem)
    if m:
        hints.company = m.group("company").replace("_", " ").strip()
        hints.year = int(m.group("year"))
        hints.quarter = int(m.group("q")) if m.group("q") else None
        form = (m.group("form") or "").upper().replace("-", "")
        hints.form = _FILE_FORMS.get(form, "")
    return hints


# -------------------------------------------------------------------------------------------------------
# Cover page
# -------------------------------------------------------------------------------------------------------
def _iso(m: re.Match[str]) -> str:
    try:
        return date(int(m.group("year")), _MONTHS[m.group("month")[:3].lower()], int(m.group("day"))).isoformat()
    except ValueError:
        return ""


def _date_after(pattern: re.Pattern[str], text: str) -> str:
    for m in pattern.finditer(text):
        d = _DATE_RE.match(text, m.end())
        if d:
            return _iso(d)
    return ""


def _tidy_name(name: str, text: str = "") -> str:
    """A registrant's name as the company writes it: spacing fixed, an all-capitals cover line in the case the
    filing's running text uses ('BEST BUY CO., INC.' -> 'Best Buy Co., Inc.')."""
    name = re.sub(r"^[_\W]+|[_\s]+$", "", name)
    name = re.sub(r"\s+([.,])", r"\1", re.sub(r"\s+", " ", name)).strip()
    # Small capitals extracted as 'MGM R ESORTS I NTERNATIONAL': rejoin a lone capital with its word.
    name = re.sub(r"\b([A-Z]) (?=[A-Z]{2,}\b)", r"\1", name)
    return proper_case(name, text)


def _file_number(lines: list[str]) -> str:
    """The SEC commission file number on a cover ('Commission File Number 1-3285' -> '001-03285')."""
    for i, line in enumerate(lines):
        m = _FILE_NUMBER_RE.search(line)
        if m is None and _COMMISSION_RE.search(line):
            for nxt in lines[i + 1 : i + 3]:
                m = _FILE_NUMBER_AFTER_RE.match(nxt) or _FILE_NUMBER_RE.search(nxt)
                if m:
                    break
        if m:
            return f"{int(m.group(1)):03d}-{int(m.group(2)):05d}"
    return ""


def _former_names(lines: list[str], text: str) -> list[str]:
    """Names the filing says the company had: '(formerly Facebook, Inc.)', or the cover's line above
    '(Former name, former address and former fiscal year, if changed since last report)'."""
    out = [m.group(1).strip(" ,.") for m in _FORMERLY_RE.finditer(text)]
    for i, line in enumerate(lines):
        if _FORMER_NAME_LINE_RE.match(line) and i > 0:
            candidate = lines[i - 1].strip()
            if _plausible_name(candidate) and not _NOT_APPLICABLE_RE.match(candidate) and not _COMMISSION_RE.search(candidate):
                out.append(candidate)
    return [_tidy_name(n, text) for n in dict.fromkeys(out) if n and any(ch.isalpha() for ch in n)]


def _plausible_name(line: str) -> bool:
    words = line.split()
    return 0 < len(words) <= MAX_NAME_WORDS and any(ch.isalpha() for ch in line) and not line.startswith("(")


def _company_from_cover(lines: list[str], text: str = "") -> str:
    for i, line in enumerate(lines):
        # the name above its caption, or before it on one line ('Contoso Ltd. (Exact name of registrant ...)')
        inline = _INLINE_EXACT_NAME_RE.match(line.strip())
        if inline or (_EXACT_NAME_RE.match(line.strip()) and i > 0):
            candidate = re.sub(r"_{2,}", " ", inline.group(1) if inline else lines[i - 1]).strip()
            if _plausible_name(candidate) and not _COMMISSION_RE.search(candidate):
                return _tidy_name(candidate, text)
    for i, line in enumerate(lines[:-1]):
        if _COMMISSION_RE.search(line):
            candidate = re.sub(r"_{2,}", " ", lines[i + 1]).strip()
            if _FILE_NUMBER_AFTER_RE.match(candidate):
                continue
            if _plausible_name(candidate) and (_COMPANY_WORD_RE.search(candidate) or candidate.isupper()):
                return _tidy_name(candidate, text)
    return ""


_PERIODIC_FORMS = frozenset({"10-K", "10-K405", "10-KT", "10-Q", "20-F", "40-F"})
_REGISTRANT_MARK_RE = re.compile(r"^\(registrant\)$", re.IGNORECASE)
_SUBSIDIARIES_RE = re.compile(r"^(.{2,80}?)\s+and\s+(?:its\s+)?subsidiaries$", re.IGNORECASE)


# A 52/53-week year stated by its weekday: 'Our fiscal year ends on the last Sunday in January', 'the Saturday
# closest to September 30'.
_WEEKDAY_YEAR_END_RE = re.compile(
    rf"\bfiscal\s+year\s+ends?\s+on\s+the\s+(?P<which>last|first)?\s*(?:mon|tues|wednes|thurs|fri|satur|sun)day\s+"
    rf"(?:in|of|closest\s+to|nearest(?:\s+to)?)\s+(?P<mon>{MONTH})",
    re.IGNORECASE,
)


def _weekday_year_end(text: str) -> int:
    """The month a fiscal year stated by its weekday ends in (the month before for 'the first Sunday in February':
    its year is January's), or 0."""
    m = _WEEKDAY_YEAR_END_RE.search(text)
    if m is None:
        return 0
    month = month_of(m.group("mon"))
    return (12 if month == 1 else month - 1) if (m.group("which") or "").lower() == "first" else month


def _company_from_text(pages: list[Page]) -> str:
    """The registrant named by the filing's own text when the cover prints its name as an image: the signature
    block's '<NAME> (Registrant)', else an early page's running header '<NAME> AND SUBSIDIARIES'."""
    lines = [ln.strip() for p in pages for ln in p.text.split("\n") if ln.strip()]
    for i, line in enumerate(lines):
        if _REGISTRANT_MARK_RE.match(line) and i > 0 and _plausible_name(lines[i - 1]):
            return lines[i - 1]
    for line in (ln.strip() for p in pages[:TICKER_PAGES] for ln in p.text.split("\n")):
        m = _SUBSIDIARIES_RE.match(line)
        if m and _plausible_name(m.group(1)) and _COMPANY_WORD_RE.search(m.group(1)):
            return m.group(1)
    return ""


def _company_from_release(text: str, spelling: str = "") -> str:
    """'... Ulta Beauty, Inc. (NASDAQ: ULTA) today reported' -> 'Ulta Beauty, Inc.'."""
    m = _TICKER_PAREN_RE.search(text)
    if not m:
        return ""
    before = text[: m.start()].split("\n")[-1]
    before = re.split(r"--|\)|–|—|:", before)[-1].strip()
    words: list[str] = []
    for word in reversed(before.split()):
        if not (word[0].isupper() or word[0].isdigit() or word in {"&", "and", "of"}):
            break
        words.insert(0, word)
    return _tidy_name(" ".join(words[-MAX_NAME_WORDS:]), spelling) if words else ""


def _ticker(pages: list[Page]) -> str:
    cover_lines = [ln.strip() for p in pages[:COVER_PAGES] for ln in p.text.split("\n") if ln.strip()]
    for i in range(len(cover_lines)):
        # the caption may wrap in a printed cover's narrow column ('Title of each class Trading' / 'Symbol(s)')
        if re.search(r"trading\s+symbol", " ".join(cover_lines[i:i + 2]), re.IGNORECASE):
            # a cover prints its captions over the table's rows or, as it does under the registrant's name, under
            # them ('Class B Common Stock NKE New York Stock Exchange' over '(Title of each class) (Trading symbol)')
            for row in [*cover_lines[i:i + TICKER_TABLE_LINES], *cover_lines[max(0, i - CAPTION_UNDER_LINES):i]]:
                for m in _TICKER_ROW_RE.finditer(row):
                    if m.group(1).rstrip(".") not in _NOT_TICKERS:
                        return m.group(1).rstrip(".")
            break
    first_pages = "\n".join(p.text for p in pages[:TICKER_PAGES])
    whole = "\n".join(re.sub(r"\s+", " ", p.text) for p in pages)
    for pattern, text in ((_TICKER_PAREN_RE, first_pages), (_TICKER_PHRASE_RE, first_pages), (_TICKER_ITEM5_RE, whole)):
        for m in pattern.finditer(text):
            symbol = next(g for g in m.groups() if g).rstrip(".")
            if symbol not in _NOT_TICKERS:
                return symbol
    return ""


def _form_from_cover(lines: list[str], text: str) -> str:
    for line in lines:
        m = _FORM_LINE_RE.match(line) or _FORM_INLINE_RE.search(line)
        if m:
            return m.group(1).upper()
    for pattern, form in _REPORT_KIND_RE:
        if pattern.search(text):
            return form
    return "EARNINGS" if _EARNINGS_RE.search(text) else ""


def _quarter_of(iso: str) -> tuple[int, int]:
    """(year, calendar quarter) a period end is named after, allowing 52/53-week ends a few days late."""
    d = date.fromisoformat(iso) - timedelta(days=PERIOD_END_SHIFT_DAYS)
    return d.year, math.ceil(d.month / 3)


# -------------------------------------------------------------------------------------------------------
# Entry point
# -------------------------------------------------------------------------------------------------------
# The signature paragraph of a 10-K or 10-Q ("Pursuant to the requirements of Section 13 or 15(d) of the Securities
# Exchange Act of 1934, the registrant has duly caused this report to be signed ... Dated: February 8, 2023").
_SIGNATURES_RE = re.compile(
    r"pursuant\s+to\s+the\s+requirements\s+of\s+(?:section\s+13\s+or\s+15\s*\(d\)\s+of\s+)?the\s+securities\s+"
    r"exchange\s+act\s+of\s+1934,?\s+[^.]{1,80}?\s+has\s+duly\s+caused",  # 'the registrant' or its name
    re.IGNORECASE,
)
SIGNATURE_DATE_CHARS = 800  # the date follows the paragraph, the registrant's name and a signer or two
# A release's dateline: "PURCHASE, N.Y. - April 25, 2023 - PepsiCo ...", "Las Vegas, Nevada, February 8, 2023 –
# MGM ...", or the date alone on a line above the headline.
_DATELINE_RE = re.compile(
    rf"(?:^|\n)(?:[A-Z][A-Za-z.' ]{{1,40}}(?:,\s*[A-Z][A-Za-z.' ]{{1,30}})?\s*[,\-–—]\s*)?(?={_DATE_RE.pattern}\s*(?:[-–—]|\n))",
    re.IGNORECASE,
)
RELEASE_PAGES = 2  # a dateline sits on the first page or, after a cover exhibit page, the second
MAX_FILING_LAG_DAYS = 400  # a report is filed within months of its period's end, never before it


def _signed_or_released(pages: list[Page], form: str, period_end: str) -> str:
    """The filing date the document itself states: the signature date of a 10-K or 10-Q, or the dateline of
    an earnings release; the first one shortly after the period's end (a date in a quoted older report or
    an exhibit is not it). Empty when there is none."""
    candidates: list[str] = []
    if form in ("EARNINGS", "8-K"):
        head = "\n".join(p.text for p in pages[:RELEASE_PAGES])
        m = _DATELINE_RE.search(head)
        d = _DATE_RE.match(head, m.end()) if m else None
        candidates = [_iso(d)] if d else []
    else:
        text = PAGE_SEPARATOR.join(p.text for p in pages)
        for m in _SIGNATURES_RE.finditer(text):
            d = _DATE_RE.search(text, m.end(), m.end() + SIGNATURE_DATE_CHARS)
            if d:
                candidates.append(_iso(d))
    return next((found for found in candidates if _filed_after(found, period_end)), "")


def _filed_after(found: str, period_end: str) -> bool:
    """Whether ``found`` can be the filing date of a report for the period ending ``period_end``."""
    if not found:
        return False
    lag = (date.fromisoformat(found) - date.fromisoformat(period_end)).days if period_end else 0
    return 0 <= lag <= MAX_FILING_LAG_DAYS


FISCAL_CALENDAR_PAGES = 40  # pages searched for year-to-date columns: a 10-Q's statements come early


def detect_metadata(path: Path, pages: list[Page]) -> MetadataGuess:
    """Company, ticker, form, fiscal year/period, period end and filing date from file name and cover."""
    hints = parse_file_name(path)
    cover_text = "\n".join(p.text for p in pages[:COVER_PAGES])
    lines = [ln.strip() for ln in cover_text.split("\n") if ln.strip()]
    guess = MetadataGuess()
    spelling = "\n".join(p.text for p in pages[:SPELLING_PAGES])
    cover_name = _company_from_cover(lines, spelling)
    release_name = "" if cover_name else _company_from_release(cover_text, spelling)
    # The signature block and the running header name the registrant of a periodic report only.
    periodic = (_form_from_cover(lines, cover_text) or hints.form) in _PERIODIC_FORMS
    text_name = "" if cover_name or release_name or not periodic else _company_from_text(pages)
    text_name = _tidy_name(text_name, spelling) if text_name else ""
    guess.company = cover_name or release_name or text_name or hints.company
    guess.company_source = (
        "cover" if cover_name else "release" if release_name else "text" if text_name
        else "file name" if hints.company else ""
    )
    guess.file_number = _file_number(lines)
    cik = _CIK_RE.search(cover_text)
    guess.cik = cik.group(1).zfill(10) if cik else ""
    guess.former_names = [n for n in _former_names(lines, cover_text) if n != guess.company]
    guess.ticker = _ticker(pages)
    guess.form = _form_from_cover(lines, cover_text) or hints.form
    annual_end = _date_after(_ANNUAL_RE, cover_text)
    quarter_end = _date_after(_QUARTER_RE, cover_text)
    quarterly = guess.form == "10-Q" or hints.quarter is not None or (bool(quarter_end) and not annual_end)
    guess.period_end = (quarter_end or annual_end) if quarterly else (annual_end or quarter_end)
    event = _date_after(_EVENT_DATE_RE, cover_text)
    event = event if _filed_after(event, guess.period_end) else ""
    guess.filing_date = hints.dated or event or _signed_or_released(pages, guess.form, guess.period_end)
    # The fiscal year's end: the cover's 'fiscal year ended ...', else what a half or nine-month column implies
    # ('Six Months Ended July 29, 2023': a year that ends in January), so a 10-Q's quarter is the filer's own.
    # The cover comes first in these pages, so its statement is the one found when it makes one.
    # A filer that names its years by the year they began ('fiscal 2024 ended February 1, 2025') keeps its names.
    calendar_text = "\n".join(p.text for p in pages[:FISCAL_CALENDAR_PAGES])
    guess.fy_end_month = fiscal_naming(calendar_text, infer_fy_end_month(calendar_text, 0)
                                       or _weekday_year_end(calendar_text))
    if guess.period_end and quarterly:  # a quarter's own filing names its quarter; an annual one may name another
        guess.fy_end_month = quarter_naming(calendar_text, guess.fy_end_month, guess.period_end)
    year_from_text, quarter_from_text = _quarter_of(guess.period_end) if guess.period_end else (None, None)
    if guess.period_end and guess.fy_end_month:
        year_from_text, quarter_from_text = fiscal_quarter_of(date.fromisoformat(guess.period_end), guess.fy_end_month)
    guess.fiscal_year = hints.year or year_from_text
    if guess.fiscal_year is None and guess.filing_date:
        guess.fiscal_year = int(guess.filing_date[:4])
    quarter = hints.quarter or (quarter_from_text if quarterly and guess.form != "10-K" else None)
    if guess.fiscal_year is not None:
        guess.fiscal_period = f"FY{guess.fiscal_year}" + (f"Q{quarter}" if quarter else "")
    return guess
