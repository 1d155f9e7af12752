"""The list of conversations a person can come back to: one row per thread, written as each turn ends.

The checkpointer keeps every turn's state (SQLite or PostgreSQL); listing its threads would read every checkpoint,
so this small table (``FINRAG_HOME/threads.sqlite``, or the PostgreSQL store every replica shares when
``FINRAG_STORE_URL`` is set) records each thread's title (its
first question), turn count, last activity and owner (the web caller who opened it: a browser's own secret or the
server token, never shown), for ``GET /api/threads`` and ``finrag chat``'s resume.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel

from agent.db import Connection, Database, copy_table, migrate, open_database

log = logging.getLogger(__name__)

THREADS_FILE = "threads.sqlite"
TITLE_CHARS = 120  # a thread's title is its first question, cut here
_SCHEMA = """CREATE TABLE IF NOT EXISTS threads (
    thread_id TEXT PRIMARY KEY, title TEXT NOT NULL, turns INTEGER NOT NULL, updated_at TEXT NOT NULL,
    owner TEXT NOT NULL DEFAULT ''
)"""


class ThreadSummary(BaseModel):
    """One conversation in the list."""

    thread_id: str
    title: str
    turns: int
    updated_at: str


class ThreadIndex:
    """Threads by last activity; thread-safe, one short transaction per turn."""

    def __init__(self, home: Path, store_url: str = "") -> None:
        self.path = Path(home) / THREADS_FILE
        self.store_url = store_url
        self._db: Database | None = None
        self._lock = threading.Lock()

    def _exists(self) -> bool:
        return bool(self.store_url) or self.path.exists()

    def _database(self) -> Database:
        """The list's database, its table made on first use."""
        if self._db is None:
            db = open_database(self.store_url, self.path, persistent=False)
            migrate(db, "threads", (_SCHEMA,))
            if db.dialect == "sqlite" and "owner" not in db.columns("threads"):
                # a list made before threads had owners: its threads are nobody's, listed to no browser
                with db.transaction() as conn:
                    conn.execute("ALTER TABLE threads ADD COLUMN owner TEXT NOT NULL DEFAULT ''")
            self._db = db
        return self._db

    @contextlib.contextmanager
    def _connect(self, write: bool = True) -> Iterator[Connection]:
        """A write transaction on the list, or a connection to read it (which never waits for a writer)."""
        db = self._database()
        with self._lock, (db.transaction() if write else db.session()) as conn:
            yield conn

    def claim(self, thread_id: str, owner: str) -> bool:
        """Give a new thread to ``owner`` (the caller who asks its first question); whether ``owner`` may use it:
        True for a thread it owns or a new one, False for someone else's."""
        with self._connect() as conn:
            conn.execute("INSERT INTO threads(thread_id, title, turns, updated_at, owner) VALUES (?, '', 0, ?, ?) "
                         "ON CONFLICT(thread_id) DO NOTHING", (thread_id, datetime.now(UTC).isoformat(), owner))
            row = conn.execute("SELECT owner FROM threads WHERE thread_id = ?", (thread_id,)).fetchone()
        return row is not None and row[0] == owner

    def owner_of(self, thread_id: str) -> str | None:
        """Who a thread belongs to ('' for a caller with no identity); None for a thread never asked."""
        if not self._exists():
            return None
        with self._connect(write=False) as conn:
            row = conn.execute("SELECT owner FROM threads WHERE thread_id = ?", (thread_id,)).fetchone()
        return row[0] if row else None

    def record(self, thread_id: str, question: str, turns: int) -> None:
        """A turn of ``thread_id`` ended: the first question titles it, the count and time move on."""
        now = datetime.now(UTC).isoformat(timespec="microseconds")
        title = " ".join(question.split())[:TITLE_CHARS]
        try:
            with self._connect() as conn:
                conn.execute(
                    "INSERT INTO threads(thread_id, title, turns, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(thread_id)"
                    " DO UPDATE SET turns = excluded.turns, updated_at = excluded.updated_at,"
                    " title = CASE WHEN threads.title = '' THEN excluded.title ELSE threads.title END",
                    (thread_id, title, turns, now),
                )
        except Exception as exc:  # noqa: BLE001 - the driver's errors: the answer stands, only the list misses it
            log.warning("the thread list could not record %s: %s", thread_id, exc)

    def recent(self, limit: int = 50, owner: str | None = None) -> list[ThreadSummary]:
        """The threads with the latest activity first: ``owner``'s only when given (a web caller's), else all (this
        machine's user, from the command line)."""
        if not self._exists():
            return []
        mine = "" if owner is None else "AND owner = ? "
        with self._connect(write=False) as conn:
            rows = conn.execute(
                f"SELECT thread_id, title, turns, updated_at FROM threads WHERE turns > 0 {mine}"
                "ORDER BY updated_at DESC, rowid DESC LIMIT ?", (*(() if owner is None else (owner,)), limit)).fetchall()
        return [ThreadSummary(thread_id=r[0], title=r[1], turns=r[2], updated_at=r[3]) for r in rows]

    def copy_from(self, source: ThreadIndex) -> int:
        """Upsert every thread of ``source``'s list; returns how many."""
        if not source._exists():
            return 0
        return copy_table(source._database(), self._database(), "threads", ("thread_id",))
