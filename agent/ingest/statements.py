"""What an inline-XBRL filing says it is, and whether the document holds the company's financial statements.

The ``dei`` cover facts outrank the text detection of :mod:`agent.ingest.metadata`: the filer tagged them. A main
10-K document can hold no statements at all (IBM's point to its Annual Report, an exhibit: "Item 8 ... Refer to
pages 46 through 121 of IBM's 2024 Annual Report to Stockholders, which are incorporated herein by reference");
such a document must answer no statement figure from prose, so ingest records why.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.finance.concepts import statement_concepts
from agent.ingest.metadata import SPELLING_PAGES, MetadataGuess, _tidy_name
from agent.ingest.xbrl import FilingFacts
from agent.schemas import Page

# 'Item 8. Financial Statements and Supplementary Data: Refer to pages 46 through 121 of ... which are
# incorporated herein by reference.' The item's own text, up to the next item, says where the statements are.
_ITEM_8_RE = re.compile(r"\bitem\s+8\s*[.:]?\s*financial\s+statements(?:\s+and\s+supplementary\s+data)?\s*[.:]?(?P<body>.{0,600}?)(?=\bitem\s+9\b|$)",
                        re.IGNORECASE | re.DOTALL)
_BY_REFERENCE_RE = re.compile(r"[^.]*\bincorporated\b[^.]{0,80}\bby\s+reference\b[^.]*\.?", re.IGNORECASE)
# A page printing a primary statement's title: a document without XBRL that has one holds its statements.
_STATEMENT_TITLE_RE = re.compile(
    r"^\s*consolidated\s+(?:statements?\s+of\s+(?:income|operations|earnings)|balance\s+sheets?)\b",
    re.IGNORECASE | re.MULTILINE,
)
_DEI_PERIODS = {"FY": "", "Q1": "Q1", "Q2": "Q2", "Q3": "Q3", "Q4": "", "H1": "H1", "H2": "H2"}


def cover_from_facts(guess: MetadataGuess, facts: FilingFacts, pages: Sequence[Page]) -> MetadataGuess:
    """``guess`` with what the filing's ``dei`` facts state put first (registrant, CIK, ticker, form, fiscal
    year and period, period end, fiscal year end)."""
    out = guess.model_copy()
    if facts.registrant:
        spelling = "\n".join(p.text for p in pages[:SPELLING_PAGES])
        out.company = _tidy_name(facts.registrant, spelling)
        out.company_source = "xbrl"
    out.cik = facts.cik or out.cik
    out.ticker = facts.tickers[0] if facts.tickers else out.ticker
    out.form = facts.form or out.form
    out.period_end = facts.period_end or out.period_end
    out.fy_end_month = facts.fy_end_month or out.fy_end_month
    if facts.fiscal_year and facts.fiscal_period in _DEI_PERIODS:
        out.fiscal_year = facts.fiscal_year
        out.fiscal_period = f"FY{facts.fiscal_year}{_DEI_PERIODS[facts.fiscal_period]}"
    return out


def statements_elsewhere(pages: Sequence[Page], facts: FilingFacts | None) -> str:
    """Why this document holds no financial statements, quoting it ('' when it holds them or does not say).

    The document's Item 8 must say the statements are incorporated by reference, and the document itself must
    show none: no tagged statement figure (inline XBRL), or no page titled as a primary statement."""
    text = "\n".join(p.text for p in pages)
    item = next((m for m in _ITEM_8_RE.finditer(text) if _BY_REFERENCE_RE.search(m.group("body"))), None)
    if item is None:
        return ""
    if facts is not None:
        held = set(statement_concepts())
        if any(f.concept in held and not f.dimensions for f in facts.facts):
            return ""
    elif _STATEMENT_TITLE_RE.search(text):
        return ""
    said = _BY_REFERENCE_RE.search(item.group("body"))
    quote = " ".join((said.group(0) if said else "").split()).lstrip(":. ")
    return f"Item 8 says: \"{quote}\"" if quote else "Item 8 incorporates the financial statements by reference"
