"""Milvus Lite's gRPC server in a child process (``python -m milvus_lite server``), as the scale benchmark and
the tests run it: pymilvus then speaks the network protocol as it would to a Milvus cluster."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

STARTUP_TIMEOUT_S = 60.0  # a cold import of pyarrow, faiss and grpc on a busy 2-core machine takes ~5 s
POLL_INTERVAL_S = 0.2
STOP_TIMEOUT_S = 10.0


class MilvusLiteError(RuntimeError):
    """The server exited or did not listen in time; the message carries the end of its log."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=POLL_INTERVAL_S * 5):
            return True
    except OSError:
        return False


def start_milvus_lite(data_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Start a server over ``data_dir`` (its log beside it, ``<data_dir>.log``); the process and its URI."""
    port = free_port()
    log_path = data_dir.parent / f"{data_dir.name}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "milvus_lite", "server", "--data-dir", str(data_dir), "--host", "127.0.0.1",
             "--port", str(port)],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
    deadline = time.perf_counter() + STARTUP_TIMEOUT_S
    while not _listening(port):
        if process.poll() is not None or time.perf_counter() > deadline:
            stop_milvus_lite(process)
            tail = log_path.read_text(errors="replace")[-2000:]
            raise MilvusLiteError(f"Milvus Lite did not listen on port {port} (exit {process.returncode}): {tail}")
        time.sleep(POLL_INTERVAL_S)
    return process, f"http://127.0.0.1:{port}"


def stop_milvus_lite(process: subprocess.Popen[bytes]) -> None:
    """Terminate the server (killed when it does not stop in time)."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=STOP_TIMEOUT_S)
