"""Company-disjoint cross-validation of the learned readers (the operation and answer-kind models).

The labelled questions are split into K folds by company (ConvFinQA) or filing (TAT-QA): a company's questions
all sit in one fold, so a fold's score says how the model reads wording from companies it never saw. Each fold
is scored by a model trained on the other K-1; the report gives each fold, the mean and the spread.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import zlib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from agent.config import Settings
from agent.query.operations import KIND_MODEL_ENV, MODEL_ENV, LabelledQuestion, train

DEFAULT_FOLDS = 5  # five folds of ~9 ConvFinQA companies and ~70 TAT-QA filings each


def fold_of(group: str, folds: int) -> int:
    """The fold a company belongs to: a stable hash of its name, the same on every machine and run."""
    return zlib.crc32(group.encode("utf-8")) % folds


class AnswerTally(BaseModel):
    """Right / wrong / refused over a fold's scored questions (ConvFinQA turns, or TAT-QA questions for the
    answer-kind model), answered with the fold's model."""

    turns: int = 0
    right: int = 0
    wrong: int = 0
    refused: int = 0

    def rate(self, outcome: str) -> float:
        """The share of the fold's turns with this outcome ('right', 'wrong' or 'refused')."""
        return getattr(self, outcome) / self.turns if self.turns else 0.0


class FoldScore(BaseModel):
    """One held-out fold: how many of its questions the model trained without them read right."""

    fold: int
    groups: int
    questions: int
    correct: int
    by_source: dict[str, list[int]] = Field(default_factory=dict, description="source -> [correct, questions]")
    confusions: dict[str, int] = Field(default_factory=dict, description="'gold->guess' -> count")
    answers: AnswerTally | None = Field(default=None, description="the fold's questions answered end to end")

    @property
    def accuracy(self) -> float:
        return self.correct / self.questions if self.questions else 0.0


class CvReport(BaseModel):
    """Every fold's score, with the mean and spread (population standard deviation) of the accuracies."""

    folds: list[FoldScore]
    answered: str = Field(default="", description="what the folds' answers are of: 'ConvFinQA conversations', "
                          "'TAT-QA questions'; '' when none were answered")
    mean: float
    spread: float


def _source(example: LabelledQuestion) -> str:
    return example.group.split(":", 1)[0]


def _held_out(examples: Sequence[LabelledQuestion], folds: int, k: int) -> tuple[list[LabelledQuestion], list[LabelledQuestion]]:
    """(the questions of fold ``k``, the questions of every other fold)."""
    held = [e for e in examples if fold_of(e.group, folds) == k]
    kept = [e for e in examples if fold_of(e.group, folds) != k]
    return held, kept


def cross_validate(
    examples: Sequence[LabelledQuestion], folds: int = DEFAULT_FOLDS
) -> CvReport:
    """Train on K-1 folds, score the held-out one, for each fold."""
    if folds < 2:
        raise ValueError("cross-validation needs at least 2 folds")
    scores: list[FoldScore] = []
    for k in range(folds):
        held, kept = _held_out(examples, folds, k)
        if not held or len({e.operation for e in kept}) < 2:
            continue  # nothing to hold out, or nothing to learn from without it
        model = train(kept, trained_on=f"fold {k} of {folds} held out")
        by_source: dict[str, list[int]] = {}
        confusions: Counter[str] = Counter()
        correct = 0
        for example in held:
            guess = model.guess(example.question, example.context).operation
            hit = guess == example.operation
            correct += hit
            tally = by_source.setdefault(_source(example), [0, 0])
            tally[0] += hit
            tally[1] += 1
            if not hit:
                confusions[f"{example.operation}->{guess}"] += 1
        scores.append(
            FoldScore(
                fold=k, groups=len({e.group for e in held}), questions=len(held), correct=correct,
                by_source=by_source, confusions=dict(confusions.most_common(8)),
            )
        )
    accuracies = [s.accuracy for s in scores]
    return CvReport(
        folds=scores, mean=statistics.fmean(accuracies), spread=statistics.pstdev(accuracies) if accuracies else 0.0
    )


def answer_folds(
    report: CvReport, examples: Sequence[LabelledQuestion], data_dir: Path, settings: Settings, folds: int,
    progress: bool = True, kinds: bool = False,
) -> CvReport:
    """Answer each fold's questions end to end with a model trained without that fold's companies, and add right /
    wrong / refused to the folds. The operation model answers ConvFinQA's conversations (the graph reads the model
    ``FINRAG_OPERATIONS_MODEL`` names); the answer-kind model (``kinds``) TAT-QA's questions, each fold its filings
    (``FINRAG_ANSWER_KIND_MODEL``): the packaged models saw every dev question, so only this says what they do for a
    company they never saw."""
    from evals.datasets import load_convfinqa
    from evals.runner import EvalItem, load_eval_set, run_answers

    if kinds:
        dataset, env, answered = "tatqa", KIND_MODEL_ENV, "TAT-QA questions"

        def group(item: EvalItem) -> str:
            return f"tatqa:{item.docs[0] if item.docs else item.id}"  # the answer-kind labels' groups
    else:
        dataset, env, answered = "convfinqa", MODEL_ENV, "ConvFinQA conversations"
        companies = {c.id: f"convfinqa:{c.company or c.doc_name.split('/')[0]}"
                     for c in load_convfinqa(data_dir).conversations}

        def group(item: EvalItem) -> str:
            return companies.get(item.conversation, "")

    eval_set = load_eval_set(settings, data_dir, dataset)
    previous = os.environ.get(env)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for score in report.folds:
                _, kept = _held_out(examples, folds, score.fold)
                path = Path(tmp) / f"fold{score.fold}.json"
                train(kept, trained_on=f"fold {score.fold} of {folds} held out").save(path)
                os.environ[env] = str(path)
                items = [i for i in eval_set.items if fold_of(group(i), folds) == score.fold]
                if not items:
                    continue
                subset = eval_set.model_copy(update={"items": items})
                results = run_answers(settings, subset, name=f"cv-fold{score.fold}", progress=progress).results
                scored = [r for r in results if r.scores.scored]
                score.answers = AnswerTally(
                    turns=len(scored), right=sum(r.outcome == "right" for r in scored),
                    wrong=sum(r.outcome == "wrong" for r in scored),
                    refused=sum(r.outcome == "refused" for r in scored),
                )
    finally:
        if previous is None:
            os.environ.pop(env, None)
        else:
            os.environ[env] = previous
    report.answered = answered
    return report


def render(report: CvReport, title: str = "Operation model") -> str:
    """The report as Markdown: a row per fold, then mean and spread, then the commonest confusions."""
    lines = [
        f"# {title}: company-disjoint cross-validation",
        "",
        "Each fold's companies (ConvFinQA) and filings (TAT-QA) are unseen by the model that reads them.",
        "",
        "| fold | companies | questions | accuracy | ConvFinQA | TAT-QA |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for s in report.folds:
        cells = [
            f"{c / n:.1%} ({n})" if n else "-"
            for c, n in (s.by_source.get(src, [0, 0]) for src in ("convfinqa", "tatqa"))
        ]
        lines.append(f"| {s.fold} | {s.groups} | {s.questions} | {s.accuracy:.1%} | {cells[0]} | {cells[1]} |")
    lines += ["", f"Mean accuracy **{report.mean:.1%}**, spread (standard deviation over folds) {report.spread:.1%}."]
    answered = [s for s in report.folds if s.answers is not None]
    if answered:
        lines += [
            "", f"{report.answered or 'Questions'} answered end to end, each fold with the model that never saw its "
            "companies:",
            "", "| fold | questions | right | wrong | refused |", "|---:|---:|---:|---:|---:|",
        ]
        for s in answered:
            a = s.answers
            assert a is not None
            lines.append(f"| {s.fold} | {a.turns} | {a.rate('right'):.1%} | {a.rate('wrong'):.1%} | {a.rate('refused'):.1%} |")
        lines.append("")
        for outcome in ("right", "wrong", "refused"):
            rates = [s.answers.rate(outcome) for s in answered if s.answers is not None]
            lines.append(f"- {outcome}: mean {statistics.fmean(rates):.1%}, spread {statistics.pstdev(rates):.1%}")
    confusions: Counter[str] = Counter()
    for s in report.folds:
        confusions.update(s.confusions)
    if confusions:
        lines += ["", "Commonest confusions (gold -> read): " + ", ".join(f"{k} {v}" for k, v in confusions.most_common(8))]
    return "\n".join(lines) + "\n"
