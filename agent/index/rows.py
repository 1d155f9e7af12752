"""The index's tables (SQLite's dialect; :mod:`agent.db` runs them on PostgreSQL too), their migrations, and
the mapping between pydantic records and table rows.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS pages (
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    page INTEGER NOT NULL,
    char_start INTEGER NOT NULL,
    text TEXT NOT NULL,
    extra TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (doc_id, page)
);
CREATE TABLE IF NOT EXISTS sections (
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    section_id INTEGER NOT NULL,
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    page_start INTEGER NOT NULL,
    page_end INTEGER NOT NULL,
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    extra TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (doc_id, section_id)
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chunk_id TEXT NOT NULL UNIQUE,
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    section_id INTEGER NOT NULL,
    page INTEGER NOT NULL,
    page_end INTEGER NOT NULL,
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    is_table INTEGER NOT NULL,
    text TEXT NOT NULL,
    extra TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS chunks_by_doc ON chunks(doc_id, ordinal);
CREATE TABLE IF NOT EXISTS cards (
    chunk_id TEXT PRIMARY KEY REFERENCES chunks(chunk_id) ON DELETE CASCADE,
    doc_id TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS cards_by_doc ON cards(doc_id);
CREATE TABLE IF NOT EXISTS embeddings (
    chunk_rowid INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
    doc_id TEXT NOT NULL,
    model TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS embeddings_by_doc ON embeddings(doc_id);
CREATE TABLE IF NOT EXISTS facts (
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    fact_id TEXT NOT NULL,
    concept TEXT NOT NULL,
    period TEXT NOT NULL,
    extra TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS facts_by_concept ON facts(doc_id, concept);
CREATE TABLE IF NOT EXISTS counts (
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    extra TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS counts_by_key ON counts(doc_id, key);
"""


# One row per company (agent.index.entities); an index of version 1 may have it already or not.
_ENTITIES = """
CREATE TABLE IF NOT EXISTS entities (
    entity_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    data TEXT NOT NULL
);
"""


# A filing is looked up by its path on every ingest and by its text hash to find another copy of it.
_FILING_LOOKUPS = """
CREATE INDEX IF NOT EXISTS documents_by_path ON documents(json_extract(data, '$.path'));
CREATE INDEX IF NOT EXISTS documents_by_text ON documents(json_extract(data, '$.text_sha256'));
"""


# The migrations: step i takes the tables from version i to i + 1 (agent.db.migrate); append, never edit.
SCHEMA_STEPS = (_SCHEMA, _ENTITIES, _FILING_LOOKUPS)


SCHEMA_VERSION = len(SCHEMA_STEPS)


# Columns stored as real columns per table; every other model field goes to the JSON ``extra`` column,
# so a field added to a schema later (with a default) is stored without a migration.
_PAGE_COLUMNS = ("page", "char_start", "text")


_SECTION_COLUMNS = ("section_id", "title", "kind", "page_start", "page_end", "char_start", "char_end")


_FACT_COLUMNS = ("fact_id", "concept", "period")


_COUNT_COLUMNS = ("key",)


_CHUNK_COLUMNS = (
    "chunk_id", "doc_id", "ordinal", "section_id", "page", "page_end", "char_start", "char_end", "is_table", "text",
)


M = TypeVar("M", bound=BaseModel)


# ---------------------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------------------
_SQLITE_MAX_VARS = 900  # below SQLite's default limit on bound parameters per statement


def _batches(items: list[Any]) -> Iterator[list[Any]]:
    for start in range(0, len(items), _SQLITE_MAX_VARS):
        yield items[start : start + _SQLITE_MAX_VARS]


def _split(model: BaseModel, columns: Sequence[str]) -> tuple[Any, ...]:
    """A model as (column values..., extra JSON) with the remaining fields in the JSON."""
    data = model.model_dump(mode="json")
    values = tuple(int(data.pop(c)) if isinstance(data[c], bool) else data.pop(c) for c in columns)
    return (*values, json.dumps(data, ensure_ascii=False))


def _join(model: type[M], columns: Sequence[str], row: Sequence[Any]) -> M:
    """Inverse of :func:`_split`."""
    data = json.loads(row[-1]) if row[-1] else {}
    data.update(zip(columns, row[:-1], strict=True))
    return model.model_validate(data)
