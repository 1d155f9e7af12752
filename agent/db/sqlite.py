"""The embedded engine: one SQLite file, WAL journal, writers serialised by SQLite's own write lock."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

from agent.db.base import Connection, Database

BUSY_TIMEOUT_S = 30.0  # a writer may hold the database while a long filing is committed


class SqliteDatabase(Database):
    """A SQLite file. ``persistent``: one connection per thread kept open (the index, read on every question);
    otherwise a connection per use, so a removed file is created afresh by the next use (small stores)."""

    dialect = "sqlite"
    errors = (sqlite3.Error,)
    integrity_errors = (sqlite3.IntegrityError,)

    def __init__(self, path: Path, persistent: bool = True) -> None:
        self.path = Path(path)
        self.where = str(self.path)
        self.persistent = persistent
        self._local = threading.local()
        self._opened: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    def _connect(self) -> sqlite3.Connection:
        from agent.errors import StoreError

        if self._closed:
            raise StoreError("The store is closed.")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, check_same_thread=False, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: durable at checkpoints, fast commits
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    def conn(self) -> Connection:
        conn = getattr(self._local, "conn", None) if self.persistent else None
        if conn is None:
            conn = self._connect()
            if self.persistent:
                self._local.conn = conn
                with self._lock:
                    self._opened.append(conn)
        return conn

    @contextlib.contextmanager
    def session(self) -> Iterator[Connection]:
        """A connection for a few statements: this thread's when persistent, else one closed afterwards."""
        conn = self.conn()
        try:
            yield conn
        finally:
            if not self.persistent:
                conn.close()  # type: ignore[attr-defined]

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Connection]:
        with self.session() as conn:
            conn.execute("BEGIN IMMEDIATE")  # takes the write lock now: a second writer waits here
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def columns(self, table: str) -> list[str]:
        with self.session() as conn:
            return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]

    def damage(self) -> str | None:
        with self.session() as conn:
            rows = conn.execute("PRAGMA quick_check").fetchall()
        return None if [r[0] for r in rows] == ["ok"] else str(rows[0][0])

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the database and truncate it: a filing's commit would otherwise leave
        a WAL file as large as the filing on disk. Best effort: readers holding old snapshots may defer it."""
        with contextlib.suppress(sqlite3.Error), self.session() as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def size_bytes(self) -> int:
        return sum(
            path.stat().st_size
            for path in (self.path.with_name(self.path.name + suffix) for suffix in ("", "-wal", "-shm"))
            if path.is_file()
        )

    def close(self) -> None:
        with self._lock:
            for conn in self._opened:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
            self._opened.clear()
        self._closed = True
