"""The deep-retrieval subgraph: one small node per stage over :class:`graphs.state.DeepRetrievalState`.

```
intent -> candidates -> bundling -> screening -> bootstrap -> rerank -> select
```

Nodes are thin: each calls one stage of :class:`agent.retrieval.pipeline.DeepRetriever` and shapes the state;
every stage appends its :class:`StageTrace`, and ``select`` assembles the :class:`AuditTrace`. The retriever
comes from the builder argument, else from a process-wide cache keyed by the run's :class:`Settings` (the
graph's runtime context), so the subgraph runs alone (``finrag retrieve``) and as a node of the main graph.
"""

from __future__ import annotations

import threading
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from agent.config import Settings
from agent.index.store import Store
from agent.retrieval.options import RetrievalOptions
from agent.retrieval.pipeline import DeepRetriever, full_ranking
from agent.retrieval.trace import AuditTrace
from graphs.state import DeepRetrievalInput, DeepRetrievalOutput, DeepRetrievalState

NODES = ("intent", "candidates", "bundling", "screening", "bootstrap", "rerank", "select")

_RETRIEVERS: dict[tuple[str, str, str], DeepRetriever] = {}
_RETRIEVERS_LOCK = threading.Lock()


def shared_retriever(settings: Settings) -> DeepRetriever:
    """One retriever per index and model configuration for the whole process (its store stays open)."""
    key = (str(settings.index_dir), settings.embedding_model, settings.openai_base_url + settings.llm_model)
    with _RETRIEVERS_LOCK:
        retriever = _RETRIEVERS.get(key)
        if retriever is None:
            retriever = _RETRIEVERS[key] = DeepRetriever(settings, Store.open(settings))
        return retriever


def build_deep_retrieval_graph(retriever: DeepRetriever | None = None) -> CompiledStateGraph:
    """The compiled subgraph (no checkpointer: the main graph's, if any, covers it)."""

    def resolve(runtime: Runtime[Settings] | None) -> DeepRetriever:
        if retriever is not None:
            return retriever
        context = runtime.context if runtime is not None else None
        return shared_retriever(context if isinstance(context, Settings) else Settings.from_env())

    def options(state: DeepRetrievalState) -> RetrievalOptions:
        return state.get("options") or RetrievalOptions()

    def intent_node(state: DeepRetrievalState, runtime: Runtime[Settings]) -> dict[str, Any]:
        intent, source, notes = resolve(runtime).stage_intent(state["question"], state.get("intent"), options(state))
        return {"intent": intent, "intent_source": source, "notes": notes}

    def candidates_node(state: DeepRetrievalState, runtime: Runtime[Settings]) -> dict[str, Any]:
        routing, cset, trace = resolve(runtime).stage_candidates(
            state["question"], state["intent"], state.get("docs") or (), state.get("company"), options(state))
        return {"routing": routing, "budget": cset.budget, "candidates": cset.candidates, "stages": [trace]}

    def bundling_node(state: DeepRetrievalState, runtime: Runtime[Settings]) -> dict[str, Any]:
        cands, trace = resolve(runtime).stage_bundling(state["question"], state["candidates"], options(state))
        return {"candidates": cands, "pool": cands, "stages": [trace]}

    def screening_node(state: DeepRetrievalState, runtime: Runtime[Settings]) -> dict[str, Any]:
        pool = state["candidates"]
        cands, trace = resolve(runtime).stage_screening(state["question"], state["intent"], pool, options(state))
        # Screening scores every candidate in place: the scored pool orders the ranking's tail.
        return {"candidates": cands, "pool": pool, "stages": [trace]}

    def bootstrap_node(state: DeepRetrievalState, runtime: Runtime[Settings]) -> dict[str, Any]:
        cands, trace, stability = resolve(runtime).stage_bootstrap(state["question"], state["intent"],
                                                                   state["candidates"], options(state))
        return {"candidates": cands, "stability": stability, "stages": [trace]}

    def rerank_node(state: DeepRetrievalState, runtime: Runtime[Settings]) -> dict[str, Any]:
        cands, trace = resolve(runtime).stage_rerank(state["question"], state["intent"], state["candidates"],
                                                     options(state))
        return {"candidates": cands, "stages": [trace]}

    def select_node(state: DeepRetrievalState, runtime: Runtime[Settings]) -> dict[str, Any]:
        routing = state["routing"]
        selected, trace = resolve(runtime).stage_select(state["candidates"], state.get("k"), routing.doc_ids)
        stages = [*state.get("stages", []), trace]
        audit = AuditTrace(
            question=state["question"], intent=state["intent"], intent_source=state.get("intent_source", "offline"),
            documents=routing.doc_names, routing=routing.reasons, budget=state.get("budget", 0), stages=stages,
            stability=state.get("stability", []), notes=state.get("notes", []),
        )
        ranked = [c.to_hit(score) for c, score in full_ranking(state["candidates"], state.get("pool", []))]
        return {"selected": [c.to_hit() for c in selected], "ranked": ranked, "trace": audit, "stages": [trace]}

    graph = StateGraph(DeepRetrievalState, context_schema=Settings, input_schema=DeepRetrievalInput,
                       output_schema=DeepRetrievalOutput)
    for name, fn in zip(NODES, (intent_node, candidates_node, bundling_node, screening_node, bootstrap_node,
                                rerank_node, select_node), strict=True):
        graph.add_node(name, fn)
    graph.add_edge(START, NODES[0])
    for a, b in zip(NODES, NODES[1:], strict=False):
        graph.add_edge(a, b)
    graph.add_edge(NODES[-1], END)
    return graph.compile(name="deep_retrieval")
