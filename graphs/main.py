"""The main conversational graph of finrag (docs/architecture.md; VeritasFi 4.1, 4.4, 4.5).

```
preprocess -> route --Send per sub-query--> memory_lookup | market_tools | deep_retrieval | direct
                                                                    -> merge_evidence -> answer -> END
```

``deep_retrieval`` is the compiled subgraph of :mod:`graphs.deep_retrieval` as a node: ``Send`` hands it
``{"question", "intent"}`` and its output keys (``selected``, ``trace``) land in this graph's per-turn
accumulators. :class:`agent.config.Settings` is the ``context_schema`` (``graph.invoke(..., context=settings)``).

The module-level :data:`graph` and :data:`deep_retrieval_graph` are what ``langgraph.json`` exports for
``langgraph dev`` / LangGraph Studio: compiled without a checkpointer (the server brings its own). The CLI and
tests build theirs with :func:`build_main_graph` and a checkpointer from :mod:`graphs.checkpoint`.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import get_runtime

from agent.config import Settings
from graphs import nodes
from graphs.checkpoint import serde_allowlist
from graphs.deep_retrieval import build_deep_retrieval_graph, shared_retriever
from graphs.nodes import ANSWER, MERGE, PREPROCESS, ROUTE, GraphDeps, settings_of
from graphs.state import BranchInput, MainInput, MainState, Route

GRAPH_NAME = "finrag"


class RunRetriever:
    """The deep retriever of the current run, resolved with :func:`graphs.nodes.settings_of`.

    The LangGraph server builds the runtime context as ``Settings(**{})``, which skips ``FINRAG_HOME``; resolving
    through ``settings_of`` (environment for every field left at its default) keeps the subgraph on the same
    index as the main graph's nodes, in Studio as in the CLI.
    """

    def __getattr__(self, name: str) -> Any:
        return getattr(shared_retriever(settings_of(get_runtime(Settings))), name)


def build_deep_retrieval_node() -> CompiledStateGraph:
    """The deep-retrieval subgraph as this graph uses it: run-resolved retriever, no checkpoints of its own."""
    subgraph = build_deep_retrieval_graph(RunRetriever())  # type: ignore[arg-type]
    # The subgraph runs start to finish inside one step of the main graph: persisting its working state (up to
    # 150 candidate chunks per stage) would only grow every thread.
    return subgraph.copy(update={"checkpointer": False})


def build_main_graph(
    *,
    checkpointer: BaseCheckpointSaver | None = None,
    deps: GraphDeps | None = None,
) -> CompiledStateGraph:
    """The compiled main graph. ``checkpointer`` keeps threads (multi-turn); ``deps`` injects a market data
    source and a chat model instead of the configured ones (tests)."""
    deps = deps or nodes.DEFAULT_DEPS
    if checkpointer is not None:
        checkpointer = checkpointer.with_allowlist(serde_allowlist(MainState, BranchInput))
    builder = StateGraph(MainState, context_schema=Settings, input_schema=MainInput)
    builder.add_node(PREPROCESS, partial(nodes.preprocess, deps=deps))
    builder.add_node(ROUTE, partial(nodes.route, deps=deps))
    builder.add_node(Route.MEMORY.value, partial(nodes.memory_lookup, deps=deps))
    builder.add_node(Route.MARKET.value, partial(nodes.market_tools, deps=deps))
    builder.add_node(Route.DEEP.value, build_deep_retrieval_node())
    builder.add_node(Route.DIRECT.value, partial(nodes.direct, deps=deps))
    builder.add_node(MERGE, partial(nodes.merge_evidence, deps=deps))
    builder.add_node(ANSWER, partial(nodes.answer, deps=deps))
    builder.add_edge(START, PREPROCESS)
    builder.add_edge(PREPROCESS, ROUTE)
    builder.add_conditional_edges(ROUTE, nodes.fan_out, [*(r.value for r in Route), MERGE])
    for branch in Route:
        builder.add_edge(branch.value, MERGE)
    builder.add_edge(MERGE, ANSWER)
    builder.add_edge(ANSWER, END)
    return builder.compile(checkpointer=checkpointer, name=GRAPH_NAME)


# Exported for langgraph.json (LangGraph Studio / `langgraph dev`): no checkpointer, the server adds one.
graph = build_main_graph()
deep_retrieval_graph = build_deep_retrieval_graph(RunRetriever())  # type: ignore[arg-type]
