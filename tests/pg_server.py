"""A real PostgreSQL server for tests (:mod:`evals.postgres_local`): one per test session and worker, an empty
database per test.

Use from a test module with ``from pg_server import pg_server, pg_url  # noqa: F401`` (or ``tests.``). Skips
with the reason where Debian's ``postgresql`` server or psycopg is not installed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from evals.postgres_local import LocalPostgres, LocalPostgresError, start_local_postgres, unavailable_reason

__all__ = ["pg_server", "pg_url"]


@pytest.fixture(scope="session")
def pg_server() -> Iterator[LocalPostgres]:
    """A running server for the session."""
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    try:
        server = start_local_postgres()
    except LocalPostgresError as exc:
        pytest.fail(str(exc))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(pg_server: LocalPostgres) -> str:
    """The URL of a new, empty database on the session's server."""
    return pg_server.new_database("t")
