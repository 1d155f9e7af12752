"""Would sentence embeddings name a metric the lexicon does not know? A held-out test of the packaged MiniLM.

Issue 28 asks whether similarity could replace the lexicon's phrase lists for names of metrics. This measures it on
the one labelled set of metric names we have, the lexicon itself: each name of each metric is held out in turn, and
the nearest of every other metric's names and its own remaining names (cosine of the packaged all-MiniLM-L6-v2
embeddings) names the metric it is read as. Reported per similarity threshold: how many held-out names the matcher
would answer (coverage) and how many of those it names right (precision), plus the closest wrong readings. A name
is never compared with itself or its plural; abbreviations are left out (their letters carry no meaning to the
model).
"""

from __future__ import annotations

import re

import numpy as np
from pydantic import BaseModel, Field

from agent.config import Settings
from agent.finance.metrics import METRICS

THRESHOLDS = (0.0, 0.6, 0.7, 0.8, 0.9)  # 0.0: always answer (top-1 accuracy)
SHOWN_CONFUSIONS = 12  # closest wrong readings listed in the report


class NamesBenchRow(BaseModel):
    """The matcher at one similarity threshold."""

    threshold: float
    names: int = Field(description="held-out names")
    answered: int = Field(description="names whose nearest other name is at least this similar")
    right: int = Field(description="answered names read as their own metric")
    coverage: float
    precision: float
    confusions: list[str] = Field(default_factory=list, description="closest wrong readings (threshold 0 only)")


def metric_names(limit: int | None = None) -> list[tuple[str, str]]:
    """(name as normalised words, metric) for every name of every metric the lexicon counts or measures."""
    out: dict[str, str] = {}
    metrics = [d for d in METRICS.values() if d.kind == "metric"][:limit]
    for d in metrics:
        for name in [d.canonical, *d.synonyms]:
            out.setdefault(" ".join(re.findall(r"[a-z0-9&]+", name.lower())), d.canonical)
    return list(out.items())


def _same_name(a: str, b: str) -> bool:
    return a == b or a + "s" == b or b + "s" == a


def run_names_bench(settings: Settings, limit: int | None = None,
                    thresholds: tuple[float, ...] = THRESHOLDS) -> list[NamesBenchRow]:
    """Leave-one-name-out nearest-name reading of every lexicon name (the first ``limit`` metrics only, for
    tests), scored at each of ``thresholds``."""
    from agent.index.embeddings import Embedder

    names = metric_names(limit)
    vectors = Embedder(settings).encode([n for n, _ in names])
    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    sims = vectors @ vectors.T
    best: list[tuple[float, str, str, str]] = []  # (similarity, held-out name, its metric, metric read)
    for i, (name, metric) in enumerate(names):
        order = np.argsort(-sims[i])
        j = next((int(j) for j in order if not _same_name(names[int(j)][0], name)), None)
        if j is not None:
            best.append((float(sims[i, j]), name, metric, names[j][1]))
    wrong = sorted((b for b in best if b[2] != b[3]), reverse=True)
    rows = []
    for t in thresholds:
        answered = [b for b in best if b[0] >= t]
        right = sum(b[2] == b[3] for b in answered)
        rows.append(NamesBenchRow(
            threshold=t, names=len(best), answered=len(answered), right=right,
            coverage=len(answered) / max(1, len(best)), precision=right / max(1, len(answered)),
            confusions=[f"'{n}' ({m}) read as {r}, {s:.2f}" for s, n, m, r in wrong[:SHOWN_CONFUSIONS]] if t == 0.0
            else [],
        ))
    return rows


def render(rows: list[NamesBenchRow]) -> str:
    """A Markdown table, then the closest wrong readings."""
    lines = ["| similarity at least | answered | coverage | right | precision |", "|---|---|---|---|---|"]
    lines += [f"| {r.threshold:.2f} | {r.answered} of {r.names} | {r.coverage:.1%} | {r.right} | {r.precision:.1%} |"
              for r in rows]
    confusions = next((r.confusions for r in rows if r.confusions), [])
    if confusions:
        lines += ["", "Closest wrong readings:", *(f"- {c}" for c in confusions)]
    return "\n".join(lines)
