"""A real Milvus server for tests: Milvus Lite (PyPI ``milvus-lite``) started in its own process with its local
server mode (``milvus-lite server``), so pymilvus speaks the network protocol as it would to a cluster.

Use from a test module with ``from milvus_server import milvus_server  # noqa: F401`` (or ``tests.``), then
take the ``milvus_server`` fixture: the server's ``http://127.0.0.1:PORT`` URI. Skips cleanly when
``milvus-lite`` or ``pymilvus`` is not installed (``pip install 'finrag[milvus]'``).
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

STARTUP_TIMEOUT_S = 60.0  # a cold import of pyarrow, faiss and grpc on a busy 2-core machine takes ~5 s
POLL_INTERVAL_S = 0.2
STOP_TIMEOUT_S = 10.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now (2024 is taken on some machines; the OS never hands it out)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=POLL_INTERVAL_S * 5):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def milvus_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start Milvus Lite's gRPC server once per session and yield its URI."""
    missing = [name for name in ("milvus_lite", "pymilvus") if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"Milvus Lite not installed (missing: {', '.join(missing)}); pip install 'finrag[milvus]'")
    port = free_port()
    data_dir = tmp_path_factory.mktemp("milvus")
    log_path = data_dir.parent / f"{data_dir.name}.log"
    command = [sys.executable, "-m", "milvus_lite", "server", "--data-dir", str(data_dir / "data"),
               "--host", "127.0.0.1", "--port", str(port)]
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.perf_counter() + STARTUP_TIMEOUT_S
        while not _listening(port):
            if process.poll() is not None:
                pytest.fail(f"Milvus Lite exited with {process.returncode}: {log_path.read_text(errors='replace')[-2000:]}")
            if time.perf_counter() > deadline:
                pytest.fail(f"Milvus Lite did not listen on {port} within {STARTUP_TIMEOUT_S:.0f} s")
            time.sleep(POLL_INTERVAL_S)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT_S)
