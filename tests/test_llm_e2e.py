"""One question end to end through the main graph against a real local OpenAI-compatible server.

llama.cpp serves SmolLM2-135M (tests/llm_server.py). A 135M model writes poor JSON and poor answers, so this
proves the online path, not answer quality: every language-model step reaches the server and is accounted,
invalid output is retried and then replaced by the offline twin with a note in the trace, and whatever the
model writes is verified (unsupported figures flagged), never trusted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.answer.verify import UNVERIFIED_MARK
from agent.ingest.pipeline import open_ingestor
from graphs.service import Assistant

try:  # tests/ is not a package: pytest imports the fixture module as top-level
    from llm_server import LocalLLMServer, llm_server, server_settings  # noqa: F401
except ImportError:  # pragma: no cover
    from tests.llm_server import LocalLLMServer, llm_server, server_settings  # noqa: F401

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_yfinance")]

SAMPLE = Path(__file__).resolve().parent.parent / "agent" / "samples" / "NORTHWIND_2024_10K.md"
QUESTION = "What were Northwind's capital expenditures in 2024?"




def test_one_question_through_the_graph_with_a_real_server(llm_server: LocalLLMServer, tmp_path: Path) -> None:
    settings = server_settings(llm_server).replace(home=tmp_path / "home")
    with open_ingestor(settings) as ingestor:
        report = ingestor.ingest_file(SAMPLE)
        assert report.status == "ingested", report.error
    with Assistant(settings) as assistant:
        result = assistant.ask(QUESTION)
    assert result.answer.strip()
    steps = result.tokens.by_step
    # A first turn has nothing to resolve: it is asked as written (no rewrite call), then decomposed and answered.
    assert {"decompose", "answer"} <= set(steps) and "rewrite" not in steps, steps.keys()
    assert all(s.calls >= 1 for s in steps.values()) and result.tokens.total_tokens > 0
    events = [e.text for e in result.trace.events]
    for step in ("decompose", "answer"):
        if steps[step].fallbacks:  # poor output: retried once, then the offline twin, and the trace says so
            assert steps[step].calls == 2 and any(e.startswith(f"{step}: language-model output not used")
                                                  for e in events), events
    if result.source == "offline":
        assert "$437 million" in result.answer  # the offline twin's cited answer
    for figure in result.trace.unsupported:  # the model's own figures are verified, never trusted
        assert f"{figure} {UNVERIFIED_MARK}" in result.answer
    assert result.routes and result.routes[0].route == "deep_retrieval"
