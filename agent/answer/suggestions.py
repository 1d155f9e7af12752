"""Questions the indexed filings answer, for an empty chat: each from a filing's own primary statement (a row it
prints, in a period it prints), so a new user's first question is one the filing holds.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from agent.finance.lexicon import canonical
from agent.finance.periods import period_year, quarters_of
from agent.index.store import Store
from agent.query.cues import possessive
from agent.query.scope import REGISTRANT_FORMS
from agent.schemas import DocumentMeta, TableColumn, TableRecord

MAX_SUGGESTIONS = 3
MAX_FILINGS_READ = 5  # the newest filings are read for suggestions; the rest would suggest more of the same
# Rows worth asking of each statement, most telling first (the lexicon's canonical names).
_ASKED_ROWS = {
    "income": ("revenue", "net income", "operating income"),
    "balance": ("total assets", "cash and cash equivalents"),
    "cashflow": ("cash from operations", "capital expenditure"),
}
_STATEMENTS = ("income", "balance", "cashflow")


def _when(column: TableColumn, meta: DocumentMeta) -> str:
    """A period column as a question writes it: '2024', 'fiscal 2024', 'Q2 FY2025'."""
    year = period_year(column.period)
    quarters = quarters_of(column.period)
    if year is None:
        return ""
    if len(quarters) == 1:
        return f"Q{next(iter(quarters))} FY{year}"
    if column.months and column.months != 12:
        return ""
    return str(year) if meta.fy_end_month in (0, 12) else f"fiscal {year}"


def _rows(table: TableRecord) -> Iterator[tuple[str, str]]:
    """(canonical metric, label as printed) of each row of ``table`` the statement is asked for."""
    wanted = _ASKED_ROWS.get(table.statement, ())
    for row in table.rows:
        name = canonical(row.label.strip().rstrip(":"))
        if name in wanted and any(any(ch.isdigit() for ch in f.text) for c in row.cells for f in c.figures):
            yield name, row.label.strip().rstrip(":")


def short_name(company: str) -> str:
    """A company's name as a question writes it: without its legal form ('Northwind Instruments, Inc.' ->
    'Northwind Instruments')."""
    words = company.replace(",", " ").split()
    while len(words) > 1 and words[-1].lower().rstrip(".") in REGISTRANT_FORMS:
        words.pop()
    return " ".join(words)


def _questions(meta: DocumentMeta, tables: Sequence[TableRecord]) -> list[str]:
    whose = possessive(short_name(meta.company or meta.name))
    out: list[str] = []
    for table in sorted(tables, key=lambda t: _STATEMENTS.index(t.statement)):
        periods = [c for c in table.columns if c.kind == "period" and _when(c, meta)]
        if not periods:
            continue
        for metric, label in _rows(table):
            words = label if label.isupper() and len(label) <= 6 else label[:1].lower() + label[1:]
            newest = periods[0]
            if table.statement == "balance":
                out.append(f"What were {whose} {words} at the end of {_when(newest, meta)}?")
            elif len(periods) > 1 and metric == "net income":
                out.append(f"How did {whose} {words} change from {_when(periods[1], meta)} to "
                           f"{_when(newest, meta)}?")
            else:
                out.append(f"What was {whose} {words} in {_when(newest, meta)}?")
            break  # one question a statement: three statements say more than three rows of one
    return out


def suggested_questions(store: Store, limit: int = MAX_SUGGESTIONS) -> list[str]:
    """Up to ``limit`` questions the newest filings' own primary statements answer (none for filings without)."""
    docs = sorted(store.list_documents(), key=lambda d: (d.period_end, d.ingested_at), reverse=True)
    out: list[str] = []
    for meta in docs[:MAX_FILINGS_READ]:
        tables = [c.table for c in store.chunks([meta.doc_id])
                  if c.table is not None and c.table.statement in _STATEMENTS and c.table.kind == "statement"]
        first: dict[str, TableRecord] = {}
        for table in tables:
            first.setdefault(table.statement, table)
        out += [q for q in _questions(meta, list(first.values())) if q not in out]
        if len(out) >= limit:
            break
    return out[:limit]
