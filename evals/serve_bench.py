"""How ``finrag serve`` holds up when a small team asks at once: N questions posted together to ``/api/ask``,
each on its own thread, against a real server process over the sample filing (or a server already running at
``--url``, e.g. an older revision, to compare). Reported: latency median / p95 / max, wall time of the burst,
answers per second, and failures (non-200 or an answer with no text).
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel

from agent.config import Settings
from agent.errors import FinragError
from agent.ingest.pipeline import open_ingestor
from evals.cold_start import SAMPLE

QUESTIONS = (
    "What were Northwind's capital expenditures in 2024?",
    "What was Northwind's free cash flow in 2024?",
    "What was Northwind's revenue in 2023?",
    "What was Northwind's net income in 2024?",
    "What were Northwind's total assets at the end of 2024?",
)
REQUEST_TIMEOUT_S = 120.0  # one ask; a burst of 20 on 2 cores takes seconds, not minutes
SERVER_START_TIMEOUT_S = 60.0  # importing the app and the graph


class ServeRun(BaseModel):
    """One burst of concurrent asks."""

    concurrency: int
    answered: int
    failed: int
    latency_median_s: float
    latency_p95_s: float
    latency_max_s: float
    wall_s: float
    answers_per_s: float
    first_answer_s: float = 0.0  # the round's first ask, before the burst: on a fresh server, its first answer
    target: str


def _post(url: str, question: str) -> tuple[float, bool]:
    body = json.dumps({"question": question}).encode("utf-8")
    request = urllib.request.Request(f"{url}/api/ask", data=body, headers={"Content-Type": "application/json"})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S) as response:
            ok = response.status == 200 and bool(json.loads(response.read()).get("answer"))
    except (urllib.error.URLError, TimeoutError, ValueError):
        ok = False
    return time.perf_counter() - started, ok


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_ready(url: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise FinragError(f"the server exited with status {server.returncode} before it answered")
        try:
            with urllib.request.urlopen(f"{url}/api/docs", timeout=5):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    raise FinragError(f"the server did not answer within {SERVER_START_TIMEOUT_S:g} s")


def burst(url: str, concurrency: int) -> ServeRun:
    """Post ``concurrency`` questions at once to the server at ``url``, after one ask alone (timed apart: on a
    fresh server it is the first answer a person waits for)."""
    first, _ = _post(url, QUESTIONS[0])
    questions = [QUESTIONS[i % len(QUESTIONS)] for i in range(concurrency)]
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        results = list(pool.map(lambda q: _post(url, q), questions))
    wall = time.perf_counter() - started
    latencies = sorted(r[0] for r in results)
    answered = sum(1 for r in results if r[1])
    return ServeRun(
        concurrency=concurrency, answered=answered, failed=concurrency - answered,
        latency_median_s=round(statistics.median(latencies), 3),
        latency_p95_s=round(latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))], 3),
        latency_max_s=round(latencies[-1], 3), wall_s=round(wall, 3),
        answers_per_s=round(answered / wall, 2) if wall else 0.0, first_answer_s=round(first, 3), target=url,
    )


def sample_home(folder: Path) -> Path:
    """A fresh data directory under ``folder`` holding the sample filing."""
    home = Path(tempfile.mkdtemp(dir=folder))
    with open_ingestor(Settings.from_env(home=home)) as ingestor:
        ingestor.ingest_file(SAMPLE)
    return home


@contextmanager
def served(home: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A ``finrag serve`` process over ``home`` on a free port, answering: its URL and the process (stopped on
    exit)."""
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "--home", str(home), "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_ready(url, server)
        yield url, server
    finally:
        server.terminate()
        server.wait(timeout=30)


def run_serve_bench(concurrency: int = 20, rounds: int = 3, url: str | None = None) -> list[ServeRun]:
    """``rounds`` bursts of ``concurrency`` asks: against ``url``, or a fresh ``finrag serve`` process over a
    throwaway home holding the sample filing."""
    if url:
        return [burst(url.rstrip("/"), concurrency) for _ in range(rounds)]
    with tempfile.TemporaryDirectory() as tmp, served(sample_home(Path(tmp))) as (target, _):
        return [burst(target, concurrency) for _ in range(rounds)]


def render(results: list[ServeRun]) -> str:
    """A Markdown table of the bursts."""
    lines = ["| concurrent asks | answered | failed | median (s) | p95 (s) | max (s) | burst wall (s) | answers/s | "
             "first ask alone (s) |", "|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r.concurrency} | {r.answered} | {r.failed} | {r.latency_median_s:.2f} | {r.latency_p95_s:.2f} | "
              f"{r.latency_max_s:.2f} | {r.wall_s:.2f} | {r.answers_per_s:.1f} | {r.first_answer_s:.2f} |"
              for r in results]
    return "\n".join(lines)
