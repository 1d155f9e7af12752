"""What a row does in its table, read once at ingest from the whole table (a chunk holds only some of its rows).

A line of operating expenses ('Purchased transportation', 'Salaries, wages and benefits') is a cost though its label
says no 'cost': it sits below the table's revenue row and above its operating income. A gain a reconciliation to a
non-GAAP measure deducts ('Gain on sale of terminals | (15.8)' on the way to adjusted EBITDA) is printed negative by
the adjustment's sign; the gain itself is the amount. The reader and the gate read the role; neither re-derives it.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.finance.lexicon import find_metrics
from agent.schemas import RowRole, TableLine

REVENUE, OPERATING_INCOME = "revenue", "operating income"
RECONCILIATION = "reconciliation"  # the word a non-GAAP reconciliation's title or heading says
GAIN_WORDS = frozenset(("gain", "gains"))


def _metrics(label: str) -> set[str]:
    return {m.canonical for m in find_metrics(label)}


def _deducted_gain(label: str, reconciliation: bool) -> bool:
    """A 'gain ...' row of a reconciliation; a 'gain (loss)' row's sign is its own."""
    words = label.lower().split()
    return reconciliation and bool(words) and words[0] in GAIN_WORDS and "loss" not in label.lower()


def row_roles(rows: Sequence[TableLine], title: str, section_path: Sequence[str]) -> list[TableLine]:
    """``rows`` with each one's :attr:`TableLine.role`."""
    named = [_metrics(r.label) for r in rows]
    revenue_at = next((i for i, n in enumerate(named) if REVENUE in n), None)
    income_at = next((i for i, n in enumerate(named) if OPERATING_INCOME in n and revenue_at is not None
                      and i > revenue_at), None)
    reconciliation = RECONCILIATION in f"{title} {' '.join(section_path)}".lower()
    out = []
    for i, row in enumerate(rows):
        role: RowRole = ""
        if _deducted_gain(row.label, reconciliation):
            role = "deducted_gain"
        elif (revenue_at is not None and income_at is not None and revenue_at < i < income_at and not named[i]
              and not row.heading):
            role = "expense"
        out.append(row.model_copy(update={"role": role}) if role else row)
    return out
