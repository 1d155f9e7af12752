"""Group judges for FinCARDS Stage 2 (select finalists) and Stage 3 (rank a group listwise).

A judge sees one group of candidates at a time. Two implementations share one interface:

* :class:`OfflineJudge` (the offline twin): card-intent alignment (:func:`agent.retrieval.alignment.align`: metric,
  period, scope, evidence type, boilerplate) blended with the Stage 1 retrieval score, a statement prior (the
  chunk sits in the financial statement the question names or its metric lives in) and, when a cross-encoder
  ran, its score. Deterministic; microseconds per group once candidates are annotated.
* :class:`LLMJudge`: the FinCARDS batch-selection and listwise prompts over Chunk Cards through
  :func:`agent.llm.models.structured_call`. A reply that is invalid (unknown ids, wrong count, incomplete ranking) is
  retried once, then the offline judge answers that group and the result's ``note`` says so for the trace.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from agent.llm.models import UsageLog, structured_call
from agent.llm.prompts import listwise_messages, screening_messages
from agent.llm.schemas import ListwiseRanking, RankedChunk, ScreeningSelection, SelectedChunk
from agent.retrieval.alignment import align
from agent.retrieval.candidates import Candidate
from agent.retrieval.statements import chunk_statements, target_statements
from agent.schemas import ChunkCard, QueryIntent

# --- the offline blend (weights sum to 1 without a cross-encoder; CE_WEIGHT is taken from the others) -------
ALIGN_WEIGHT = 0.4  # FinCARDS: the card-intent rubric is the primary screening signal
RETRIEVAL_WEIGHT = 0.3  # Stage 1 agreement across paths still separates cards that align equally
SECTION_WEIGHT = 0.3  # statement prior: a cash-flow question's figures live in the cash flow statement
CE_WEIGHT = 0.3  # share given to a cross-encoder when one scored the candidates
NO_CARD_ALIGNMENT = 0.0  # a chunk without a card cannot show it matches anything
IMPLIED_STATEMENT_CREDIT = 0.5  # the statement is implied by the metric, not named by the question
SCREEN_KEEP_RATIO = 0.75  # offline selection keeps candidates within this share of the group's best score
SCORE_SCALE = 100  # LLM relevance scores are 0-100
LISTWISE_COVERAGE_BONUS = 0.1  # listwise: covering every still-uncovered asked metric/period is worth this much
LISTWISE_PAGE_PENALTY = 0.05  # listwise: a second chunk from an already ranked page yields to other pages

class JudgeSelection(BaseModel):
    """Finalists of one Stage 2 group, best first, with relevance in [0, 1]."""

    selected: list[str]
    scores: dict[str, float] = Field(default_factory=dict)
    reasons: dict[str, list[str]] = Field(default_factory=dict)
    source: str = Field(default="offline", description="llm | offline")
    note: str = Field(default="", description="why the offline judge answered instead of the model, if it did")


class JudgeRanking(BaseModel):
    """A complete order of one Stage 3 group, best first."""

    order: list[str]
    source: str = "offline"
    note: str = ""


class GroupJudge(Protocol):
    """What Stage 2 and Stage 3 need from a judge."""

    name: str

    def select(
        self, question: str, intent: QueryIntent, group: Sequence[Candidate], keep_min: int, keep_max: int,
        quotas: Sequence[str] = (),
    ) -> JudgeSelection: ...

    def rank(self, question: str, intent: QueryIntent, group: Sequence[Candidate]) -> JudgeRanking: ...


# ---------------------------------------------------------------------------------------------------------
# Annotation: alignment, statement prior and the blended offline score, once per candidate
# ---------------------------------------------------------------------------------------------------------
def section_prior(candidate: Candidate, named: set[str], implied: set[str]) -> tuple[float, str]:
    """1 when the chunk's section is a statement the question names, partial when one its metric implies."""
    if not named and not implied:
        return 0.0, ""
    found = chunk_statements(candidate.chunk)
    if found & named:
        return 1.0, f"section matched: {', '.join(sorted(found & named))}"
    if found & implied:
        return IMPLIED_STATEMENT_CREDIT, f"section fits the metric: {', '.join(sorted(found & implied))}"
    return 0.0, ""


def annotate(candidates: Sequence[Candidate], intent: QueryIntent, use_cards: bool = True) -> None:
    """Set alignment, statement prior, matched reasons and the offline judge score on each candidate."""
    named, implied = target_statements(intent)
    ce = [c.ce_score for c in candidates if c.ce_score is not None]
    ce_low, ce_high = (min(ce), max(ce)) if ce else (0.0, 0.0)
    for c in candidates:
        reasons: list[str] = []
        if use_cards:
            if c.card is not None:
                result = align(c.card, intent)
                c.alignment = result.score
                reasons += result.matched
            else:
                c.alignment = NO_CARD_ALIGNMENT
                reasons.append("no card")
        prior, why = section_prior(c, named, implied)
        c.section_prior = prior
        if why:
            reasons.append(why)
        c.matched = reasons
        parts = [(RETRIEVAL_WEIGHT, c.retrieval_norm), (SECTION_WEIGHT, prior)]
        if use_cards:
            parts.append((ALIGN_WEIGHT, c.alignment or 0.0))
        score = sum(w * v for w, v in parts) / sum(w for w, _ in parts)
        if c.ce_score is not None:
            ce_norm = (c.ce_score - ce_low) / (ce_high - ce_low) if ce_high > ce_low else 1.0
            score = (1.0 - CE_WEIGHT) * score + CE_WEIGHT * ce_norm
        c.judge_score = round(score, 6)


def _by_judge(group: Sequence[Candidate]) -> list[Candidate]:
    """Best first by the offline score; ties by Stage 1 rank (bundled chunks after ranked ones), then id."""
    return sorted(group, key=lambda c: (-c.judge_score, c.stage1_rank or 10**9, c.chunk_id))


def _fields(candidate: Candidate) -> set[tuple[str, str]]:
    card = candidate.card
    if card is None:
        return set()
    return {("metric", m) for m in card.metrics} | {("period", p) for p in card.periods}


def _listwise_gain(c: Candidate, asked: set[tuple[str, str]], covered: set[tuple[str, str]],
                   pages: set[tuple[str, int]]) -> float:
    new = (asked & _fields(c)) - covered
    bonus = LISTWISE_COVERAGE_BONUS * len(new) / len(asked) if asked else 0.0
    repeat = LISTWISE_PAGE_PENALTY if (c.chunk.doc_id, c.chunk.page) in pages else 0.0
    return c.judge_score + bonus - repeat


def coverage_order(group: Sequence[Candidate], intent: QueryIntent) -> list[Candidate]:
    """Greedy listwise order: blended score + coverage gain - same-page redundancy (ties: _by_judge order)."""
    asked = {("metric", m) for m in intent.metrics} | {("period", p) for p in intent.temporal_scope.periods}
    remaining = _by_judge(group)
    covered: set[tuple[str, str]] = set()
    pages: set[tuple[str, int]] = set()
    out: list[Candidate] = []
    while remaining:
        gains = [_listwise_gain(c, asked, covered, pages) for c in remaining]
        best = remaining.pop(gains.index(max(gains)))  # the first of equals: _by_judge order breaks ties
        out.append(best)
        covered |= asked & _fields(best)
        pages.add((best.chunk.doc_id, best.chunk.page))
    return out


# ---------------------------------------------------------------------------------------------------------
# Offline judge
# ---------------------------------------------------------------------------------------------------------
class OfflineJudge:
    """The offline twin: ranks by the blended score :func:`annotate` set on each candidate."""

    name = "offline"

    def select(
        self, question: str, intent: QueryIntent, group: Sequence[Candidate], keep_min: int, keep_max: int,
        quotas: Sequence[str] = (),
    ) -> JudgeSelection:
        """Keep the candidates within SCREEN_KEEP_RATIO of the best score, at least keep_min, at most keep_max."""
        ordered = _by_judge(group)
        if not ordered:
            return JudgeSelection(selected=[])
        best = ordered[0].judge_score
        close = sum(1 for c in ordered if c.judge_score >= SCREEN_KEEP_RATIO * best)
        n = min(max(close, keep_min), keep_max, len(ordered))
        kept = ordered[:n]
        return JudgeSelection(
            selected=[c.chunk_id for c in kept],
            scores={c.chunk_id: c.judge_score for c in kept},
            reasons={c.chunk_id: list(c.matched) for c in kept},
        )

    def rank(self, question: str, intent: QueryIntent, group: Sequence[Candidate]) -> JudgeRanking:
        """A listwise order: greedily the best blended score, plus a bonus for covering an asked metric or period
        the chunks above it do not, minus a penalty for repeating a page already ranked (so the top of a group
        holds complementary evidence: the income statement and the balance sheet a ratio needs)."""
        return JudgeRanking(order=[c.chunk_id for c in coverage_order(group, intent)])


# ---------------------------------------------------------------------------------------------------------
# Language-model judge
# ---------------------------------------------------------------------------------------------------------
def card_for(candidate: Candidate) -> ChunkCard:
    """The candidate's card; a bare one built from the chunk when the store has none."""
    if candidate.card is not None:
        return candidate.card
    chunk = candidate.chunk
    return ChunkCard(chunk_id=chunk.chunk_id, section_path=chunk.section_path, is_table=chunk.is_table,
                     summary=" ".join(chunk.text.split())[:200])


class LLMJudge:
    """FinCARDS prompts over cards; the offline judge answers a group whose reply is invalid twice."""

    name = "llm"

    def __init__(self, model: BaseChatModel, usage: UsageLog | None = None, fallback: OfflineJudge | None = None) -> None:
        self.model = model
        self.usage = usage
        self.fallback = fallback or OfflineJudge()

    def select(
        self, question: str, intent: QueryIntent, group: Sequence[Candidate], keep_min: int, keep_max: int,
        quotas: Sequence[str] = (),
    ) -> JudgeSelection:
        """Ask the model for keep_min..keep_max finalists; validate ids and count."""
        ids = [c.chunk_id for c in group]
        lo, hi = min(keep_min, len(ids)), min(keep_max, len(ids))
        offline = self.fallback.select(question, intent, group, keep_min, keep_max, quotas)

        def check(out: ScreeningSelection) -> str | None:
            chosen = [s.chunk_id for s in out.selected_chunks]
            unknown = [c for c in chosen if c not in ids]
            if unknown:
                return f"selected_chunks names chunk ids not in the group: {', '.join(unknown[:3])}"
            if not lo <= len(chosen) <= hi:
                return f"select between {lo} and {hi} chunks; got {len(chosen)}"
            return None

        def twin() -> ScreeningSelection:
            return ScreeningSelection(selected_chunks=[
                SelectedChunk(chunk_id=cid, selection_reasons=offline.reasons.get(cid, [])[:3],
                              relevance_score=round(offline.scores.get(cid, 0.0) * SCORE_SCALE))
                for cid in offline.selected
            ])

        result = structured_call(
            self.model, ScreeningSelection,
            screening_messages(question, intent, [card_for(c) for c in group], lo, hi, quotas),
            fallback=twin, step="screening", usage=self.usage, check=check,
        )
        if result.source == "offline":
            return offline.model_copy(update={"note": _fallback_note("screening", result.reason)})
        chosen = result.value.selected_chunks
        return JudgeSelection(
            selected=[s.chunk_id for s in chosen],
            scores={s.chunk_id: s.relevance_score / SCORE_SCALE for s in chosen},
            reasons={s.chunk_id: list(s.selection_reasons) for s in chosen},
            source="llm",
        )

    def rank(self, question: str, intent: QueryIntent, group: Sequence[Candidate]) -> JudgeRanking:
        """Ask the model for a complete listwise order of the group; validate it is a permutation."""
        ids = [c.chunk_id for c in group]
        offline = self.fallback.rank(question, intent, group)

        def check(out: ListwiseRanking) -> str | None:
            got = out.ordered_ids()
            if sorted(got) != sorted(ids):
                missing = [c for c in ids if c not in got]
                extra = [c for c in got if c not in ids]
                return (f"rank every chunk of the group exactly once; missing: {', '.join(missing[:3]) or '-'}; "
                        f"unknown: {', '.join(extra[:3]) or '-'}")
            return None

        def twin() -> ListwiseRanking:
            return ListwiseRanking(ranked_chunks=[RankedChunk(chunk_id=cid, rank=i) for i, cid in
                                                  enumerate(offline.order, 1)])

        result = structured_call(
            self.model, ListwiseRanking, listwise_messages(question, intent, [card_for(c) for c in group]),
            fallback=twin, step="listwise", usage=self.usage, check=check,
        )
        if result.source == "offline":
            return offline.model_copy(update={"note": _fallback_note("listwise ranking", result.reason)})
        return JudgeRanking(order=result.value.ordered_ids(), source="llm")


def _fallback_note(step: str, reason: str) -> str:
    return f"{step}: model output invalid twice ({reason}); offline judge used"
