"""``finrag eval names`` measures the packaged embedding model as a reader of metric names, offline."""

from __future__ import annotations

from pathlib import Path

from agent.config import Settings
from evals.names_bench import metric_names, render, run_names_bench


def test_each_name_is_held_out_and_scored_per_threshold(tmp_path: Path) -> None:
    names = metric_names(limit=12)
    assert len({m for _, m in names}) == 12
    rows = run_names_bench(Settings.from_env(home=tmp_path), limit=12, thresholds=(0.0, 0.8, 0.99))
    assert [r.threshold for r in rows] == [0.0, 0.8, 0.99]
    assert rows[0].answered == rows[0].names == len(names)  # at 0 every name is answered
    assert rows[0].answered >= rows[1].answered >= rows[2].answered  # a stricter threshold answers fewer
    assert all(0 <= r.right <= r.answered and 0.0 <= r.precision <= 1.0 for r in rows)
    # the lexicon's names are far from random to the model: most are read as their own metric
    assert rows[0].precision > 0.5
    assert "| 0.80 |" in render(rows)
