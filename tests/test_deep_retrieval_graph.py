"""The deep-retrieval subgraph end to end on the sample filing: offline, and with a scripted language model
whose replies are keyed by prompt content (valid judgements; invalid ones that fall back to the offline judge)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from scripted import ScriptedChatModel

from agent.config import Settings
from agent.errors import NotFoundError
from agent.index.store import Store
from agent.ingest.pipeline import open_ingestor
from agent.llm.models import UsageLog
from agent.retrieval import DeepRetriever, RetrievalOptions
from agent.retrieval.trace import AuditTrace
from graphs.deep_retrieval import NODES, build_deep_retrieval_graph

QUESTION = "What were Northwind's purchases of property, plant and equipment in 2024?"
STAGES = ["candidates", "bundling", "screening", "bootstrap", "rerank", "select"]
CAPEX_ROW = "Purchases of property, plant and equipment"
_CHUNK_ID = re.compile(r'"chunk_id": "([^"]+)"')
_KEEP = re.compile(r"Select between (\d+) and (\d+) chunks")


def tool(name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": "call-1"}])


def broken(name: str) -> AIMessage:
    raw = {"id": "call-1", "type": "function", "function": {"name": name, "arguments": '{"ranked_chunks": [{"chunk'}}
    return AIMessage(content="", additional_kwargs={"tool_calls": [raw]})


INTENT_ARGS = {
    "question": QUESTION, "topic": "Cash Flow", "entities": ["Northwind Instruments"],
    "metrics": ["capital expenditure"], "relation": "lookup",
    "temporal_scope": {"type": "point", "periods": ["FY2024"], "granularity": "year"},
    "requires_numeric": True, "keywords": ["purchases", "property", "plant", "equipment"],
    "company": "Northwind Instruments", "ticker": "", "form": "", "source": "llm",
}


def responder(listwise_ok: bool) -> Callable[[str], AIMessage]:
    """Valid intent, HyDE and screening replies; listwise valid (reverse card order) or always broken."""

    def respond(text: str) -> AIMessage:
        ids = _CHUNK_ID.findall(text)
        if "Call the ScreeningSelection function" in text:
            low, _ = (int(x) for x in _KEEP.search(text).groups())
            chosen = ids[:low]
            return tool("ScreeningSelection", {"selected_chunks": [
                {"chunk_id": cid, "selection_reasons": ["metric: capital expenditure"], "relevance_score": 90 - i}
                for i, cid in enumerate(chosen)]})
        if "Call the ListwiseRanking function" in text:
            if not listwise_ok:
                return broken("ListwiseRanking")
            return tool("ListwiseRanking", {"ranked_chunks": [
                {"chunk_id": cid, "rank": r, "reason": "scripted"} for r, cid in enumerate(reversed(ids), 1)]})
        if "Call the QueryIntent function" in text:
            return tool("QueryIntent", INTENT_ARGS)
        if "hypothetical passage" in text:
            return AIMessage(content="Northwind's purchases of property, plant and equipment were $437 million in 2024.")
        raise ConnectionError("no scripted reply for this prompt")

    return respond


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, sample_path_module: Path) -> Settings:
    settings = Settings.from_env(home=tmp_path_factory.mktemp("deep") / "home")
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(sample_path_module).status == "ingested"
    return settings


@pytest.fixture(scope="module")
def sample_path_module() -> Path:
    return Path(__file__).resolve().parent.parent / "agent" / "samples" / "NORTHWIND_2024_10K.md"


@pytest.fixture
def store(home: Settings) -> Iterator[Store]:
    with Store.open(home) as s:
        yield s


def test_offline_subgraph_end_to_end(home: Settings, store: Store) -> None:
    graph = build_deep_retrieval_graph(DeepRetriever(home, store, chat_model=None))
    assert set(NODES) <= set(graph.get_graph().nodes)
    out = graph.invoke({"question": QUESTION}, context=home)
    trace: AuditTrace = out["trace"]
    assert [s.stage for s in trace.stages] == STAGES
    assert trace.documents == ["NORTHWIND_2024_10K"]
    assert any("company from question" in r for r in trace.routing)
    assert out["intent"].metrics == ["capital expenditure"] and trace.intent_source == "offline"
    # the cash-flow row is top evidence (with the MD&A sentence that states capital expenditures), and selected
    assert any(CAPEX_ROW in h.chunk.text for h in out["ranked"][:2])
    assert any(CAPEX_ROW in h.chunk.text for h in out["selected"])
    ordinals = [h.chunk.ordinal for h in out["selected"]]
    assert ordinals == sorted(ordinals)  # evidence in document order
    screening = trace.stage("screening")
    assert screening.groups and any("metric matched: capital expenditure" in m for c in screening.out for m in c.matched)
    assert trace.stage("rerank").skipped and "cross-encoder skipped" in trace.stage("rerank").notes[0]
    assert trace.stage("bootstrap").rounds and trace.stability
    text = trace.render_text()
    assert "== screening" in text and "matched: metric matched: capital expenditure" in text
    assert AuditTrace.model_validate_json(trace.model_dump_json()) == trace  # JSON round trip


def test_pipeline_matches_subgraph_and_ablations_run(home: Settings, store: Store) -> None:
    retriever = DeepRetriever(home, store, chat_model=None)
    direct = retriever.retrieve(QUESTION, docs=["NORTHWIND_2024_10K"])
    graph_out = build_deep_retrieval_graph(retriever).invoke({"question": QUESTION, "docs": ["NORTHWIND_2024_10K"]})
    assert [h.chunk.chunk_id for h in direct.ranked] == [h.chunk.chunk_id for h in graph_out["ranked"]]
    no_cards = retriever.retrieve(QUESTION, docs=["NORTHWIND_2024_10K"],
                                  options=RetrievalOptions(use_cards=False, use_bootstrap=False))
    assert no_cards.trace.stage("bootstrap").skipped
    assert all(c.scores.get("align") is None for c in no_cards.trace.stage("screening").out)
    with pytest.raises(NotFoundError):
        retriever.retrieve(QUESTION, docs=["NO_SUCH_DOC"])


def test_llm_judge_valid_replies(home: Settings, store: Store) -> None:
    model = ScriptedChatModel(rules=[((), responder(listwise_ok=True))])
    usage = UsageLog()
    graph = build_deep_retrieval_graph(DeepRetriever(home, store, chat_model=model, usage=usage))
    out = graph.invoke({"question": QUESTION})
    trace: AuditTrace = out["trace"]
    assert trace.intent_source == "llm" and out["intent"].source == "llm"
    assert "hyde: " in " ".join(trace.stage("candidates").notes)
    screening = trace.stage("screening")
    assert "judge: llm" in screening.notes[0]
    assert not any("invalid" in n for n in screening.notes)
    rounds = trace.stage("bootstrap").rounds
    assert rounds and all(r.judge == "llm" for r in rounds)
    # the scripted ranker reverses each group: the accumulated order follows the model, not the offline score
    first = rounds[0]
    for group in first.groups:
        assert [first.ranks[c] for c in group] == list(range(1, len(group) + 1))
    steps = usage.by_step()
    assert steps["screening"].calls >= 1 and steps["listwise"].calls >= 1 and steps["listwise"].fallbacks == 0


def test_llm_judge_invalid_json_retries_then_falls_back(home: Settings, store: Store) -> None:
    model = ScriptedChatModel(rules=[((), responder(listwise_ok=False))])
    usage = UsageLog()
    graph = build_deep_retrieval_graph(DeepRetriever(home, store, chat_model=model, usage=usage))
    out = graph.invoke({"question": QUESTION})
    boot = out["trace"].stage("bootstrap")
    assert boot.rounds and all(r.judge == "offline" for r in boot.rounds)
    assert any("listwise ranking: model output invalid twice" in n and "offline judge used" in n for n in boot.notes)
    listwise = usage.by_step()["listwise"]
    assert listwise.calls == 2 * listwise.fallbacks  # each group: the call, one retry, then the offline judge
    assert listwise.failed_calls == listwise.calls
    # the offline fallback still ranks the cash-flow row at the top
    assert any(CAPEX_ROW in h.chunk.text for h in out["ranked"][:2])
    json.loads(out["trace"].model_dump_json())
