"""How far to trust each answer scorer: agreement with human correctness labels.

FinanceBench ships 1,568 human-labelled model answers (``financebench/judge_labels.jsonl``: question,
gold_answer, model_answer, human_label in {Correct Answer, Incorrect Answer, Refusal}). Each available
scorer (numeric-tolerant matcher, token F1 and ROUGE-L above a threshold, offline EMS recall, the LLM judge
when a chat model is given) labels every answer correct or not; the report gives accuracy and Cohen's kappa
against the people (Correct -> True; Incorrect and Refusal -> False), overall, by gold kind (a number vs
text) and by FinanceBench question type (joined to ``questions.jsonl`` by question text), so we know which
scorer to trust for what.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, ConfigDict, Field

from agent.errors import FinragError, NotFoundError
from agent.finance.numbers import find_numbers
from agent.llm.models import UsageLog
from evals.judges import judge_correctness
from evals.metrics.answers import DEFAULT_REL_TOL, numeric_match
from evals.metrics.ems import Embed, EmbeddingCache, evaluate_ems
from evals.metrics.text import rouge_l, token_f1, tokenize

LABELS_FILE = Path("financebench") / "judge_labels.jsonl"
QUESTIONS_FILE = Path("financebench") / "questions.jsonl"
HUMAN_CORRECT = "Correct Answer"
HUMAN_LABELS = ("Correct Answer", "Incorrect Answer", "Refusal")
TOKEN_F1_THRESHOLD = 0.5  # half of the tokens shared: SQuAD-style partial credit counted as a pass.
ROUGE_L_THRESHOLD = 0.5  # same midpoint for the LCS F-measure.
EMS_RECALL_THRESHOLD = 0.5  # half of the reference's saliency (soft-scored) found in the answer.
LOOSE_REL_TOL = 0.01  # the common 1% convention, reported beside the calibrated default for comparison.
UNKNOWN_TYPE = "unknown"  # question type of a label whose question text is not in questions.jsonl


class LabelledAnswer(BaseModel):
    """One human-labelled model answer."""

    id: str = ""
    question: str
    gold_answer: str
    gold_is_number: bool = Field(description="the gold answer is a number (JSON number or a bare figure)")
    model_answer: str
    model_name: str = ""
    human_label: str
    question_type: str = UNKNOWN_TYPE

    @property
    def human_correct(self) -> bool:
        """Correct -> True; Incorrect and Refusal -> False."""
        return self.human_label == HUMAN_CORRECT

    @property
    def gold_kind(self) -> Literal["numeric", "text"]:
        return "numeric" if self.gold_is_number else "text"


class Scorer(BaseModel):
    """A named answer scorer: labels one answer correct (True) or not."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str
    description: str
    predict: Callable[[LabelledAnswer], bool]


class Agreement(BaseModel):
    """Agreement of a scorer's labels with the human labels on one slice."""

    n: int
    accuracy: float
    kappa: float
    true_pos: int = Field(description="scorer True, human True")
    false_pos: int = Field(description="scorer True, human False")
    false_neg: int = Field(description="scorer False, human True")
    true_neg: int = Field(description="scorer False, human False")


class ScorerReport(BaseModel):
    """One scorer's agreement overall and per slice."""

    name: str
    description: str
    overall: Agreement
    by_gold_kind: dict[str, Agreement]
    by_question_type: dict[str, Agreement]
    errors: int = Field(default=0, description="answers the scorer raised on (counted as False)")


class CalibrationReport(BaseModel):
    """Agreement of every scorer with the human labels."""

    source: str
    n: int
    label_counts: dict[str, int]
    gold_kind_counts: dict[str, int]
    question_type_counts: dict[str, int]
    joined_by_question_text: int = Field(description="labels whose question type came from questions.jsonl")
    scorers: list[ScorerReport]

    def scorer(self, name: str) -> ScorerReport:
        """The report of one scorer by name."""
        for report in self.scorers:
            if report.name == name:
                return report
        raise NotFoundError(f"no scorer named {name!r} in this report")

    def to_markdown(self) -> str:
        """The report as Markdown tables: overall, by gold kind, by question type."""
        kinds = sorted(self.gold_kind_counts)
        types = sorted(self.question_type_counts)
        lines = [
            "# Answer-scorer calibration against human labels",
            "",
            f"Source: `{self.source}`: {self.n} labelled answers "
            f"({', '.join(f'{k}: {v}' for k, v in sorted(self.label_counts.items()))}). Human Correct -> True; "
            "Incorrect and Refusal -> False.",
            f"Gold kinds: {', '.join(f'{k} {v}' for k, v in sorted(self.gold_kind_counts.items()))}. "
            f"Question types joined by question text for {self.joined_by_question_text} of {self.n}.",
            "",
            "## Overall",
            "",
            "| scorer | n | accuracy | kappa | TP | FP | FN | TN |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in self.scorers:
            a = r.overall
            lines.append(
                f"| {r.name} | {a.n} | {a.accuracy:.1%} | {a.kappa:.3f} | {a.true_pos} | {a.false_pos} | "
                f"{a.false_neg} | {a.true_neg} |"
            )
        for title, keys, attr in (("By gold kind", kinds, "by_gold_kind"), ("By question type", types, "by_question_type")):
            lines += ["", f"## {title} (accuracy / kappa)", "",
                      "| scorer | " + " | ".join(f"{k} (n={self._count(attr, k)})" for k in keys) + " |",
                      "|---|" + "---:|" * len(keys)]
            for r in self.scorers:
                cells = []
                for k in keys:
                    a = getattr(r, attr).get(k)
                    cells.append(f"{a.accuracy:.1%} / {a.kappa:.2f}" if a else "-")
                lines.append(f"| {r.name} | " + " | ".join(cells) + " |")
        lines += ["", "## Scorers", ""]
        lines += [f"- **{r.name}**: {r.description}" + (f" ({r.errors} errors)" if r.errors else "") for r in self.scorers]
        return "\n".join(lines) + "\n"

    def _count(self, attr: str, key: str) -> int:
        counts = self.gold_kind_counts if attr == "by_gold_kind" else self.question_type_counts
        return counts.get(key, 0)


# ---------------------------------------------------------------------------------------------------------
# Agreement statistics
# ---------------------------------------------------------------------------------------------------------
def cohen_kappa(rater_a: Sequence[Hashable], rater_b: Sequence[Hashable]) -> float:
    """Cohen's kappa: (p_o - p_e) / (1 - p_e), with p_e from each rater's own label frequencies.

    When both raters use one and the same label throughout (p_e = 1) agreement is perfect but uninformative:
    kappa is 1.0 if they agree everywhere, else 0.0.
    """
    if len(rater_a) != len(rater_b):
        raise ValueError("both raters must label the same items")
    n = len(rater_a)
    if n == 0:
        return 0.0
    observed = sum(a == b for a, b in zip(rater_a, rater_b, strict=True)) / n
    freq_a, freq_b = Counter(rater_a), Counter(rater_b)
    expected = sum(freq_a[label] * freq_b[label] for label in freq_a.keys() | freq_b.keys()) / (n * n)
    if expected >= 1.0:
        return 1.0 if observed == 1.0 else 0.0
    return (observed - expected) / (1.0 - expected)


def agreement(predicted: Sequence[bool], human: Sequence[bool]) -> Agreement:
    """Accuracy, kappa and the confusion counts of binary labels against human labels."""
    pairs = list(zip(predicted, human, strict=True))
    n = len(pairs)
    return Agreement(
        n=n,
        accuracy=sum(p == h for p, h in pairs) / n if n else 0.0,
        kappa=cohen_kappa(list(predicted), list(human)),
        true_pos=sum(p and h for p, h in pairs),
        false_pos=sum(p and not h for p, h in pairs),
        false_neg=sum(h and not p for p, h in pairs),
        true_neg=sum(not p and not h for p, h in pairs),
    )


# ---------------------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------------------
def gold_is_number(gold: Any) -> bool:
    """A JSON number, or text that is one figure and nothing else ("$1,577 million", "36%", "-3.7")."""
    if isinstance(gold, bool):
        return False
    if isinstance(gold, int | float):
        return True
    text = str(gold).strip()
    numbers = find_numbers(text, include_years=True)
    if len(numbers) != 1:
        return False
    rest = (text[: numbers[0].start] + text[numbers[0].end :]).strip()
    return not tokenize(rest)


def _gold_text(gold: Any) -> str:
    if isinstance(gold, float) and gold.is_integer():
        return str(int(gold))
    return repr(gold) if isinstance(gold, float) else str(gold)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise FinragError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
    return rows


def load_labels(data_dir: Path) -> list[LabelledAnswer]:
    """The labelled answers under ``data_dir`` (findata layout), question types joined by question text
    (``unknown`` when ``questions.jsonl`` is absent or lacks the question)."""
    path = Path(data_dir) / LABELS_FILE
    if not path.is_file():
        raise NotFoundError(f"no human labels at {path} (set FINRAG_DATA_DIR to a findata folder)")
    questions_path = Path(data_dir) / QUESTIONS_FILE
    types: dict[str, str] = {}
    if questions_path.is_file():
        types = {row["question"].strip(): row.get("question_type", UNKNOWN_TYPE) for row in _read_jsonl(questions_path)}
    out: list[LabelledAnswer] = []
    for number, row in enumerate(_read_jsonl(path), start=1):
        missing = [k for k in ("question", "gold_answer", "model_answer", "human_label") if k not in row]
        if missing:
            raise FinragError(f"{path}:{number}: missing field(s) {', '.join(missing)}")
        if row["human_label"] not in HUMAN_LABELS:
            raise FinragError(f"{path}:{number}: unknown human_label {row['human_label']!r}")
        qtype = types.get(str(row["question"]).strip())
        out.append(LabelledAnswer(
            id=str(row.get("id", "")), question=str(row["question"]), gold_answer=_gold_text(row["gold_answer"]),
            gold_is_number=gold_is_number(row["gold_answer"]), model_answer=str(row["model_answer"] or ""),
            model_name=str(row.get("model_name", "")), human_label=row["human_label"],
            question_type=qtype or UNKNOWN_TYPE,
        ))
    return out


# ---------------------------------------------------------------------------------------------------------
# Scorers
# ---------------------------------------------------------------------------------------------------------
def numeric_scorer(rel_tol: float = DEFAULT_REL_TOL, name: str = "numeric-match") -> Scorer:
    """The offline numeric-tolerant matcher."""
    return Scorer(
        name=name,
        description=f"evals.metrics.answers.numeric_match (relative tolerance {rel_tol:g}, gold rounding slack)",
        predict=lambda x: numeric_match(x.model_answer, x.gold_answer, x.question, rel_tol=rel_tol).matched,
    )


def default_scorers(
    embed: Embed | None = None, model: BaseChatModel | None = None, judge_runs: int = 1,
    usage: UsageLog | None = None,
) -> list[Scorer]:
    """Every scorer available here: the offline ones always, the LLM judge when ``model`` is given."""
    ems_embed = EmbeddingCache(embed) if embed is not None else None
    scorers = [
        numeric_scorer(),
        numeric_scorer(LOOSE_REL_TOL, name=f"numeric-match@{LOOSE_REL_TOL:.0%}"),
        Scorer(
            name=f"token-f1>={TOKEN_F1_THRESHOLD}",
            description="SQuAD-style token F1 of answer vs gold at or above the threshold",
            predict=lambda x: token_f1(x.model_answer, x.gold_answer) >= TOKEN_F1_THRESHOLD,
        ),
        Scorer(
            name=f"rouge-l>={ROUGE_L_THRESHOLD}",
            description="ROUGE-L F1 of answer vs gold at or above the threshold",
            predict=lambda x: rouge_l(x.model_answer, x.gold_answer) >= ROUGE_L_THRESHOLD,
        ),
        Scorer(
            name=f"ems-recall>={EMS_RECALL_THRESHOLD}",
            description="offline EMS (sentence points, "
            + ("embedding" if embed is not None else "bag-of-words")
            + " matching, ROUGE-L scorer): EMS-Recall of the gold's points at or above the threshold",
            predict=lambda x: evaluate_ems(x.model_answer, x.gold_answer, embed=ems_embed).recall
            >= EMS_RECALL_THRESHOLD,
        ),
    ]
    if model is not None:
        scorers.append(Scorer(
            name="llm-judge",
            description=f"LLM judge, multistage_retrieval_reranking 4.6 rules, majority of {judge_runs} run(s)",
            predict=lambda x: judge_correctness(
                x.question, x.model_answer, x.gold_answer, model=model, runs=judge_runs, usage=usage
            ).correct,
        ))
    return scorers


def _slices(items: Sequence[LabelledAnswer], key: Callable[[LabelledAnswer], str]) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    for i, item in enumerate(items):
        groups.setdefault(key(item), []).append(i)
    return groups


def calibrate(
    data_dir: Path, scorers: Sequence[Scorer] | None = None, limit: int | None = None
) -> CalibrationReport:
    """Agreement of each scorer with the human labels under ``data_dir`` (default: the offline scorers).

    ``limit`` keeps the first n labels (a quick look). A scorer that raises on an answer counts it as False
    and the report counts the errors: one bad answer never stops the run.
    """
    items = load_labels(data_dir)
    if limit is not None:
        items = items[:limit]
    if not items:
        raise FinragError(f"no labelled answers under {data_dir}")
    human = [x.human_correct for x in items]
    by_kind = _slices(items, lambda x: x.gold_kind)
    by_type = _slices(items, lambda x: x.question_type)
    reports: list[ScorerReport] = []
    for scorer in scorers if scorers is not None else default_scorers():
        predicted: list[bool] = []
        errors = 0
        for item in items:
            try:
                predicted.append(bool(scorer.predict(item)))
            except Exception:  # one answer a scorer cannot handle must not lose the whole calibration
                predicted.append(False)
                errors += 1
        reports.append(ScorerReport(
            name=scorer.name, description=scorer.description, overall=agreement(predicted, human),
            by_gold_kind={k: agreement([predicted[i] for i in idx], [human[i] for i in idx]) for k, idx in by_kind.items()},
            by_question_type={
                k: agreement([predicted[i] for i in idx], [human[i] for i in idx]) for k, idx in by_type.items()
            },
            errors=errors,
        ))
    return CalibrationReport(
        source=str(Path(data_dir) / LABELS_FILE), n=len(items),
        label_counts=dict(Counter(x.human_label for x in items)),
        gold_kind_counts=dict(Counter(x.gold_kind for x in items)),
        question_type_counts=dict(Counter(x.question_type for x in items)),
        joined_by_question_text=sum(x.question_type != UNKNOWN_TYPE for x in items), scorers=reports,
    )
