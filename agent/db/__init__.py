"""Where finrag's tables live: one SQLite file per store (the embedded default) or one PostgreSQL database for
every store (``FINRAG_STORE_URL``), behind one small interface so the index, the memory bank and the thread
list write one SQL text for both."""

from agent.db.base import Connection, Database, migrate
from agent.db.copy import copy_table
from agent.db.open import STORE_SCHEMES, is_postgres_url, open_database, redacted

__all__ = [
    "STORE_SCHEMES",
    "Connection",
    "Database",
    "copy_table",
    "is_postgres_url",
    "migrate",
    "open_database",
    "redacted",
]
