"""FinCARDS Stage 3: bootstrap listwise ranking, aggregated by normalised Borda, with early stopping.

Each round reshuffles the Stage 2 finalists with a seed derived from ``settings.seed`` and the round number,
deals them into groups (size ``n`` if ``n <= 15``, ``max(15, n // 2)`` if ``n <= 50``, else 25), has the judge
rank every group completely, and scores position ``r`` (1-based) in a group of ``g`` as ``(g - r) / (g - 1)``.
Scores accumulate over rounds; after each round from the second on, the accumulated top set (``bootstrap_top``,
25) is compared with the previous round's and the rounds stop when their Jaccard similarity reaches
``bootstrap_jaccard_stop`` (0.9). Per chunk the trace keeps its rank in every round, the variance of its
normalised in-group rank, and how often it made a round's top 5.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel, Field

from agent.config import Settings
from agent.retrieval.candidates import Candidate
from agent.retrieval.judges import GroupJudge
from agent.retrieval.trace import ChunkStability, RoundTrace
from agent.schemas import QueryIntent

T = TypeVar("T")

SMALL_SET = 15  # up to this many finalists are ranked as one group
MEDIUM_SET = 50  # up to this many are split in two groups of at least SMALL_SET
LARGE_GROUP = 25  # beyond that, groups of 25 (the screening group size)
TOP_FREQUENCY_K = 5  # "top-5 frequency" in the trace
ROUND_SEED_STRIDE = 1000  # round r of seed s shuffles with s * 1000 + r: rounds differ, runs repeat


class BootstrapResult(BaseModel):
    """Stage 3's output: candidates by accumulated Borda score, rounds and stability."""

    candidates: list[Candidate]
    rounds: list[RoundTrace] = Field(default_factory=list)
    stability: list[ChunkStability] = Field(default_factory=list)
    stopped_early: bool = False
    notes: list[str] = Field(default_factory=list)


# ---------------------------------------------------------------------------------------------------------
# Pure building blocks
# ---------------------------------------------------------------------------------------------------------
def bootstrap_group_size(n: int) -> int:
    """Group size for ``n`` finalists: n if n <= 15, max(15, n // 2) if n <= 50, else 25."""
    if n <= SMALL_SET:
        return max(n, 1)
    if n <= MEDIUM_SET:
        return max(SMALL_SET, n // 2)
    return LARGE_GROUP


def borda(rank: int, group_size: int) -> float:
    """Normalised Borda score of 1-based ``rank`` in a group of ``group_size``: (g - rank) / (g - 1); 1 alone."""
    if not 1 <= rank <= group_size:
        raise ValueError(f"rank {rank} outside 1..{group_size}")
    if group_size == 1:
        return 1.0
    return (group_size - rank) / (group_size - 1)


def group_borda(order: Sequence[str]) -> dict[str, float]:
    """Borda scores of one complete group ranking (best first)."""
    g = len(order)
    return {cid: borda(r, g) for r, cid in enumerate(order, 1)}


def jaccard(a: Sequence[str], b: Sequence[str]) -> float:
    """|A & B| / |A | B| of two id collections (two empty sets are identical: 1.0)."""
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


def shuffled_groups(items: Sequence[T], group_size: int, seed: int) -> list[list[T]]:
    """Shuffle with ``seed``, then deal into ``ceil(n / group_size)`` groups whose sizes differ by at most one."""
    pool = list(items)
    random.Random(seed).shuffle(pool)
    if not pool:
        return []
    n_groups = math.ceil(len(pool) / group_size)
    groups: list[list[T]] = [[] for _ in range(n_groups)]
    for i, item in enumerate(pool):
        groups[i % n_groups].append(item)
    return groups


def accumulated_order(totals: dict[str, float], tiebreak: dict[str, float]) -> list[str]:
    """Ids by accumulated score, ties by the tie-break score (higher first), then id."""
    return sorted(totals, key=lambda cid: (-totals[cid], -tiebreak.get(cid, 0.0), cid))


def stability(positions: dict[str, list[float]], top_hits: dict[str, int], rounds: int) -> list[ChunkStability]:
    """Per chunk: population variance of its normalised in-group rank, share of rounds in the top 5."""
    out = []
    for cid, xs in positions.items():
        mean = sum(xs) / len(xs)
        var = sum((x - mean) ** 2 for x in xs) / len(xs)
        out.append(ChunkStability(chunk_id=cid, rank_variance=round(var, 6),
                                  top5_frequency=round(top_hits.get(cid, 0) / rounds, 4) if rounds else 0.0,
                                  rounds=len(xs)))
    return out


# ---------------------------------------------------------------------------------------------------------
# The stage
# ---------------------------------------------------------------------------------------------------------
def bootstrap_rank(
    question: str, intent: QueryIntent, candidates: list[Candidate], judge: GroupJudge, settings: Settings
) -> BootstrapResult:
    """Up to ``bootstrap_rounds`` seeded rounds of grouped listwise ranking, aggregated by normalised Borda."""
    if not candidates:
        return BootstrapResult(candidates=[])
    by_id = {c.chunk_id: c for c in candidates}
    ids = [c.chunk_id for c in candidates]
    size = bootstrap_group_size(len(ids))
    # Ties (equal Borda totals) fall back to Stage 2's judgement, so an undecided pair keeps its screened order.
    tiebreak = {c.chunk_id: c.screen_score or c.judge_score for c in candidates}
    totals = dict.fromkeys(ids, 0.0)
    positions: dict[str, list[float]] = {cid: [] for cid in ids}
    top_hits: dict[str, int] = {}
    rounds: list[RoundTrace] = []
    notes: list[str] = []
    previous_top: list[str] | None = None
    stopped = False
    for r in range(1, settings.bootstrap_rounds + 1):
        groups = shuffled_groups(ids, size, settings.seed * ROUND_SEED_STRIDE + r)
        ranks: dict[str, int] = {}
        round_scores: dict[str, float] = {}
        ordered_groups: list[list[str]] = []
        sources: set[str] = set()
        for gi, group in enumerate(groups, 1):
            result = judge.rank(question, intent, [by_id[cid] for cid in group])
            sources.add(result.source)
            if result.note:
                notes.append(f"round {r} group {gi}: {result.note}")
            ordered_groups.append(result.order)
            g = len(result.order)
            for rank, cid in enumerate(result.order, 1):
                ranks[cid] = rank
                round_scores[cid] = borda(rank, g)
                positions[cid].append((rank - 1) / (g - 1) if g > 1 else 0.0)
        for cid, s in round_scores.items():
            totals[cid] += s
        round_order = sorted(round_scores, key=lambda cid: (-round_scores[cid], -totals[cid], cid))
        for cid in round_order[:TOP_FREQUENCY_K]:
            top_hits[cid] = top_hits.get(cid, 0) + 1
        order = accumulated_order(totals, tiebreak)
        top = order[: settings.bootstrap_top]
        jac = None if previous_top is None else round(jaccard(previous_top, top), 4)
        rounds.append(RoundTrace(round=r, groups=ordered_groups, ranks=ranks, top=top, jaccard=jac,
                                 judge=sources.pop() if len(sources) == 1 else "mixed"))
        if jac is not None and jac >= settings.bootstrap_jaccard_stop:
            stopped = r < settings.bootstrap_rounds
            if stopped:
                notes.append(f"stopped after round {r}: top-{settings.bootstrap_top} Jaccard {jac:.2f} >= "
                             f"{settings.bootstrap_jaccard_stop}")
            break
        previous_top = top
    played = len(rounds)
    ranked: list[Candidate] = []
    for cid in accumulated_order(totals, tiebreak):
        cand = by_id[cid]
        cand.borda = round(totals[cid] / played, 6)
        ranked.append(cand)
    stab = stability(positions, top_hits, played)
    order_index = {c.chunk_id: i for i, c in enumerate(ranked)}
    stab.sort(key=lambda s: order_index[s.chunk_id])
    return BootstrapResult(candidates=ranked, rounds=rounds, stability=stab, stopped_early=stopped, notes=notes)
