"""Replicas that share one PostgreSQL store (issue 60): every process below is a real ``finrag`` process with its
own FINRAG_HOME (its own FAISS and BM25 files) and the same FINRAG_STORE_URL, as replicas on two machines are.

Skipped with the reason where Debian's ``postgresql`` server or psycopg is not installed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support import SAMPLE

from agent.config import Settings
from agent.index.store import Store
from agent.memory import MemoryBank, MemoryStatus

try:
    from pg_server import pg_server, pg_url  # noqa: F401
except ImportError:  # pragma: no cover
    from tests.pg_server import pg_server, pg_url  # noqa: F401

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 300


def eastwind(folder: Path) -> Path:
    """A second company's 10-K: the sample retypeset for another registrant with other capital expenditures."""
    text = SAMPLE.read_text(encoding="utf-8")
    for old, new in (("Northwind", "Eastwind"), ("NWIN", "EWIN"), ("001-99999", "001-88888"), ("437", "518")):
        text = text.replace(old, new)
    path = folder / "EASTWIND_2024_10K.md"
    path.write_text(text, encoding="utf-8")
    return path


def env_for(home: Path, url: str) -> dict[str, str]:
    return {**os.environ, "FINRAG_HOME": str(home), "FINRAG_STORE_URL": url, "PYTHONPATH": str(ROOT),
            "FINRAG_CHECKPOINT_URL": ""}


def finrag(home: Path, url: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", *argv], capture_output=True, text=True, cwd=ROOT,
                          env=env_for(home, url), timeout=TIMEOUT_S, check=False)


def start(home: Path, url: str, *argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "cli.main", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env_for(home, url))


def test_two_ingest_workers_and_two_replicas_share_filings_memory_and_threads(pg_url: str, tmp_path: Path) -> None:
    replica_a, replica_b = tmp_path / "a", tmp_path / "b"
    other = eastwind(tmp_path)
    workers = [start(replica_a, pg_url, "ingest", str(SAMPLE), "--no-progress"),
               start(replica_b, pg_url, "ingest", str(other), "--no-progress")]
    for worker in workers:  # both at once: parsing and embedding overlap, the commits take turns
        _, err = worker.communicate(timeout=TIMEOUT_S)
        assert worker.returncode == 0, err
    # Each replica answers from the filing the other worker ingested (its search files built from the store), both
    # starting at once on a database whose conversation tables do not exist yet.
    asks = [start(replica_a, pg_url, "ask", "What were Eastwind's capital expenditures in 2024?", "--thread", "t-a"),
            start(replica_b, pg_url, "ask", "What were Northwind's capital expenditures in 2024?", "--thread", "t-b")]
    (east, east_err), (north, north_err) = (ask.communicate(timeout=TIMEOUT_S) for ask in asks)
    assert all(ask.returncode == 0 for ask in asks), east_err + north_err
    assert "$518 million" in east and "$437 million" in north
    assert not (replica_a / "index" / "finrag.sqlite").exists() and not (replica_b / "memory.sqlite").exists()

    # A verified answer written on one replica answers on the other.
    added = finrag(replica_a, pg_url, "memory", "add", "--question", "What was Eastwind's FY2024 headcount?",
                   "--answer", "about 11,400 people", "--company", "Eastwind Instruments", "--period", "FY2024",
                   "--citation", "[EASTWIND_2024_10K, p. 2] employed about 11,400 people", "--verifier", "J. Doe")
    assert added.returncode == 0, added.stderr
    listed = finrag(replica_b, pg_url, "memory", "list", "--status", "verified", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [e["question"] for e in json.loads(listed.stdout)] == ["What was Eastwind's FY2024 headcount?"]

    # Both replicas' conversations are in one list (and one checkpointer: the store's database by default).
    settings = Settings.from_env(env={}, home=replica_a, store_url=pg_url)
    from graphs.threads import ThreadIndex

    assert {t.thread_id for t in ThreadIndex(settings.home, pg_url).recent()} == {"t-a", "t-b"}
    follow_up = finrag(replica_a, pg_url, "ask", "what about 2023?", "--thread", "t-b")  # t-b began on replica B
    assert follow_up.returncode == 0, follow_up.stderr
    assert "$392 million" in follow_up.stdout


def test_a_killed_ingest_leaves_nothing_half_visible(pg_url: str, tmp_path: Path) -> None:
    """A worker killed inside its commit: readers never see part of the filing, and the next worker stores it."""
    replica, worker_home = tmp_path / "replica", tmp_path / "worker"
    other = eastwind(tmp_path)
    assert finrag(replica, pg_url, "ingest", str(SAMPLE), "--no-progress").returncode == 0
    script = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from agent.config import Settings
        from agent.index.store import Store
        from agent.ingest.pipeline import open_ingestor
        real = Store._bump_generation
        def stalled(self, conn):  # the filing's rows are written, the transaction not yet committed
            generation = real(self, conn)
            print("INSIDE", flush=True)
            time.sleep(120)
            return generation
        Store._bump_generation = stalled
        with open_ingestor(Settings.from_env()) as ingestor:
            ingestor.ingest_file(Path({str(other)!r}))
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT,
                            env=env_for(worker_home, pg_url))
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "INSIDE"
        # Mid-commit, another replica reads the store without waiting and sees the old state whole.
        seen = finrag(replica, pg_url, "docs", "--json")
        assert seen.returncode == 0, seen.stderr
        assert [d["name"] for d in json.loads(seen.stdout)] == ["NORTHWIND_2024_10K"]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    with Store.open(Settings.from_env(env={}, home=replica, store_url=pg_url)) as store:
        assert [d.name for d in store.list_documents()] == ["NORTHWIND_2024_10K"]
        conn = store.db.conn()
        for table in ("pages", "sections", "chunks", "cards", "embeddings", "facts", "counts"):
            orphans = conn.execute(f"SELECT count(*) FROM {table} WHERE doc_id NOT IN (SELECT doc_id FROM documents)")
            assert orphans.fetchone()[0] == 0, table
    # The dead worker's lock went with its connection: the next worker stores the filing.
    again = finrag(worker_home, pg_url, "ingest", str(other), "--no-progress")
    assert again.returncode == 0, again.stderr
    answer = finrag(replica, pg_url, "ask", "What were Eastwind's capital expenditures in 2024?")
    assert "$518 million" in answer.stdout, answer.stdout + answer.stderr


def test_verified_answers_survive_a_re_ingest_and_go_stale_on_every_replica(pg_url: str, tmp_path: Path) -> None:
    replica_a, replica_b = tmp_path / "a", tmp_path / "b"
    assert finrag(replica_a, pg_url, "ingest", str(SAMPLE), "--no-progress").returncode == 0
    added = finrag(replica_a, pg_url, "memory", "add", "--question", "What were Northwind's FY2024 capital expenditures?",
                   "--answer", "$437 million", "--company", "Northwind Instruments", "--period", "FY2024",
                   "--citation", "[NORTHWIND_2024_10K, p. 3] Capital expenditures were $437 million in 2024",
                   "--verifier", "J. Doe")
    assert added.returncode == 0, added.stderr
    # The same filing ingested again by a worker on another machine (a new replica's first run): still verified.
    assert finrag(replica_b, pg_url, "ingest", str(SAMPLE), "--no-progress").returncode == 0
    bank_b = MemoryBank(Settings.from_env(env={}, home=replica_b, store_url=pg_url))
    assert [e.status for e in bank_b.list()] == [MemoryStatus.VERIFIED]
    # An amended 10-K for the same year, ingested on replica B, makes the answer stale on replica A as well.
    amended = tmp_path / "NORTHWIND_2024_10KA.md"
    amended.write_text(SAMPLE.read_text(encoding="utf-8").replace("FORM 10-K", "FORM 10-K/A"), encoding="utf-8")
    assert finrag(replica_b, pg_url, "ingest", str(amended), "--no-progress").returncode == 0
    bank_a = MemoryBank(Settings.from_env(env={}, home=replica_a, store_url=pg_url))
    assert [e.status for e in bank_a.list()] == [MemoryStatus.STALE]


def test_store_migrate_copies_a_sqlite_home_resumably_and_check_finds_a_difference(pg_url: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    for path in (SAMPLE, eastwind(tmp_path)):
        assert finrag(home, "", "ingest", str(path), "--no-progress").returncode == 0
    assert finrag(home, "", "companies", "alias", "Eastwind Instruments", "East").returncode == 0  # a hand edit
    first = finrag(home, "", "ask", "What were Northwind's capital expenditures in 2024?", "--thread", "kept")
    assert "$437 million" in first.stdout, first.stderr
    added = finrag(home, "", "memory", "add", "--question", "What was Northwind's FY2024 headcount?", "--answer",
                   "about 11,400 people", "--company", "Northwind Instruments", "--period", "FY2024", "--citation",
                   "[NORTHWIND_2024_10K, p. 2] employed about 11,400 people", "--verifier", "J. Doe")
    assert added.returncode == 0, added.stderr

    # A copy that stopped after its first document...
    from agent.index.transfer import copy_index

    class Stopped(Exception):
        pass

    def stop_after_first(name: str, done: int, total: int) -> None:
        raise Stopped(name)

    source_settings = Settings.from_env(env={}, home=home)
    target_settings = source_settings.replace(home=tmp_path / "scratch", store_url=pg_url)
    with Store.open(source_settings) as source, Store.open(target_settings, search_files=False) as target, \
            pytest.raises(Stopped):
        copy_index(source, target, progress=stop_after_first)
    # ...is finished by running the command again, which skips what is there.
    migrated = finrag(home, "", "store", "migrate", "--to", "postgresql", "--url", pg_url, "--json")
    assert migrated.returncode == 0, migrated.stderr
    result = json.loads(migrated.stdout)
    assert (result["documents_copied"], result["documents_skipped"]) == (1, 1)
    assert (result["memory_entries"], result["threads"]) == (1, 1) and result["checkpoints"] >= 1
    checked = finrag(home, "", "store", "check", "--url", pg_url)
    assert checked.returncode == 0 and "the two stores agree" in checked.stdout, checked.stdout + checked.stderr

    # A replica on the copy: the alias, the verified answer and the conversation came along.
    replica = tmp_path / "replica"
    follow_up = finrag(replica, pg_url, "ask", "what about 2023?", "--thread", "kept")
    assert "$392 million" in follow_up.stdout, follow_up.stdout + follow_up.stderr
    east = finrag(replica, pg_url, "ask", "What were East's capital expenditures in 2024?")
    assert "$518 million" in east.stdout, east.stdout + east.stderr

    # A chunk changed on one side is named by the check.
    with Store.open(Settings.from_env(env={}, home=replica, store_url=pg_url)) as store, \
            store.db.transaction() as conn:
        conn.execute("UPDATE chunks SET text = 'altered' WHERE ordinal = 0 AND doc_id IN "
                         "(SELECT doc_id FROM documents WHERE name = 'EASTWIND_2024_10K')")
    differs = finrag(home, "", "store", "check", "--url", pg_url)
    assert differs.returncode == 1 and "EASTWIND_2024_10K differs: chunks" in differs.stdout, differs.stdout


def test_a_store_url_that_is_unreachable_or_not_postgres_is_one_clear_line(tmp_path: Path) -> None:
    from evals.milvus_lite import free_port

    down = finrag(tmp_path / "home", f"postgresql://finrag@127.0.0.1:{free_port()}/finrag", "docs")
    assert down.returncode == 1 and "Traceback" not in down.stderr
    assert "cannot connect to the PostgreSQL store" in down.stderr
    wrong = finrag(tmp_path / "home", "mysql://db/finrag", "docs")
    assert wrong.returncode != 0 and "Traceback" not in wrong.stderr
    assert "FINRAG_STORE_URL must be a postgresql:// URL" in wrong.stderr


def test_store_commands_say_what_is_missing(tmp_path: Path) -> None:
    no_url = finrag(tmp_path / "home", "", "store", "migrate", "--to", "postgresql")
    assert no_url.returncode == 2 and "--url postgresql://" in no_url.stderr and "Traceback" not in no_url.stderr
    nothing = finrag(tmp_path / "home", "", "store", "migrate", "--to", "postgresql", "--url",
                     "postgresql://finrag@127.0.0.1:1/finrag")
    assert nothing.returncode == 1 and "no SQLite index under" in nothing.stderr
    check = finrag(tmp_path / "home", "", "store", "check")
    assert check.returncode == 2 and "FINRAG_STORE_URL" in check.stderr
