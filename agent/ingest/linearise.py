"""A table written as text: each row with the column of every value and the table's scale, and the line that
introduces a table chunk. The text is for search and quotes; the reader reads the typed record."""

from __future__ import annotations

from agent.ingest.columns import DURATION_RE
from agent.ingest.tables import CHANGE_COLUMN_RE, TableBlock, TableRow


def labelled_columns(table: TableBlock, row: TableRow) -> list[int]:
    """The column each cell of a row sits under (-1: none): where the page's layout placed it (a row that leaves
    columns blank), else under the columns in order when the row has one cell per column, or more where the
    header prints a change column the periods leave unnamed."""
    cols, cells = table.columns, row.cells
    if len(row.columns) == len(cells) and all(0 <= k < len(cols) for k in row.columns):
        return list(row.columns)
    if cols and (
        len(cells) == len(cols) or (len(cells) > len(cols) and CHANGE_COLUMN_RE.search(table.caption or ""))
    ):
        return [i if i < len(cols) else -1 for i in range(len(cells))]
    return [-1] * len(cells)


def _labelled_cells(table: TableBlock, row: TableRow) -> list[str]:
    return [f"{table.columns[k]}: {cell}" if k >= 0 else cell
            for cell, k in zip(row.cells, labelled_columns(table, row), strict=True)]


def linearise_row(table: TableBlock, row: TableRow) -> str:
    """One row as text: ``label | 2018: (1,577) | 2017: (1,373) | (in millions)``; sub-headings as their label."""
    if not row.cells:
        return row.label
    parts = [row.label] if row.label else []
    parts.extend(_labelled_cells(table, row))
    if table.scale_label:
        parts.append(table.scale_label)
    return " | ".join(parts)


def linearise(table: TableBlock) -> list[str]:
    """Every body row of a table, linearised (see :func:`linearise_row`)."""
    return [linearise_row(table, row) for row in table.rows]


def table_header_line(table: TableBlock) -> str:
    """The line that introduces a table chunk: title, period columns and scale."""
    parts = [table.title] if table.title else []
    if table.period_caption and not any(DURATION_RE.search(c) for c in table.columns):
        parts.append(table.period_caption)
    if table.columns:
        parts.append("columns: " + ", ".join(table.columns))
    if table.scale_label:
        parts.append(table.scale_label)
    return " | ".join(parts) if parts else "Table"
