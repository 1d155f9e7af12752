"""The packaged fresh set (`finrag eval answers --dataset fresh`): 355 questions on twenty-one more typeset filings
of twenty-one other companies, in one index; it loads with its classes and sources, and its questions are asked and scored
the way the analyst set's are (a trap's refusal is right)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import Settings
from evals.metrics.answers import is_refusal
from evals.runner import FRESH_DIR, fresh_set, load_eval_set, run_answers, summarise

pytestmark = pytest.mark.usefixtures("no_yfinance")


def test_the_set_names_its_classes_and_filings() -> None:
    eval_set = fresh_set()
    assert len(eval_set.items) == 355 and len({i.id for i in eval_set.items}) == 355
    assert sorted(eval_set.sources) == [
        "ADVENTUREWORKS_2025Q2_PR", "BLUEYONDER_2024_10K", "CITYPOWER_2024_10K", "COHO_2025Q2_PR",
        "CONTOSOENERGY_2024_20F", "FABRIKAMPACK_2025Q2_PR", "FOURTHCOFFEE_2024_10K", "HUMONGOUS_2024_10K",
        "LAMNA_2025Q3_PR", "LUCERNE_2024_10K", "MARGIES_2024_10K", "PROSEWARE_2025Q3_PR", "QUILLON_2025Q3_10Q", "RELECLOUD_2025Q2_10Q",
        "SANDPIPER_2025Q2_PR", "SOUTHRIDGE_2024_10K", "TASMANIAN_2026Q3_10Q", "TREY_2025Q1_10Q", "VANARSDEL_2025Q2_10Q",
        "WIDEWORLD_2025Q2_10Q", "WOODGROVE_2025Q3_10Q"]
    traps = [i for i in eval_set.items if i.question_type.startswith("trap")]
    assert len(traps) == 38 and all(is_refusal(i.gold) for i in traps)
    assert {i.conversation for i in eval_set.items if i.conversation} == {
        "fc-thread", "rl-thread", "hm-thread", "ww-thread", "mt-thread", "va-thread", "lu-thread", "ts-thread",
        "sr-thread", "co-thread", "ta-thread", "cp-thread", "wg-thread", "aw-thread"}


def test_its_first_questions_are_answered_over_its_own_filings(tmp_path: Path) -> None:
    settings = Settings.from_env(home=tmp_path / "home")
    eval_set = load_eval_set(settings, None, "fresh", limit=25)
    assert Path(eval_set.data_dir) == FRESH_DIR
    record = run_answers(settings, eval_set, progress=False, log=lambda _line: None)
    summary = summarise(record)
    assert summary.n == 25 and summary.errors == 0
    wrong = [r.id for r in record.results if not r.scores.correct and not is_refusal(r.prediction)]
    assert not wrong, wrong  # a figure stated is the right one; a miss is an honest refusal
    assert sum(r.scores.correct for r in record.results) >= 22
