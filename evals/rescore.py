"""Score a finished run again with the current scorer: after a change to :mod:`evals.metrics.answers`, what moved
between right, wrong and refused, without asking a single question again."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import BaseModel, Field

from agent.errors import FinragError
from evals.runner import RESULTS_FILE, QuestionResult, score_prediction


class Rescore(BaseModel):
    """One run scored as it was stored and as the current scorer scores it (right / wrong / refused counts)."""

    run: str
    n: int
    before: dict[str, int]
    after: dict[str, int]
    moved: dict[str, int] = Field(default_factory=dict, description="'right -> refused': how many answers moved")


def rescore(run_dir: Path) -> Rescore:
    """Re-score every stored answer of ``run_dir`` (a directory holding results.jsonl)."""
    path = run_dir / RESULTS_FILE
    if not path.is_file():
        raise FinragError(f"{run_dir} holds no {RESULTS_FILE}: give a directory written by `finrag eval answers`")
    before: Counter[str] = Counter()
    after: Counter[str] = Counter()
    moved: Counter[str] = Counter()
    n = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        result = QuestionResult.model_validate_json(line)
        old = result.outcome
        result.scores = score_prediction(result.question, result.prediction, result.gold)
        new = result.outcome
        n += 1
        before[old] += 1
        after[new] += 1
        if old != new:
            moved[f"{old} -> {new}"] += 1
    keys = ("right", "wrong", "refused", "unscored")
    return Rescore(run=str(run_dir), n=n, before={k: before[k] for k in keys}, after={k: after[k] for k in keys},
                   moved=dict(sorted(moved.items())))


def _triple(counts: dict[str, int], n: int) -> str:
    scored = max(1, n - counts.get("unscored", 0))
    return " / ".join(f"{100 * counts.get(k, 0) / scored:.1f}" for k in ("right", "wrong", "refused"))


def render(rows: list[Rescore]) -> str:
    """A Markdown table: each run's right / wrong / refused % before and after, and what moved."""
    lines = ["| run | n | stored (right / wrong / refused %) | rescored | moved |", "|---|---|---|---|---|"]
    lines += [f"| {r.run} | {r.n} | {_triple(r.before, r.n)} | {_triple(r.after, r.n)} | "
              f"{', '.join(f'{k}: {v}' for k, v in r.moved.items()) or 'nothing'} |" for r in rows]
    return "\n".join(lines)
