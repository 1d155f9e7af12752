"""Copying a table's rows from one database to another (``finrag store migrate``): upserted by key, in batches,
so a run that stopped half way is simply run again."""

from __future__ import annotations

from collections.abc import Sequence

from agent.db.base import Database

COPY_BATCH_ROWS = 1000


def copy_table(source: Database, target: Database, table: str, keys: Sequence[str]) -> int:
    """Upsert every row of ``table`` (its columns both databases have) into ``target``; returns the rows copied."""
    wanted = set(target.columns(table))
    columns = [c for c in source.columns(table) if c in wanted]
    if not columns:
        return 0
    names = ", ".join(columns)
    marks = ", ".join("?" for _ in columns)
    others = [c for c in columns if c not in keys]
    update = ", ".join(f"{c} = excluded.{c}" for c in others) if others else ""
    sql = (f"INSERT INTO {table} ({names}) VALUES ({marks}) ON CONFLICT({', '.join(keys)}) "
           + (f"DO UPDATE SET {update}" if update else "DO NOTHING"))
    copied = 0
    with source.session() as reader:
        rows = reader.execute(f"SELECT {names} FROM {table} ORDER BY rowid").fetchall()
    for start in range(0, len(rows), COPY_BATCH_ROWS):
        batch = [tuple(row) for row in rows[start : start + COPY_BATCH_ROWS]]
        with target.transaction() as writer:
            writer.executemany(sql, batch)
        copied += len(batch)
    return copied

