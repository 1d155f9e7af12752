"""PostgreSQL as the store every replica shares (``FINRAG_STORE_URL=postgresql://...``).

The stores' SQL is SQLite's dialect; this module runs it unchanged: ``?`` placeholders become psycopg's, DDL
types are mapped (``BLOB`` to ``BYTEA``, autoincrement keys to ``BIGSERIAL``), every table gets the ``rowid``
SQLite gives each table, and ``json_extract`` / ``json_set`` exist as SQL functions over the same JSON text.
Writers take one transaction-scoped advisory lock, so two ingest workers on two machines commit one at a time
(their parsing and embedding, the slow part, still run at once) and a reader sees a filing whole or not at all.
"""

from __future__ import annotations

import contextlib
import functools
import re
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import psycopg

from agent.db.base import Connection, Database

CONNECT_TIMEOUT_S = 10  # an unreachable server is one clear error, not a hang
WRITER_LOCK = 0x66696E726167  # "finrag": the advisory lock key every writer of the database takes

# SQLite's JSON1 functions over JSON held as text, so the stores' SQL needs no second spelling. IMMUTABLE lets
# indexes use them. A path is '$.a.b'.
_FUNCTIONS = """
CREATE OR REPLACE FUNCTION json_extract(doc text, path text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT (doc::jsonb) #>> string_to_array(substr(path, 3), '.') $$;
CREATE OR REPLACE FUNCTION json_set(doc text, p1 text, v1 text, p2 text, v2 text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT jsonb_set(jsonb_set(doc::jsonb, string_to_array(substr(p1, 3), '.'), to_jsonb(v1)),
                           string_to_array(substr(p2, 3), '.'), to_jsonb(v2))::text $$;
"""
_N_FUNCTIONS = 2
_HAVE_FUNCTIONS = (
    "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = "
    "current_schema() AND p.proname IN ('json_extract', 'json_set')"
)
_TYPES = (
    (re.compile(r"\bINTEGER PRIMARY KEY AUTOINCREMENT\b"), "BIGSERIAL PRIMARY KEY"),
    (re.compile(r"\bINTEGER\b"), "BIGINT"),
    (re.compile(r"\bBLOB\b"), "BYTEA"),
    (re.compile(r"\bREAL\b"), "DOUBLE PRECISION"),
)
_CREATE_TABLE = re.compile(r"(CREATE TABLE IF NOT EXISTS\s+\w+\s*\()", re.IGNORECASE)


@functools.lru_cache(maxsize=1024)
def translate(sql: str) -> str:
    """A statement in SQLite's dialect with psycopg's placeholders (our SQL has no '?' inside literals)."""
    return sql.replace("%", "%%").replace("?", "%s")


class _PgConnection:
    """A psycopg connection that takes SQLite's placeholders."""

    def __init__(self, raw: psycopg.Connection[Any]) -> None:
        self.raw = raw

    def execute(self, sql: str, params: Sequence[Any] = ()) -> psycopg.Cursor[Any]:
        return self.raw.execute(translate(sql), tuple(params) or None)

    def executemany(self, sql: str, rows: Any) -> psycopg.Cursor[Any]:
        cursor = self.raw.cursor()
        cursor.executemany(translate(sql), list(rows))
        return cursor


class PostgresDatabase(Database):
    """One PostgreSQL database; a connection per thread, reconnected when the server dropped it."""

    dialect = "postgresql"
    errors = (psycopg.Error,)
    integrity_errors = (psycopg.IntegrityError,)

    def __init__(self, url: str, where: str) -> None:
        self.url = url
        self.where = where
        self._local = threading.local()
        self._opened: list[psycopg.Connection[Any]] = []
        self._lock = threading.Lock()
        self._ready = False
        self._users = 0

    def conn(self) -> Connection:
        held: _PgConnection | None = getattr(self._local, "conn", None)
        if held is not None and not held.raw.closed and not held.raw.broken:
            return held
        raw = psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
        held = _PgConnection(raw)
        self._local.conn = held
        with self._lock:
            self._opened.append(raw)
        if not self._ready:
            # Made once per database, under the writers' lock; a reader never waits for a writer's commit here.
            if raw.execute(_HAVE_FUNCTIONS).fetchone()[0] < _N_FUNCTIONS:
                with raw.transaction():
                    raw.execute("SELECT pg_advisory_xact_lock(%s)", (WRITER_LOCK,))
                    raw.execute(_FUNCTIONS)
            self._ready = True
        return held

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Connection]:
        held = self.conn()
        assert isinstance(held, _PgConnection)
        with held.raw.transaction():
            held.raw.execute("SELECT pg_advisory_xact_lock(%s)", (WRITER_LOCK,))
            yield held

    def translate_ddl(self, ddl: str) -> str:
        for pattern, replacement in _TYPES:
            ddl = pattern.sub(replacement, ddl)
        return _CREATE_TABLE.sub(r"\1 rowid BIGSERIAL,", ddl)

    def columns(self, table: str) -> list[str]:
        rows = self.conn().execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND "
            "table_name = ? AND column_name != 'rowid' ORDER BY ordinal_position",
            (table,),
        )
        return [row[0] for row in rows]

    def size_bytes(self) -> int:
        """The tables' size on the server (all of finrag's tables, the memory bank's and threads' too)."""
        row = self.conn().execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c JOIN pg_namespace n ON "
            "n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'"
        ).fetchone()
        return int(row[0])

    def acquire(self) -> PostgresDatabase:
        """One more user of this process-wide object (each store, bank and thread list that opened it)."""
        with self._lock:
            self._users += 1
        return self

    def close(self) -> None:
        """One user fewer; the last one closes the connections. Closing them while another store of this
        process still reads would break its query mid-way (a web request's store closing under a long-lived one)."""
        with self._lock:
            self._users = max(0, self._users - 1)
            if self._users:
                return
            for raw in self._opened:
                with contextlib.suppress(psycopg.Error):
                    raw.close()
            self._opened.clear()
