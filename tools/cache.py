"""A small SQLite cache of market-data results, each stored with the time it was fetched (its as-of time).

The cache is what lets the market tools answer when Yahoo Finance is unreachable: the last value fetched is
returned with its as-of time and marked stale. A cache that cannot be opened or read (read-only home, corrupt
file) behaves as an empty cache, so market tools degrade to "unavailable" instead of crashing.
"""

from __future__ import annotations

import logging
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field

log = logging.getLogger(__name__)

CACHE_FILE_NAME = "market.sqlite"
# Seconds a writer waits for another process's lock before giving up; a cache write is never worth more.
SQLITE_LOCK_TIMEOUT_S = 5.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS market_cache (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    fetched_at TEXT NOT NULL
)
"""


class CachedValue(BaseModel):
    """One cached result: the serialised payload (a pydantic model's JSON) and when it was fetched."""

    key: str
    kind: str = Field(description="which tool produced it: quote | history | statement")
    payload: str = Field(description="JSON of the result model")
    fetched_at: datetime = Field(
        description="UTC time the payload was fetched from upstream (its as-of time)"
    )

    def age_s(self, now: datetime) -> float:
        """Seconds since the payload was fetched."""
        return (now - self.fetched_at).total_seconds()


class MarketCache:
    """Key -> (payload, fetched_at) in one SQLite file; every write is a single atomic upsert."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._ready = False

    def _connect(self) -> sqlite3.Connection:
        if not self._ready:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=SQLITE_LOCK_TIMEOUT_S)
        if not self._ready:
            with conn:
                conn.execute(_SCHEMA)
            self._ready = True
        return conn

    def get(self, key: str) -> CachedValue | None:
        """The cached value for ``key``, or None when absent or the cache is unreadable."""
        try:
            conn = self._connect()
            try:
                row = conn.execute(
                    "SELECT key, kind, payload, fetched_at FROM market_cache WHERE key = ?", (key,)
                ).fetchone()
            finally:
                conn.close()
        except (sqlite3.Error, OSError) as exc:
            log.warning("market cache unreadable at %s: %s", self.path, exc)
            return None
        if row is None:
            return None
        fetched_at = datetime.fromisoformat(row[3])
        if fetched_at.tzinfo is None:  # written by an older version without a zone: stored times are UTC
            fetched_at = fetched_at.replace(tzinfo=UTC)
        return CachedValue(key=row[0], kind=row[1], payload=row[2], fetched_at=fetched_at)

    def put(self, key: str, kind: str, payload: str, fetched_at: datetime) -> bool:
        """Store ``payload`` under ``key``; False (and a log line) when the cache cannot be written."""
        try:
            conn = self._connect()
            try:
                with conn:  # one transaction: the row is replaced whole or not at all
                    conn.execute(
                        "INSERT OR REPLACE INTO market_cache (key, kind, payload, fetched_at) VALUES (?, ?, ?, ?)",
                        (key, kind, payload, fetched_at.astimezone(UTC).isoformat()),
                    )
            finally:
                conn.close()
        except (sqlite3.Error, OSError) as exc:
            log.warning("market cache not writable at %s: %s", self.path, exc)
            return False
        return True
