"""The language-model path of the main graph with a scripted chat model (no server, no network).

Replies are chosen by prompt content, not by order, because ``Send`` branches run in parallel threads. The
answer replies read the evidence labels from the prompt, as a real model would, so citations are checked
against the pages the graph actually retrieved.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from scripted import ScriptedChatModel
from support import ingested_sample

from agent.answer.verify import UNVERIFIED_MARK
from agent.config import Settings
from graphs.nodes import GraphDeps
from graphs.service import Assistant
from tools.market import FinancialStatement, PriceHistory, Quote

COMPANY = "Northwind Instruments, Inc."
CAPEX_2024 = "What were Northwind's capital expenditures in 2024?"
REWRITE = "You rewrite the latest user question"
DECOMPOSE = "You split a standalone question"
ANSWER = "You are a financial analyst assistant"
MARKET = "You fetch live market data"
DIRECT = "This question needs no filing"
USAGE = {"input_tokens": 120, "output_tokens": 30, "total_tokens": 150}
EVIDENCE_RE = re.compile(r'<evidence label="(\[[^"]+\])" source="filing">\n(.*?)\n</evidence>', re.DOTALL)

Reply = AIMessage | Callable[[str], AIMessage]


def tool_call(name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call_{name}"}],
                     usage_metadata=USAGE)


def text(content: str) -> AIMessage:
    return AIMessage(content=content, usage_metadata=USAGE)


def cites(figure: str, template: str) -> Callable[[str], AIMessage]:
    """An answer reply citing the evidence block (from the prompt) whose text holds ``figure``."""

    def reply(prompt: str) -> AIMessage:
        label = next(lbl for lbl, body in EVIDENCE_RE.findall(prompt) if figure in body)
        return text(template.format(label=label))

    return reply


def rewrite_rule(keys: tuple[str, ...], question: str, carried: Sequence[str] = ()) -> tuple[tuple[str, ...], Any]:
    return (REWRITE, *keys), tool_call("RewriteOutput", {"question": question, "carried_over": list(carried),
                                                         "changed": bool(carried)})


def decompose_rule(keys: tuple[str, ...], question: str, period: str) -> tuple[tuple[str, ...], Any]:
    sub = {"question": question, "company": COMPANY, "metric": "capital expenditure", "period": period}
    return (DECOMPOSE, *keys), tool_call("Decomposition", {"sub_queries": [sub]})


class FakeMarket:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def fetch_quote(self, ticker: str) -> Quote:
        self.calls.append(f"quote {ticker}")
        return Quote(ticker=ticker, price=415.5, previous_close=410.0, market_cap=3.1e12, currency="USD",
                     as_of=datetime(2024, 5, 1, 20, tzinfo=UTC))

    def fetch_history(self, ticker: str, period: str, interval: str) -> PriceHistory:
        raise AssertionError("not asked")

    def fetch_statement(self, ticker: str, statement: str, frequency: str) -> FinancialStatement:
        raise AssertionError("not asked")


pytestmark = pytest.mark.usefixtures("no_yfinance")


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """One FINRAG_HOME with the sample filing ingested, shared by the module."""
    return ingested_sample(tmp_path_factory.mktemp("graph_llm") / "home")


def assistant(settings: Settings, model: ScriptedChatModel, market: FakeMarket | None = None) -> Assistant:
    return Assistant(settings, deps=GraphDeps(market_source=market or FakeMarket(), chat_model=model))


# ---------------------------------------------------------------------------------------------------------
def test_two_turns_through_the_model_with_cited_verified_answers(settings: Settings) -> None:
    model = ScriptedChatModel(rules=[
        rewrite_rule(("(no earlier turns)",), CAPEX_2024),
        rewrite_rule(("what about 2023?",), "What were Northwind's capital expenditures in 2023?",
                     [f"company: {COMPANY}", "metric: capital expenditure"]),
        decompose_rule(("in 2024?",), "What were Northwind's capital expenditures in FY2024?", "FY2024"),
        decompose_rule(("in 2023?",), "What were Northwind's capital expenditures in FY2023?", "FY2023"),
        ((ANSWER, "in 2024?"), cites("(437)", "Capital expenditures were $437 million in 2024 {label}.")),
        ((ANSWER, "in 2023?"), cites("(392)", "Capital expenditures were $392 million in 2023 {label}.")),
    ])
    with assistant(settings, model) as a:
        first = a.ask(CAPEX_2024)
        second = a.ask("what about 2023?", thread_id=first.thread_id)
    assert first.source == "llm" and first.answer.startswith("Capital expenditures were $437 million in 2024 [")
    assert second.source == "llm" and "$392 million" in second.answer and UNVERIFIED_MARK not in second.answer
    assert second.rewritten == "What were Northwind's capital expenditures in 2023?"
    assert second.sub_queries[0].period == "FY2023" and second.routes[0].route == "deep_retrieval"
    assert second.citations and second.citations[0].doc == "NORTHWIND_2024_10K"
    # The rewrite prompt of turn two carried turn one, question and answer, from the checkpointed thread.
    rewrite_prompt = next(p for p in model.prompts if REWRITE in p and "what about 2023?" in p)
    assert CAPEX_2024 in rewrite_prompt and "$437 million" in rewrite_prompt
    assert set(second.tokens.by_step) == {"rewrite", "decompose", "answer"}
    assert second.tokens.calls == 3 and second.tokens.total_tokens == 3 * USAGE["total_tokens"]
    assert second.tokens.fallbacks == 0 and second.tokens.estimated_calls == 0


def test_invalid_output_is_retried_then_the_offline_twin_answers(settings: Settings) -> None:
    model = ScriptedChatModel(rules=[
        rewrite_rule(("(no earlier turns)",), CAPEX_2024),
        ((DECOMPOSE,), tool_call("Decomposition", {"sub_queries": []})),  # invalid: at least one sub-query
        ((ANSWER,), text("")),  # invalid: empty
    ])
    with assistant(settings, model) as a:
        result = a.ask(CAPEX_2024)
    decompose, answer = result.tokens.by_step["decompose"], result.tokens.by_step["answer"]
    assert decompose.calls == 2 and decompose.fallbacks == 1  # one call, one retry, then the twin
    assert answer.calls == 2 and answer.fallbacks == 1
    notes = [e.text for e in result.trace.events]
    assert any(n.startswith("decompose: language-model output not used") for n in notes)
    assert any(n.startswith("answer: language-model output not used") for n in notes)
    assert result.source == "offline" and "$437 million" in result.answer  # the offline twin's cited answer
    assert re.search(r"\[NORTHWIND_2024_10K, p\. \d+\]", result.answer)


def test_a_model_figure_the_evidence_does_not_support_is_never_stated(settings: Settings) -> None:
    model = ScriptedChatModel(rules=[
        rewrite_rule(("(no earlier turns)",), CAPEX_2024),
        decompose_rule(("in 2024?",), "What were Northwind's capital expenditures in FY2024?", "FY2024"),
        ((ANSWER,), cites("(437)", "Capital expenditures were $512 million in 2024 {label}.")),
    ])
    with assistant(settings, model) as a:
        result = a.ask(CAPEX_2024)
    assert "$512" not in result.answer and UNVERIFIED_MARK not in result.answer
    assert result.source == "offline" and "$437 million" in result.answer  # the gated offline answer instead
    assert any("trust gate: the model stated figures its evidence does not support: $512 million" in e.text
               for e in result.trace.events)


def test_the_model_is_not_asked_about_a_company_with_no_filing(settings: Settings) -> None:
    question = "What were Boeing's capital expenditures in 2024?"
    model = ScriptedChatModel(rules=[
        rewrite_rule(("(no earlier turns)",), question),
        decompose_rule(("in 2024?",), question, "FY2024"),
        ((ANSWER,), cites("(437)", "Boeing's capital expenditures were $437 million in 2024 {label}.")),
    ])
    with assistant(settings, model) as a:
        result = a.ask(question)
    assert result.answer.startswith("Not found in the filings") and "no filing of Boeing is indexed" in result.answer
    assert "437" not in result.answer
    assert "answer" not in result.tokens.by_step  # refused before any prompt


def test_market_sub_query_uses_function_calling(settings: Settings) -> None:
    market = FakeMarket()
    question = "What is Microsoft's current stock price?"
    model = ScriptedChatModel(rules=[
        rewrite_rule((question,), question),
        ((MARKET, "Microsoft"), tool_call("get_quote", {"ticker": "MSFT"})),
    ])  # no decompose rule: the client error counts as a failed call and the offline twin decomposes
    with assistant(settings, model, market) as a:
        result = a.ask(question)
    assert [r.route for r in result.routes] == ["market_tools"]
    assert market.calls == ["quote MSFT"]
    assert "415.50" in result.answer and "MSFT" in result.answer
    assert any("tools chosen by function calling: get_quote(MSFT)" in e.text for e in result.trace.events)
    assert result.tokens.by_step["market_tools"].calls == 1
    assert result.tokens.by_step["decompose"].fallbacks == 1


def test_market_falls_back_to_the_rule_router_when_no_tool_is_called(settings: Settings) -> None:
    market = FakeMarket()
    question = "What is Apple's current stock price?"  # not cached by the test before
    model = ScriptedChatModel(rules=[
        rewrite_rule((question,), question),
        ((MARKET,), text("Apple trades at about $400.")),  # a made-up number, never used
    ])
    with assistant(settings, model, market) as a:
        result = a.ask(question)
    assert market.calls == ["quote AAPL"] and "400" not in result.answer and "415.50" in result.answer
    assert result.tokens.by_step["market_tools"].calls == 2
    assert any("function calling not used" in e.text and "rule router used" in e.text for e in result.trace.events)


def test_no_evidence_question_is_answered_directly_by_the_model(settings: Settings) -> None:
    reply = "EBITDA is earnings before interest, taxes, depreciation and amortization."
    model = ScriptedChatModel(rules=[
        rewrite_rule(("What is EBITDA?",), "What is EBITDA?"),
        ((DECOMPOSE, "What is EBITDA?"), tool_call("Decomposition", {"sub_queries": [
            {"question": "What is EBITDA?", "company": "", "metric": "", "period": ""}]})),
        ((DIRECT, "What is EBITDA?"), text(reply)),
    ])
    with assistant(settings, model) as a:
        result = a.ask("What is EBITDA?")
    assert [r.route for r in result.routes] == ["direct"] and result.answer == reply
    assert not result.trace.retrieval and result.tokens.by_step["direct"].calls == 1
