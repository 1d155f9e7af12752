"""The list of conversations on each engine: the SQLite file under home and a real PostgreSQL server (skipped with
the reason where none is installed)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from graphs.threads import THREADS_FILE, ThreadIndex

try:
    from pg_server import pg_server, pg_url  # noqa: F401
except ImportError:  # pragma: no cover
    from tests.pg_server import pg_server, pg_url  # noqa: F401


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest) -> str:
    return request.getfixturevalue("pg_url") if request.param == "postgresql" else ""


def test_owners_titles_and_order(url: str, tmp_path: Path) -> None:
    threads = ThreadIndex(tmp_path, url)
    assert threads.recent() == [] and threads.owner_of("t1") is None
    assert threads.claim("t1", "alice") and threads.claim("t1", "alice")
    assert not threads.claim("t1", "bob")  # someone else's thread
    threads.record("t1", "  What were   capital expenditures in 2024?  ", 1)
    assert threads.claim("t2", "bob")
    threads.record("t2", "Revenue?", 1)
    threads.record("t1", "what about 2023?", 2)  # the first question stays the title
    listed = threads.recent()
    assert [(t.thread_id, t.title, t.turns) for t in listed] == [
        ("t1", "What were capital expenditures in 2024?", 2), ("t2", "Revenue?", 1)]
    assert [t.thread_id for t in threads.recent(owner="bob")] == ["t2"]
    assert threads.owner_of("t1") == "alice"
    again = ThreadIndex(tmp_path, url)  # another process, or another replica
    assert [t.thread_id for t in again.recent(limit=1)] == ["t1"]


def test_a_list_made_before_owners_gains_the_column(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / THREADS_FILE) as conn:
        conn.execute("CREATE TABLE threads (thread_id TEXT PRIMARY KEY, title TEXT NOT NULL, turns INTEGER NOT NULL,"
                     " updated_at TEXT NOT NULL)")
        conn.execute("INSERT INTO threads VALUES ('old', 'An old question', 3, '2026-01-01T00:00:00+00:00')")
    threads = ThreadIndex(tmp_path)
    assert threads.owner_of("old") == ""  # nobody's: listed to no browser
    assert [t.thread_id for t in threads.recent()] == ["old"]


def test_copying_a_list_keeps_every_thread(url: str, tmp_path: Path) -> None:
    source = ThreadIndex(tmp_path / "a")
    source.claim("t1", "alice")
    source.record("t1", "Revenue?", 2)
    target = ThreadIndex(tmp_path / "b", url)
    assert target.copy_from(source) == 1 and target.copy_from(source) == 1  # again: the same, upserted
    assert [(t.thread_id, t.turns) for t in target.recent()] == [("t1", 2)] and target.owner_of("t1") == "alice"


def test_studio_keeps_its_threads_where_the_cli_does(url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`langgraph dev`'s checkpointer: the SQLite file under FINRAG_HOME, or the shared store's PostgreSQL."""
    import asyncio

    from langgraph.checkpoint.base import empty_checkpoint

    from graphs.checkpoint import studio_checkpointer

    monkeypatch.setenv("FINRAG_HOME", str(tmp_path))
    monkeypatch.setenv("FINRAG_STORE_URL", url)
    monkeypatch.setenv("FINRAG_CHECKPOINT_URL", "")

    async def round_trip() -> str:
        async with studio_checkpointer() as saver:
            config = {"configurable": {"thread_id": "studio-1", "checkpoint_ns": ""}}
            await saver.aput(config, empty_checkpoint(), {"source": "input", "step": -1}, {})
            return type(saver).__name__ if await saver.aget_tuple(config) is not None else ""

    name = asyncio.run(round_trip())
    assert name == ("AsyncPostgresSaver" if url else "AsyncSqliteSaver")
    assert (tmp_path / "checkpoints.sqlite").exists() == (not url)
