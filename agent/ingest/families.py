"""Tables of one layout printed one after another: a segment's table after another's, a quarter's segment table
after the year-ago quarter's. A filing states the scale once, over the first of them ('(Dollars in millions)' under
'Segment Results'), and it holds for each: a table stating none takes the scale of the one before it when both
have the same columns and share rows, and no sentence stands between them (prose ends the family).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.ingest.tables import TableBlock

MIN_SHARED_ROWS = 2  # one shared label ('Total') is a coincidence; two shared rows are a repeated layout
# A table of percentages ('Percentage of Net Sales' over the same rows) is in no scale, whatever precedes it.
_PERCENT_TITLE_RE = re.compile(r"%|\bpercent", re.IGNORECASE)
SENTENCE_MIN_WORDS = 6  # a line of this many words ending in a stop is prose between two tables, not a heading


def _labels(table: TableBlock) -> set[str]:
    return {" ".join(r.label.lower().split()) for r in table.data_rows if r.label.strip()}


def _prose(lead: str) -> bool:
    """``lead`` (the text between two tables) holds a sentence."""
    return any(len(line.split()) >= SENTENCE_MIN_WORDS and line.rstrip().endswith((".", ":"))
               for line in lead.splitlines())


def carried_scales(tables: Sequence[TableBlock], leads: Sequence[str]) -> list[TableBlock]:
    """``tables`` with the scale of the table before carried to each that states none and is of its family (see
    the module docstring); ``leads[i]`` is the text between table i and the one before it."""
    out = list(tables)
    for i in range(1, len(out)):
        before, table = out[i - 1], out[i]
        if (table.scale_label or not before.scale_label or table.columns != before.columns
                or _PERCENT_TITLE_RE.search(f"{table.title} {table.caption}")
                or len(_labels(table) & _labels(before)) < MIN_SHARED_ROWS or (i < len(leads) and _prose(leads[i]))):
            continue
        out[i] = table.model_copy(update={"scale": before.scale, "scale_label": before.scale_label})
    return out
