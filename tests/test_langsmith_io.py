"""LangSmith datasets and experiments, offline: example format, uploads to a fake client, and the graph run
through ``langsmith.evaluate`` with every socket connection forbidden."""

from __future__ import annotations

import json
import socket
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from test_runner import write_findata

from agent.config import Settings
from agent.errors import FinragError
from evals.langsmith_io import (
    LangSmithExample,
    export_examples,
    feedback_of,
    make_evaluator,
    run_experiment,
    scores_of,
    upload_examples,
    write_examples,
)
from evals.metrics.answers import numeric_match
from evals.runner import AnswerScores, load_eval_set


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, Path]:
    root = tmp_path_factory.mktemp("evals_langsmith")
    return Settings.from_env(home=root / "home"), write_findata(root / "findata")


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every attempt to open a network connection (or resolve a name) fails the code under test loudly."""
    attempts: list[str] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(repr(args[1:] if args and isinstance(args[0], socket.socket) else args))
        raise AssertionError(f"network access attempted: {attempts[-1]}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return attempts


def test_examples_have_inputs_outputs_metadata_and_split(mini: tuple[Settings, Path], tmp_path: Path) -> None:
    settings, data = mini
    examples = export_examples(load_eval_set(settings, data, "convfinqa", write_sources=False))
    assert [e.inputs["id"] for e in examples] == ["conv-1#t0", "conv-1#t1", "conv-1#t2"]
    first = examples[0]
    assert first.inputs == {"id": "conv-1#t0", "question": "what was the net income in 2024?",
                            "conversation": "conv-1", "turn": 0, "docs": ["NWIN_2024_page_5"]}
    assert first.outputs == {"answer": "570"}
    assert first.metadata["dataset"] == "convfinqa" and first.metadata["question_type"] == "lookup"
    assert first.metadata["gold_pages"] == [{"doc": "NWIN_2024_page_5", "page": 1}]
    assert first.split == "dev"
    assert first.example_id == export_examples(load_eval_set(settings, data, "convfinqa"))[0].example_id
    assert len({e.example_id for e in examples}) == 3
    path = write_examples(examples, tmp_path / "out" / "convfinqa.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [sorted(r) for r in rows] == [["inputs", "metadata", "outputs", "split"]] * 3
    assert LangSmithExample.model_validate(rows[2]) == examples[2]


class FakeClient:
    """Records dataset calls like langsmith.Client would receive them."""

    def __init__(self) -> None:
        self.datasets: dict[str, SimpleNamespace] = {}
        self.examples: dict[str, list[dict[str, Any]]] = {}

    def has_dataset(self, *, dataset_name: str) -> bool:
        return dataset_name in self.datasets

    def create_dataset(self, name: str, *, description: str = "") -> SimpleNamespace:
        self.datasets[name] = SimpleNamespace(id=uuid.uuid4(), name=name, description=description)
        self.examples[str(self.datasets[name].id)] = []
        return self.datasets[name]

    def read_dataset(self, *, dataset_name: str) -> SimpleNamespace:
        return self.datasets[dataset_name]

    def list_examples(self, *, dataset_id: Any) -> list[SimpleNamespace]:
        return [SimpleNamespace(id=e["id"]) for e in self.examples[str(dataset_id)]]

    def create_examples(self, *, dataset_id: Any, examples: list[dict[str, Any]]) -> None:
        self.examples[str(dataset_id)].extend(examples)


def test_upload_creates_the_dataset_once_and_never_duplicates(mini: tuple[Settings, Path]) -> None:
    settings, data = mini
    examples = export_examples(load_eval_set(settings, data, "tatqa", write_sources=False))
    client = FakeClient()
    first = upload_examples(client, "finrag-tatqa", examples, description="d")
    assert first.created and first.uploaded == 2 and first.already_there == 0
    stored = client.examples[first.dataset_id]
    assert stored[0]["inputs"]["id"] == "tq-1" and stored[0]["reference_outputs"] == {"answer": "$4,305 million"}
    assert stored[0]["split"] == "dev" and stored[0]["id"] == examples[0].example_id
    again = upload_examples(client, "finrag-tatqa", examples)
    assert not again.created and again.uploaded == 0 and again.already_there == 2
    assert len(client.examples[first.dataset_id]) == 2


def test_feedback_round_trips_and_evaluator_signature() -> None:
    scores = AnswerScores(correct=True, match_kind="numeric", match_reason="gold '437' = prediction '437'",
                          token_f1=0.25, refusal=False, judge_correct=False, judge_agreement=2 / 3)
    assert scores_of(feedback_of(scores)["results"]) == scores
    unscored = AnswerScores(scored=False, refusal=True)
    assert scores_of(feedback_of(unscored)["results"]) == unscored.model_copy(update={"match_reason": ""})
    evaluator = make_evaluator()
    out = evaluator({"question": "Capex in USD millions?"}, {"answer": "Capex was $1.577 billion."},
                    {"answer": "$1,577.00"})
    got = scores_of(out["results"])
    assert got.correct and got.match_kind == "numeric"
    assert got.match_reason == numeric_match("Capex was $1.577 billion.", "$1,577.00", "Capex in USD millions?").reason


def test_offline_experiment_makes_no_network_calls(mini: tuple[Settings, Path], no_network: list[str]) -> None:
    settings, data = mini
    record = run_experiment(settings, load_eval_set(settings, data, "convfinqa"))
    assert no_network == []
    info = record.info
    assert info.runner == "langsmith" and info.experiment and not info.uploaded
    assert [r.id for r in record.results] == ["conv-1#t0", "conv-1#t1", "conv-1#t2"]
    assert len({r.thread_id for r in record.results}) == 1  # turns ran in order on one thread
    for r in record.results:
        assert r.prediction and r.latency_s > 0
        assert r.scores.correct == numeric_match(r.prediction, r.gold, r.question).matched
    assert record.results[1].scores.correct


def test_upload_without_a_key_is_refused(mini: tuple[Settings, Path]) -> None:
    settings, data = mini
    with pytest.raises(FinragError, match="LANGSMITH_API_KEY"):
        run_experiment(settings, load_eval_set(settings, data, "tatqa"), upload=True)
