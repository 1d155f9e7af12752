"""A throwaway PostgreSQL server on this machine, for benchmarks and tests of the shared store.

Made with the server's own ``initdb`` and ``pg_ctl`` (Debian's ``postgresql`` package) in a fresh folder on a
free port, trust authentication on 127.0.0.1 only, removed on stop. PostgreSQL refuses to run as root, so as
root the server runs as the ``postgres`` user (through ``runuser``).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

from evals.milvus_lite import free_port

START_TIMEOUT_S = 60
SUPERUSER = "finrag"


class LocalPostgresError(RuntimeError):
    """The server could not be made or started; the message says why."""


def server_binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, or None where PostgreSQL's server is not installed."""
    found = shutil.which("initdb") and shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    return Path(versions[-1]).parent if versions else None


def unavailable_reason() -> str | None:
    """Why a local server cannot run here (for a skip), or None when it can."""
    if server_binaries() is None:
        return "PostgreSQL server binaries (initdb, pg_ctl) not found: install Debian's postgresql package"
    if os.geteuid() == 0 and not shutil.which("runuser"):
        return "running as root without runuser: PostgreSQL refuses to run as root"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg not installed (pip install 'finrag[postgres]')"
    return None


def _as_server_user(argv: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


@dataclass
class LocalPostgres:
    """A running server: its folder, port and the URL of its default database."""

    work: Path
    port: int
    bin_dir: Path

    @property
    def url(self) -> str:
        return self.database_url("postgres")

    def database_url(self, name: str) -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{name}"

    def new_database(self, prefix: str = "finrag") -> str:
        """Create an empty database and return its URL (one per test keeps tests apart)."""
        import psycopg

        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.database_url(name)

    def stop(self) -> None:
        subprocess.run(_as_server_user([str(self.bin_dir / "pg_ctl"), "-D", str(self.work / "data"), "-m", "fast",
                                        "stop"]), capture_output=True, check=False)
        shutil.rmtree(self.work, ignore_errors=True)


def start_local_postgres() -> LocalPostgres:
    """Make and start a server; LocalPostgresError (with the server's own words) when it cannot."""
    reason = unavailable_reason()
    if reason:
        raise LocalPostgresError(reason)
    bin_dir = server_binaries()
    assert bin_dir is not None
    # Not under a private temporary folder: the server runs as 'postgres' when we are root.
    work = Path(tempfile.mkdtemp(prefix="finrag-pg-"))
    sockets = work / "sock"
    sockets.mkdir()
    if os.geteuid() == 0:
        shutil.chown(work, "postgres")
        shutil.chown(sockets, "postgres")
    server = LocalPostgres(work=work, port=free_port(), bin_dir=bin_dir)
    steps = (
        [str(bin_dir / "initdb"), "-D", str(work / "data"), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8",
         "--no-instructions"],
        [str(bin_dir / "pg_ctl"), "-D", str(work / "data"), "-o",
         f"-p {server.port} -k {sockets} -c listen_addresses=127.0.0.1 -c max_connections=500", "-l",
         str(work / "server.log"), "-w", "-t", str(START_TIMEOUT_S), "start"],
    )
    for argv in steps:
        done = subprocess.run(_as_server_user(argv), capture_output=True, text=True, check=False)
        if done.returncode != 0:
            log = (work / "server.log").read_text(errors="replace") if (work / "server.log").exists() else ""
            server.stop()
            raise LocalPostgresError(f"{Path(argv[0]).name} failed: {(done.stderr or log).strip()[-500:]}")
    return server
