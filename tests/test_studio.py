"""LangGraph Studio: `langgraph dev` serves the graphs of langgraph.json; two turns on one thread via the SDK.

The server runs from a temporary directory (its in-memory persistence lands there, not in the repository) with
a copy of langgraph.json whose paths are made absolute, on a free port that is never 2024, with analytics and
version checks off. It is stopped by its PID. Skipped when langgraph-cli[inmem] or langgraph-sdk is missing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import ingested_sample

try:  # tests/ is not a package: pytest imports the fixture module as top-level
    from llm_server import free_port
except ImportError:  # pragma: no cover
    from tests.llm_server import free_port

ROOT = Path(__file__).resolve().parent.parent
STARTUP_TIMEOUT_S = 90.0  # imports torch, langgraph-api and the graphs on a busy 2-core machine
RUN_TIMEOUT_S = 120.0  # the first run loads the embedding model inside the server
STOP_TIMEOUT_S = 10.0
REQUIRED = ("langgraph_cli", "langgraph_api", "langgraph_runtime_inmem", "langgraph_sdk")


def _langgraph_cli() -> Path | None:
    missing = [m for m in REQUIRED if importlib.util.find_spec(m) is None]
    exe = Path(sys.executable).parent / "langgraph"
    return None if missing or not exe.exists() else exe


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/ok", timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A running `langgraph dev` over an index holding the sample filing; yields its base URL and its log."""
    exe = _langgraph_cli()
    if exe is None:
        pytest.skip("langgraph-cli[inmem] / langgraph-sdk not installed (pip install 'finrag[test]')")
    work = tmp_path_factory.mktemp("studio")
    home = work / "home"
    ingested_sample(home)
    config = json.loads((ROOT / "langgraph.json").read_text())
    config["dependencies"] = [str(ROOT) if d == "." else d for d in config["dependencies"]]
    config["graphs"] = {name: str(ROOT / spec.split(":")[0]) + ":" + spec.split(":")[1]
                        for name, spec in config["graphs"].items()}
    for section, key in (("checkpointer", "path"), ("http", "app")):
        if key in config.get(section, {}):
            spec = config[section][key]
            config[section][key] = str(ROOT / spec.split(":")[0]) + ":" + spec.split(":")[1]
    (work / "langgraph.json").write_text(json.dumps(config))
    port = free_port()
    env = {**os.environ, "FINRAG_HOME": str(home), "LANGGRAPH_CLI_NO_ANALYTICS": "1",
           "LANGGRAPH_NO_VERSION_CHECK": "true", "LANGSMITH_TRACING": "false", "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    # --allow-blocking: LangGraph builds the Settings context (filesystem defaults) on the server's event loop.
    command = [str(exe), "dev", "--config", str(work / "langgraph.json"), "--no-browser", "--no-reload",
               "--allow-blocking", "--host", "127.0.0.1", "--port", str(port)]
    log_path = work / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not _ready(url):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"langgraph dev did not start:\n{log_path.read_text(errors='replace')[-3000:]}")
            time.sleep(0.5)
        yield url, log_path
    finally:
        process.terminate()  # this PID only
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT_S)


def test_two_turns_on_one_thread_through_the_sdk(studio: tuple[str, Path]) -> None:
    from langgraph_sdk import get_sync_client

    url, log_path = studio
    client = get_sync_client(url=url, timeout=RUN_TIMEOUT_S)
    assistants = {a["graph_id"] for a in client.assistants.search()}
    assert {"finrag", "deep_retrieval"} <= assistants
    thread = client.threads.create()["thread_id"]
    first = client.runs.wait(thread, "finrag", input={"question": "What were Northwind's capital expenditures in 2024?"})
    assert "$437 million" in first["answer"]["text"] and "[NORTHWIND_2024_10K, p. " in first["answer"]["text"]
    second = client.runs.wait(thread, "finrag", input={"question": "what about 2023?"})
    assert "2023" in second["rewrite"]["question"] and "capital expenditure" in second["rewrite"]["question"].lower()
    assert "$392 million" in second["answer"]["text"]
    assert [t["question"] for t in second["history"]] == [
        "What were Northwind's capital expenditures in 2024?", "what about 2023?"]
    assert len(second["routes"]) == 1 and len(second["trace"]) == 1  # this turn's accumulators only
    # The state's types are registered (langgraph.json sets strict msgpack, so the server allowlists them).
    assert "unregistered type" not in log_path.read_text(errors="replace")


def test_the_citation_viewer_is_mounted_beside_the_graph(studio: tuple[str, Path]) -> None:
    url, _ = studio
    with urllib.request.urlopen(f"{url}/api/docs", timeout=30) as response:
        docs = json.loads(response.read())
    assert [d["name"] for d in docs] == ["NORTHWIND_2024_10K"]
    with urllib.request.urlopen(f"{url}/", timeout=30) as response:
        assert b"<title>finrag</title>" in response.read()
