"""Choosing the engine: a SQLite file by default, the PostgreSQL database ``FINRAG_STORE_URL`` names otherwise."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from agent.db.base import Database

if TYPE_CHECKING:
    from agent.db.postgres import PostgresDatabase
from agent.errors import FinragError, StoreError, first_line

STORE_SCHEMES = ("postgres://", "postgresql://", "postgresql+psycopg://")
_SHARED: dict[str, PostgresDatabase] = {}  # one per URL and process: the stores share its connections
_SHARED_LOCK = threading.Lock()


def is_postgres_url(url: str) -> bool:
    """Whether ``url`` names a PostgreSQL database."""
    return url.strip().startswith(STORE_SCHEMES)


def redacted(url: str) -> str:
    """``url`` without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def open_database(url: str, sqlite_path: Path, persistent: bool = True) -> Database:
    """The database for a store: PostgreSQL when ``url`` is a postgres URL, else the SQLite file at
    ``sqlite_path``. An unreachable server or a missing driver is one clear StoreError."""
    url = url.strip()
    if not url:
        from agent.db.sqlite import SqliteDatabase

        return SqliteDatabase(sqlite_path, persistent=persistent)
    if not is_postgres_url(url):
        raise FinragError(f"FINRAG_STORE_URL must be a postgresql:// URL, got {url.split(':', 1)[0]!r}")
    url = url.replace("postgresql+psycopg://", "postgresql://", 1)
    with _SHARED_LOCK:
        db = _SHARED.get(url)
        if db is None:
            try:
                from agent.db.postgres import PostgresDatabase
            except ImportError as exc:
                raise FinragError(
                    "FINRAG_STORE_URL names a PostgreSQL database, but psycopg is not installed: "
                    "pip install 'finrag[postgres]' (or unset FINRAG_STORE_URL to use SQLite)"
                ) from exc
            db = PostgresDatabase(url, where=redacted(url))
            try:
                db.conn()
            except db.errors as exc:
                raise StoreError(f"cannot connect to the PostgreSQL store {redacted(url)}: {first_line(exc)}") from exc
            _SHARED[url] = db
        return db.acquire()

