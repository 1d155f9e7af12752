"""LLM-as-judge (multistage_retrieval_reranking 4.6 and 5.2.2): binary correctness and pairwise preference.

Each judgement runs ``runs`` times and reports the spread (mean, standard deviation, agreement with the
majority), so a verdict a judge flips on is visible as such. Pairwise runs alternate which answer is shown
as Response A, so a judge's position bias shows as disagreement instead of a systematic win.

Without a chat model the offline twin stands in: the numeric-tolerant matcher
(:func:`evals.metrics.answers.numeric_match`) for correctness, and for preference that matcher plus token F1
against the ground truth (the paper's "more precise, complete, grounded" tie-break). A model reply that is
invalid twice falls back to the twin for that run, and the judgement's notes say so.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Literal

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from agent.llm.models import UsageLog, structured_call
from evals import prompts
from evals.metrics.answers import numeric_match
from evals.metrics.text import token_f1

DEFAULT_RUNS = 3  # the smallest odd count that has a majority and shows a judge disagreeing with itself
PAIRWISE_F1_MARGIN = 0.1  # offline: both equally correct, one this much closer to the gold in token F1 wins

Winner = Literal["A", "B", "TIE"]
_WINNER_VALUE: dict[str, float] = {"A": 1.0, "TIE": 0.5, "B": 0.0}


class CorrectnessVerdict(BaseModel):
    """One judge run: strict binary verdict (4.6), no partial credit."""

    verdict: Literal["CORRECT", "INCORRECT"]
    reason: str = Field(default="", description="one sentence")


class PairwiseVerdict(BaseModel):
    """One pairwise run: which response is better relative to the ground truth (5.2.2)."""

    winner: Winner
    reason: str = Field(default="", description="one sentence")


class Spread(BaseModel):
    """How repeated runs of one judgement agree."""

    mean: float = Field(description="correctness: share of CORRECT votes; pairwise: A=1, TIE=0.5, B=0")
    std: float = Field(description="population standard deviation of the run values")
    agreement: float = Field(description="share of runs that agree with the majority verdict")


def spread(values: Sequence[float], labels: Sequence[str]) -> Spread:
    """Mean and population std of run values, and the majority label's share of the runs."""
    if not values:
        return Spread(mean=0.0, std=0.0, agreement=0.0)
    majority = Counter(labels).most_common(1)[0][1]
    return Spread(mean=statistics.fmean(values), std=statistics.pstdev(values), agreement=majority / len(labels))


class CorrectnessJudgement(BaseModel):
    """The majority verdict over runs, each run's vote and reason, and the spread."""

    correct: bool
    votes: list[bool]
    reasons: list[str]
    spread: Spread
    judge: Literal["llm", "offline", "mixed"] = Field(description="which judge produced the votes")
    notes: list[str] = Field(default_factory=list)


class PreferenceJudgement(BaseModel):
    """The majority preference over runs, in the caller's A/B labelling, with the spread."""

    preferred: Winner
    votes: list[Winner]
    reasons: list[str]
    spread: Spread
    judge: Literal["llm", "offline", "mixed"]
    notes: list[str] = Field(default_factory=list)


def _judge_kind(sources: Sequence[str]) -> Literal["llm", "offline", "mixed"]:
    kinds = set(sources)
    return "llm" if kinds == {"llm"} else "offline" if kinds == {"offline"} else "mixed"


# ---------------------------------------------------------------------------------------------------------
# Offline twins
# ---------------------------------------------------------------------------------------------------------
def offline_correctness(question: str, answer: str, ground_truth: str) -> CorrectnessVerdict:
    """The numeric-tolerant matcher as a judge."""
    match = numeric_match(answer, ground_truth, question)
    return CorrectnessVerdict(verdict="CORRECT" if match.matched else "INCORRECT", reason=match.reason)


def offline_preference(question: str, ground_truth: str, response_a: str, response_b: str) -> PairwiseVerdict:
    """The matcher decides correctness; token F1 to the gold breaks a tie of two correct answers."""
    a_ok = numeric_match(response_a, ground_truth, question).matched
    b_ok = numeric_match(response_b, ground_truth, question).matched
    if a_ok != b_ok:
        return PairwiseVerdict(winner="A" if a_ok else "B", reason="only one response has the core fact")
    if not a_ok:
        return PairwiseVerdict(winner="TIE", reason="both responses miss the core fact")
    gap = token_f1(response_a, ground_truth) - token_f1(response_b, ground_truth)
    if abs(gap) >= PAIRWISE_F1_MARGIN:
        return PairwiseVerdict(winner="A" if gap > 0 else "B", reason=f"both correct; token F1 gap {gap:+.2f}")
    return PairwiseVerdict(winner="TIE", reason="both correct and equally close to the ground truth")


# ---------------------------------------------------------------------------------------------------------
# Judges
# ---------------------------------------------------------------------------------------------------------
def judge_correctness(
    question: str, answer: str, ground_truth: str, *, model: BaseChatModel | None = None,
    runs: int = DEFAULT_RUNS, context: str = "", usage: UsageLog | None = None,
) -> CorrectnessJudgement:
    """Binary correctness by the 4.6 rules, ``runs`` times with a chat model (once offline: it is exact)."""
    if runs < 1:
        raise ValueError("runs must be >= 1")
    twin = offline_correctness(question, answer, ground_truth)
    n = runs if model is not None else 1
    votes: list[bool] = []
    reasons: list[str] = []
    sources: list[str] = []
    notes: list[str] = []
    for run in range(1, n + 1):
        result = structured_call(
            model, CorrectnessVerdict, prompts.judge_correctness_messages(question, answer, ground_truth, context),
            fallback=lambda: twin, step="judge_correctness", usage=usage,
        )
        votes.append(result.value.verdict == "CORRECT")
        reasons.append(result.value.reason)
        sources.append("offline" if result.source == "offline" else "llm")
        if result.fell_back:
            notes.append(f"run {run}: judge reply unusable, numeric matcher used: {result.reason}")
    labels = ["CORRECT" if v else "INCORRECT" for v in votes]
    correct = sum(votes) * 2 > len(votes)  # a tie in an even number of runs is not a majority for CORRECT
    return CorrectnessJudgement(
        correct=correct, votes=votes, reasons=reasons, spread=spread([float(v) for v in votes], labels),
        judge=_judge_kind(sources), notes=notes,
    )


def judge_pairwise(
    question: str, ground_truth: str, answer_a: str, answer_b: str, *, model: BaseChatModel | None = None,
    runs: int = DEFAULT_RUNS, swap: bool = True, usage: UsageLog | None = None,
) -> PreferenceJudgement:
    """Pairwise preference by the 5.2.2 rules; odd runs show B first when ``swap`` (votes mapped back)."""
    if runs < 1:
        raise ValueError("runs must be >= 1")
    n = runs if model is not None else 1
    votes: list[Winner] = []
    reasons: list[str] = []
    sources: list[str] = []
    notes: list[str] = []
    for run in range(n):
        flipped = swap and run % 2 == 1
        first, second = (answer_b, answer_a) if flipped else (answer_a, answer_b)
        result = structured_call(
            model, PairwiseVerdict, prompts.judge_pairwise_messages(question, ground_truth, first, second),
            fallback=lambda f=first, s=second: offline_preference(question, ground_truth, f, s),
            step="judge_pairwise", usage=usage,
        )
        winner: Winner = result.value.winner
        if flipped and winner != "TIE":
            winner = "B" if winner == "A" else "A"
        votes.append(winner)
        reasons.append(result.value.reason)
        sources.append("offline" if result.source == "offline" else "llm")
        if result.fell_back:
            notes.append(f"run {run + 1}: judge reply unusable, offline preference used: {result.reason}")
    counts = Counter(votes)
    top = counts.most_common()
    preferred: Winner = top[0][0] if len(top) == 1 or top[0][1] > top[1][1] else "TIE"
    return PreferenceJudgement(
        preferred=preferred, votes=votes, reasons=reasons,
        spread=spread([_WINNER_VALUE[v] for v in votes], list(votes)), judge=_judge_kind(sources), notes=notes,
    )
