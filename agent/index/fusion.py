"""Combine rankings from several retrieval paths (BM25, dense, metadata, HyDE) into one.

Reciprocal rank fusion (Cormack, Clarke and Buettcher, 2009) needs no score calibration between paths:
an item at 1-based rank ``r`` in a path contributes ``weight / (k + r)``, and contributions add up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

DEFAULT_RRF_K = 60  # Cormack et al.'s constant; Settings.rrf_k carries the configured value
PATH_DEPTH_MIN = 50  # each path ranks at least this many before fusion, so near-misses of one path can be lifted


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[str]],
    k: int = DEFAULT_RRF_K,
    weights: Mapping[str, float] | None = None,
) -> list[tuple[str, float]]:
    """Fuse ranked lists of ids into one list of ``(id, score)``, best first.

    ``rankings`` maps a path name to its ids, best first. An id's score is the sum over paths of
    ``weights[path] / (k + rank)`` with 1-based ranks (weight 1.0 for paths missing from ``weights``).
    A repeated id within one path counts only at its best rank. Ties are broken by the best rank the id
    reached in any path, then by the id itself, so the order is fully deterministic.
    """
    if k < 0:
        raise ValueError(f"RRF constant k must be >= 0, got {k}")
    weights = weights or {}
    scores: dict[str, float] = {}
    best_rank: dict[str, int] = {}
    for path, ids in rankings.items():
        weight = float(weights.get(path, 1.0))
        seen: set[str] = set()
        for rank, item in enumerate(ids, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
            best_rank[item] = min(best_rank.get(item, rank), rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], best_rank[kv[0]], kv[0]))


def min_max_normalise(scores: Mapping[str, float]) -> dict[str, float]:
    """Rescale scores linearly to [0, 1] (best = 1). All-equal scores all become 1.0: none is worse."""
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    if high == low:
        return {key: 1.0 for key in scores}
    span = high - low
    return {key: (value - low) / span for key, value in scores.items()}
