"""The main graph's node functions: each calls the domain core and shapes :class:`graphs.state.MainState`.

```
preprocess -> route -> Send per sub-query -> memory_lookup | market_tools | deep_retrieval | direct
                                                 -> merge_evidence -> answer
```

Nodes read :class:`agent.config.Settings` from the runtime context (``Runtime[Settings]``); the handles they
share (store, memory bank, market service, chat model) come from :func:`resources`, one set per settings and
:class:`GraphDeps` for the whole process. ``GraphDeps`` is what a graph build injects instead of the defaults:
tests inject a fake market source (never the network) and a scripted chat model.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.runtime import Runtime
from langgraph.types import Send

from agent.answer.compose import answer_offline, answer_sub_query, compose_plan
from agent.answer.counts import answer_from_counts
from agent.answer.facts import FactSource, StoreFacts, answer_from_facts, cross_check, statements_refusal
from agent.answer.gate import refused
from agent.answer.llm_answer import llm_answer
from agent.answer.reading import Evidence
from agent.answer.records import NOT_FOUND, FinalAnswer, SubAnswer
from agent.config import Settings
from agent.entities import EntityRegistry, as_registry
from agent.entities.names import name_key
from agent.errors import FinragError, StoreError
from agent.finance.lexicon import find_metrics
from agent.finance.metrics import METRICS
from agent.finance.periods import find_periods, sort_key
from agent.index.embeddings import get_embedder
from agent.llm.models import LLMCallRecord, UsageLog, get_chat_model, text_call, token_counts
from agent.llm.prompts import DIRECT_SYSTEM, MARKET_SYSTEM, quote
from agent.memory import MemoryBank
from agent.query.cues import metric_label, possessive
from agent.query.decompose import decompose_llm
from agent.query.dialogue import DialogueSlots, Rewrite, Turn, update_slots
from agent.query.kind import QueryKind, classify_query, points_at_filing, readable_language
from agent.query.plan import QueryPlan, SubQuery
from agent.query.rewrite import rewrite_llm
from agent.retrieval.pipeline import DeepRetriever
from agent.retrieval.trace import AuditTrace
from agent.schemas import DocumentMeta, SearchHit
from graphs.deep_retrieval import shared_retriever
from graphs.state import (
    RESET,
    ROUTE_PRIORITY,
    BranchEvidence,
    BranchInput,
    MainState,
    MergedEvidence,
    NodeTiming,
    Route,
    RouteDecision,
    TraceEvent,
)
from tools.market import (
    MarketDataSource,
    MarketResult,
    MarketService,
    build_market_tools,
    format_market_result,
)
from tools.routing import asks_live_data, route_market_query

log = logging.getLogger(__name__)

# Node names (the route values name their branch nodes).
PREPROCESS = "preprocess"
ROUTE = "route"
MERGE = "merge_evidence"
ANSWER = "answer"

MAX_MARKET_CALLS = 3  # a market sub-query needs a quote and maybe a history; more is a model looping
MARKET_ATTEMPTS = 2  # as for every model step: one call, one retry, then the rule router answers
DEFINITION_NAMES = 2  # other names shown in an offline definition: enough to recognise it in a filing
ACCUMULATORS = ("routes", "evidence", "selected", "trace", "sub_answers", "events", "usage", "timings")

# Prompts of the two steps only this graph has (market function calling, direct answers).



# ---------------------------------------------------------------------------------------------------------
# Shared handles
# ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GraphDeps:
    """What a graph build injects instead of the defaults (tests: a fake market source, a scripted model)."""

    market_source: MarketDataSource | None = None
    chat_model: BaseChatModel | None | Literal["auto"] = "auto"


DEFAULT_DEPS = GraphDeps()


class Resources:
    """The handles the nodes share for one configuration: store, memory bank, market data, chat model."""

    def __init__(self, settings: Settings, deps: GraphDeps) -> None:
        self.settings = settings
        self.retriever: DeepRetriever = shared_retriever(settings)  # the subgraph's: one store per process
        self.bank = MemoryBank(settings, embed=get_embedder(settings).encode)
        store = self.retriever.store
        try:  # an ingest cut off before its stale marks is repaired here; a read-only bank still answers
            self.bank.reconcile(store.list_documents(), store.generation)
        except StoreError as exc:
            log.warning("memory bank not reconciled with the index: %s", exc)
        self.market = MarketService(settings, source=deps.market_source)
        self.market_tools: list[BaseTool] = build_market_tools(settings, deps.market_source)
        self.model: BaseChatModel | None = (
            get_chat_model(settings) if deps.chat_model == "auto" else deps.chat_model
        )
        self._docs: tuple[int, dict[str, DocumentMeta], EntityRegistry] | None = None
        self._lock = threading.Lock()

    def _current(self) -> tuple[int, dict[str, DocumentMeta], EntityRegistry]:
        store = self.retriever.store
        generation = store.generation
        with self._lock:
            if self._docs is None or self._docs[0] != generation:
                self._docs = (generation, {d.name: d for d in store.list_documents()}, store.entities())
            return self._docs

    def documents(self) -> dict[str, DocumentMeta]:
        """Ingested documents by name, re-read only when the index changed."""
        return self._current()[1]

    def companies(self) -> EntityRegistry:
        """The companies with an indexed filing (the registry every node names companies through)."""
        return self._current()[2]

    def ticker_of(self, company: str) -> str:
        """The ticker the registry records for ``company``, or ''."""
        entity = self.companies().resolve(company)
        return entity.tickers[0] if entity and entity.tickers else ""

    def doc_recency(self) -> dict[str, int]:
        """Document name -> rank, 0 for the newest filing (fiscal period, then filing date, then name)."""
        metas = sorted(
            self.documents().values(),
            key=lambda d: (sort_key(d.fiscal_period), d.filing_date, d.name),
            reverse=True,
        )
        return {d.name: i for i, d in enumerate(metas)}


# (settings, deps id) -> (deps, handles): holding ``deps`` keeps its id from being reused by another object.
_RESOURCES: dict[tuple[str, int], tuple[GraphDeps, Resources]] = {}
_RESOURCES_LOCK = threading.Lock()


def resources(settings: Settings, deps: GraphDeps = DEFAULT_DEPS) -> Resources:
    """The shared handles for these settings and injections (created once per process)."""
    key = (repr(settings), id(deps))
    with _RESOURCES_LOCK:
        found = _RESOURCES.get(key)
        if found is None:
            found = _RESOURCES[key] = (deps, Resources(settings, deps))
        return found[1]


_DEFAULTS: list[Settings] = []  # Settings() once per process: what a field holds when nobody set it


def settings_of(runtime: Runtime[Settings] | None) -> Settings:
    """The run's settings: the runtime context, with the environment filling every field it left at its default.

    LangGraph builds the context from a dict with ``Settings(**context)``, which skips the environment; the
    LangGraph server (Studio) does so with an empty dict. Fields still at their dataclass default are therefore
    resolved again by :meth:`Settings.from_env` (``FINRAG_HOME`` and friends), fields set explicitly win.
    """
    context = runtime.context if runtime is not None else None
    if isinstance(context, dict):
        return Settings.from_env(**context)
    if not isinstance(context, Settings):
        return Settings.from_env()
    if not _DEFAULTS:
        _DEFAULTS.append(Settings())
    defaults = _DEFAULTS[0]
    explicit = {f.name: getattr(context, f.name) for f in fields(context)
                if getattr(context, f.name) != getattr(defaults, f.name)}
    return Settings.from_env(**explicit)


def _timing(node: str, started: float, sub_query_id: str = "") -> NodeTiming:
    return NodeTiming(node=node, seconds=round(time.perf_counter() - started, 4), sub_query_id=sub_query_id)


def _message_text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return " ".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content)


def turn_question(state: MainState) -> str:
    """This turn's question: the ``question`` input when it is new, else the last human message (Studio)."""
    question = (state.get("question") or "").strip()
    history = state.get("history") or []
    if question and (not history or history[-1].question != question):
        return question
    messages = state.get("messages") or []
    if messages and isinstance(messages[-1], HumanMessage):
        return _message_text(messages[-1]).strip()
    return question


def _fallback_event(node: str, step: str, source: str, reason: str, model: BaseChatModel | None) -> list[TraceEvent]:
    """A trace line when a configured model's output was not used (invalid twice, or failed)."""
    if model is None or source != "offline" or not reason:
        return []
    return [TraceEvent(node=node, text=f"{step}: language-model output not used ({reason}); offline twin used")]


# ---------------------------------------------------------------------------------------------------------
# preprocess
# ---------------------------------------------------------------------------------------------------------
def preprocess(state: MainState, runtime: Runtime[Settings], *, deps: GraphDeps = DEFAULT_DEPS) -> dict[str, Any]:
    """Resolve the turn against the conversation, decompose it into sub-queries, reset the accumulators."""
    started = time.perf_counter()
    res = resources(settings_of(runtime), deps)
    question = " ".join(turn_question(state).split())
    history = list(state.get("history") or [])
    slots = state.get("slots") or DialogueSlots()
    usage = UsageLog()
    companies = res.companies()
    rewrite = rewrite_llm(question, history, slots, model=res.model, usage=usage, known_companies=companies)
    plan = decompose_llm(rewrite.question, rewrite.intent, model=res.model, usage=usage, known_companies=companies)
    plan = _named_by_registry(plan, res)
    events = [TraceEvent(node=PREPROCESS, text=_describe_rewrite(rewrite))]
    events += _fallback_event(PREPROCESS, "rewrite", rewrite.source, rewrite.reason, res.model)
    events += _fallback_event(PREPROCESS, "decompose", plan.source, plan.reason, res.model)
    events.append(TraceEvent(node=PREPROCESS, text=f"decomposed ({plan.source}) into {len(plan.sub_queries)} "
                             f"sub-quer{'y' if len(plan.sub_queries) == 1 else 'ies'}: "
                             + "; ".join(s.question for s in plan.sub_queries)))
    events += [TraceEvent(node=PREPROCESS, text=f"plan note: {n}") for n in plan.notes]
    messages = state.get("messages") or []
    asked = messages and isinstance(messages[-1], HumanMessage) and _message_text(messages[-1]).strip() == question
    update: dict[str, Any] = {
        "question": question,
        "turn": int(state.get("turn") or 0) + 1,
        "rewrite": rewrite,
        "plan": plan,
        "sub_queries": plan.sub_queries,
        "merged": [],
        **{name: RESET for name in ACCUMULATORS},
    }
    update["events"] = [RESET, *events]
    update["usage"] = [RESET, *usage.snapshot()]
    update["timings"] = [RESET, _timing(PREPROCESS, started)]
    if not asked:
        update["messages"] = [HumanMessage(question)]
    return update


def _named_by_registry(plan: QueryPlan, res: Resources) -> QueryPlan:
    """Sub-queries that name a company by a ticker ('AMD'), a former name or an alias carry the registry's name
    for it, so retrieval, the trust gate and the memory bank see one company under one name."""
    registry = res.companies()
    subs = []
    for sq in plan.sub_queries:
        name = registry.canonical_name(sq.company) if sq.company else ""
        if name and name != sq.company:
            intent = sq.intent.model_copy(update={"company": name})
            sq = sq.model_copy(update={"company": name, "intent": intent})
        subs.append(sq)
    return plan.model_copy(update={"sub_queries": subs})


def _describe_rewrite(rewrite: Rewrite) -> str:
    if not rewrite.changed:
        return f"question is self-contained ({rewrite.source}): {rewrite.question}"
    carried = f" (carried over: {', '.join(rewrite.carried_over)})" if rewrite.carried_over else ""
    op = f"; computes {rewrite.operation} on earlier answers" if rewrite.operation and rewrite.references else ""
    return f"rewritten ({rewrite.source}): {rewrite.original!r} -> {rewrite.question!r}{carried}{op}"


# ---------------------------------------------------------------------------------------------------------
# route
# ---------------------------------------------------------------------------------------------------------
def route(state: MainState, runtime: Runtime[Settings], *, deps: GraphDeps = DEFAULT_DEPS) -> dict[str, Any]:
    """Choose a branch per sub-query: memory bank, market tools, deep retrieval or direct."""
    started = time.perf_counter()
    res = resources(settings_of(runtime), deps)
    rewrite = state["rewrite"]
    decisions = [choose_route(sq, rewrite, res) for sq in state.get("sub_queries") or []]
    events = [TraceEvent(node=ROUTE, sub_query_id=d.sub_query_id, text=f"{d.route.value}: {d.reason}")
              for d in decisions]
    return {"routes": decisions, "events": events, "timings": [_timing(ROUTE, started)]}


def choose_route(sub_query: SubQuery, rewrite: Rewrite, res: Resources) -> RouteDecision:
    """The branch for one sub-query (docs/architecture.md, "route"): memory bank first when a verified entry matches."""

    def decide(route_: Route, reason: str, **extra: Any) -> RouteDecision:
        return RouteDecision(sub_query_id=sub_query.id, question=sub_query.question, route=route_, reason=reason,
                             **extra)

    if not readable_language(rewrite.original):
        return decide(Route.DIRECT, "written in a language the offline reader does not read", direct="unreadable")
    if len(rewrite.references) >= 2 and rewrite.operation:
        return decide(Route.DIRECT, f"computes {rewrite.operation} on figures of earlier answers (no new evidence)",
                      direct="references")
    if classify_query(rewrite.original) is QueryKind.NO_EVIDENCE and not find_metrics(rewrite.original):
        # Small talk stays small talk, whatever slots the rewrite carried into it ('hello for 3M?').
        return decide(Route.DIRECT, "needs no evidence (small talk)", direct="no_evidence").model_copy(
            update={"question": rewrite.original})
    kind = classify_query(sub_query.question, sub_query.intent)
    if kind is QueryKind.NO_EVIDENCE and rewrite.standalone != "definition" and classify_query(
        rewrite.original
    ) is not QueryKind.NO_EVIDENCE:
        # 'what about total assets?' rewritten 'What is the total assets?', or 'the sum of goodwill and ...' split
        # into 'What is goodwill?': the turn asked for a figure, so its parts are no generic definitions.
        kind = QueryKind.FILING
    if kind is QueryKind.NO_EVIDENCE:
        return decide(Route.DIRECT, "needs no evidence (small talk or a generic definition)", direct="no_evidence")
    company = sub_query.company or sub_query.intent.company
    try:
        entity = res.companies().resolve(company) if company else None
        also = res.companies().names_of(entity) if entity else []
        match = res.bank.lookup(sub_query.question, company, sub_query.period, also_named=also)
    except FinragError as exc:  # an unreadable memory bank must not stop the question
        log.warning("memory bank lookup failed: %s", exc)
        match = None
    if match is not None:
        return decide(Route.MEMORY, f"verified memory-bank entry {match.entry.id} matches "
                      f"({', '.join(match.fired)})", memory=match)
    # A rewrite can drop the words that made the question a filing question ("exercise price per share" ->
    # "share price"): the user's own wording decides between live market data and the filings.
    if kind is QueryKind.MARKET and not points_at_filing(rewrite.original):
        ticker = sub_query.intent.ticker or res.ticker_of(company)
        call = route_market_query(sub_query.question, ticker=ticker)
        if (
            call is None
            and not asks_live_data(rewrite.original)
            and res.documents()
            and (res.model is None or find_periods(rewrite.original))
        ):
            # 'The closing price as of 2/11/11', 'the price of shares in February 2009': a past price (or one
            # of no known ticker) that the filings report in their stock-price and performance tables.
            return decide(Route.DEEP, "price question the market tools cannot place (a past period or no known "
                          "ticker): deep retrieval over the ingested filings")
        cue = f" (rule router: {call.tool} {call.ticker}, cue {call.cue!r})" if call else ""
        return decide(Route.MARKET, f"needs live market data{cue}", market_call=call)
    if not res.documents():
        return decide(Route.DIRECT, "no filings are ingested, so there is nothing to retrieve", direct="no_filings")
    return decide(Route.DEEP, "filing question: deep retrieval over the ingested filings")


def fan_out(state: MainState) -> list[Send | str]:
    """One ``Send`` per sub-query to its branch; the branches run in parallel (none: straight to merging)."""
    by_id = {sq.id: sq for sq in state.get("sub_queries") or []}
    sends: list[Send | str] = []
    for decision in state.get("routes") or []:
        sq = by_id[decision.sub_query_id]
        if decision.route is Route.DEEP:
            sends.append(Send(Route.DEEP.value, {"question": sq.question, "intent": sq.intent,
                                                 "docs": list(state.get("docs") or [])}))
        else:
            sends.append(Send(decision.route.value, {"sub_query": sq, "decision": decision}))
    return sends or [MERGE]


# ---------------------------------------------------------------------------------------------------------
# Branches: memory bank, market tools, direct (deep retrieval is the compiled subgraph)
# ---------------------------------------------------------------------------------------------------------
def memory_lookup(state: BranchInput, runtime: Runtime[Settings], *, deps: GraphDeps = DEFAULT_DEPS
                  ) -> dict[str, Any]:
    """Answer a sub-query from its verified memory-bank entry, instantly, with the entry's provenance."""
    started = time.perf_counter()
    sq, decision = state["sub_query"], state["decision"]
    match = decision.memory
    if match is None:  # the router always attaches the hit; a hand-made Send may not
        raise FinragError(f"memory_lookup for {sq.id} was sent without a memory-bank match")
    entry = match.entry
    cite = entry.citations[0] if entry.citations else None
    evidence = Evidence.of_text(
        chunk_id=f"memory:{entry.id}", doc_name=cite.doc if cite else "memory bank",
        page=max(cite.page - 1, 0) if cite else 0, text=entry.answer, source="memory", company=entry.company,
    )
    when = f"{entry.verified_at:%Y-%m-%d}" if entry.verified_at else "an unrecorded date"
    answer = SubAnswer(
        sub_query_id=sq.id, question=sq.question, status="text",
        answer=f"{entry.answer} (memory bank, verified by {entry.verifier} on {when})",
        metric=sq.metric, company=sq.company, period=sq.period, citations=list(entry.citations), citation=cite,
        confidence=1.0, explanation=match.provenance(),
    )
    read = answer_sub_query(sq, [evidence]) if sq.metric and sq.intent.requires_numeric else None
    if read is not None and read.value is not None and read.status in ("found", "computed"):
        # The entry's figure, read with unit, scale and sign, so comparisons can compute with it.
        answer = answer.model_copy(update={"status": "found", "value": read.value, "display": read.display,
                                           "quote": read.quote, "computations": read.computations})
    branch = BranchEvidence(sub_query_id=sq.id, route=Route.MEMORY, evidence=[evidence], answer=answer,
                            notes=[match.provenance()])
    return {"evidence": [branch], "timings": [_timing(Route.MEMORY.value, started, sq.id)],
            "events": [TraceEvent(node=Route.MEMORY.value, sub_query_id=sq.id, text=match.provenance())]}


def market_tools(state: BranchInput, runtime: Runtime[Settings], *, deps: GraphDeps = DEFAULT_DEPS
                 ) -> dict[str, Any]:
    """Live market data for a sub-query: the model picks the tool by function calling, else the rule router."""
    started = time.perf_counter()
    res = resources(settings_of(runtime), deps)
    sq, decision = state["sub_query"], state["decision"]
    usage = UsageLog()
    events: list[TraceEvent] = []
    results: list[MarketResult] = []
    if res.model is not None:
        results, reason = call_market_tools(res.model, res.market_tools, sq.question, usage)
        if reason:
            events.append(TraceEvent(node=Route.MARKET.value, sub_query_id=sq.id,
                                     text=f"function calling not used ({reason}); rule router used"))
        else:
            events.append(TraceEvent(node=Route.MARKET.value, sub_query_id=sq.id,
                                     text="tools chosen by function calling: "
                                     + ", ".join(f"{r.tool}({r.ticker})" for r in results)))
    if not results and decision.market_call is not None:
        results = [res.market.run(decision.market_call)]
        events.append(TraceEvent(node=Route.MARKET.value, sub_query_id=sq.id,
                                 text=f"rule router: {decision.market_call.tool}({decision.market_call.ticker})"))
    evidence = [market_evidence(r) for r in results]
    if results:
        text = "\n".join(format_market_result(r) for r in results)
    else:
        text = (f"Market data unavailable: could not tell which stock ticker '{sq.question}' refers to "
                f"(name it, e.g. $MSFT).")
    answer = SubAnswer(sub_query_id=sq.id, question=sq.question, status="text", answer=text, company=sq.company,
                       metric=sq.metric, confidence=1.0 if any(r.available for r in results) else 0.0)
    branch = BranchEvidence(sub_query_id=sq.id, route=Route.MARKET, evidence=evidence, answer=answer,
                            notes=[r.message for r in results if r.message])
    return {"evidence": [branch], "usage": usage.snapshot(), "events": events,
            "timings": [_timing(Route.MARKET.value, started, sq.id)]}


def market_evidence(result: MarketResult) -> Evidence:
    """A market result as evidence: the formatted figures with their as-of time and source."""
    return Evidence.of_text(chunk_id=f"market:{result.tool}:{result.ticker}", doc_name=result.source, page=0,
                            text=format_market_result(result), source="market")


def call_market_tools(
    model: BaseChatModel, tools: Sequence[BaseTool], question: str, usage: UsageLog
) -> tuple[list[MarketResult], str]:
    """Let the model call the market tools (function calling); (results, '') or ([], why it failed twice).

    Each tool returns its :class:`MarketResult` as the ``ToolMessage`` artifact, so the figures come from the
    tool, never from the model's text.
    """
    by_name = {t.name: t for t in tools}
    runnable = model.bind_tools(list(tools), tool_choice="required")
    conversation: list[BaseMessage] = [SystemMessage(MARKET_SYSTEM), HumanMessage(quote(question, "question"))]
    reason = ""
    for attempt in range(1, MARKET_ATTEMPTS + 1):
        started = time.perf_counter()
        reply: BaseMessage | None = None
        results: list[MarketResult] = []
        try:
            reply = runnable.invoke(conversation)
            calls = reply.tool_calls if isinstance(reply, AIMessage) else []
            if not calls:
                raise FinragError("the reply called no tool")
            for call in calls[:MAX_MARKET_CALLS]:
                chosen = by_name.get(call.get("name", ""))
                if chosen is None:
                    raise FinragError(f"unknown tool {call.get('name')!r}")
                message = chosen.invoke({**call, "type": "tool_call"})
                if isinstance(message, ToolMessage) and isinstance(message.artifact, MarketResult):
                    results.append(message.artifact)
            reason = "" if results else "the tools returned no market result"
        except Exception as exc:  # a failing model or bad arguments: retry, then the rule router
            reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
        prompt_tokens, completion_tokens, estimated = token_counts(conversation, reply)
        usage.add(LLMCallRecord(
            step="market_tools", model=str(getattr(model, "model_name", "") or type(model).__name__),
            attempt=attempt, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, estimated=estimated,
            latency_s=round(time.perf_counter() - started, 4), outcome="ok" if not reason else "invalid",
            error=reason, fell_back=bool(reason) and attempt == MARKET_ATTEMPTS,
        ))
        if not reason:
            return results, ""
        conversation = [*conversation[:2], HumanMessage(f"Your previous reply could not be used: {reason}. "
                                                        "Call one of the tools.")]
    return [], reason


def direct(state: BranchInput, runtime: Runtime[Settings], *, deps: GraphDeps = DEFAULT_DEPS) -> dict[str, Any]:
    """Sub-queries that need no evidence: small talk and generic definitions (the model, else the lexicon)."""
    started = time.perf_counter()
    res = resources(settings_of(runtime), deps)
    sq, decision = state["sub_query"], state["decision"]
    usage = UsageLog()
    events: list[TraceEvent] = []
    answer: SubAnswer | None
    if decision.direct == "references":
        answer = None  # the answer step computes it from the earlier answers' figures
    elif decision.direct == "unreadable":
        answer = SubAnswer(sub_query_id=sq.id, question=sq.question, status="not_found", answer="",
                           missing="an answer to this question: finrag reads questions written in English; ask it in "
                                   "English to get figures with their pages")
    elif decision.direct == "no_filings":
        answer = SubAnswer(sub_query_id=sq.id, question=sq.question, status="not_found", answer="",
                           missing=f"{sq.question.rstrip(' ?.')} (no filings are ingested yet: run finrag ingest PATH)")
    else:
        offline = offline_direct_answer(decision.question, res.companies())
        result = text_call(res.model, [SystemMessage(DIRECT_SYSTEM), HumanMessage(quote(decision.question, "question"))],
                           fallback=lambda: offline, step="direct", usage=usage)
        events += _fallback_event(Route.DIRECT.value, "direct answer", result.source, result.reason, res.model)
        answer = SubAnswer(sub_query_id=sq.id, question=decision.question, status="text", answer=result.text,
                           explanation=f"answered without evidence ({result.source})")
    branch = BranchEvidence(sub_query_id=sq.id, route=Route.DIRECT, answer=answer)
    return {"evidence": [branch], "usage": usage.snapshot(), "events": events,
            "timings": [_timing(Route.DIRECT.value, started, sq.id)]}


def offline_direct_answer(question: str, companies: Sequence[str]) -> str:
    """The offline twin of a no-evidence answer: what finrag does, or the lexicon's definition of a metric."""
    metric = next((m.canonical for m in find_metrics(question) if m.canonical in METRICS), None)
    if metric is not None:
        info = METRICS[metric]
        names: dict[str, str] = {}
        for name in [*info.abbreviations, *(n for n in info.synonyms if n not in info.kinds)]:
            if name.lower() != metric and "adjusted" not in name.lower():  # adjusted variants are other measures
                names.setdefault(re.sub(r"[^a-z0-9]+", " ", name.lower()).strip(), name)
        names_shown = list(names.values())[:DEFINITION_NAMES]
        label = metric_label(metric)
        parts = [f"{label[:1].upper()}{label[1:]} is a {info.topic.lower()} measure"]
        if info.formula is not None:
            parts.append(f"computed as {info.formula.describe()}")
        if names_shown:
            parts.append(f"also reported as {', '.join(names_shown)}")
        return ("; ".join(parts) + ". Ask about a company and period to get the figure, with its page, from the "
                "ingested filings.")
    held = (f" The ingested filings cover {', '.join(companies).rstrip('.')}." if companies
            else " No filings are ingested yet.")
    return ("I answer questions about corporate filings (10-K, 10-Q, 8-K), citing the document and page of every "
            f"figure, and live market data when asked.{held}")


# ---------------------------------------------------------------------------------------------------------
# merge_evidence
# ---------------------------------------------------------------------------------------------------------
def merge_evidence(state: MainState, runtime: Runtime[Settings], *, deps: GraphDeps = DEFAULT_DEPS
                   ) -> dict[str, Any]:
    """Fuse the branches' evidence per sub-query: memory bank > filings > tools, newest filing first."""
    started = time.perf_counter()
    res = resources(settings_of(runtime), deps)
    metas = res.documents()
    recency = res.doc_recency()
    routes = {d.sub_query_id: d for d in state.get("routes") or []}
    branches = {b.sub_query_id: b for b in state.get("evidence") or []}
    hits = {h.chunk.chunk_id: h for h in state.get("selected") or []}
    traces = {t.question: t for t in state.get("trace") or []}
    merged: list[MergedEvidence] = []
    timings: list[NodeTiming] = []
    for sq in state.get("sub_queries") or []:
        decision = routes.get(sq.id)
        route_ = decision.route if decision is not None else Route.DIRECT
        if route_ is Route.DEEP:
            trace = traces.get(sq.question)
            chosen = [hits[i] for i in selected_chunk_ids(trace) if i in hits] if trace else []
            evidence = filing_evidence(chosen, metas, recency)
            notes = [] if trace else ["deep retrieval returned no trace for this sub-query"]
            merged.append(MergedEvidence(sub_query_id=sq.id, route=route_, evidence=evidence, notes=notes))
            if trace is not None:
                timings.append(NodeTiming(node=Route.DEEP.value, sub_query_id=sq.id,
                                          seconds=round(sum(s.seconds for s in trace.stages), 4)))
        else:
            branch = branches.get(sq.id)
            merged.append(MergedEvidence(sub_query_id=sq.id, route=route_,
                                         evidence=branch.evidence if branch else [],
                                         answer=branch.answer if branch else None,
                                         notes=branch.notes if branch else []))
    events = resolve_conflicts(state.get("sub_queries") or [], merged)
    timings.append(_timing(MERGE, started))
    return {"merged": merged, "events": events, "timings": timings}


def selected_chunk_ids(trace: AuditTrace) -> list[str]:
    """The chunk ids the trace's select stage kept (the sub-query's evidence)."""
    for stage in reversed(trace.stages):
        if stage.stage == "select":
            return [c.chunk_id for c in stage.out]
    return []


def filing_evidence(hits: Sequence[SearchHit], metas: dict[str, DocumentMeta], recency: dict[str, int]
                    ) -> list[Evidence]:
    """Retrieved chunks as evidence, newest filing first (stable within a filing)."""
    ordered = sorted(hits, key=lambda h: recency.get(h.doc_name, len(recency)))
    return [
        Evidence.from_hit(h, company=metas[h.doc_name].company, filing_period=metas[h.doc_name].fiscal_period,
                          fy_end_month=metas[h.doc_name].fy_end_month)
        if h.doc_name in metas else Evidence.from_hit(h)
        for h in ordered
    ]


def resolve_conflicts(sub_queries: Sequence[SubQuery], merged: list[MergedEvidence]) -> list[TraceEvent]:
    """Sub-queries asking for the same company x metric x period: the higher-priority source wins."""
    events: list[TraceEvent] = []
    by_id = {sq.id: sq for sq in sub_queries}
    groups: dict[tuple[str, str, str], list[MergedEvidence]] = {}
    for m in merged:
        sq = by_id.get(m.sub_query_id)
        if sq is not None and sq.metric:
            groups.setdefault((name_key(sq.company), sq.metric, sq.period), []).append(m)
    for group in groups.values():
        if len(group) < 2:
            continue
        winner = min(group, key=lambda m: ROUTE_PRIORITY[m.route])
        for m in group:
            if m is not winner and ROUTE_PRIORITY[m.route] > ROUTE_PRIORITY[winner.route]:
                m.superseded_by = winner.sub_query_id
                events.append(TraceEvent(node=MERGE, sub_query_id=m.sub_query_id, text=(
                    f"conflict: {m.route.value} and {winner.route.value} answer the same question; "
                    f"{winner.route.value} wins (memory bank > filings > tools)")))
    return events


# ---------------------------------------------------------------------------------------------------------
# answer
# ---------------------------------------------------------------------------------------------------------
def answer(state: MainState, runtime: Runtime[Settings], *, deps: GraphDeps = DEFAULT_DEPS) -> dict[str, Any]:
    """Answer each sub-query, combine them in code, verify every figure, and close the turn."""
    started = time.perf_counter()
    res = resources(settings_of(runtime), deps)
    rewrite, plan = state["rewrite"], state["plan"]
    merged = state.get("merged") or []
    usage = UsageLog()
    events: list[TraceEvent] = []
    evidence = _unique_evidence(e for m in merged for e in m.evidence)
    if rewrite.unresolved:  # 'what is that as a %?' after an answer that stated no figure
        final = FinalAnswer(question=rewrite.question, text=f"{NOT_FOUND}: {rewrite.unresolved}.",
                            not_found=[rewrite.unresolved])
        sub_answers = []
    elif rewrite.references and rewrite.operation:
        final = answer_offline(plan, evidence, rewrite)  # arithmetic on earlier answers' figures
        sub_answers = list(final.sub_answers)
    else:
        only = set(state.get("docs") or [])
        filings = [d for d in res.documents().values() if not only or d.name in only or d.doc_id in only]
        facts = StoreFacts(res.retriever.store, filings, res.doc_recency(), res.companies())
        sub_answers, notes = answer_sub_queries(
            plan.sub_queries, merged, res.doc_recency(), res.companies(), plan.question, facts
        )
        events += [TraceEvent(node=ANSWER, sub_query_id=sid, text=text) for sid, text in notes]
        evidence += facts.evidence_for(sub_answers, evidence)
        final = compose_final(plan, sub_answers, evidence, rewrite.turn_operation)
        if res.model is not None and any(e.source == "filing" for e in evidence):
            final = llm_answer(rewrite.question, evidence, model=res.model, fallback=final, usage=usage,
                               computations=final.computations)
            events += _fallback_event(ANSWER, "answer", final.source, final.reason, res.model)
    if state.get("docs"):  # a filter the user set and may have forgotten: the answer says what it was asked over
        final = final.model_copy(update={"text": f"{final.text}\n{_asked_over(state['docs'], res)}"})
    if final.verification is not None and final.verification.unsupported:
        events.append(TraceEvent(node=ANSWER, text="unsupported figures flagged: "
                                 + ", ".join(final.verification.unsupported)))
    values = final.cited_values()
    slots = update_slots(state.get("slots") or DialogueSlots(), rewrite, plan, values, final.computations)
    turn = Turn(question=state.get("question", rewrite.original), rewritten=rewrite.question, answer=final.text,
                values=values, computations=final.computations)
    return {
        "answer": final,
        "sub_answers": sub_answers,
        "history": [*(state.get("history") or []), turn],
        "slots": slots,
        "messages": [AIMessage(final.text)],
        "docs": [],  # a document filter holds for the turn it was given with
        "usage": usage.snapshot(),
        "events": events,
        "timings": [_timing(ANSWER, started)],
    }


def _asked_over(docs: Sequence[str], res: Resources) -> str:
    """'Asked over NORTHWIND_2024_10K only (the document filter); other filings were not searched.'"""
    names = {d.doc_id: d.name for d in res.documents().values()}
    shown = ", ".join(dict.fromkeys(names.get(d, d) for d in docs))
    return f"Asked over {shown} only (the document filter); other filings were not searched."


def _unique_evidence(items: Any) -> list[Evidence]:
    seen: dict[str, Evidence] = {}
    for e in items:
        seen.setdefault(e.chunk_id, e)
    return list(seen.values())


def answer_sub_queries(
    sub_queries: Sequence[SubQuery],
    merged: Sequence[MergedEvidence],
    recency: dict[str, int],
    indexed: EntityRegistry | Sequence[str] | None = None,
    question: str = "",
    facts: FactSource | None = None,
) -> tuple[list[SubAnswer], list[tuple[str, str]]]:
    """One answer per sub-query: the branch's ready answer, or the extractive answer over its filings (through
    the trust gate; ``indexed`` names the companies with a filing in the index; ``facts`` are the filings'
    inline-XBRL tags, which answer first when they hold the question whole)."""
    by_id = {m.sub_query_id: m for m in merged}
    all_filings = _unique_evidence(e for m in merged if m.route is Route.DEEP for e in m.evidence)
    answers: dict[str, SubAnswer] = {}
    notes: list[tuple[str, str]] = []
    ordered = sorted(sub_queries, key=lambda sq: bool(by_id.get(sq.id) and by_id[sq.id].superseded_by))
    for sq in ordered:
        m = by_id.get(sq.id)
        if m is not None and m.superseded_by and m.superseded_by in answers:
            answers[sq.id] = answers[m.superseded_by].model_copy(update={"sub_query_id": sq.id})
        elif m is not None and m.answer is not None:
            answers[sq.id] = m.answer
        elif m is not None and m.route is Route.DEEP:
            answers[sq.id], note = answer_from_filings(sq, m.evidence, all_filings, recency, indexed, question, facts)
            if note:
                notes.append((sq.id, note))
        else:
            answers[sq.id] = SubAnswer(sub_query_id=sq.id, question=sq.question, status="not_found", answer="",
                                       missing=sq.question.rstrip(" ?."))
    return [answers[sq.id] for sq in sub_queries], notes


def answer_from_filings(
    sub_query: SubQuery,
    own: Sequence[Evidence],
    pool: Sequence[Evidence],
    recency: dict[str, int],
    indexed: EntityRegistry | Sequence[str] | None = None,
    question: str = "",
    facts: FactSource | None = None,
) -> tuple[SubAnswer, str]:
    """The filer's tagged fact when one holds the question whole, or the one count its sentences state of the
    thing asked; else the extractive answer over the sub-query's own evidence (the whole turn's as a fallback),
    where the newest filing wins when two filings state different figures for the same period, held against the
    tags of the page it cites."""
    if facts is not None:
        registry = as_registry(indexed) if indexed is not None else None
        stated = (answer_from_facts(sub_query, facts, registry)
                  or answer_from_counts(sub_query, facts))
        if stated is not None:
            return stated, ""
    found, note = _answer_from_text(sub_query, own, pool, recency, indexed, question)
    if facts is not None:
        found = statements_refusal(cross_check(found, facts, sub_query.intent.scale), facts)
    return found, note


def _answer_from_text(
    sub_query: SubQuery,
    own: Sequence[Evidence],
    pool: Sequence[Evidence],
    recency: dict[str, int],
    indexed: EntityRegistry | Sequence[str] | None,
    question: str,
) -> tuple[SubAnswer, str]:
    found = answer_sub_query(sub_query, own, indexed_companies=indexed, turn_question=question)
    if found.status == "not_found" and len(pool) > len(own):
        wider = answer_sub_query(sub_query, pool, indexed_companies=indexed, turn_question=question)
        if wider.status != "not_found":
            found = wider
            own = pool
    if found.value is None or found.citation is None:
        return found, ""
    others = _other_company_figure(sub_query, found, own, indexed, question)
    if others:
        # two companies' figures and a question naming neither: no filing's date says whose is asked
        figures = " and ".join(f"{possessive(whose)} {a.display or (a.value.text if a.value else '')}"
                               for whose, a in others)
        return refused(found, f"which company? The question names none, and the filings state {figures} for "
                              f"{found.value.period or 'the period'}", "", found.checks), ""
    cited_rank = recency.get(found.citation.doc, len(recency))
    newer = sorted({e.doc_name for e in own if recency.get(e.doc_name, len(recency)) < cited_rank},
                   key=lambda d: recency[d])
    for doc in newer:
        alt = answer_sub_query(sub_query, [e for e in own if e.doc_name == doc], indexed_companies=indexed,
                               turn_question=question)
        if alt.value is None or alt.value.period != found.value.period or alt.value.absolute == found.value.absolute:
            continue
        note = (f"conflict: {doc} states {alt.display or alt.value.text} and {found.citation.doc} states "
                f"{found.display or found.value.text} for {found.value.period or 'the period'}; the newest filing wins")
        return alt.model_copy(update={"explanation": f"{alt.explanation} {note}".strip()}), note
    return found, ""


def _other_company_figure(sub_query: SubQuery, found: SubAnswer, own: Sequence[Evidence],
                          indexed: EntityRegistry | Sequence[str] | None, question: str) -> list[tuple[str, SubAnswer]]:
    """For a sub-query naming no company, ``found`` and the figure another company's filing among the evidence
    states for its period, each with its company; empty when the evidence is of one company, or no other company's
    filing states one."""
    cited = next((e.company for e in own if found.citation is not None and e.doc_name == found.citation.doc), "")
    if sub_query.company or not cited or found.value is None:
        return []
    for company in sorted({e.company for e in own if e.company and name_key(e.company) != name_key(cited)}):
        alt = answer_sub_query(sub_query, [e for e in own if e.company == company], indexed_companies=indexed,
                               turn_question=question)
        if alt.value is not None and alt.value.period == found.value.period:
            return [(cited, found), (company, alt)]
    return []


def compose_final(plan: Any, sub_answers: Sequence[SubAnswer], evidence: Sequence[Evidence],
                  turn_operation: str = "") -> FinalAnswer:
    """Combinations in code over the sub-answers, then one verified answer (see
    :func:`agent.answer.compose.compose_plan`)."""
    return compose_plan(plan, sub_answers, list(evidence), turn_operation)

