"""The interface every store writes through, and the schema migrations it runs on open.

SQL is written once, in SQLite's dialect with ``?`` placeholders; :class:`agent.db.postgres.PostgresDatabase`
runs it on PostgreSQL (placeholders, column types, and SQL functions named like SQLite's JSON1 functions).
Every table has a ``rowid`` (SQLite's implicit one; an explicit serial column on PostgreSQL), so "in the order
stored" is one ``ORDER BY rowid`` on both.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol


class Cursor(Protocol):
    """What a query returns on either engine."""

    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...
    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """A connection on either engine: SQLite's dialect, ``?`` placeholders."""

    def execute(self, sql: str, params: Sequence[Any] = ..., /) -> Cursor: ...
    def executemany(self, sql: str, rows: Any, /) -> Cursor: ...


class Database(ABC):
    """One database: connections per thread, transactions that serialise writers across processes.

    Subclasses set ``dialect``, ``where`` (a place to name in messages, credentials left out), ``errors`` (the
    driver's error classes) and ``integrity_errors``.
    """

    dialect: str = ""
    where: str = ""
    errors: tuple[type[BaseException], ...] = ()
    integrity_errors: tuple[type[BaseException], ...] = ()

    @abstractmethod
    def conn(self) -> Connection:
        """This thread's connection, for reads (each statement commits on its own)."""

    @contextlib.contextmanager
    def session(self) -> Iterator[Connection]:
        """A connection for a few reads."""
        yield self.conn()

    @abstractmethod
    def transaction(self) -> AbstractContextManager[Connection]:
        """A write transaction, committed on leaving, rolled back on an error. Writers of one database are
        serialised across processes and machines: the second waits for the first to commit."""

    def translate_ddl(self, ddl: str) -> str:
        """``ddl`` (SQLite's dialect) in this engine's dialect."""
        return ddl

    @abstractmethod
    def columns(self, table: str) -> list[str]:
        """A table's column names ([] when it does not exist); the engine's own ``rowid`` left out."""

    def damage(self) -> str | None:
        """What an integrity check of the storage found, or None when it is sound."""
        return None

    def checkpoint(self) -> None:
        """Let the engine fold its journal after a large commit (SQLite's WAL); nothing elsewhere."""
        return None

    def size_bytes(self) -> int:
        """What the database takes on disk."""
        return 0

    @abstractmethod
    def close(self) -> None:
        """Close every connection this object opened."""


VERSIONS_DDL = "CREATE TABLE IF NOT EXISTS schema_versions (component TEXT PRIMARY KEY, version INTEGER NOT NULL);"


def migrate(db: Database, component: str, steps: Sequence[str], found: int | None = None) -> int:
    """Bring ``component``'s tables to the newest layout: ``steps[i]`` upgrades version ``i`` to ``i + 1``
    (``steps[0]`` creates the tables), all of them in the one transaction that records the new version, under
    the writers' lock, so two processes opening one database upgrade it once and a failed step changes nothing. ``found`` is the version a store recorded
    before versions were kept here. Returns the version now; a database newer than this code is an error."""
    from agent.errors import StoreError

    if "version" in db.columns("schema_versions"):  # the usual open: up to date, read without the writers' lock
        with db.session() as conn:
            row = conn.execute("SELECT version FROM schema_versions WHERE component = ?", (component,)).fetchone()
        if row is not None and int(row[0]) == len(steps):
            return len(steps)
    with db.transaction() as conn:
        conn.execute(VERSIONS_DDL)
        row = conn.execute("SELECT version FROM schema_versions WHERE component = ?", (component,)).fetchone()
        version = int(row[0]) if row is not None else (found or 0)
        if version > len(steps):
            raise StoreError(
                f"The {component} tables in {db.where} have schema version {version}; this finrag knows up to "
                f"{len(steps)}. Upgrade finrag, or use another store."
            )
        for number in range(version, len(steps)):
            _run_script(db, conn, steps[number])
        conn.execute(
            "INSERT INTO schema_versions(component, version) VALUES (?, ?) ON CONFLICT(component) DO UPDATE SET "
            "version = excluded.version",
            (component, len(steps)),
        )
    return len(steps)


def _run_script(db: Database, conn: Connection, ddl: str) -> None:
    for statement in split_statements(db.translate_ddl(ddl)):
        conn.execute(statement)


def split_statements(script: str) -> list[str]:
    """A script's statements (our DDL has no semicolons inside literals or bodies)."""
    return [part.strip() for part in script.split(";") if part.strip()]
