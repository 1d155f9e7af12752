"""Cost and latency accounting against hand-computed values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.errors import FinragError
from evals.cost import (
    ModelPrice,
    PriceTable,
    StepTokens,
    cost_report,
    distribution,
    percentile,
    question_cost,
)


def test_default_prices_and_lookup() -> None:
    table = PriceTable()
    assert table.currency == "USD"
    assert table.price_of("gpt-4o-mini") == ModelPrice(prompt_per_million=0.15, completion_per_million=0.60)
    # a dated snapshot is priced as its family; the longest matching name wins ("gpt-4o-mini" over "gpt-4o")
    assert table.price_of("gpt-4o-mini-2024-07-18").prompt_per_million == 0.15
    assert table.price_of("gpt-4o-2024-08-06").prompt_per_million == 2.50
    assert table.price_of("smollm2-135m").cost(10_000, 10_000) == 0.0  # a local server costs nothing
    # 2,000 prompt + 500 completion tokens of gpt-4o-mini: 2000*0.15/1e6 + 500*0.60/1e6
    assert table.price_of("gpt-4o-mini").cost(2_000, 500) == pytest.approx(0.0006)


def test_price_table_from_json_extends_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"currency": "EUR", "models": {"local-llama": {"prompt_per_million": 1.0,
                                                                            "completion_per_million": 2.0}}}))
    table = PriceTable.from_json(path)
    assert table.currency == "EUR"
    assert table.price_of("local-llama").cost(1_000_000, 500_000) == pytest.approx(2.0)
    assert "gpt-4o-mini" in table.models  # defaults kept
    path.write_text("{not json")
    with pytest.raises(FinragError, match="not valid JSON"):
        PriceTable.from_json(path)
    path.write_text(json.dumps({"models": {"x": {"prompt_per_million": -1, "completion_per_million": 0}}}))
    with pytest.raises(FinragError, match="not a valid price table"):
        PriceTable.from_json(path)
    with pytest.raises(FinragError, match="cannot read"):
        PriceTable.from_json(tmp_path / "missing.json")


def test_percentiles_interpolate_linearly() -> None:
    values = [float(v) for v in range(1, 21)]  # 1..20
    # p50: halfway between the 10th and 11th values; p95: rank 0.95*19 = 18.05 -> 19 + 0.05*(20-19)
    assert percentile(values, 50) == pytest.approx(10.5)
    assert percentile(values, 95) == pytest.approx(19.05)
    d = distribution([3.0, 1.0, 2.0])
    assert (d.n, d.p50, d.p95, d.mean, d.max) == (3, 2.0, pytest.approx(2.9), 2.0, 3.0)
    assert distribution([]).n == 0 and percentile([], 50) == 0.0


def test_question_cost_maps_model_steps_to_nodes() -> None:
    timings = {"preprocess": 0.2, "route": 0.01, "deep_retrieval": 0.5, "answer": 0.3, "total": 1.1}
    steps = {"rewrite": StepTokens(calls=1, prompt_tokens=100, completion_tokens=20),
             "decompose": StepTokens(calls=1, prompt_tokens=50, completion_tokens=10),
             "screening": StepTokens(calls=2, prompt_tokens=1_000, completion_tokens=100),
             "answer": StepTokens(calls=1, prompt_tokens=800, completion_tokens=200),
             "brand_new_step": StepTokens(calls=1, prompt_tokens=5, completion_tokens=5)}
    c = question_cost("q1", timings, steps, stage_seconds={"candidates": 0.3, "screening": 0.15},
                      model="gpt-4o-mini")
    assert c.wall_s == 1.1 and c.calls == 6
    assert (c.prompt_tokens, c.completion_tokens) == (1_955, 335)
    assert c.cost == pytest.approx((1_955 * 0.15 + 335 * 0.60) / 1e6)
    assert (c.nodes["preprocess"].calls, c.nodes["preprocess"].prompt_tokens) == (2, 150)
    assert c.nodes["deep_retrieval"].calls == 2 and c.nodes["deep_retrieval"].wall_s == 0.5
    assert c.nodes["deep_retrieval.candidates"].wall_s == 0.3
    assert c.nodes["brand_new_step"].calls == 1  # an unknown step is reported, not dropped
    offline = question_cost("q2", timings, {}, model="")
    assert offline.cost == 0.0 and offline.calls == 0 and "total" not in offline.nodes


def test_cost_report_aggregates_per_question_and_per_node() -> None:
    a = question_cost("a", {"preprocess": 0.1, "deep_retrieval": 0.6, "answer": 0.3, "total": 1.0},
                      {"answer": StepTokens(calls=1, prompt_tokens=1_000, completion_tokens=100)},
                      stage_seconds={"candidates": 0.4}, model="gpt-4o")
    b = question_cost("b", {"preprocess": 0.1, "direct": 0.2, "answer": 0.1, "total": 0.4}, {}, model="gpt-4o")
    report = cost_report([a, b], model="gpt-4o")
    assert report.questions == 2 and report.calls == 1
    assert report.cost == pytest.approx((1_000 * 2.5 + 100 * 10.0) / 1e6)
    assert report.wall.p50 == pytest.approx(0.7) and report.wall.max == 1.0
    assert report.tokens.mean == pytest.approx(550)
    nodes = {n.node: n for n in report.nodes}
    assert nodes["preprocess"].questions == 2 and nodes["direct"].questions == 1
    assert nodes["answer"].share_of_time == pytest.approx(0.4 / 1.4)
    assert nodes["answer"].wall.p50 == pytest.approx(0.2)
    order = [n.node for n in report.nodes]
    assert order.index("deep_retrieval.candidates") == order.index("deep_retrieval") + 1  # stage under its node
    md = report.to_markdown()
    assert "| wall time (s) | 0.700 |" in md and "| deep_retrieval.candidates | 1 |" in md
    assert cost_report([]).questions == 0 and cost_report([]).model == "offline"
