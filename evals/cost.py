"""Cost and latency accounting of evaluated questions: per question and per graph node.

For every answered question the runner records the graph's wall time per node (parallel branches: the
slowest), the deep-retrieval stages inside it, and the language-model calls and tokens per model step. This
module turns those into :class:`QuestionCost` records (model calls, prompt/completion tokens, wall time, an
estimated cost) and aggregates them into a :class:`CostReport`: totals, p50/p95 per question and per node.

Prices come from a :class:`PriceTable` (JSON-loadable, USD per million tokens). The defaults below are the
published list prices of OpenAI's hosted models at the time of writing; a model not in the table is priced
at ``default`` (zero: a local OpenAI-compatible server such as llama.cpp, vLLM or Ollama costs no tokens).
Offline runs make no model calls, so their estimated cost is zero whatever the table says.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field, ValidationError

from agent.errors import FinragError

TOKENS_PER_PRICE_UNIT = 1_000_000  # prices are quoted per million tokens, as providers publish them
TOTAL_NODE = "total"  # the wall clock of the whole turn in the graph's timings
STAGE_PREFIX = "deep_retrieval."  # deep-retrieval stages are reported as sub-nodes of the subgraph node

# Model steps (``LLMCallRecord.step``) -> the graph node that makes the call. A step not listed is reported
# under its own name, so a new step is never lost, only not yet grouped.
STEP_NODES: dict[str, str] = {
    "rewrite": "preprocess",
    "decompose": "preprocess",
    "intent": "deep_retrieval",
    "hyde": "deep_retrieval",
    "screening": "deep_retrieval",
    "listwise": "deep_retrieval",
    "market_tools": "market_tools",
    "direct": "direct",
    "answer": "answer",
}


# ---------------------------------------------------------------------------------------------------------
# Prices
# ---------------------------------------------------------------------------------------------------------
class ModelPrice(BaseModel):
    """What one model's tokens cost, per million."""

    prompt_per_million: float = Field(ge=0.0)
    completion_per_million: float = Field(ge=0.0)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """Cost of a number of prompt and completion tokens."""
        return (prompt_tokens * self.prompt_per_million
                + completion_tokens * self.completion_per_million) / TOKENS_PER_PRICE_UNIT


def _default_models() -> dict[str, ModelPrice]:
    # OpenAI list prices (USD per 1M tokens, standard tier) when this table was written; override with
    # --prices FILE when they change or for another provider.
    return {
        "gpt-4o-mini": ModelPrice(prompt_per_million=0.15, completion_per_million=0.60),
        "gpt-4o": ModelPrice(prompt_per_million=2.50, completion_per_million=10.00),
        "gpt-4.1-mini": ModelPrice(prompt_per_million=0.40, completion_per_million=1.60),
        "gpt-4.1": ModelPrice(prompt_per_million=2.00, completion_per_million=8.00),
    }


class PriceTable(BaseModel):
    """Token prices by model name; unknown models cost ``default`` (zero: a local server)."""

    currency: str = "USD"
    models: dict[str, ModelPrice] = Field(default_factory=_default_models)
    default: ModelPrice = Field(default_factory=lambda: ModelPrice(prompt_per_million=0.0, completion_per_million=0.0))

    def price_of(self, model: str) -> ModelPrice:
        """The price of ``model``: exact name, else the longest listed name it starts with
        ("gpt-4o-mini-2024-07-18" is priced as "gpt-4o-mini"), else the default."""
        if model in self.models:
            return self.models[model]
        prefixes = [name for name in self.models if model.startswith(name)]
        return self.models[max(prefixes, key=len)] if prefixes else self.default

    @classmethod
    def from_json(cls, path: Path) -> PriceTable:
        """A table from a JSON file (``{"currency": ..., "models": {name: {prompt_per_million, ...}}}``);
        models it lists replace or add to the defaults."""
        try:
            raw = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise FinragError(f"cannot read the price table {path}: {exc.strerror or exc}") from exc
        except json.JSONDecodeError as exc:
            raise FinragError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from exc
        if not isinstance(raw, dict):
            raise FinragError(f"{path}: a price table is a JSON object with a 'models' mapping")
        try:
            table = cls.model_validate(raw)
        except ValidationError as exc:
            raise FinragError(f"{path}: not a valid price table: {str(exc)[:300]}") from exc
        if "models" in raw:  # a file listing a few models extends the defaults rather than dropping them
            table.models = {**_default_models(), **table.models}
        return table


# ---------------------------------------------------------------------------------------------------------
# Per question
# ---------------------------------------------------------------------------------------------------------
class StepTokens(BaseModel):
    """Model use of one step of one question (the shape of ``agent.llm.models.StepUsage``, kept independent)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0


class NodeCost(BaseModel):
    """One graph node's share of a question (or, aggregated, of a run)."""

    node: str
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wall_s: float = 0.0


class QuestionCost(BaseModel):
    """What answering one question took."""

    id: str
    wall_s: float
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    nodes: dict[str, NodeCost] = Field(default_factory=dict)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def question_cost(
    qid: str,
    timings: Mapping[str, float],
    steps: Mapping[str, StepTokens],
    *,
    stage_seconds: Mapping[str, float] | None = None,
    model: str = "",
    prices: PriceTable | None = None,
) -> QuestionCost:
    """A question's cost from the graph's node timings (``AskResult.timings``: seconds per node plus
    ``total``), its model use per step and, optionally, seconds per deep-retrieval stage."""
    prices = prices or PriceTable()
    nodes: dict[str, NodeCost] = {}
    for node, seconds in timings.items():
        if node != TOTAL_NODE:
            nodes[node] = NodeCost(node=node, wall_s=float(seconds))
    for stage, seconds in (stage_seconds or {}).items():
        name = STAGE_PREFIX + stage
        nodes[name] = NodeCost(node=name, wall_s=float(seconds))
    for step, usage in steps.items():
        node = STEP_NODES.get(step, step)
        entry = nodes.setdefault(node, NodeCost(node=node))
        entry.calls += usage.calls
        entry.prompt_tokens += usage.prompt_tokens
        entry.completion_tokens += usage.completion_tokens
    prompt = sum(s.prompt_tokens for s in steps.values())
    completion = sum(s.completion_tokens for s in steps.values())
    wall = float(timings.get(TOTAL_NODE, sum(n.wall_s for n in nodes.values() if "." not in n.node)))
    return QuestionCost(
        id=qid, wall_s=wall, calls=sum(s.calls for s in steps.values()), prompt_tokens=prompt,
        completion_tokens=completion, cost=prices.price_of(model).cost(prompt, completion) if model else 0.0,
        nodes=nodes,
    )


# ---------------------------------------------------------------------------------------------------------
# Aggregates
# ---------------------------------------------------------------------------------------------------------
class Distribution(BaseModel):
    """Summary of a sample: count, median, 95th percentile (linear interpolation), mean, max."""

    n: int = 0
    p50: float = 0.0
    p95: float = 0.0
    mean: float = 0.0
    max: float = 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100) by linear interpolation between order statistics; 0.0 when empty."""
    if not values:
        return 0.0
    return float(np.percentile(np.asarray(values, dtype=float), q))


def distribution(values: Iterable[float]) -> Distribution:
    """p50, p95, mean and max of ``values``."""
    xs = [float(v) for v in values]
    if not xs:
        return Distribution()
    return Distribution(n=len(xs), p50=percentile(xs, 50), p95=percentile(xs, 95), mean=float(np.mean(xs)),
                        max=max(xs))


class NodeSummary(BaseModel):
    """One node over a run: totals and the per-question wall-time distribution (questions that ran it)."""

    node: str
    questions: int = Field(description="questions in which the node ran")
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wall: Distribution = Field(default_factory=Distribution)
    share_of_time: float = Field(default=0.0, description="node seconds / all questions' wall seconds")


class CostReport(BaseModel):
    """Cost and latency of a run."""

    questions: int
    model: str = Field(description="priced model name; 'offline' when no model was configured")
    currency: str = "USD"
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    wall: Distribution = Field(default_factory=Distribution, description="seconds per question")
    tokens: Distribution = Field(default_factory=Distribution, description="tokens per question")
    cost_per_question: Distribution = Field(default_factory=Distribution)
    nodes: list[NodeSummary] = Field(default_factory=list)

    def to_markdown(self) -> str:
        """Tables: totals and per-question distributions, then one row per node."""
        w, t, c = self.wall, self.tokens, self.cost_per_question
        lines = [
            f"Model: {self.model} · {self.questions} questions · {self.calls} model calls · "
            f"{self.prompt_tokens:,} prompt + {self.completion_tokens:,} completion tokens · "
            f"estimated cost {self.cost:.4f} {self.currency}",
            "",
            "| per question | p50 | p95 | mean | max |",
            "|---|---:|---:|---:|---:|",
            f"| wall time (s) | {w.p50:.3f} | {w.p95:.3f} | {w.mean:.3f} | {w.max:.3f} |",
            f"| tokens | {t.p50:.0f} | {t.p95:.0f} | {t.mean:.0f} | {t.max:.0f} |",
            f"| cost ({self.currency}) | {c.p50:.5f} | {c.p95:.5f} | {c.mean:.5f} | {c.max:.5f} |",
            "",
            "| node | questions | model calls | prompt tokens | completion tokens | p50 s | p95 s | share of time |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for n in self.nodes:
            lines.append(f"| {n.node} | {n.questions} | {n.calls} | {n.prompt_tokens:,} | {n.completion_tokens:,} | "
                         f"{n.wall.p50:.3f} | {n.wall.p95:.3f} | {n.share_of_time:.1%} |")
        return "\n".join(lines) + "\n"


def cost_report(costs: Sequence[QuestionCost], *, model: str = "", prices: PriceTable | None = None) -> CostReport:
    """Totals, per-question distributions and per-node summaries of a run's question costs."""
    prices = prices or PriceTable()
    total_wall = sum(c.wall_s for c in costs)
    by_node: dict[str, list[NodeCost]] = {}
    for c in costs:
        for name, node in c.nodes.items():
            by_node.setdefault(name, []).append(node)
    nodes = [
        NodeSummary(
            node=name, questions=len(items), calls=sum(n.calls for n in items),
            prompt_tokens=sum(n.prompt_tokens for n in items), completion_tokens=sum(n.completion_tokens for n in items),
            wall=distribution(n.wall_s for n in items),
            share_of_time=sum(n.wall_s for n in items) / total_wall if total_wall > 0 else 0.0,
        )
        for name, items in by_node.items()
    ]
    # Graph order (first seen), each deep-retrieval stage right after the subgraph node it belongs to.
    first_seen = {name: i for i, name in enumerate(by_node)}
    nodes.sort(key=lambda n: (first_seen.get(n.node.split(".")[0], first_seen[n.node]), "." in n.node,
                              first_seen[n.node]))
    return CostReport(
        questions=len(costs), model=model or "offline", currency=prices.currency,
        calls=sum(c.calls for c in costs), prompt_tokens=sum(c.prompt_tokens for c in costs),
        completion_tokens=sum(c.completion_tokens for c in costs), cost=sum(c.cost for c in costs),
        wall=distribution(c.wall_s for c in costs), tokens=distribution(c.total_tokens for c in costs),
        cost_per_question=distribution(c.cost for c in costs), nodes=nodes,
    )
