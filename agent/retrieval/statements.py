"""Which financial statement a question points to, and which chunks sit in it (a statement prior).

FinanceBench-style questions often name their source ("relying on the cash flow statement", "the statement of
financial position"); others name a metric whose figures are reported in one statement (capital expenditure:
cash flow statement; inventories: balance sheet). A chunk whose section path is that statement is likely
evidence. Statement names are matched with the finance lexicon, so "Consolidated Statements of Operations"
and "income statement" meet on one canonical name. A chunk belongs to a statement when it is a table whose
caption names it, or whose section heading is the statement's name.
"""

from __future__ import annotations

from agent.finance.lexicon import components, find_metrics, statements_named
from agent.finance.metrics import METRICS
from agent.schemas import Chunk, QueryIntent, Relation

# Where each topic's figures are reported (for questions that name a metric but not a statement).
TOPIC_STATEMENTS: dict[str, str] = {
    "Revenue": "income statement",
    "Costs/Expenses": "income statement",
    "Profitability": "income statement",
    "Per Share": "income statement",
    "Cash Flow": "cash flow statement",
    "Balance Sheet": "balance sheet",
    "Liquidity": "balance sheet",
    "Leverage": "balance sheet",
}
_NON_NUMERIC = (Relation.DEFINITION, Relation.POLICY, Relation.EXPLANATION)
CAPTION_CHARS = 160  # a statement's caption names it within its first words; later text is table content
STATEMENT_HEADING_SHARE = 0.6  # a heading that is mostly a statement's name is that statement's section


def target_statements(intent: QueryIntent) -> tuple[set[str], set[str]]:
    """Statements the question names, and statements its metrics (or their inputs) are reported in."""
    named = set(intent.statements)
    implied: set[str] = set()
    if intent.relation not in _NON_NUMERIC:
        for m in intent.metrics:
            if m not in METRICS:
                continue
            for name in (m, *components(m)):
                statement = TOPIC_STATEMENTS.get(METRICS[name].topic)
                if statement:
                    implied.add(statement)
    return named, implied - named


def table_caption(chunk: Chunk) -> str:
    """A table chunk's caption: its first line after the section-path line, up to the first cell."""
    lines = chunk.text.split("\n", 2)
    first = lines[0].strip()
    caption = lines[1] if len(lines) > 1 and first == " > ".join(chunk.section_path) else lines[0]
    return caption.split(" | ", 1)[0][:CAPTION_CHARS]


def heading_statements(heading: str) -> frozenset[str]:
    """Statements a section heading *is* ("Consolidated Balance Sheets"), not merely mentions.

    The statement's name must make up most of the heading, and the heading must be capitalised: a lower-case
    line such as "consolidated statements of income (in millions):" is a sentence fragment that section
    detection took for a heading, and the notes under it are not the statement.
    """
    words = heading.strip()
    if not words or words == words.lower():
        return frozenset()
    found = [m for m in find_metrics(words, include_statements=True) if METRICS[m.canonical].kind == "statement"]
    if not found or sum(m.end - m.start for m in found) < STATEMENT_HEADING_SHARE * len(words):
        return frozenset()
    return frozenset(m.canonical for m in found)


def chunk_statements(chunk: Chunk) -> frozenset[str]:
    """Statements a table chunk belongs to: named by its caption ("CONSOLIDATED STATEMENTS OF CASH FLOWS",
    repeated in every chunk of a linearised table) or by its section when the section is the statement."""
    if not chunk.is_table:
        return frozenset()
    by_section = heading_statements(chunk.section_path[-1]) if chunk.section_path else frozenset()
    return statements_named(table_caption(chunk)) | by_section
