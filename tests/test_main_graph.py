"""The main graph end to end, offline, on the sample filing ingested once into a temporary FINRAG_HOME.

Market data comes from a fake source (yfinance is never imported); the memory bank is the real SQLite bank.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime
from support import ingested_sample, typed_evidence

from agent.answer.reading import Evidence
from agent.answer.records import NOT_FOUND
from agent.config import Settings
from agent.errors import FinragError
from agent.index.store import Store
from agent.memory import MemoryBank, MemoryEntry, MemoryStatus
from agent.query.decompose import decompose
from agent.query.intent import extract_intent
from graphs.checkpoint import checkpointer, open_checkpointer, serde_allowlist
from graphs.nodes import GraphDeps, answer_from_filings, resolve_conflicts, settings_of
from graphs.service import Assistant
from graphs.state import RESET, MainState, MergedEvidence, Route, accumulate
from tools.market import FinancialStatement, PriceBar, PriceHistory, Quote

DOC = "NORTHWIND_2024_10K"
COMPANY = "Northwind Instruments, Inc."
CAPEX_2024 = "What were Northwind's capital expenditures in 2024?"
CITE_RE = re.compile(r"\[NORTHWIND_2024_10K, p\. (\d+)\]")
AS_OF = datetime(2024, 5, 1, 20, 0, tzinfo=UTC)


class FakeMarket:
    """A scripted market-data source: records calls, never touches the network."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def fetch_quote(self, ticker: str) -> Quote:
        self.calls.append(f"quote {ticker}")
        return Quote(ticker=ticker, price=123.45, previous_close=120.0, market_cap=5.9e9, currency="USD",
                     exchange="NYQ", year_high=130.0, year_low=95.0, as_of=AS_OF)

    def fetch_history(self, ticker: str, period: str, interval: str) -> PriceHistory:
        self.calls.append(f"history {ticker} {period}")
        bars = [PriceBar(start=datetime(2024, 4, d, tzinfo=UTC), open=100.0 + d, high=101.0 + d, low=99.0 + d,
                         close=100.5 + d, volume=1000.0) for d in range(1, 11)]
        return PriceHistory(ticker=ticker, period=period, interval=interval, currency="USD", bars=bars)

    def fetch_statement(self, ticker: str, statement: str, frequency: str) -> FinancialStatement:
        raise AssertionError("no statement is asked in these tests")


pytestmark = pytest.mark.usefixtures("no_yfinance")


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """One FINRAG_HOME with the sample filing ingested, shared by the module."""
    return ingested_sample(tmp_path_factory.mktemp("main_graph") / "home")


@pytest.fixture(scope="module")
def market() -> FakeMarket:
    return FakeMarket()


@pytest.fixture(scope="module")
def deps(market: FakeMarket) -> GraphDeps:
    return GraphDeps(market_source=market, chat_model=None)


@pytest.fixture(scope="module")
def assistant(settings: Settings, deps: GraphDeps) -> Assistant:
    with Assistant(settings, deps=deps) as a:
        yield a


def page_text(settings: Settings, page: int) -> str:
    """The text of a 1-based page of the sample filing, from the index."""
    with Store.open(settings) as store:
        doc = store.get_document(DOC)
        return store.pages(doc.doc_id)[page - 1].text


# ---------------------------------------------------------------------------------------------------------
# Answers
# ---------------------------------------------------------------------------------------------------------
def test_numeric_question_is_answered_with_a_page_citation(assistant: Assistant, settings: Settings) -> None:
    result = assistant.ask(CAPEX_2024)
    assert "$437 million" in result.answer
    cited = CITE_RE.search(result.answer)
    assert cited, result.answer
    assert "(437)" in page_text(settings, int(cited.group(1)))  # the cited page really states the figure
    assert result.citations and result.citations[0].doc == DOC and "437" in result.citations[0].quote
    assert [r.route for r in result.routes] == ["deep_retrieval"]
    assert len(result.trace.retrieval) == 1 and result.trace.retrieval[0].question == result.sub_queries[0].question
    assert result.source == "offline" and result.tokens.calls == 0
    assert {"preprocess", "route", "deep_retrieval", "merge_evidence", "answer", "total"} <= set(result.timings)


def test_follow_up_is_resolved_from_the_checkpointed_thread(settings: Settings, deps: GraphDeps) -> None:
    with Assistant(settings, deps=deps) as first:
        thread = first.ask(CAPEX_2024).thread_id
    with Assistant(settings, deps=deps) as second:  # a new graph: the thread can only come from SQLite
        result = second.ask("what about 2023?", thread_id=thread)
        turns = second.turns(thread)
    assert "2023" in result.rewritten and "capital expenditure" in result.rewritten.lower()
    assert any(c.startswith("company:") for c in result.trace.carried_over)
    assert "$392 million" in result.answer and CITE_RE.search(result.answer)
    assert [t.question for t in turns] == [CAPEX_2024, "what about 2023?"]


def test_comparison_fans_out_one_deep_retrieval_per_sub_query(assistant: Assistant) -> None:
    result = assistant.ask("Compare Northwind's revenue in 2023 and 2024")
    assert [s.period for s in result.sub_queries] == ["FY2023", "FY2024"]
    assert [r.route for r in result.routes] == ["deep_retrieval", "deep_retrieval"]
    assert "$4,305 million" in result.answer and "$4,812 million" in result.answer
    assert len(result.trace.retrieval) == 2
    # Both branches were dispatched by Send into the same superstep (they run in parallel).
    steps: dict[int, list[str]] = {}
    for event in assistant.graph.stream({"question": "Compare Northwind's revenue in 2023 and 2024"},
                                        {"configurable": {"thread_id": "fan-out"}}, context=assistant.settings,
                                        stream_mode="debug"):
        if event.get("type") == "task":
            steps.setdefault(event["step"], []).append(event["payload"]["name"])
    assert ["deep_retrieval", "deep_retrieval"] in steps.values()


def test_growth_is_computed_in_code_from_two_cited_figures(assistant: Assistant) -> None:
    result = assistant.ask("How much did Northwind's revenue grow from 2023 to 2024?")
    assert len(result.sub_queries) == 2
    assert "11.78%" in result.answer
    assert "4,812" in result.answer and "4,305" in result.answer  # the formula shows its inputs
    assert len(CITE_RE.findall(result.answer)) >= 1 and not result.trace.unsupported


def test_market_question_goes_to_the_tools_with_the_injected_source(assistant: Assistant, market: FakeMarket) -> None:
    before = len(market.calls)
    result = assistant.ask("What is Northwind's current stock price?")
    assert [r.route for r in result.routes] == ["market_tools"]
    assert market.calls[before:] == ["quote NWIN"]  # the ticker comes from the filing's metadata
    assert "123.45" in result.answer and "NWIN" in result.answer
    assert "as of" in result.answer and not result.trace.retrieval


def test_verified_memory_bank_entry_answers_instantly_with_provenance(
    assistant: Assistant, settings: Settings
) -> None:
    page = next(p for p in range(1, 9) if "restructuring charges of $35 million" in page_text(settings, p))
    bank = MemoryBank(settings)
    entry = bank.add(MemoryEntry(
        question="What were Northwind's restructuring charges in 2024?",
        answer=f"Restructuring charges were $35 million in fiscal 2024, mainly severance [{DOC}, p. {page}].",
        citations=[f"[{DOC}, p. {page}]"], company=COMPANY, period="FY2024", verifier="analyst@example.com",
        verified_at=datetime(2025, 3, 1, tzinfo=UTC), status=MemoryStatus.VERIFIED,
    ))
    result = assistant.ask("What were Northwind's restructuring charges in 2024?")
    assert [r.route for r in result.routes] == ["memory_lookup"]
    assert "$35 million" in result.answer and "memory bank, verified by analyst@example.com" in result.answer
    assert result.trace.memory and entry.id in result.trace.memory[0]
    assert not result.trace.retrieval and "deep_retrieval" not in result.timings  # no retrieval ran
    assert result.citations[0].doc == DOC and result.citations[0].page == page


def test_question_without_evidence_gets_an_honest_not_found(assistant: Assistant) -> None:
    result = assistant.ask("What was Northwind's goodwill impairment in 2019?")
    assert result.answer.startswith(NOT_FOUND)
    assert not re.search(r"\$\s?\d", result.answer) and not result.citations
    assert result.not_found


def test_nothing_ingested_says_so(tmp_path: Path, deps: GraphDeps) -> None:
    with Assistant(Settings.from_env(home=tmp_path / "empty"), deps=deps) as empty:
        result = empty.ask(CAPEX_2024)
    assert result.answer.startswith(NOT_FOUND) and "no filings are ingested" in result.answer
    assert [r.route for r in result.routes] == ["direct"]


def test_small_talk_needs_no_evidence(assistant: Assistant) -> None:
    result = assistant.ask("hello")
    assert [r.route for r in result.routes] == ["direct"]
    assert "filings" in result.answer and not result.trace.retrieval


def test_generic_definition_is_answered_from_the_lexicon(assistant: Assistant) -> None:
    result = assistant.ask("What is EBITDA?")
    assert [r.route for r in result.routes] == ["direct"] and not result.trace.retrieval
    assert result.answer.startswith("EBITDA is a") and "operating income" in result.answer


def test_studio_style_message_turns_share_the_thread(assistant: Assistant, settings: Settings) -> None:
    config = {"configurable": {"thread_id": assistant.new_thread()}}
    assistant.graph.invoke({"messages": [HumanMessage(CAPEX_2024)]}, config, context=settings)
    values = assistant.graph.invoke({"messages": [HumanMessage("what about 2023?")]}, config, context=settings)
    assert values["question"] == "what about 2023?" and "$392 million" in values["answer"].text
    kinds = [type(m) for m in values["messages"]]
    assert kinds == [HumanMessage, AIMessage, HumanMessage, AIMessage]  # no question was added twice


def test_accumulators_reset_between_turns(assistant: Assistant) -> None:
    thread = assistant.new_thread()
    first = assistant.ask("Compare Northwind's revenue in 2023 and 2024", thread_id=thread)
    assert len(first.routes) == 2
    second = assistant.ask(CAPEX_2024, thread_id=thread)
    values: MainState = assistant.graph.get_state({"configurable": {"thread_id": thread}}).values
    assert len(values["routes"]) == 1 and len(values["trace"]) == 1 and len(values["sub_answers"]) == 1
    assert len(values["selected"]) <= settings_max_chunks(assistant)
    assert [t.node for t in values["timings"]].count("preprocess") == 1
    assert not any("revenue" in e.text.lower() for e in values["events"])  # nothing of turn one left
    assert len(values["history"]) == 2 and len(values["messages"]) == 4
    assert second.turn == first.turn + 1


def settings_max_chunks(assistant: Assistant) -> int:
    return assistant.settings.evidence_max_chunks


def test_stream_reports_every_node_then_the_result(assistant: Assistant) -> None:
    events = list(assistant.stream(CAPEX_2024))
    top = [e.node for e in events if not e.path]
    assert top[:2] == ["preprocess", "route"] and top[-3:] == ["merge_evidence", "answer", "done"]
    assert any(e.path == ["deep_retrieval"] and e.node == "select" for e in events)
    assert events[-1].result is not None and "$437 million" in events[-1].result.answer


def test_bad_questions_get_one_clear_error(assistant: Assistant) -> None:
    with pytest.raises(FinragError, match="empty"):
        assistant.ask("   ")
    with pytest.raises(FinragError, match="characters long"):
        assistant.ask("x" * 5000)


# ---------------------------------------------------------------------------------------------------------
# Pieces: reducer, conflicts, checkpointer, export
# ---------------------------------------------------------------------------------------------------------
def test_accumulate_appends_and_resets() -> None:
    assert accumulate(None, [1, 2]) == [1, 2]
    assert accumulate([1], 2) == [1, 2]
    assert accumulate([1, 2], RESET) == []
    assert accumulate([1, 2], [RESET, 3]) == [3]


def test_newest_filing_wins_when_filings_disagree() -> None:
    question = "What were Northwind's capital expenditures in 2023?"
    sq = decompose(question, extract_intent(question, [COMPANY]), [COMPANY]).sub_queries[0]
    path = ["Item 8", "Consolidated Statements of Cash Flows"]

    def row(doc: str, ordinal: int, text: str) -> Evidence:
        return typed_evidence(chunk_id=f"{doc}:{ordinal}", doc_name=doc, page=6, text=text, company=COMPANY,
                        section_path=path, score=1.0)

    old = row("NORTHWIND_2023_10K", 1, "(in millions)\nPurchases of property, plant and equipment | 2023: (392) | "
              "2022: (355)")
    new = row("NORTHWIND_2024_10K", 1, "(in millions)\nPurchases of property, plant and equipment | 2024: (437) | "
              "2023: (398)")
    recency = {"NORTHWIND_2024_10K": 0, "NORTHWIND_2023_10K": 1}
    answer, note = answer_from_filings(sq, [old, new], [old, new], recency)
    assert answer.value is not None and answer.value.value in (-398.0, 398.0)
    assert answer.citation is not None and answer.citation.doc == "NORTHWIND_2024_10K"
    assert "newest filing wins" in note


def test_memory_bank_beats_filings_for_the_same_question() -> None:
    question = "Compare Northwind's revenue in 2023 and 2024"
    plan = decompose(question, extract_intent(question, [COMPANY]), [COMPANY])
    a, b = plan.sub_queries
    same = b.model_copy(update={"id": b.id + "+"})  # e.g. two decompositions of one need
    merged = [MergedEvidence(sub_query_id=a.id, route=Route.DEEP), MergedEvidence(sub_query_id=b.id, route=Route.DEEP),
              MergedEvidence(sub_query_id=same.id, route=Route.MEMORY)]
    events = resolve_conflicts([a, b, same], merged)
    assert merged[1].superseded_by == same.id and not merged[2].superseded_by and not merged[0].superseded_by
    assert "memory_lookup wins" in events[0].text


def test_settings_fill_what_the_context_leaves_at_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FINRAG_HOME", str(tmp_path / "env-home"))
    # LangGraph's server builds the context as Settings(**{}): the environment must still count.
    assert settings_of(Runtime(context=Settings())).home == tmp_path / "env-home"
    assert settings_of(None).home == tmp_path / "env-home"
    explicit = Settings.from_env(home=tmp_path / "mine", rrf_k=7)
    assert settings_of(Runtime(context=explicit)) == explicit
    assert settings_of(Runtime(context={"home": str(tmp_path / "d")})).home == tmp_path / "d"


def test_sqlite_checkpointer_lives_under_home(tmp_path: Path) -> None:
    settings = Settings.from_env(home=tmp_path / "h")
    with checkpointer(settings) as saver:
        assert (tmp_path / "h" / "checkpoints.sqlite").exists()
        assert type(saver).__name__ == "SqliteSaver"
    allowed = serde_allowlist(MainState)
    assert ("agent.answer.records", "FinalAnswer") in allowed and ("graphs.state", "RouteDecision") in allowed


@pytest.mark.parametrize("url", ["postgresql://finrag@127.0.0.1:1/finrag", "mysql://x"])
def test_checkpoint_url_errors_are_clear(tmp_path: Path, url: str) -> None:
    with pytest.raises(FinragError, match="postgres|Postgres"):
        open_checkpointer(Settings.from_env(home=tmp_path, checkpoint_url=url))


def test_langgraph_json_exports_both_graphs_without_checkpointer() -> None:
    config = json.loads((Path(__file__).resolve().parent.parent / "langgraph.json").read_text())
    assert config["python_version"] == "3.11" and config["dependencies"] == ["."]
    from graphs import main

    for name, target in config["graphs"].items():
        module, attr = target.split(":")
        assert module == "./graphs/main.py", name
        compiled = getattr(main, attr)
        assert compiled.checkpointer is None
    assert set(main.graph.get_graph().nodes) >= {"preprocess", "route", "memory_lookup", "market_tools",
                                                   "deep_retrieval", "direct", "merge_evidence", "answer"}


def test_rewrite_cannot_turn_a_filing_price_into_a_market_question() -> None:
    from agent.query.dialogue import Rewrite
    from agent.schemas import QueryIntent
    from graphs.nodes import Route, choose_route

    class NoResources:
        class bank:  # noqa: N801 - a stand-in for the memory bank
            @staticmethod
            def lookup(*args: object, **kwargs: object) -> None:
                return None

        @staticmethod
        def documents() -> list[str]:
            return ["doc"]

        @staticmethod
        def ticker_of(company: str) -> str:
            return ""

        model = None

    from agent.query.plan import SubQuery

    sq = SubQuery(id="q1", question="What was the share price in FY2005?", intent=QueryIntent())
    filing = Rewrite(original="what was the weighted average exercise price per share in 2005?",
                     question=sq.question)
    market = Rewrite(original="and what is the share price today?", question=sq.question)
    assert choose_route(sq, filing, NoResources()).route is Route.DEEP
    assert choose_route(sq, market, NoResources()).route is Route.MARKET
    # A past price the market tools cannot place goes to the filings (their stock-price tables report it).
    past = Rewrite(original="what was the closing price of the common stock as of 2/11/11?", question=sq.question)
    assert choose_route(sq, past, NoResources()).route is Route.DEEP
    # A follow-up asking a figure ('what about total assets?') rewritten 'What is the total assets?' is no
    # generic definition; a question that is one ('what is EBITDA?') still needs no evidence.
    bare = SubQuery(id="q1", question="What is the total assets?", intent=QueryIntent())
    follow = Rewrite(original="what about total assets?", question=bare.question, changed=True)
    assert choose_route(bare, follow, NoResources()).route is Route.DEEP
    generic = SubQuery(id="q1", question="What is EBITDA?", intent=QueryIntent())
    asked = Rewrite(original="What is EBITDA?", question=generic.question, standalone="definition")
    assert choose_route(generic, asked, NoResources()).route is Route.DIRECT
