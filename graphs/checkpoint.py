"""Checkpointers for multi-turn threads: SQLite under ``settings.home`` by default, Postgres when configured.

``FINRAG_CHECKPOINT_URL`` (``Settings.checkpoint_url``; by default the PostgreSQL ``FINRAG_STORE_URL`` when one is
set) set to a ``postgres://`` / ``postgresql://`` URL selects
``langgraph-checkpoint-postgres`` (the optional ``postgres`` extra), imported only then; anything else keeps the
conversation in ``<home>/checkpoints.sqlite``. Both savers own their connection: close them with
:func:`close_checkpointer` (or use :func:`checkpointer` as a context manager).

Savers deserialise only the types a graph's state declares (``saver.with_allowlist(serde_allowlist(State))``,
which :func:`graphs.main.build_main_graph` applies): a checkpoint database is data, and loading arbitrary
classes from it would be code execution.
"""

from __future__ import annotations

import sqlite3
import time
import types
import typing
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from enum import Enum
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver
from pydantic import BaseModel

from agent.config import Settings
from agent.db import is_postgres_url
from agent.errors import FinragError, StoreError

CHECKPOINT_FILE = "checkpoints.sqlite"
SQLITE_BUSY_TIMEOUT_S = 30.0  # another process (a second `finrag chat`) may be writing the same file
POSTGRES_SCHEMES = ("postgres://", "postgresql://", "postgresql+psycopg://")
SETUP_WAIT_S, SETUP_POLL_S = 120.0, 0.1
SETUP_LOCK = 0x66696E726167 + 1  # advisory lock key for creating the checkpoint tables (agent.db's writers take the one before)


def checkpoint_path(settings: Settings) -> Path:
    """Where the SQLite checkpointer keeps threads."""
    return Path(settings.home) / CHECKPOINT_FILE


def checkpoint_url(settings: Settings) -> str:
    """The Postgres URL conversations are kept at ('' for the SQLite file): FINRAG_CHECKPOINT_URL, else the store's
    when it is PostgreSQL -- replicas that share a store share their conversations too, unless told otherwise."""
    return settings.checkpoint_url.strip() or (settings.store_url.strip() if is_postgres_url(settings.store_url) else "")


def open_checkpointer(settings: Settings) -> BaseCheckpointSaver:
    """A checkpointer for ``settings``: Postgres when ``checkpoint_url`` is a Postgres URL, else SQLite."""
    url = checkpoint_url(settings)
    if url:
        if not url.startswith(POSTGRES_SCHEMES):
            raise FinragError(f"FINRAG_CHECKPOINT_URL must be a postgres:// URL, got {url.split(':', 1)[0]!r}")
        return _open_postgres(url.replace("postgresql+psycopg://", "postgresql://", 1))
    path = checkpoint_path(settings)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Graph branches run in threads; SqliteSaver serialises access with its own lock.
        conn = sqlite3.connect(path, check_same_thread=False, timeout=SQLITE_BUSY_TIMEOUT_S)
        conn.execute("PRAGMA journal_mode=WAL")  # readers (e.g. `finrag chat /trace`) do not block a writer
        saver = SqliteSaver(conn, serde=strict_serializer())
        saver.setup()
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot open the conversation store {path}: {exc}") from exc
    return saver


def _open_postgres(url: str) -> BaseCheckpointSaver:
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg import Connection
        from psycopg.rows import dict_row
    except ImportError as exc:
        raise FinragError(
            "FINRAG_CHECKPOINT_URL is set to a Postgres URL, but langgraph-checkpoint-postgres is not installed: "
            "pip install 'finrag[postgres]' (or unset FINRAG_CHECKPOINT_URL to use SQLite)"
        ) from exc
    try:
        # The settings PostgresSaver documents: autocommit for its DDL, no server-side prepared statements.
        conn = Connection.connect(url, autocommit=True, prepare_threshold=0, row_factory=dict_row)
    except Exception as exc:  # psycopg.OperationalError and friends: one line for people
        raise StoreError(f"cannot connect to the Postgres checkpointer: {exc}") from exc
    saver = PostgresSaver(conn, serde=strict_serializer())
    # Replicas starting together would race creating the same tables: one sets them up, the others wait -- by
    # polling, not in a blocked statement, which CREATE INDEX CONCURRENTLY in the setup would wait for in turn.
    deadline = time.monotonic() + SETUP_WAIT_S
    while not conn.execute("SELECT pg_try_advisory_lock(%s) AS held", (SETUP_LOCK,)).fetchone()["held"]:
        if time.monotonic() > deadline:
            raise StoreError("another finrag process has been setting up the Postgres checkpointer for "
                             f"{SETUP_WAIT_S:.0f} s; check the database")
        time.sleep(SETUP_POLL_S)
    try:
        saver.setup()
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))
    return saver


def strict_serializer() -> JsonPlusSerializer:
    """The checkpoint serializer that revives only allow-listed types (extend with ``with_allowlist``)."""
    return JsonPlusSerializer(allowed_msgpack_modules=None)


def serde_allowlist(*schemas: Any) -> set[tuple[str, str]]:
    """(module, class) of every pydantic model and enum reachable from ``schemas`` (TypedDicts, models,
    annotations): what a checkpoint of that state may contain."""
    found: set[tuple[str, str]] = set()
    seen: set[int] = set()

    def walk(tp: Any) -> None:
        if id(tp) in seen:
            return
        seen.add(id(tp))
        for arg in typing.get_args(tp):
            walk(arg)
        origin = typing.get_origin(tp)
        if origin is not None and not isinstance(origin, type | types.UnionType):
            walk(origin)
        if not isinstance(tp, type):
            return
        if issubclass(tp, BaseModel):
            found.add((tp.__module__, tp.__name__))
            for f in tp.model_fields.values():
                walk(f.annotation)
        elif issubclass(tp, Enum):
            found.add((tp.__module__, tp.__name__))
        elif typing.is_typeddict(tp):
            for hint in typing.get_type_hints(tp, include_extras=True).values():
                walk(hint)

    for schema in schemas:
        walk(schema)
    return found


@asynccontextmanager
async def studio_checkpointer() -> AsyncIterator[BaseCheckpointSaver]:
    """The checkpointer ``langgraph dev`` uses (``langgraph.json``): where the CLI keeps threads -- the SQLite file
    under FINRAG_HOME, or the PostgreSQL database of :func:`checkpoint_url` -- so Studio threads survive a
    restart, with every type the graphs' states carry registered, so a resumed thread deserialises without
    'unregistered type' warnings."""
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    from graphs.state import BranchInput, DeepRetrievalState, MainState

    settings = Settings.from_env()
    allow = serde_allowlist(MainState, BranchInput, DeepRetrievalState)
    url = checkpoint_url(settings)
    if url:
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

        async with AsyncPostgresSaver.from_conn_string(url.replace("postgresql+psycopg://", "postgresql://", 1),
                                                       serde=strict_serializer()) as saver:
            await saver.setup()
            yield saver.with_allowlist(allow)
        return
    path = checkpoint_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    async with aiosqlite.connect(path, timeout=SQLITE_BUSY_TIMEOUT_S) as conn:
        await conn.execute("PRAGMA journal_mode=WAL")
        saver = AsyncSqliteSaver(conn, serde=strict_serializer())
        await saver.setup()
        yield saver.with_allowlist(allow)


def close_checkpointer(saver: BaseCheckpointSaver) -> None:
    """Close the connection a saver from :func:`open_checkpointer` owns."""
    conn = getattr(saver, "conn", None)
    if conn is not None:
        conn.close()


@contextmanager
def checkpointer(settings: Settings) -> Iterator[BaseCheckpointSaver]:
    """:func:`open_checkpointer` as a context manager."""
    saver = open_checkpointer(settings)
    try:
        yield saver
    finally:
        close_checkpointer(saver)


def copy_checkpoints(source: BaseCheckpointSaver, target: BaseCheckpointSaver) -> int:
    """Copy every checkpoint (and its pending writes) of every thread from ``source`` to ``target``, oldest
    first; returns how many. Savers upsert by id, so a stopped copy is simply run again. Both savers need the
    graphs' allow-list (:func:`serde_allowlist`) so state objects survive the round trip."""
    copied = 0
    for item in reversed(list(source.list(None))):
        configurable = item.config["configurable"]
        parent = item.parent_config or {
            "configurable": {"thread_id": configurable["thread_id"], "checkpoint_ns": configurable.get("checkpoint_ns", "")}
        }
        target.put(parent, item.checkpoint, item.metadata, item.checkpoint["channel_versions"])
        by_task: dict[str, list[tuple[str, Any]]] = {}
        for task_id, channel, value in item.pending_writes or ():
            by_task.setdefault(task_id, []).append((channel, value))
        for task_id, writes in by_task.items():
            target.put_writes(item.config, writes, task_id)
        copied += 1
    return copied
