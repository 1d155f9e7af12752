"""Inline-XBRL facts of an HTML filing: every tagged figure with its concept, context, unit, scale and sign.

EDGAR 10-K and 10-Q documents since 2019 tag each statement figure (``<ix:nonFraction name="us-gaap:NetIncomeLoss"
contextRef="c-1" unitRef="usd" scale="6" ...>``). The facts are read with ``ixbrlparse`` (transforms, scale and
sign, contexts with their dimensions), which reads the file alone and needs no taxonomy download, so ingest stays
offline. Where each figure is printed comes from :func:`agent.ingest.parsing.locate_facts`. The ``dei`` facts
(registrant, CIK, tickers, fiscal year and period, fiscal year end) say what the filing is.
"""

from __future__ import annotations

import io
import logging
import math
import re
import warnings
from collections.abc import Mapping, Sequence
from datetime import date

from pydantic import BaseModel, Field

from agent.errors import IngestError
from agent.finance.fiscal_calendar import duration_norm, instant_norm
from agent.finance.numbers import nil_cell, parse_number
from agent.finance.periods import parse_date, period_year, shift_period
from agent.finance.wording import COUNT_VALUES
from agent.ingest.parsing import FactSpan
from agent.schemas import NumericValue, XbrlFact

log = logging.getLogger(__name__)

# The SEC's fiscal year end is written '--09-27' in the dei tag; some filers print 'DECEMBER 31' instead.
_FY_END_RE = re.compile(r"^--(\d{2})-(\d{2})$")
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# Average month length: a duration's months are its days over this, rounded (a 13-week quarter is 3).
_DAYS_PER_MONTH = 30.44


class FilingFacts(BaseModel):
    """What inline XBRL says of one filing: its facts and the ``dei`` cover facts."""

    facts: list[XbrlFact] = Field(default_factory=list)
    registrant: str = ""
    cik: str = ""
    tickers: list[str] = Field(default_factory=list)
    form: str = ""
    fiscal_year: int | None = None
    fiscal_period: str = Field(default="", description="FY | Q1 | Q2 | Q3 | H1 ... as dei writes it")
    period_end: str = Field(default="", description="ISO date of dei:DocumentPeriodEndDate")
    fy_end_month: int = Field(default=0, description="the month dei says the fiscal year ends; 0 when it says none")
    tagged: int = Field(default=0, description="numeric tags the file's markup holds, read or not")
    disagreements: list[str] = Field(default_factory=list, description="tags left out because they say other than "
                                     "the page prints (hidden content, format, scale, value)")


def concept_words(concept: str) -> str:
    """'us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax' -> 'Revenue From Contract With ...'."""
    local = concept.split(":", 1)[-1]
    return " ".join(_CAMEL_RE.sub(" ", local).split())


def _fy_end_month(text: str) -> int:
    m = _FY_END_RE.match(text.strip())
    if m:
        month, day = int(m.group(1)), int(m.group(2))
        # A 52/53-week year that ends in the first days of a month closes the month before (as periods snap).
        return (month - 2) % 12 + 1 if day <= 7 else month
    day = parse_date(f"{text.strip()} 2001")
    return day.month if day else 0


def _units(soup: object) -> dict[str, str]:
    """unit id -> 'USD', 'shares', 'USD/shares' (ixbrlparse drops a divide's denominator)."""

    def local(tag: object) -> str:
        return str(getattr(tag, "name", "") or "").split(":")[-1].lower()

    def measures(node: object) -> str:
        found = node.find_all(lambda t: local(t) == "measure")  # type: ignore[attr-defined]
        return " ".join(m.get_text(strip=True).split(":")[-1] for m in found)

    out: dict[str, str] = {}
    for unit in soup.find_all(lambda t: local(t) == "unit"):  # type: ignore[attr-defined]
        sides = [n for n in unit.find_all(lambda t: local(t) in {"unitnumerator", "unitdenominator"})]
        out[str(unit.get("id") or "")] = "/".join(measures(n) for n in sides) if sides else measures(unit)
    return out


def _decimals(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None  # 'INF': exact


def _fact(item: object, units: Mapping[str, str], fy_end: int, span: FactSpan | None) -> XbrlFact | None:
    context = item.context  # type: ignore[attr-defined]
    if item.value is None or context is None:  # type: ignore[attr-defined]
        return None
    attrs = item.soup_tag.attrs  # type: ignore[attr-defined]
    end: date | None = context.instant or context.enddate
    if end is None:
        return None
    start: date | None = None if context.instant else context.startdate
    months = round((end - start).days / _DAYS_PER_MONTH) if start else 0
    period = duration_norm(end, months, fy_end) if months else instant_norm(end, fy_end)
    dims = {str(s.get("dimension", "")): str(s.get("value", "")) for s in context.segments or [] if s.get("dimension")}
    unit_ref = str(attrs.get("unitRef") or attrs.get("unitref") or "")
    try:
        scale = int(attrs.get("scale") or 0)
    except ValueError:
        scale = 0
    concept = f"{item.schema}:{item.name}"  # type: ignore[attr-defined]
    return XbrlFact(
        fact_id=str(attrs.get("id") or ""),
        concept=concept,
        label=concept_words(concept),
        value=float(item.value),  # type: ignore[attr-defined]
        text=" ".join(str(item.text or "").split()),  # type: ignore[attr-defined]
        unit=units.get(unit_ref, unit_ref),
        decimals=_decimals(str(attrs.get("decimals") or "INF")),
        scale=scale,
        entity=str((context.entity or {}).get("identifier", "")),
        start=start.isoformat() if start else "",
        end=end.isoformat(),
        months=months,
        period=period,
        dimensions=dims,
        page=span.page if span else None,
        span_start=span.start if span else 0,
        span_end=span.end if span else 0,
    )


def _label_offset(period_end: date | None, focus: str, year: str, fy_end: int) -> int:
    """Years between the filer's fiscal label and the one the dates give (a retailer calls the year ended
    February 1, 2025 'fiscal 2024'; read by its dates it closes in January 2025): 0 when they agree or cannot
    be compared."""
    if period_end is None or not year.isdigit():
        return 0
    months = 12 if focus == "FY" else 3 if re.fullmatch(r"Q[1-4]", focus) else 0
    if not months:
        return 0
    dated = period_year(duration_norm(period_end, months, fy_end))
    offset = int(year) - dated if dated else 0
    return offset if abs(offset) == 1 else 0  # a larger gap is a typo in the tag, not a calendar


_NUMERIC_TAG_RE = re.compile(rb"<ix:nonfraction\b", re.IGNORECASE)
READ_SHARE_WARNED = 0.5  # fewer of the file's numeric tags read than this: its markup broke the tag reader


def count_numeric_tags(data: bytes) -> int:
    """How many numeric inline-XBRL tags a file's markup holds (without parsing it)."""
    return len(_NUMERIC_TAG_RE.findall(data))


MAX_TAG_SCALE = 12  # a tag's power of ten: trillions at most, hundredths the other way; beyond is no figure
_COMMA_DECIMAL_RE = re.compile(r"comma-?decimal", re.IGNORECASE)  # '1.234,5' formats (ixt:num-comma-decimal)
_WORDS_FORMAT_RE = re.compile(r"numwords", re.IGNORECASE)  # ixt-sec:numwordsen: 'two', 'none'
_NUMBER_WORDS = {"no": 0, "none": 0, "zero": 0, "one": 1, **COUNT_VALUES}


def printed_disagreement(fact: XbrlFact, form: str, pages: Sequence[str]) -> str:
    """Why ``fact`` says something other than the page the reader sees ('' when they agree): its value is no
    finite number, its scale no power of ten a figure has, or the text printed at its place (hidden content
    removed, as the reader removes it) is not its value at its scale -- a tag cannot state what the page does not
    print. A fact printed nowhere (in the hidden header) is not checked here: it is never cited as printed."""
    if not math.isfinite(fact.value):
        return f"{fact.fact_id}: the tag's value {fact.text!r} is no finite number"
    if abs(fact.scale) > MAX_TAG_SCALE:
        return f"{fact.fact_id}: scale {fact.scale} is no power of ten a figure is printed in"
    if fact.page is None or fact.page >= len(pages):
        return ""
    printed = pages[fact.page][fact.span_start:fact.span_end].strip()
    if _COMMA_DECIMAL_RE.search(form):
        printed = printed.replace(".", "").replace(",", ".")
    words = _NUMBER_WORDS.get(printed.lower()) if _WORDS_FORMAT_RE.search(form) else None
    number = parse_number(printed) or nil_cell(printed) or (NumericValue(text=printed, value=words)
                                                            if words is not None else None)
    if number is None or not number.readable:
        return f"{fact.fact_id}: the tag reads {fact.value:g}, and the page prints {printed[:40]!r} there"
    shown = abs(number.value) * 10.0 ** fact.scale
    if abs(abs(fact.value) - shown) > 1e-6 * max(1.0, shown):
        return f"{fact.fact_id}: the tag reads {fact.value:g}, and the page prints {printed[:40]!r}"
    return ""


def read_facts(path: str, data: bytes, spans: Mapping[str, FactSpan], fy_end_month: int = 12,
               pages: Sequence[str] = ()) -> FilingFacts:
    """Every numeric fact of an inline-XBRL HTML filing that agrees with the text of ``pages`` (the reader's page
    texts; :func:`printed_disagreement`), and its ``dei`` cover facts. A file whose tags cannot be read raises
    :class:`IngestError` (the text of the filing is still ingested by the caller)."""
    from ixbrlparse import IXBRL

    try:
        with warnings.catch_warnings():  # transforms it does not know (text dates) are reported per fact
            warnings.simplefilter("ignore")
            doc = IXBRL(io.BytesIO(data), raise_on_error=False)
    except Exception as exc:  # noqa: BLE001 - a broken file must not stop the ingest of its text
        raise IngestError(path, f"inline XBRL could not be read: {exc}") from exc
    dei: dict[str, list[str]] = {}
    for item in doc.nonnumeric:
        if item.schema == "dei":
            dei.setdefault(item.name, []).append(" ".join(str(item.text or "").split()))
    first = {k: v[0] for k, v in dei.items() if v}
    stated_fy_end = _fy_end_month(first.get("CurrentFiscalYearEndDate", ""))
    fy_end = stated_fy_end or fy_end_month or 12
    units = _units(doc.soup)
    facts = []
    disagreements: list[str] = []
    for item in doc.numeric:
        try:
            fact = _fact(item, units, fy_end, spans.get(str(item.soup_tag.attrs.get("id") or "")))
        except (TypeError, ValueError, AttributeError, OverflowError) as exc:
            log.debug("%s: fact skipped: %s", path, exc)
            continue
        if fact is None:
            continue
        why = printed_disagreement(fact, str(item.soup_tag.attrs.get("format") or ""), pages) if pages else ""
        if why:
            disagreements.append(why)
        else:
            facts.append(fact)
    period_end = parse_date(first.get("DocumentPeriodEndDate", ""))
    year = first.get("DocumentFiscalYearFocus", "")
    offset = _label_offset(period_end, first.get("DocumentFiscalPeriodFocus", ""), year, fy_end)
    if offset:  # the filer names its years otherwise: every fact takes the filer's label
        facts = [f.model_copy(update={"period": shift_period(f.period, offset), "period_by_dates": f.period})
                 for f in facts]
    return FilingFacts(
        facts=facts,
        registrant=first.get("EntityRegistrantName", ""),
        cik=first.get("EntityCentralIndexKey", "").zfill(10) if first.get("EntityCentralIndexKey") else "",
        tickers=list(dict.fromkeys(t for t in dei.get("TradingSymbol", []) if t and " " not in t)),
        form=first.get("DocumentType", ""),
        fiscal_year=int(year) if year.isdigit() else None,
        fiscal_period=first.get("DocumentFiscalPeriodFocus", ""),
        period_end=period_end.isoformat() if period_end else "",
        # a year named by the year it began (see fiscal_naming); none stated: the text's reading of the cover decides
        fy_end_month=(fy_end + 12 if offset == -1 else fy_end) if stated_fy_end else 0,
        tagged=count_numeric_tags(data),
        disagreements=disagreements,
    )
