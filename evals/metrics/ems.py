"""EMS long-answer evaluation (ems_long_answer_evaluation): Extract saliency points, Match, Score.

1. **Extract** (paper 2.1): ``P_ref = f_E(ref)``, ``P_ans = f_E(ans)``. Every detail and every repetition is
   kept; summaries (overviews, conclusions) are removed. With a chat model: the paper's extraction prompt
   (appendix A.3). Offline: split into bullets and sentences, then drop lead-ins, closing pleasantries and an
   opening or closing sentence that only restates the body (fuzzy coverage by the other points).
2. **Match** (2.2): ``a_i = f_M(p_i_ref, P_ans)`` is the 1-based index of the best answer point or -1. With a
   chat model: the paper's matching prompt (A.4), one call per reference point. Offline: cosine similarity
   of the injected embeddings (bag-of-words cosine when none is given), raised when the two points state the
   same number and lowered when both state numbers that all differ; the best point matches when its
   similarity reaches the threshold.
3. **Score** (2.3): ``s_i_ref = f_S(p_i_ref, p_{a_i}_ans)`` in [0, 1] for matched pairs, 0 otherwise. Scorers:
   ``model`` (A.5 prompt, integer 0..max_score divided by max_score), ``rouge`` (ROUGE-L F1),
   ``embedding`` (cosine clipped to [0, 1]).
4. **Metrics** (2.4): EMS-Recall = sum_i s_i_ref / N; s_j_ans = max{s_i_ref | a_i = j} (0 when no reference point
   maps to j); EMS-Precision = sum_j s_j_ans / M; EMS-F1 = 2PR / (P + R).

Model steps go through :func:`agent.llm.models.structured_call`: an invalid reply is retried once, then the offline
twin answers and :attr:`EMSResult.notes` says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np
from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from agent.llm.models import UsageLog, structured_call
from evals import prompts
from evals.metrics.answers import numbers_agree
from evals.metrics.text import bow_cosine, content_tokens, rouge_l, split_sentences, tokenize

Embed = Callable[[list[str]], np.ndarray]
ScorerName = Literal["model", "rouge", "embedding"]

EMBEDDING_MATCH_THRESHOLD = 0.5  # MiniLM cosine: paraphrases of one claim sit above ~0.6, unrelated claims below ~0.3.
LEXICAL_MATCH_THRESHOLD = 0.3  # bag-of-words cosine: a third of the weight shared is the same topic, not chance.
NUMBER_AGREEMENT_BONUS = 0.1  # A.4: "same specific numbers ... significantly increases their likelihood".
NUMBER_CONFLICT_PENALTY = 0.1  # both points state figures and none agree: likely different facts.
SUMMARY_COVERAGE = 0.8  # an opening/closing point whose content words are this covered by the rest restates it.
MIN_POINTS_FOR_SUMMARY_REMOVAL = 3  # with fewer points there is no body for a summary to restate.
DEFAULT_MAX_SCORE = 10  # A.5 examples score on 0..10.

_LEAD_IN_RE = re.compile(
    r"^(?:here (?:is|are)|below (?:is|are)|the following|in summary|in conclusion|to summari[sz]e|overall|"
    r"summary|conclusion|in short|to conclude|all in all)\b",
    re.IGNORECASE,
)
_PLEASANTRY_RE = re.compile(
    r"\b(?:let me know|does this help|hope this helps|feel free|if you (?:have|need) (?:any )?(?:further|more|other)"
    r"|happy to help)\b",
    re.IGNORECASE,
)
_MARKDOWN_RE = re.compile(r"[*_`#]+")


class EmbeddingCache:
    """Wraps an embed function so each distinct text is encoded once (EMS over many answers repeats the
    reference's points for every answer); unseen texts of a call are encoded in one batch."""

    def __init__(self, embed: Embed) -> None:
        self._embed = embed
        self._vectors: dict[str, np.ndarray] = {}

    def __call__(self, texts: list[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            for text, vector in zip(missing, np.asarray(self._embed(missing)), strict=True):
                self._vectors[text] = vector
        if not texts:
            return np.zeros((0, 0))
        return np.stack([self._vectors[t] for t in texts])


# ---------------------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------------------
class SaliencyPoints(BaseModel):
    """The extractor's output (A.3): a list of key points, each at most two sentences."""

    points: list[str] = Field(description="every key point of the answer, repetitions kept, in order")


class MatchedIndex(BaseModel):
    """The matcher's output (A.4): 0-based index in the candidate list, or -1 when nothing matches."""

    index: int = Field(description="index of the best-matched candidate keypoint, or -1 if none matches")


class AlignmentScore(BaseModel):
    """The scorer's output (A.5): an integer from 0 to max_score."""

    score: int = Field(description="0 = unrelated ... max_score = exactly matched, all details")


class PointAlignment(BaseModel):
    """One reference point, the answer point it matched, and the pair's score: why EMS says what it says."""

    ref_index: int = Field(description="1-based index i of the reference point")
    ref_point: str
    answer_index: int = Field(description="a_i: 1-based index of the matched answer point, -1 for none")
    answer_point: str = ""
    similarity: float | None = Field(default=None, description="offline matcher's similarity with number adjustment")
    numbers_agree: bool | None = Field(default=None, description="None when a side states no number")
    score: float = Field(default=0.0, description="s_i_ref in [0, 1]")
    matched_by: Literal["model", "offline"] = "offline"
    scored_by: str = ""


class EMSResult(BaseModel):
    """EMS-Recall / Precision / F1 of one answer against one reference, with the full alignment."""

    recall: float
    precision: float
    f1: float
    matches: list[int] = Field(description="A = [a_1 .. a_N]: 1-based answer indices, -1 for unmatched")
    ref_points: list[str]
    answer_points: list[str]
    ref_scores: list[float] = Field(description="s_i_ref per reference point")
    answer_scores: list[float] = Field(description="s_j_ans per answer point (max over points mapped to j)")
    alignment: list[PointAlignment]
    extractor: str = Field(description="model | offline")
    matcher: str = Field(description="model | embedding | lexical")
    scorer: str
    notes: list[str] = Field(default_factory=list, description="fallbacks to the offline twin, and why")


# ---------------------------------------------------------------------------------------------------------
# Stage 1: extraction
# ---------------------------------------------------------------------------------------------------------
def _content(text: str) -> set[str]:
    return set(content_tokens(text))


def _restates(point: str, others: Sequence[str]) -> bool:
    words = _content(point)
    if not words:
        return True
    rest: set[str] = set()
    for other in others:
        rest |= _content(other)
    return len(words & rest) / len(words) >= SUMMARY_COVERAGE


def extract_points_offline(text: str) -> list[str]:
    """Saliency points without a model: bullets and sentences, summaries and lead-ins removed, repeats kept.

    Removed: headers and lead-ins that end with a colon ("Here are the key points:"), closing pleasantries
    ("Let me know if ..."), sentences opening with a summary cue ("In summary, ...") at either end, and an
    opening or closing sentence whose content words the body already covers (a restating overview).
    """
    points = [_MARKDOWN_RE.sub("", s).strip() for s in split_sentences(text)]
    points = [p for p in points if p and tokenize(p) and not p.endswith(":") and not _PLEASANTRY_RE.search(p)]
    if len(points) < MIN_POINTS_FOR_SUMMARY_REMOVAL:
        return points
    if _LEAD_IN_RE.match(points[0]) or _restates(points[0], points[1:]):
        points = points[1:]
    if len(points) >= MIN_POINTS_FOR_SUMMARY_REMOVAL - 1 and (
        _LEAD_IN_RE.match(points[-1]) or _restates(points[-1], points[:-1])
    ):
        points = points[:-1]
    return points


def extract_points(
    text: str, model: BaseChatModel | None = None, usage: UsageLog | None = None
) -> tuple[list[str], str, str]:
    """Saliency points of ``text``: (points, 'model' | 'offline', note). The note says why a model fell back."""
    offline = extract_points_offline(text)
    if model is None:
        return offline, "offline", ""

    def check(out: SaliencyPoints) -> str | None:
        return None if any(p.strip() for p in out.points) or not offline else "the list of key points is empty"

    result = structured_call(
        model, SaliencyPoints, prompts.ems_extraction_messages(text),
        fallback=lambda: SaliencyPoints(points=offline), step="ems_extract", usage=usage, check=check,
    )
    points = [p.strip() for p in result.value.points if p.strip()]
    if result.fell_back:
        return points, "offline", f"extraction fell back to the offline splitter: {result.reason}"
    return points, "model", ""


# ---------------------------------------------------------------------------------------------------------
# Stage 2: matching
# ---------------------------------------------------------------------------------------------------------
class _Similarity(BaseModel):
    matrix: list[list[float]]
    kind: Literal["embedding", "lexical"]


def _similarities(ref: Sequence[str], ans: Sequence[str], embed: Embed | None) -> _Similarity:
    if embed is None:
        return _Similarity(matrix=[[bow_cosine(r, a) for a in ans] for r in ref], kind="lexical")
    vectors = np.asarray(embed(list(ref) + list(ans)), dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = vectors / np.where(norms == 0, 1.0, norms)
    sims = unit[: len(ref)] @ unit[len(ref) :].T
    return _Similarity(matrix=sims.tolist(), kind="embedding")


class PointMatch(BaseModel):
    """The matcher's decision for one reference point."""

    answer_index: int = Field(description="1-based, -1 for none")
    similarity: float | None = None
    numbers_agree: bool | None = None
    matched_by: Literal["model", "offline"] = "offline"


def match_points_offline(
    ref_points: Sequence[str], answer_points: Sequence[str], embed: Embed | None = None,
    threshold: float | None = None,
) -> list[PointMatch]:
    """Offline f_M: best answer point by similarity adjusted for number agreement, or -1 below threshold."""
    if not ref_points:
        return []
    if not answer_points:
        return [PointMatch(answer_index=-1) for _ in ref_points]
    sim = _similarities(ref_points, answer_points, embed)
    limit = threshold if threshold is not None else (
        EMBEDDING_MATCH_THRESHOLD if sim.kind == "embedding" else LEXICAL_MATCH_THRESHOLD
    )
    out: list[PointMatch] = []
    for i, ref in enumerate(ref_points):
        best_j, best_score, best_agree = -1, float("-inf"), None
        for j, ans in enumerate(answer_points):
            agree = numbers_agree(ref, ans)
            adjusted = sim.matrix[i][j] + (
                NUMBER_AGREEMENT_BONUS if agree else -NUMBER_CONFLICT_PENALTY if agree is False else 0.0
            )
            if adjusted > best_score:
                best_j, best_score, best_agree = j, adjusted, agree
        matched = best_score >= limit
        out.append(PointMatch(
            answer_index=best_j + 1 if matched else -1, similarity=round(best_score, 4),
            numbers_agree=best_agree if matched else None,
        ))
    return out


def match_points(
    ref_points: Sequence[str], answer_points: Sequence[str], *, embed: Embed | None = None,
    model: BaseChatModel | None = None, threshold: float | None = None, usage: UsageLog | None = None,
) -> tuple[list[PointMatch], list[str]]:
    """f_M for every reference point: the model's choice (A.4) when a model is given, else offline.

    Returns the matches and notes for each point where the model's reply was unusable twice.
    """
    offline = match_points_offline(ref_points, answer_points, embed, threshold)
    if model is None or not answer_points:
        return offline, []
    notes: list[str] = []
    out: list[PointMatch] = []
    n = len(answer_points)
    for i, ref in enumerate(ref_points):
        fallback_index = offline[i].answer_index - 1 if offline[i].answer_index > 0 else -1

        def check(value: MatchedIndex) -> str | None:
            return None if -1 <= value.index < n else f"index {value.index} is outside -1..{n - 1}"

        result = structured_call(
            model, MatchedIndex, prompts.ems_matching_messages(ref, answer_points),
            fallback=lambda idx=fallback_index: MatchedIndex(index=idx), step="ems_match", usage=usage,
            check=check,
        )
        if result.fell_back:
            notes.append(f"reference point {i + 1}: matching fell back offline: {result.reason}")
            out.append(offline[i])
            continue
        j = result.value.index
        out.append(PointMatch(
            answer_index=j + 1 if j >= 0 else -1, matched_by="model",
            numbers_agree=numbers_agree(ref, answer_points[j]) if j >= 0 else None,
        ))
    return out, notes


# ---------------------------------------------------------------------------------------------------------
# Stage 3: scoring
# ---------------------------------------------------------------------------------------------------------
def score_pair(
    ref_point: str, answer_point: str, scorer: ScorerName = "rouge", *, embed: Embed | None = None,
    model: BaseChatModel | None = None, max_score: int = DEFAULT_MAX_SCORE, usage: UsageLog | None = None,
) -> tuple[float, str, str]:
    """f_S for one matched pair: (score in [0, 1], scorer actually used, note when the model fell back)."""
    if scorer == "embedding":
        if embed is None:
            raise ValueError("the embedding scorer needs an embed function")
        vectors = np.asarray(embed([ref_point, answer_point]), dtype=np.float64)
        norms = np.linalg.norm(vectors, axis=1)
        cosine = float(vectors[0] @ vectors[1] / (norms[0] * norms[1])) if norms.all() else 0.0
        return min(max(cosine, 0.0), 1.0), "embedding", ""
    if scorer == "model" and model is not None:
        offline = rouge_l(answer_point, ref_point)

        def check(value: AlignmentScore) -> str | None:
            return None if 0 <= value.score <= max_score else f"score {value.score} is outside 0..{max_score}"

        result = structured_call(
            model, AlignmentScore, prompts.ems_scoring_messages(ref_point, answer_point, max_score),
            fallback=lambda: AlignmentScore(score=round(offline * max_score)), step="ems_score", usage=usage,
            check=check,
        )
        if result.fell_back:
            return offline, "rouge", f"scoring fell back to ROUGE-L: {result.reason}"
        return result.value.score / max_score, "model", ""
    if scorer == "model":
        return rouge_l(answer_point, ref_point), "rouge", "no chat model: scored with ROUGE-L"
    return rouge_l(answer_point, ref_point), "rouge", ""


# ---------------------------------------------------------------------------------------------------------
# Stage 4: metrics
# ---------------------------------------------------------------------------------------------------------
class EMSScores(BaseModel):
    """EMS-Recall, EMS-Precision and EMS-F1 with the per-answer-point scores s_j_ans."""

    recall: float
    precision: float
    f1: float
    answer_scores: list[float]


def ems_scores(ref_scores: Sequence[float], matches: Sequence[int], n_answer_points: int) -> EMSScores:
    """Equations 6-9 exactly: recall over N reference points, precision over M answer points with
    s_j_ans = max of the scores of the reference points mapped to j, F1 their harmonic mean.

    ``matches`` are 1-based answer indices (-1 for none), as the paper's A. With no reference points recall is
    0; with no answer points precision is 0.
    """
    if len(ref_scores) != len(matches):
        raise ValueError("one score per reference point is needed")
    for a in matches:
        if a != -1 and not 1 <= a <= n_answer_points:
            raise ValueError(f"match {a} is not -1 or in 1..{n_answer_points}")
    s_ref = [s if a != -1 else 0.0 for s, a in zip(ref_scores, matches, strict=True)]
    answer_scores = [0.0] * n_answer_points
    for s, a in zip(s_ref, matches, strict=True):
        if a != -1:
            answer_scores[a - 1] = max(answer_scores[a - 1], s)
    recall = sum(s_ref) / len(s_ref) if s_ref else 0.0
    precision = sum(answer_scores) / n_answer_points if n_answer_points else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return EMSScores(recall=recall, precision=precision, f1=f1, answer_scores=answer_scores)


# ---------------------------------------------------------------------------------------------------------
# The pipeline
# ---------------------------------------------------------------------------------------------------------
def evaluate_points(
    ref_points: Sequence[str], answer_points: Sequence[str], *, scorer: ScorerName = "rouge",
    embed: Embed | None = None, model: BaseChatModel | None = None, match_threshold: float | None = None,
    max_score: int = DEFAULT_MAX_SCORE, usage: UsageLog | None = None, extractor: str = "given",
    notes: Sequence[str] = (),
) -> EMSResult:
    """Match and score already-extracted saliency points (stages 2-4)."""
    if scorer == "embedding" and embed is None:
        raise ValueError("the embedding scorer needs an embed function")
    all_notes = list(notes)
    matches, match_notes = match_points(
        ref_points, answer_points, embed=embed, model=model, threshold=match_threshold, usage=usage
    )
    all_notes += match_notes
    alignment: list[PointAlignment] = []
    for i, (ref, m) in enumerate(zip(ref_points, matches, strict=True), start=1):
        score, used, note = 0.0, "", ""
        answer = answer_points[m.answer_index - 1] if m.answer_index > 0 else ""
        if m.answer_index > 0:
            score, used, note = score_pair(
                ref, answer, scorer, embed=embed, model=model, max_score=max_score, usage=usage
            )
        if note:
            all_notes.append(f"reference point {i}: {note}")
        alignment.append(PointAlignment(
            ref_index=i, ref_point=ref, answer_index=m.answer_index, answer_point=answer,
            similarity=m.similarity, numbers_agree=m.numbers_agree, score=score, matched_by=m.matched_by,
            scored_by=used,
        ))
    a = [p.answer_index for p in alignment]
    scores = ems_scores([p.score for p in alignment], a, len(answer_points))
    matcher = "model" if model is not None and answer_points else ("embedding" if embed is not None else "lexical")
    return EMSResult(
        recall=scores.recall, precision=scores.precision, f1=scores.f1, matches=a, ref_points=list(ref_points),
        answer_points=list(answer_points), ref_scores=[p.score for p in alignment],
        answer_scores=scores.answer_scores, alignment=alignment, extractor=extractor, matcher=matcher,
        scorer=scorer if model is not None or scorer != "model" else "rouge", notes=list(dict.fromkeys(all_notes)),
    )


def evaluate_ems(
    answer: str, reference: str, *, scorer: ScorerName = "rouge", embed: Embed | None = None,
    model: BaseChatModel | None = None, match_threshold: float | None = None, max_score: int = DEFAULT_MAX_SCORE,
    usage: UsageLog | None = None,
) -> EMSResult:
    """EMS of a long answer against a long reference: extract, match, score, aggregate (paper section 2)."""
    if scorer == "embedding" and embed is None:
        raise ValueError("the embedding scorer needs an embed function")
    ref_points, ref_source, ref_note = extract_points(reference, model, usage)
    ans_points, ans_source, ans_note = extract_points(answer, model, usage)
    notes = [f"reference: {ref_note}"] if ref_note else []
    notes += [f"answer: {ans_note}"] if ans_note else []
    extractor = ref_source if ref_source == ans_source else f"{ref_source} (reference), {ans_source} (answer)"
    return evaluate_points(
        ref_points, ans_points, scorer=scorer, embed=embed, model=model, match_threshold=match_threshold,
        max_score=max_score, usage=usage, extractor=extractor, notes=notes,
    )
