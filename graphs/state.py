"""Typed states of finrag's LangGraph graphs.

Values are pydantic models from ``agent`` so a checkpointer can serialise them; list fields that several
nodes append to carry an ``operator.add`` reducer.
"""

from __future__ import annotations

import operator
from enum import StrEnum
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from pydantic import BaseModel, Field

from agent.answer.reading import Evidence
from agent.answer.records import FinalAnswer, SubAnswer
from agent.llm.models import LLMCallRecord
from agent.memory import MemoryMatch
from agent.query.dialogue import DialogueSlots, Rewrite, Turn
from agent.query.plan import QueryPlan, SubQuery
from agent.retrieval.candidates import Candidate, RoutingDecision
from agent.retrieval.options import RetrievalOptions
from agent.retrieval.trace import AuditTrace, ChunkStability, StageTrace
from agent.schemas import QueryIntent, SearchHit
from tools.calls import MarketCall


# =========================================================================================================
# Deep retrieval subgraph (graphs/deep_retrieval.py)
# =========================================================================================================
class DeepRetrievalInput(TypedDict, total=False):
    """What a caller hands the subgraph: a (sub-)question, optionally its intent and document filters."""

    question: str
    intent: QueryIntent | None  # from the main graph's preprocess step; extracted here when absent
    docs: list[str] | None  # search only these documents (names or content hashes)
    company: str | None  # search only this company's filings
    k: int | None  # evidence chunks at most (default: Settings.evidence_max_chunks)
    options: RetrievalOptions | None  # stage switches (benchmark ablations); default runs everything


class DeepRetrievalOutput(TypedDict, total=False):
    """What the subgraph returns."""

    intent: QueryIntent
    selected: list[SearchHit]  # evidence within the token budget, deduplicated, in document order
    ranked: list[SearchHit]  # every candidate, best first
    trace: AuditTrace


class DeepRetrievalState(DeepRetrievalInput, DeepRetrievalOutput, total=False):
    """Working state of the subgraph: one field per stage's output, plus the trace parts they append."""

    intent_source: str
    routing: RoutingDecision
    budget: int
    pool: list[Candidate]  # Stage 1 candidates after bundling (the ranking's tail comes from here)
    candidates: list[Candidate]  # the current stage's candidates, best first
    stability: list[ChunkStability]
    stages: Annotated[list[StageTrace], operator.add]
    notes: Annotated[list[str], operator.add]


# =========================================================================================================
# Main conversational graph (graphs/main.py)
# =========================================================================================================
RESET = "__finrag_reset__"  # written by the first node of a turn: the accumulator starts empty again


def accumulate(left: list[Any] | None, right: Any) -> list[Any]:
    """Reducer of the per-turn accumulators: append, or start over at a :data:`RESET` marker.

    ``right`` may be one item, a list of items, :data:`RESET`, or a list whose items include :data:`RESET`
    (``[RESET, a, b]``: empty the accumulator, then append ``a`` and ``b``). Parallel branches each append;
    the first node of a turn resets, so nothing of the previous turn leaks into this one.
    """
    out = list(left or [])
    items = right if isinstance(right, list) else [right]
    for item in items:
        if isinstance(item, str) and item == RESET:
            out = []
        elif item is not None:
            out.append(item)
    return out


class Route(StrEnum):
    """Where a sub-query's evidence comes from; each value is the name of the graph node that serves it."""

    MEMORY = "memory_lookup"
    MARKET = "market_tools"
    DEEP = "deep_retrieval"
    DIRECT = "direct"


# Memory bank > filings > tools on conflicts (docs/architecture.md, "merge evidence"); direct answers carry no evidence.
ROUTE_PRIORITY: dict[Route, int] = {Route.MEMORY: 0, Route.DEEP: 1, Route.MARKET: 2, Route.DIRECT: 3}


class RouteDecision(BaseModel):
    """Which branch serves one sub-query, and why (shown in the trace and in ``finrag ask --json``)."""

    sub_query_id: str
    question: str
    route: Route
    reason: str
    memory: MemoryMatch | None = Field(default=None, description="the memory-bank hit that chose this route")
    market_call: MarketCall | None = Field(default=None, description="the rule router's market call, if any")
    direct: str = Field(default="", description="why no evidence is needed: no_evidence | references | no_filings | unreadable")


class BranchEvidence(BaseModel):
    """What a memory, market or direct branch found for one sub-query (deep retrieval writes hits and traces)."""

    sub_query_id: str
    route: Route
    evidence: list[Evidence] = Field(default_factory=list)
    answer: SubAnswer | None = Field(default=None, description="a ready answer: memory hit, market data, direct")
    notes: list[str] = Field(default_factory=list)


class MergedEvidence(BaseModel):
    """One sub-query's evidence after fusion: priority-ordered, with the conflicts resolved on the way."""

    sub_query_id: str
    route: Route
    evidence: list[Evidence] = Field(default_factory=list, description="newest filing first, then by retrieval")
    answer: SubAnswer | None = None
    superseded_by: str = Field(default="", description="the sub-query whose higher-priority source wins")
    notes: list[str] = Field(default_factory=list)


class TraceEvent(BaseModel):
    """A line of the turn's trace: what a node decided, which twin ran, fallbacks and conflicts."""

    node: str
    text: str
    sub_query_id: str = ""


class NodeTiming(BaseModel):
    """Wall-clock seconds one node (or one branch of it) took."""

    node: str
    seconds: float
    sub_query_id: str = ""


class MainInput(TypedDict, total=False):
    """A turn's input: ``question`` (CLI, evals, SDK) or a human message (LangGraph Studio's chat)."""

    question: str
    messages: Annotated[list[AnyMessage], add_messages]
    docs: list[str]  # search only these filings this turn (names); empty: every filing


class BranchInput(TypedDict):
    """What ``Send`` hands the memory, market and direct branches (deep retrieval gets its own input)."""

    sub_query: SubQuery
    decision: RouteDecision


class MainState(TypedDict, total=False):
    """The conversation (kept by the checkpointer per thread) and the current turn.

    Per-turn accumulators (``routes``, ``evidence``, ``selected``, ``trace``, ``sub_answers``, ``events``,
    ``usage``, ``timings``) use :func:`accumulate`: ``preprocess`` resets them, branches append in parallel.
    ``selected`` and ``trace`` are the deep-retrieval subgraph's own output keys (its hits and its audit trace,
    one per deep-retrieval sub-query), so the compiled subgraph is a node of this graph as it is.
    """

    # conversation (persists across turns)
    messages: Annotated[list[AnyMessage], add_messages]
    question: str
    docs: list[str]  # this turn's document filter, cleared when the turn is answered
    history: list[Turn]
    slots: DialogueSlots
    turn: int
    # this turn's understanding (overwritten each turn)
    rewrite: Rewrite
    plan: QueryPlan
    sub_queries: list[SubQuery]
    merged: list[MergedEvidence]
    answer: FinalAnswer
    # per-turn accumulators
    routes: Annotated[list[RouteDecision], accumulate]
    evidence: Annotated[list[BranchEvidence], accumulate]
    selected: Annotated[list[SearchHit], accumulate]
    trace: Annotated[list[AuditTrace], accumulate]
    sub_answers: Annotated[list[SubAnswer], accumulate]
    events: Annotated[list[TraceEvent], accumulate]
    usage: Annotated[list[LLMCallRecord], accumulate]
    timings: Annotated[list[NodeTiming], accumulate]
