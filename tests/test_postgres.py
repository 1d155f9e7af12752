"""Conversation threads in a real PostgreSQL server: two turns of one thread, each in its own finrag process.

The server is a throwaway cluster (:mod:`tests.pg_server`); the tests skip with the reason where the server
binaries or the Postgres checkpointer packages are absent.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import ingested_sample

from evals.postgres_local import LocalPostgres

try:
    from llm_server import free_port
    from pg_server import pg_server  # noqa: F401
except ImportError:  # pragma: no cover
    from tests.llm_server import free_port
    from tests.pg_server import pg_server  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def postgres_url(pg_server: LocalPostgres) -> str:
    """A database on the session's PostgreSQL server, for the Postgres checkpointer."""
    if importlib.util.find_spec("langgraph.checkpoint.postgres") is None:
        pytest.skip("langgraph-checkpoint-postgres not installed (pip install 'finrag[postgres]')")
    return pg_server.new_database("checkpoints")


def _ask(home: Path, url: str, question: str, thread: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FINRAG_HOME": str(home), "FINRAG_CHECKPOINT_URL": url, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "cli.main", "ask", question, "--thread", thread],
                          capture_output=True, text=True, env=env, cwd=ROOT, check=False)


def test_two_turns_survive_a_restart_of_the_finrag_process(postgres_url: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    ingested_sample(home)
    first = _ask(home, postgres_url, "What were Northwind's capital expenditures in 2024?", "pg-thread")
    assert first.returncode == 0, first.stderr
    assert "$437 million" in first.stdout
    second = _ask(home, postgres_url, "what about 2023?", "pg-thread")  # a new process: only Postgres remembers
    assert second.returncode == 0, second.stderr
    assert "$392 million" in second.stdout and "FY2023" in second.stdout
    assert not (home / "checkpoints.sqlite").exists()  # the threads went to Postgres, not the SQLite default

    import psycopg

    with psycopg.connect(postgres_url) as conn:
        rows = conn.execute("SELECT count(DISTINCT thread_id) FROM checkpoints WHERE thread_id = 'pg-thread'")
        assert rows.fetchone()[0] == 1


def test_an_unreachable_server_is_one_clear_line(tmp_path: Path) -> None:
    if importlib.util.find_spec("psycopg") is None:
        pytest.skip("psycopg not installed (pip install 'finrag[postgres]')")
    home = tmp_path / "home"
    ingested_sample(home)
    result = _ask(home, f"postgresql://finrag@127.0.0.1:{free_port()}/postgres", "What was revenue?", "t")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "cannot connect to the Postgres checkpointer" in result.stderr
