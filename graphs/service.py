"""A small facade over the main graph for the CLI and the evaluation runners: :class:`Assistant`.

```python
with Assistant(Settings.from_env()) as assistant:
    result = assistant.ask("What were Northwind's capital expenditures in 2024?")
    follow_up = assistant.ask("what about 2023?", thread_id=result.thread_id)
```

:class:`AskResult` is the stable, documented record of one turn (``finrag ask --json`` prints it; evaluation
runners score it). Fields are only ever added, with defaults, never renamed or removed:

- ``answer``: the answer text; every figure carries ``[doc, p. N]``; misses start "Not found in the filings".
- ``citations``: ``[{doc, page, quote}]``, ``page`` 1-based, ``quote`` the row or sentence behind a figure.
- ``sub_queries`` / ``routes``: the rewritten sub-queries and the branch each went to, with the reason.
- ``timings``: seconds per node (parallel branches: the slowest one) and ``total`` (wall clock of the turn).
- ``tokens``: language-model calls and tokens (zero offline), with fallbacks to the offline twins.
- ``confidence`` / ``checks``: how sure the stated figures are, and the trust gate's checks of each figure
  (company, period, metric, scale, sanity: passed, or why not).
- ``trace``: the turn's events (rewrite, routes, fallbacks, conflicts), the retrieval audit traces, the memory
  bank provenance and figures the verifier could not support.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from pydantic import BaseModel, Field

from agent.answer.records import Check, FinalAnswer
from agent.config import Settings
from agent.errors import FinragError
from agent.finance.arithmetic import Computation
from agent.llm.models import LLMCallRecord, StepUsage
from agent.query.cues import metric_label
from agent.query.dialogue import Turn
from agent.retrieval.trace import AuditTrace
from graphs.checkpoint import close_checkpointer, open_checkpointer
from graphs.figures import CiteKey, FigureLink, citation_checks, cite_key, figure_links
from graphs.main import build_main_graph
from graphs.nodes import GraphDeps, resources
from graphs.state import NodeTiming, Route, TraceEvent
from graphs.threads import ThreadIndex, ThreadSummary

MAX_QUESTION_CHARS = 4000  # a question is a few lines; pasted documents belong in `finrag ingest`
SUMMARY_CHARS = 160  # one progress line per node
THREADS_LISTED = 50  # the browser lists this many recent conversations
PLAIN_DOCS = 3  # filings named in a progress line; more are counted
# A turn is saved once, when it ends: a checkpoint per step kept every step's evidence again (0.5 MB a turn).
TURN_DURABILITY = "exit"


# ---------------------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------------------
class CitationRef(BaseModel):
    """Where a figure of the answer comes from."""

    doc: str
    page: int = Field(description="1-based page")
    quote: str = ""
    figure: str = Field(default="", description="the cited figure as the filing writes it, e.g. '(437)'")
    checks: list[Check] = Field(default_factory=list, description="the trust gate's checks of the figure it backs")


class SubQueryRef(BaseModel):
    """One rewritten, self-contained sub-query."""

    id: str
    question: str
    company: str = ""
    metric: str = ""
    period: str = ""


class RouteRef(BaseModel):
    """The branch that served a sub-query, and why."""

    sub_query_id: str
    route: str = Field(description="memory_lookup | market_tools | deep_retrieval | direct")
    reason: str = ""


class TokenUsage(BaseModel):
    """Language-model use of the turn (all zero when no model is configured)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    fallbacks: int = Field(default=0, description="times an offline twin replaced the model's output")
    estimated_calls: int = Field(default=0, description="calls whose tokens are chars/4 estimates")
    by_step: dict[str, StepUsage] = Field(default_factory=dict)


class TurnTrace(BaseModel):
    """Everything needed to see how the answer was produced."""

    carried_over: list[str] = Field(default_factory=list, description="slots taken from earlier turns")
    events: list[TraceEvent] = Field(default_factory=list)
    retrieval: list[AuditTrace] = Field(default_factory=list, description="one audit trace per deep retrieval")
    memory: list[str] = Field(default_factory=list, description="provenance of memory-bank answers")
    unsupported: list[str] = Field(default_factory=list, description="figures the verifier flagged")
    timings: list[NodeTiming] = Field(default_factory=list, description="every node and branch, in order")

    def render_text(self) -> str:
        """The trace for people (``finrag chat`` /trace)."""
        lines = [f"[{e.node}{' ' + e.sub_query_id if e.sub_query_id else ''}] {e.text}" for e in self.events]
        lines += [f"memory bank: {m}" for m in self.memory]
        if self.unsupported:
            lines.append(f"unsupported figures: {', '.join(self.unsupported)}")
        for audit in self.retrieval:
            lines += ["", audit.render_text()]
        lines += ["", "timings: " + ", ".join(f"{t.node}{'/' + t.sub_query_id if t.sub_query_id else ''} "
                                              f"{t.seconds:.3f}s" for t in self.timings)]
        return "\n".join(lines)


class AskResult(BaseModel):
    """One answered turn (see the module docstring for the meaning of each field)."""

    thread_id: str
    turn: int = 0
    question: str
    rewritten: str = ""
    answer: str
    citations: list[CitationRef] = Field(default_factory=list)
    links: list[FigureLink] = Field(
        default_factory=list, description="each [doc, p. N] of the answer with the figure it backs, in order"
    )
    sub_queries: list[SubQueryRef] = Field(default_factory=list)
    routes: list[RouteRef] = Field(default_factory=list)
    timings: dict[str, float] = Field(default_factory=dict)
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    not_found: list[str] = Field(default_factory=list)
    confidence: float = Field(default=0.0, description="the least sure stated figure's confidence; 0 when none")
    checks: list[Check] = Field(default_factory=list, description="the trust gate's checks of every figure")
    source: Literal["offline", "llm"] = "offline"
    trace: TurnTrace = Field(default_factory=TurnTrace)


class ProgressEvent(BaseModel):
    """One step of a streamed turn: a node finished (``result`` is set on the last event only)."""

    node: str
    path: list[str] = Field(default_factory=list, description="enclosing subgraph nodes, e.g. ['deep_retrieval']")
    elapsed_s: float = 0.0
    summary: str = ""
    plain: str = Field(default="", description="what the step did, in words for people ('' for inner steps)")
    answer: str = Field(default="", description="the answer's text, on the step that wrote it (before the result)")
    result: AskResult | None = None


# ---------------------------------------------------------------------------------------------------------
# Assistant
# ---------------------------------------------------------------------------------------------------------
class Assistant:
    """The conversational graph with a checkpointer: threads persist in SQLite (or Postgres) across runs."""

    def __init__(
        self,
        settings: Settings,
        *,
        checkpointer: BaseCheckpointSaver | None = None,
        deps: GraphDeps | None = None,
    ) -> None:
        self.settings = settings
        self._owned = checkpointer is None
        self._saver = checkpointer if checkpointer is not None else open_checkpointer(settings)
        self.deps = deps or GraphDeps()
        self.graph = build_main_graph(checkpointer=self._saver, deps=self.deps)
        self.thread_index = ThreadIndex(settings.home, settings.store_url)

    # --- lifecycle -----------------------------------------------------------------------------------------
    def close(self) -> None:
        """Close the checkpointer this assistant opened (one passed in stays open)."""
        if self._owned:
            close_checkpointer(self._saver)

    def __enter__(self) -> Assistant:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def warm(self) -> None:
        """Load what every question needs (embedding model, indexes) so the first answer is not the slow one."""
        res = resources(self.settings, self.deps)
        docs = [d.doc_id for d in res.documents().values()]
        if docs:
            res.retriever.warm(docs)

    @staticmethod
    def new_thread() -> str:
        """A fresh conversation id."""
        return uuid.uuid4().hex[:12]

    # --- questions -----------------------------------------------------------------------------------------
    def ask(self, question: str, thread_id: str | None = None, docs: Sequence[str] = ()) -> AskResult:
        """Answer one turn of ``thread_id`` (a new thread when None), over ``docs`` only when given."""
        question, thread_id = self._check(question), thread_id or self.new_thread()
        started = time.perf_counter()
        values = self.graph.invoke({"question": question, "docs": list(docs)}, self._config(thread_id),
                                   context=self.settings, durability=TURN_DURABILITY)
        return self._recorded(to_result(values, thread_id, time.perf_counter() - started))

    def stream(self, question: str, thread_id: str | None = None, docs: Sequence[str] = ()) -> Iterator[ProgressEvent]:
        """Answer one turn (over ``docs`` only when given), yielding an event as each node (and each
        deep-retrieval stage) finishes; the last event carries the :class:`AskResult`."""
        question, thread_id = self._check(question), thread_id or self.new_thread()
        config = self._config(thread_id)
        started = time.perf_counter()
        for namespace, update in self.graph.stream({"question": question, "docs": list(docs)}, config,
                                                   context=self.settings, durability=TURN_DURABILITY,
                                                   stream_mode="updates", subgraphs=True):
            path = [part.split(":", 1)[0] for part in namespace]
            for node, value in (update or {}).items():
                final = value.get("answer") if isinstance(value, dict) and not path else None
                yield ProgressEvent(node=node, path=path, elapsed_s=round(time.perf_counter() - started, 4),
                                    summary=summarise(node, value), plain="" if path else plain_words(node, value),
                                    answer=final.text if isinstance(final, FinalAnswer) else "")
        values = self.graph.get_state(config).values
        result = self._recorded(to_result(values, thread_id, time.perf_counter() - started))
        yield ProgressEvent(node="done", elapsed_s=result.timings.get("total", 0.0), summary="answer ready",
                            result=result)

    def turns(self, thread_id: str) -> list[Turn]:
        """The finished turns of a thread (empty for an unknown thread)."""
        return list(self.graph.get_state(self._config(thread_id)).values.get("history") or [])

    def results(self, thread_id: str, last: int | None = None) -> list[AskResult]:
        """The finished turns of a thread as the :class:`AskResult` each gave, oldest first -- the ``last`` ones
        only when given (a long thread is read back a page at a time): a reload of the browser shows them again,
        each figure still linked to its page."""
        out: dict[int, AskResult] = {}
        for snapshot in self.graph.get_state_history(self._config(thread_id)):  # newest first
            values = snapshot.values
            if not snapshot.next and values.get("answer") is not None and values.get("turn") not in out:
                out[int(values.get("turn") or 0)] = to_result(values, thread_id, 0.0)
                if last is not None and len(out) >= last:
                    break
        return [out[turn] for turn in sorted(out)]

    def threads(self, limit: int = THREADS_LISTED, owner: str | None = None) -> list[ThreadSummary]:
        """The conversations with the latest activity first (``owner``'s only, when given)."""
        return self.thread_index.recent(limit, owner)

    def _recorded(self, result: AskResult) -> AskResult:
        self.thread_index.record(result.thread_id, result.question, result.turn)
        return result

    def last_result(self, thread_id: str) -> AskResult | None:
        """The last turn of a thread as an :class:`AskResult` (None when the thread has none)."""
        values = self.graph.get_state(self._config(thread_id)).values
        return to_result(values, thread_id, 0.0) if values.get("answer") is not None else None

    # -------------------------------------------------------------------------------------------------------
    @staticmethod
    def _check(question: str) -> str:
        text = " ".join((question or "").split())
        if not text:
            raise FinragError("the question is empty")
        if len(text) > MAX_QUESTION_CHARS:
            raise FinragError(f"the question is {len(text)} characters long; at most {MAX_QUESTION_CHARS} are "
                              "accepted (ingest documents with `finrag ingest` instead of pasting them)")
        return text

    @staticmethod
    def _config(thread_id: str) -> dict[str, Any]:
        return {"configurable": {"thread_id": thread_id}}


# ---------------------------------------------------------------------------------------------------------
# Shaping results
# ---------------------------------------------------------------------------------------------------------
def to_result(values: dict[str, Any], thread_id: str, wall_s: float) -> AskResult:
    """The final state of a turn as an :class:`AskResult`."""
    final = values.get("answer")
    rewrite = values.get("rewrite")
    routes = values.get("routes") or []
    timings: list[NodeTiming] = values.get("timings") or []
    usage: list[LLMCallRecord] = values.get("usage") or []
    per_node: dict[str, float] = {}
    for t in timings:
        per_node[t.node] = max(per_node.get(t.node, 0.0), t.seconds)
    per_node["total"] = round(wall_s, 4)
    total, by_step = StepUsage(), {}
    for record in usage:
        total.add(record)
        by_step.setdefault(record.step, StepUsage()).add(record)
    return AskResult(
        thread_id=thread_id,
        turn=int(values.get("turn") or 0),
        question=values.get("question", ""),
        rewritten=rewrite.question if rewrite is not None else "",
        answer=final.text if final is not None else "",
        citations=_citation_refs(final) if final is not None else [],
        links=figure_links(final) if final is not None else [],
        sub_queries=[SubQueryRef(id=s.id, question=s.question, company=s.company, metric=s.metric, period=s.period)
                     for s in values.get("sub_queries") or []],
        routes=[RouteRef(sub_query_id=r.sub_query_id, route=r.route.value, reason=r.reason) for r in routes],
        timings=per_node,
        tokens=TokenUsage(calls=total.calls, prompt_tokens=total.prompt_tokens,
                          completion_tokens=total.completion_tokens, total_tokens=total.total_tokens,
                          fallbacks=total.fallbacks, estimated_calls=total.estimated_calls, by_step=by_step),
        not_found=list(final.not_found) if final else [],
        confidence=final.confidence if final else 0.0,
        checks=list(final.checks) if final else [],
        source=final.source if final else "offline",
        trace=TurnTrace(
            carried_over=list(rewrite.carried_over) if rewrite is not None else [],
            events=list(values.get("events") or []),
            retrieval=list(values.get("trace") or []),
            memory=[r.memory.provenance() for r in routes if r.route is Route.MEMORY and r.memory is not None],
            unsupported=list(final.verification.unsupported) if final and final.verification else [],
            timings=timings,
        ),
    )


def _citation_refs(final: FinalAnswer) -> list[CitationRef]:
    """The answer's citations, each with the figure it backs as written on the page and that figure's
    trust-gate checks (what the citation viewer highlights and lists)."""
    figure: dict[CiteKey, str] = {}
    checks = citation_checks(final)

    def operands(comps: Sequence[Computation]) -> None:
        for used in (u for comp in comps for u in comp.all_inputs()):
            if used.citation is not None and not used.computed:
                figure.setdefault(cite_key(used.citation), used.value.text.strip())

    for sa in final.sub_answers:
        if sa.value is not None and sa.citation is not None and sa.status == "found":
            figure.setdefault(cite_key(sa.citation), sa.value.text.strip())
        operands(sa.computations)
    operands(final.computations)
    return [
        CitationRef(doc=c.doc, page=c.page, quote=c.quote, figure=figure.get(cite_key(c), ""),
                    checks=checks.get(cite_key(c), []))
        for c in final.citations
    ]


def plain_words(node: str, update: Any) -> str:
    """A finished step of the main graph as a person would say it ('' for a step worth no line): what is
    looked for, which filings are read, what was found and checked."""
    if not isinstance(update, dict):
        return ""
    if "rewrite" in update:
        wants = []
        for sq in update.get("sub_queries") or []:
            what = " ".join(x for x in (sq.company, metric_label(sq.metric) if sq.metric else "", sq.period) if x)
            wants.append(what or sq.question)
        rewritten = update["rewrite"].question
        said = f"Interpreted as: {rewritten} · " if rewritten != update["rewrite"].original else ""
        return f"{said}Looking for {'; '.join(dict.fromkeys(wants))}"
    if "trace" in update and hasattr(update["trace"], "documents"):
        docs = update["trace"].documents
        shown = ", ".join(docs[:PLAIN_DOCS]) + (f" and {len(docs) - PLAIN_DOCS} more" if len(docs) > PLAIN_DOCS else "")
        return f"Reading {shown}" if docs else ""
    if "answer" in update and isinstance(update["answer"], FinalAnswer):
        parts = []
        for sa in update["answer"].sub_answers:
            if sa.status == "not_found":
                parts.append(f"not found: {sa.missing}" if sa.missing else "not found")
                continue
            row = sa.named or (sa.quote.split("|", 1)[0].strip() if sa.quote else sa.metric)
            checked = ", ".join(c.name for c in sa.checks if c.passed)
            parts.append(f"found '{row[:60]}'" + (f" · checked {checked}" if checked else ""))
        return " · ".join(dict.fromkeys(parts))
    if "evidence" in update:
        answered = [b.route.value for b in update["evidence"] if hasattr(b, "route") and b.answer is not None]
        return "Answered from " + ", ".join(r.replace("_", " ") for r in answered) if answered else ""
    return ""


def summarise(node: str, update: Any) -> str:
    """One line about what a node produced, for progress output."""
    if not isinstance(update, dict):
        return ""
    if "rewrite" in update:
        n = len(update.get("sub_queries") or [])
        text = f"{update['rewrite'].question} ({n} sub-quer{'y' if n == 1 else 'ies'})"
    elif "routes" in update and node != "deep_retrieval":
        text = "; ".join(f"{r.sub_query_id} -> {r.route.value}" for r in update["routes"] if hasattr(r, "route"))
    elif "answer" in update and hasattr(update["answer"], "text"):
        # Not the answer's words: the caller prints the answer itself once the turn ends.
        final = update["answer"]
        n = len(final.citations)
        text = f"{len(final.figures)} figure(s), {n} citation(s)" + (" (not found)" if final.not_found else "")
    elif "stages" in update and update["stages"]:
        stage = update["stages"][-1]
        text = f"{stage.n_in} in -> {stage.n_out} out" + (" (skipped)" if stage.skipped else "")
    elif "trace" in update and hasattr(update["trace"], "question"):
        text = f"{len(update.get('selected') or [])} chunks for: {update['trace'].question}"
    elif "evidence" in update:
        items = [b for b in update["evidence"] if hasattr(b, "route")]
        text = "; ".join(f"{b.route.value}: {'answered' if b.answer else f'{len(b.evidence)} evidence'}" for b in items)
    elif "merged" in update:
        text = f"evidence for {len(update['merged'])} sub-quer{'y' if len(update['merged']) == 1 else 'ies'}"
    elif "intent" in update:
        text = "query intent ready"
    else:
        text = ""
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"
