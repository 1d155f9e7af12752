"""The packaged analyst set (`finrag eval answers --dataset analyst`): its questions load with their classes and
answers, its typeset filings ingest into a bench home of their own, and every question is asked and scored, a
trap's refusal as right and any figure stated for it as wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import Settings
from evals.metrics.answers import is_refusal
from evals.runner import ANALYST_DIR, analyst_set, load_eval_set, run_answers, summarise

pytestmark = pytest.mark.usefixtures("no_yfinance")


def test_the_set_names_its_classes_and_filings() -> None:
    eval_set = analyst_set()
    assert len(eval_set.items) == 144 and len({i.id for i in eval_set.items}) == 144
    assert sorted(eval_set.sources) == [
        "ADATUM_2024_10K", "ALPINE_2025Q2_10Q", "BOREAL_2024Q4_PR", "CONTOSO_2025Q2_10Q", "FABRIKAM_2025Q2_8K",
        "LITWARE_2024_10K", "NORTHWIND_2024_20F", "TAILSPIN_2025Q1_PR", "WINGTIP_2025Q2_10Q", "WOODGROVE_2025Q1_10Q"]
    traps = [i for i in eval_set.items if i.question_type.startswith("trap")]
    assert traps and all(is_refusal(i.gold) for i in traps)
    assert all(i.gold and not is_refusal(i.gold) for i in eval_set.items if i not in traps)
    threads = {i.conversation for i in eval_set.items if i.conversation}
    assert threads == {"adatum-thread", "wingtip-thread", "contoso-thread", "litware-thread", "tspn", "alpine"}


def test_every_question_is_asked_over_its_own_filings(tmp_path: Path) -> None:
    settings = Settings.from_env(home=tmp_path / "home")
    eval_set = load_eval_set(settings, None, "analyst")
    assert Path(eval_set.data_dir) == ANALYST_DIR
    record = run_answers(settings, eval_set, progress=False, log=lambda _line: None)
    summary = summarise(record)
    assert summary.n == 144 and summary.errors == 0
    assert set(summary.by_question_type) >= {"segment", "fiscal calendar", "follow-up", "trap: competitor"}
    for result in record.results:  # scored as the set says: a trap is right only when refused
        if result.question_type.startswith("trap"):
            assert result.scores.correct == is_refusal(result.prediction), result.prediction
    assert (settings.home / "bench").is_dir()  # not the user's own index
