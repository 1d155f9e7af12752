"""A real Milvus server for tests: Milvus Lite (PyPI ``milvus-lite``) started in its own process with its local
server mode (``milvus-lite server``), so pymilvus speaks the network protocol as it would to a cluster.

Use from a test module with ``from milvus_server import milvus_server  # noqa: F401`` (or ``tests.``), then
take the ``milvus_server`` fixture: the server's ``http://127.0.0.1:PORT`` URI. Skips cleanly when
``milvus-lite`` or ``pymilvus`` is not installed (``pip install 'finrag[milvus]'``).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import pytest

from evals.milvus_lite import MilvusLiteError, free_port, start_milvus_lite, stop_milvus_lite

__all__ = ["free_port", "milvus_server"]


@pytest.fixture(scope="session")
def milvus_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start Milvus Lite's gRPC server once per session and yield its URI."""
    missing = [name for name in ("milvus_lite", "pymilvus") if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"Milvus Lite not installed (missing: {', '.join(missing)}); pip install 'finrag[milvus]'")
    try:
        process, uri = start_milvus_lite(tmp_path_factory.mktemp("milvus") / "data")
    except MilvusLiteError as exc:
        pytest.fail(str(exc))
    try:
        yield uri
    finally:
        stop_milvus_lite(process)
