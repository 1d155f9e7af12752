"""End to end against a real OpenAI-compatible server (llama.cpp + SmolLM2-135M, see tests/llm_server.py).

A 135M model often writes poor structured output, so these tests prove the call path, not answer quality:
the request reaches the server with function calling and the max_tokens cap, the reply is validated or
the offline twin takes over cleanly, and every call is accounted with server-reported tokens.
"""

from __future__ import annotations

import time

import pytest

from agent.llm.models import UsageLog, get_chat_model, structured_call, text_call
from agent.llm.prompts import hyde_messages, intent_messages
from agent.schemas import QueryIntent

try:  # pytest imports this module as top-level (tests/ is not a package) or as tests.* when it becomes one
    from llm_server import TEST_MAX_TOKENS, LocalLLMServer, llm_server, server_settings, server_state  # noqa: F401
except ImportError:  # pragma: no cover
    from tests.llm_server import (  # noqa: F401
        TEST_MAX_TOKENS,
        LocalLLMServer,
        llm_server,
        server_settings,
        server_state,
    )

pytestmark = pytest.mark.slow

QUESTION = "What was 3M's capital expenditure in FY2018?"


def _assert_accounted(usage: UsageLog, step: str) -> None:
    records = [r for r in usage.records if r.step == step]
    assert records, f"no usage recorded for {step}"
    for record in records:
        assert record.model and record.latency_s > 0
        if record.outcome != "error":
            assert not record.estimated, "llama.cpp reports usage; it must be read, not estimated"
            assert record.prompt_tokens > 0 and record.completion_tokens > 0
            assert record.completion_tokens <= TEST_MAX_TOKENS, "max_tokens in extra_body was not honoured"


def test_structured_and_text_calls_end_to_end(llm_server: LocalLLMServer) -> None:  # noqa: F811
    settings = server_settings(llm_server)
    model = get_chat_model(settings)
    assert model is not None
    assert model.extra_body == {"max_tokens": TEST_MAX_TOKENS}  # llama.cpp ignores max_completion_tokens
    usage = UsageLog()

    started = time.perf_counter()
    intent = structured_call(model, QueryIntent, intent_messages(QUESTION), step="intent", usage=usage,
                             fallback=lambda: QueryIntent(question=QUESTION, topic="Cash Flow"))
    intent_s = time.perf_counter() - started
    QueryIntent.model_validate(intent.value.model_dump())  # valid either way
    assert 1 <= intent.attempts <= 2
    if intent.source == "llm":
        assert not intent.fell_back and intent.value.source == "llm"
    else:
        assert intent.fell_back and intent.reason and intent.value.question == QUESTION
        # the twin stands in for output the model got wrong, never for a server that did not answer
        assert "ConnectionError" not in intent.reason, f"{intent.reason}; {server_state(llm_server)}"
    _assert_accounted(usage, "intent")

    started = time.perf_counter()
    hyde = text_call(model, hyde_messages(QUESTION, company="3M", period="FY2018"), step="hyde", usage=usage,
                     fallback=lambda: "")
    hyde_s = time.perf_counter() - started
    assert hyde.source == "llm" and hyde.text.strip(), f"{hyde.reason}; {server_state(llm_server)}"
    _assert_accounted(usage, "hyde")

    totals = usage.by_step()
    assert set(totals) == {"intent", "hyde"}
    assert usage.total().total_tokens == sum(t.total_tokens for t in totals.values())
    print(f"\nserver startup {llm_server.startup_s:.2f} s; intent {intent_s:.1f} s ({intent.source}, "
          f"{intent.attempts} attempt(s)); hyde {hyde_s:.1f} s; tokens {usage.total().total_tokens}")
