"""Metadata a person types for a filing (`finrag docs edit`, the viewer's upload form): checked before anything is
stored, each field with one message that says what a right value looks like."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from agent.errors import StoreError

FIRST_YEAR, LAST_YEAR = 1900, 2100  # fiscal years and dates a filing can carry
MAX_FIELD_CHARS = 200  # a company name, a form: longer is a paste gone wrong
TYPED = frozenset({"company", "ticker", "form", "fiscal_year", "fiscal_period", "period_end", "filing_date", "name"})
_TICKER_RE = re.compile(r"[A-Z0-9][A-Z0-9.\-]{0,9}")
_FISCAL_PERIOD_RE = re.compile(r"FY\d{4}(?:Q[1-4]|H[12]|M9)?")


def checked_edits(fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` typed and checked (fiscal_year an int, ticker in capitals, dates ISO); StoreError naming the
    field and what it should look like when one is not a value a filing can have."""
    out = dict(fields)
    for field, raw in fields.items():
        if field not in TYPED:
            continue
        text = str(raw).strip()
        if any(ord(c) < 32 or ord(c) == 127 for c in str(raw)):
            raise StoreError(f"{field}: holds a control character (a line break?); type it on one line")
        if len(text) > MAX_FIELD_CHARS:
            raise StoreError(f"{field}: {len(text)} characters; at most {MAX_FIELD_CHARS}")
        if field == "fiscal_year":
            if not text.isdigit() or not FIRST_YEAR <= int(text) <= LAST_YEAR:
                raise StoreError(f"fiscal_year: {text!r} is no year; give four digits such as 2024")
            out[field] = int(text)
        elif field in {"filing_date", "period_end"}:
            try:
                day = date.fromisoformat(text)
            except ValueError:
                raise StoreError(f"{field}: {text!r} is no date; give it as YYYY-MM-DD, e.g. 2024-02-28") from None
            if not FIRST_YEAR <= day.year <= LAST_YEAR:
                raise StoreError(f"{field}: {text} is outside the years a filing can carry")
            out[field] = day.isoformat()
        elif field == "ticker":
            if not _TICKER_RE.fullmatch(text.upper()):
                raise StoreError(f"ticker: {text!r} is no ticker; give 1-10 letters or digits, e.g. MMM or BRK.B")
            out[field] = text.upper()
        elif field == "fiscal_period":
            if not _FISCAL_PERIOD_RE.fullmatch(text.upper()):
                raise StoreError(f"fiscal_period: {text!r}; give FY2024, FY2024Q2, FY2024H1 or FY2024M9")
            out[field] = text.upper()
        elif field in {"company", "form", "name"}:
            if not text:
                raise StoreError(f"{field}: empty")
            out[field] = " ".join(text.split())
    return out
