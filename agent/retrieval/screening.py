"""FinCARDS Stage 2: card-based screening in round-robin groups, with coverage quotas.

The Stage 1 candidates (best first) are dealt into ``G = ceil(n / group_size)`` groups, candidate ``i`` to group
``i mod G``, so every group mixes strong and weak candidates. The judge keeps 8-15 finalists per group; coverage
quotas guarantee that a trend question keeps a period-bearing table and a definition or policy question keeps an
explanatory chunk. Group selections are merged by union, a chunk seen twice keeps its best score (ties by Stage
1 rank), and at most ``screen_total_max`` (50) go on to Stage 3.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel, Field

from agent.config import Settings
from agent.retrieval.candidates import Candidate
from agent.retrieval.judges import GroupJudge, JudgeSelection
from agent.schemas import ClaimRole, EvidenceType, QueryIntent, Relation

T = TypeVar("T")

PERIOD_TABLE = "period_table"
EXPLANATORY = "explanatory"
_EXPLANATORY_TYPES = (EvidenceType.QUALITATIVE_EXPLANATION, EvidenceType.POLICY_TEXT)


class Quota(BaseModel):
    """A coverage constraint every selection must satisfy (FinCARDS 3.4.3)."""

    name: str = Field(description="period_table | explanatory")
    text: str = Field(description="the rule as the screening prompt states it")


class ScreeningResult(BaseModel):
    """Stage 2's output: the finalists best first, the groups and what happened."""

    candidates: list[Candidate]
    groups: list[list[str]] = Field(default_factory=list)
    quotas: list[Quota] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    judge_sources: list[str] = Field(default_factory=list, description="per group: llm | offline")


# ---------------------------------------------------------------------------------------------------------
# Pure building blocks
# ---------------------------------------------------------------------------------------------------------
def round_robin_groups(items: Sequence[T], group_size: int) -> list[list[T]]:
    """``ceil(n / group_size)`` groups; item ``i`` goes to group ``i mod G`` (order inside a group kept)."""
    if group_size < 1:
        raise ValueError(f"group size must be >= 1, got {group_size}")
    if not items:
        return []
    n_groups = math.ceil(len(items) / group_size)
    groups: list[list[T]] = [[] for _ in range(n_groups)]
    for i, item in enumerate(items):
        groups[i % n_groups].append(item)
    return groups


def coverage_quotas(intent: QueryIntent) -> list[Quota]:
    """Quotas a question needs: trend -> a period-bearing table; definition/policy -> an explanatory chunk."""
    quotas: list[Quota] = []
    if intent.relation == Relation.TREND:
        quotas.append(Quota(name=PERIOD_TABLE, text="keep at least one table chunk whose card has fiscal periods"))
    if intent.relation in (Relation.DEFINITION, Relation.POLICY):
        quotas.append(Quota(name=EXPLANATORY, text="keep at least one explanatory chunk (definition, policy or "
                                                   "qualitative explanation)"))
    return quotas


def satisfies(quota: Quota, candidate: Candidate) -> bool:
    """Whether a candidate meets a quota, judged on its card (its chunk when it has none)."""
    card = candidate.card
    if quota.name == PERIOD_TABLE:
        return bool(card is not None and card.is_table and card.periods)
    if quota.name == EXPLANATORY:
        return card is not None and (card.claim_role == ClaimRole.DEFINITION or card.evidence_type in _EXPLANATORY_TYPES)
    raise ValueError(f"unknown quota: {quota.name}")


def enforce_quotas(
    selected: list[str], pool: Sequence[Candidate], quotas: Sequence[Quota], keep_max: int
) -> tuple[list[str], list[str]]:
    """``selected`` with, for each unmet quota, the best pool candidate that meets it (pool is best first).

    When the selection is already ``keep_max`` long, the added chunk replaces the last selected one that no
    quota needs. Returns the new selection and a note per quota it had to enforce.
    """
    by_id = {c.chunk_id: c for c in pool}
    out = list(selected)
    notes: list[str] = []
    for quota in quotas:
        if any(satisfies(quota, by_id[cid]) for cid in out if cid in by_id):
            continue
        extra = next((c for c in pool if c.chunk_id not in out and satisfies(quota, c)), None)
        if extra is None:
            notes.append(f"quota '{quota.name}' unmet: no candidate in the group meets it")
            continue
        if len(out) >= keep_max:
            needed = {cid for cid in out if any(satisfies(q, by_id[cid]) for q in quotas if cid in by_id)}
            drop = next((cid for cid in reversed(out) if cid not in needed), None)
            if drop is not None:
                out.remove(drop)
        out.append(extra.chunk_id)
        notes.append(f"quota '{quota.name}' enforced: kept {extra.chunk_id}")
    return out, notes


def merge_selections(
    selections: Sequence[JudgeSelection], stage1_rank: dict[str, int], cap: int
) -> list[tuple[str, float]]:
    """Union of the groups' finalists; a repeated chunk keeps its best score; ties by Stage 1 rank; at most cap."""
    best: dict[str, float] = {}
    for sel in selections:
        for cid in sel.selected:
            score = sel.scores.get(cid, 0.0)
            if cid not in best or score > best[cid]:
                best[cid] = score
    ordered = sorted(best.items(), key=lambda kv: (-kv[1], stage1_rank.get(kv[0]) or 10**9, kv[0]))
    return ordered[:cap]


# ---------------------------------------------------------------------------------------------------------
# The stage
# ---------------------------------------------------------------------------------------------------------
def screen(
    question: str, intent: QueryIntent, candidates: list[Candidate], judge: GroupJudge, settings: Settings
) -> ScreeningResult:
    """Round-robin groups -> judge keeps 8-15 each -> quotas -> union/dedupe -> at most 50, best first."""
    quotas = coverage_quotas(intent)
    groups = round_robin_groups(candidates, settings.screen_group_size)
    selections: list[JudgeSelection] = []
    notes: list[str] = []
    sources: list[str] = []
    for i, group in enumerate(groups, 1):
        sel = judge.select(question, intent, group, settings.screen_keep_min, settings.screen_keep_max,
                           [q.text for q in quotas])
        pool = sorted(group, key=lambda c: -sel.scores.get(c.chunk_id, c.judge_score))
        ids, quota_notes = enforce_quotas(sel.selected, pool, quotas, settings.screen_keep_max)
        for cid in ids:
            if cid not in sel.scores:
                sel.scores[cid] = next(c.judge_score for c in group if c.chunk_id == cid)
        sel = sel.model_copy(update={"selected": ids})
        selections.append(sel)
        sources.append(sel.source)
        notes += [f"group {i}: {n}" for n in quota_notes]
        if sel.note:
            notes.append(f"group {i}: {sel.note}")
    by_id = {c.chunk_id: c for c in candidates}
    merged = merge_selections(selections, {c.chunk_id: c.stage1_rank for c in candidates}, settings.screen_total_max)
    kept_ids = [cid for cid, _ in merged]
    ordered_pool = sorted(candidates, key=lambda c: (-c.judge_score, c.stage1_rank or 10**9))
    final_ids, final_notes = enforce_quotas(kept_ids, ordered_pool, quotas, settings.screen_total_max)
    notes += [f"after merge: {n}" for n in final_notes if "enforced" in n]
    scores = dict(merged)
    kept: list[Candidate] = []
    for cid in final_ids:
        cand = by_id[cid]
        cand.screen_score = scores.get(cid, cand.judge_score)
        kept.append(cand)
    return ScreeningResult(
        candidates=kept,
        groups=[[c.chunk_id for c in g] for g in groups],
        quotas=quotas,
        notes=notes,
        judge_sources=sources,
    )
