"""Conversation threads in a real PostgreSQL server: two turns of one thread, each in its own finrag process.

The test makes a throwaway cluster with Debian's ``initdb`` and ``pg_ctl`` on a free port (as the ``postgres``
user when it runs as root, since PostgreSQL refuses to run as root) and removes it afterwards. It skips with
the reason where the server binaries or the Postgres checkpointer packages are absent.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import ingested_sample

try:
    from llm_server import free_port
except ImportError:  # pragma: no cover
    from tests.llm_server import free_port

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT_S = 60


def _pg_bin() -> Path | None:
    for name in ("initdb", "pg_ctl"):
        if shutil.which(name):
            return Path(shutil.which(name)).parent  # type: ignore[arg-type]
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def _as_server_user(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    return ["runuser", "-u", "postgres", "--", *argv]


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    """A running PostgreSQL on a free local port; yields its URL."""
    missing = [m for m in ("langgraph.checkpoint.postgres", "psycopg") if importlib.util.find_spec(m.split(".")[0])
               is None or (m.startswith("langgraph") and importlib.util.find_spec(m) is None)]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (pip install 'finrag[postgres]')")
    bin_dir = _pg_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found: install Debian's postgresql package")
    if os.geteuid() == 0 and not shutil.which("runuser"):
        pytest.skip("running as root without runuser: PostgreSQL refuses to run as root")
    # Not under pytest's temporary folder: that is private to this user, and the server runs as 'postgres'.
    work = Path(tempfile.mkdtemp(prefix="finrag-pg-"))
    data, sockets = work / "data", work / "sock"
    sockets.mkdir()
    if os.geteuid() == 0:
        shutil.chown(work, "postgres")
        shutil.chown(sockets, "postgres")
    port = free_port()
    subprocess.run(_as_server_user([str(bin_dir / "initdb"), "-D", str(data), "-U", "finrag", "--auth=trust",
                                    "-E", "UTF8", "--no-instructions"]), check=True, capture_output=True)
    options = f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1"
    subprocess.run(_as_server_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l",
                                    str(work / "server.log"), "-w", "-t", str(START_TIMEOUT_S), "start"]),
                   check=True, capture_output=True)
    try:
        yield f"postgresql://finrag@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(_as_server_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"]),
                       capture_output=True, check=False)
        shutil.rmtree(work, ignore_errors=True)


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
