"""LangSmith: our datasets as LangSmith examples, and the graph evaluated through ``langsmith.evaluate``.

* :func:`export_examples` turns any dataset the runner loads (FinanceBench, ConvFinQA, TAT-QA, a user
  questions file) into LangSmith examples: ``inputs`` (``id``, ``question``, ``conversation``, ``turn``,
  ``docs``), ``outputs`` (``answer``: the gold), ``metadata`` (dataset, question type, gold pages, the
  record's own fields) and ``split``. :func:`write_examples` writes them as JSON lines; :func:`upload_examples`
  creates (or extends) a LangSmith dataset when ``LANGSMITH_API_KEY`` is set.
* :func:`run_experiment` runs the graph as the target of ``langsmith.evaluate`` with :func:`answer_scores` as
  evaluator (the LangSmith ``(inputs, outputs, reference_outputs)`` signature over
  :func:`evals.runner.score_prediction`: one scoring code path). Without a key it runs offline:
  ``upload_results=False``, tracing kept local, a client pointed at no server, examples built in memory; it
  makes no network connection. With a key the examples are uploaded and the experiment is recorded there.
  Either way the run directory is the same as ``finrag eval answers`` writes.
"""

from __future__ import annotations

import time
import uuid
import warnings
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from agent.config import Settings
from agent.errors import FinragError
from evals.cost import PriceTable
from evals.runner import (
    AnswerScores,
    EvalItem,
    EvalSet,
    GraphRunner,
    Prediction,
    QuestionResult,
    RunRecord,
    Scope,
    assemble,
    judge_model_of,
    model_name,
    run_info,
    score_prediction,
)

DATASET_PREFIX = "finrag"  # LangSmith dataset names: finrag-<dataset>
# Stable example ids: the same question gets the same id in every export, so re-uploads do not duplicate.
EXAMPLE_NAMESPACE = uuid.UUID("5d1c3f0e-6a53-4c1e-9a43-6f1f2f6b8a10")
OFFLINE_API_URL = "http://127.0.0.1:9"  # the discard port: a client that never has a server to talk to
OFFLINE_API_KEY = "offline"  # placeholder so the client does not look for credentials
UPLOAD_BATCH = 200  # examples per create_examples request: well under the API's request-size limits
KEY_CORRECT, KEY_F1, KEY_REFUSAL, KEY_KIND, KEY_SCORED = "correct", "token_f1", "refusal", "match_kind", "scored"
KEY_JUDGE, KEY_JUDGE_AGREEMENT = "judge_correct", "judge_agreement"


# ---------------------------------------------------------------------------------------------------------
# Examples
# ---------------------------------------------------------------------------------------------------------
class LangSmithExample(BaseModel):
    """One example in LangSmith's dataset format."""

    inputs: dict[str, Any]
    outputs: dict[str, Any]
    metadata: dict[str, Any] = Field(default_factory=dict)
    split: str = "dev"

    @property
    def example_id(self) -> uuid.UUID:
        """A stable id derived from the dataset and the question id."""
        return uuid.uuid5(EXAMPLE_NAMESPACE, f"{self.metadata.get('dataset', '')}/{self.inputs['id']}")


def item_to_example(item: EvalItem) -> LangSmithExample:
    """An evaluation item as a LangSmith example (the gold answer is the reference output)."""
    return LangSmithExample(
        inputs={"id": item.id, "question": item.question, "conversation": item.conversation, "turn": item.turn,
                "docs": list(item.docs)},
        outputs={"answer": item.gold},
        metadata={"dataset": item.dataset, "question_type": item.question_type,
                  "gold_pages": [g.model_dump() for g in item.gold_pages], **item.metadata},
        split=item.split,
    )


def export_examples(eval_set: EvalSet) -> list[LangSmithExample]:
    """Every item of a dataset as a LangSmith example, in order (conversations turn by turn)."""
    return [item_to_example(item) for item in eval_set.items]


def write_examples(examples: Sequence[LangSmithExample], path: Path) -> Path:
    """Write examples as JSON lines (``inputs``, ``outputs``, ``metadata``, ``split`` per line)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(e.model_dump_json() + "\n" for e in examples), encoding="utf-8")
    return path


def dataset_name(dataset: str) -> str:
    """The LangSmith dataset name of one of our datasets."""
    return f"{DATASET_PREFIX}-{dataset}"


class UploadReport(BaseModel):
    """What an upload did."""

    dataset: str
    dataset_id: str
    created: bool = Field(description="the dataset was created now (else it existed)")
    uploaded: int
    already_there: int


def upload_examples(client: Any, name: str, examples: Sequence[LangSmithExample], description: str = ""
                    ) -> UploadReport:
    """Create the LangSmith dataset ``name`` if needed and add the examples it does not have yet."""
    created = not client.has_dataset(dataset_name=name)
    dataset = (client.create_dataset(name, description=description) if created
               else client.read_dataset(dataset_name=name))
    existing = set() if created else {str(e.id) for e in client.list_examples(dataset_id=dataset.id)}
    todo = [e for e in examples if str(e.example_id) not in existing]
    for start in range(0, len(todo), UPLOAD_BATCH):
        batch = todo[start : start + UPLOAD_BATCH]
        client.create_examples(dataset_id=dataset.id, examples=[
            {"id": e.example_id, "inputs": e.inputs, "reference_outputs": e.outputs, "metadata": e.metadata,
             "split": e.split} for e in batch])
    return UploadReport(dataset=name, dataset_id=str(dataset.id), created=created, uploaded=len(todo),
                        already_there=len(examples) - len(todo))


def langsmith_client(settings: Settings) -> Any:
    """A LangSmith client for uploads: the configured key, else one that never reaches a server (offline)."""
    from langsmith import Client

    if settings.langsmith_api_key:
        return Client(api_key=settings.langsmith_api_key)
    return Client(api_key=OFFLINE_API_KEY, api_url=OFFLINE_API_URL, auto_batch_tracing=False)


# ---------------------------------------------------------------------------------------------------------
# Evaluators (LangSmith signature)
# ---------------------------------------------------------------------------------------------------------
def feedback_of(scores: AnswerScores) -> dict[str, Any]:
    """Scores as LangSmith evaluation results (one key per metric)."""
    results: list[dict[str, Any]] = [
        {"key": KEY_SCORED, "score": int(scores.scored)},
        {"key": KEY_REFUSAL, "score": int(scores.refusal)},
    ]
    if scores.scored:
        results += [
            {"key": KEY_CORRECT, "score": int(scores.correct), "comment": scores.match_reason},
            {"key": KEY_KIND, "value": scores.match_kind},
            {"key": KEY_F1, "score": scores.token_f1},
        ]
    if scores.judge_correct is not None:
        results.append({"key": KEY_JUDGE, "score": int(scores.judge_correct)})
        results.append({"key": KEY_JUDGE_AGREEMENT, "score": scores.judge_agreement})
    return {"results": results}


def scores_of(results: Sequence[Any]) -> AnswerScores:
    """The inverse of :func:`feedback_of`, from LangSmith ``EvaluationResult`` s (or their dicts)."""
    by_key = {(r["key"] if isinstance(r, dict) else r.key): r for r in results}

    def field(key: str, name: str) -> Any:
        r = by_key.get(key)
        if r is None:
            return None
        return r.get(name) if isinstance(r, dict) else getattr(r, name)

    if field(KEY_SCORED, "score") is None:
        return AnswerScores(scored=False, match_reason="the evaluator did not run")
    judge = field(KEY_JUDGE, "score")
    return AnswerScores(
        scored=bool(field(KEY_SCORED, "score")), correct=bool(field(KEY_CORRECT, "score")),
        match_kind=str(field(KEY_KIND, "value") or ""), match_reason=str(field(KEY_CORRECT, "comment") or ""),
        token_f1=float(field(KEY_F1, "score") or 0.0), refusal=bool(field(KEY_REFUSAL, "score")),
        judge_correct=None if judge is None else bool(judge), judge_agreement=field(KEY_JUDGE_AGREEMENT, "score"),
    )


def make_evaluator(judge_model: BaseChatModel | None = None, judge_runs: int = 0
                   ) -> Callable[[dict[str, Any], dict[str, Any], dict[str, Any]], dict[str, Any]]:
    """Our scorers as one LangSmith evaluator: ``(inputs, outputs, reference_outputs) -> {"results": [...]}``."""

    def answer_scores(inputs: dict[str, Any], outputs: dict[str, Any], reference_outputs: dict[str, Any]
                      ) -> dict[str, Any]:
        scores = score_prediction(str(inputs.get("question", "")), str((outputs or {}).get("answer", "")),
                                  str((reference_outputs or {}).get("answer", "")), judge_model=judge_model,
                                  judge_runs=judge_runs)
        return feedback_of(scores)

    return answer_scores


# ---------------------------------------------------------------------------------------------------------
# Experiments
# ---------------------------------------------------------------------------------------------------------
def _local_examples(examples: Sequence[LangSmithExample], dataset: str) -> list[Any]:
    from langsmith.schemas import Example

    dataset_id = uuid.uuid5(EXAMPLE_NAMESPACE, dataset)
    return [Example(id=e.example_id, dataset_id=dataset_id, inputs=e.inputs, outputs=e.outputs, metadata=e.metadata)
            for e in examples]


def run_experiment(
    settings: Settings,
    eval_set: EvalSet,
    *,
    scope: Scope | None = None,
    name: str = "",
    limit: int | None = None,
    ingest: bool = True,
    judge_runs: int = 0,
    prices: PriceTable | None = None,
    experiment_prefix: str = "",
    upload: bool | None = None,
    log: Callable[[str], None] | None = None,
) -> RunRecord:
    """Run the graph over ``eval_set`` through ``langsmith.evaluate``; upload when a key is set (``upload``
    None) or when ``upload`` is True. Items run in order, one at a time: a conversation's turns share a thread."""
    from langsmith import evaluate
    from langsmith.run_helpers import tracing_context

    if not eval_set.items:
        raise FinragError(f"{eval_set.dataset}: no questions to run")
    upload = bool(settings.langsmith_api_key) if upload is None else upload
    if upload and not settings.langsmith_api_key:
        raise FinragError("uploading an experiment needs LANGSMITH_API_KEY")
    judge = judge_model_of(settings, judge_runs)
    model = model_name(settings)
    examples = export_examples(eval_set)
    client = langsmith_client(settings) if upload else langsmith_client(settings.replace(langsmith_api_key=""))
    predictions: dict[str, Prediction] = {}
    results: list[QuestionResult] = []
    with GraphRunner(settings, eval_set, scope=scope, log=log) as runner:
        runner.prepare(ingest=ingest)

        def finrag(inputs: dict[str, Any]) -> dict[str, Any]:
            item = runner.items.get(str(inputs.get("id", "")))
            if item is None:
                raise FinragError(f"example {inputs.get('id')!r} is not in this evaluation set")
            # Offline, the graph's own LangChain callbacks would still try to post their runs to the client's
            # server ("local" mode covers langsmith's traceable, not langchain_core's tracer): switch them off.
            with nullcontext() if upload else tracing_context(enabled=False):
                prediction = runner.predict(item)
            predictions[item.id] = prediction
            return {"answer": prediction.answer, "error": prediction.error, "latency_s": prediction.latency_s,
                    "citations": [c.model_dump() for c in prediction.citations], "routes": prediction.routes}

        if upload:
            name_ = dataset_name(eval_set.dataset)
            upload_examples(client, name_, examples, description=f"finrag evaluation set: {eval_set.dataset}")
            order = {e.example_id: i for i, e in enumerate(examples)}
            # The server returns examples in its own order; conversations must run turn by turn.
            data: list[Any] = sorted((x for x in client.list_examples(dataset_name=name_) if x.id in order),
                                     key=lambda x: order[x.id])
        else:
            data = _local_examples(examples, eval_set.dataset)
        started = time.perf_counter()
        with warnings.catch_warnings(), tracing_context(enabled=True if upload else "local"):
            warnings.filterwarnings("ignore", message=".*upload_results.*")  # "in beta": we rely on it offline
            experiment = evaluate(
                finrag, data=data, evaluators=[make_evaluator(judge, judge_runs)], upload_results=upload,
                client=client, max_concurrency=0, experiment_prefix=experiment_prefix or f"finrag-{eval_set.dataset}",
                metadata={"dataset": eval_set.dataset, "scope": runner.scope, "model": model},
            )
            rows = list(experiment)
        wall_s = time.perf_counter() - started
        started_rows = {str(row["example"].inputs.get("id")): row for row in rows}
        for item in eval_set.items:
            row = started_rows.get(item.id)
            prediction = predictions.get(item.id) or Prediction(id=item.id, error="the target did not run")
            scores = scores_of(row["evaluation_results"]["results"]) if row else AnswerScores(scored=bool(item.gold))
            results.append(assemble(item, prediction, scores, model=model, prices=prices))
        info = run_info(settings, eval_set, runner, name=name, limit=limit, kind="langsmith")
        # The project the runs were logged under (offline, langsmith 0.15 renames the experiment after start,
        # so the runs are the reliable source of the name).
        session = getattr(rows[0]["run"], "session_name", None) if rows and rows[0]["run"] is not None else None
        info.experiment = str(session or experiment.experiment_name)
        info.uploaded = upload
        info.wall_s = round(wall_s, 3)
        info.warm_s = round(runner.warm_s, 3)
    return RunRecord(info=info, results=results)
