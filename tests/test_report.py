"""Reports from run directories: Markdown tables, the four PNG charts, run-to-run flips and regression gates.

The runs are hand-made records (no graph): two systems over the same four questions of two types.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.errors import FinragError
from evals.cost import question_cost
from evals.report import CHARTS, Gate, build_report, check_gates, flips, load_runs, parse_gate
from evals.runner import AnswerScores, QuestionResult, RunInfo, RunRecord, summarise, write_run

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
QUESTIONS = [("q1", "metrics-generated"), ("q2", "metrics-generated"), ("q3", "novel-generated"),
             ("q4", "novel-generated")]


def make_run(name: str, correct: dict[str, bool], latency: float) -> RunRecord:
    results = []
    for i, (qid, qtype) in enumerate(QUESTIONS):
        ok = correct[qid]
        seconds = latency * (i + 1)
        results.append(QuestionResult(
            id=qid, dataset="financebench", question_type=qtype, question=f"question {qid}?", gold="$437",
            prediction="$437 [DOC, p. 7]" if ok else "Not found in the filings.",
            scores=AnswerScores(correct=ok, match_kind="numeric" if ok else "refusal", token_f1=1.0 if ok else 0.0,
                                refusal=not ok),
            latency_s=seconds, timings={"answer": seconds / 2, "total": seconds},
            cost=question_cost(qid, {"answer": seconds / 2, "total": seconds}, {}),
            failure="" if ok else "answered 'not found'",
        ))
    info = RunInfo(name=name, dataset="financebench", created="2025-01-01T00:00:00+00:00", wall_s=latency * 10)
    return RunRecord(info=info, results=results)


@pytest.fixture
def run_dirs(tmp_path: Path) -> list[Path]:
    base = make_run("baseline", {"q1": True, "q2": False, "q3": True, "q4": False}, latency=0.5)
    new = make_run("candidate", {"q1": True, "q2": True, "q3": False, "q4": True}, latency=0.2)
    dirs = [tmp_path / "base", tmp_path / "new"]
    write_run(base, dirs[0])
    write_run(new, dirs[1])
    return dirs


def test_report_has_tables_charts_and_comparison(run_dirs: list[Path], tmp_path: Path) -> None:
    report = build_report(run_dirs, tmp_path / "report")
    assert [c.name for c in report.charts] == list(CHARTS)
    for chart in report.charts:
        assert chart.read_bytes()[:8] == PNG_MAGIC and chart.stat().st_size > 5_000
    md = report.markdown.read_text(encoding="utf-8")
    assert "| baseline | 50.0% (2/4) |" in md and "| candidate | 75.0% (3/4) |" in md
    assert "| metrics-generated | 50.0% (1/2) | 100.0% (2/2) |" in md
    assert "| novel-generated | 50.0% (1/2) | 50.0% (1/2) |" in md
    # run to run: q2 and q4 fixed, q3 broken; accuracy +25 points; p50 from 1.25 s to 0.5 s
    assert "| candidate | 4 | +25.0% | 2 | 1 | -0.750 |" in md
    assert "Broken in candidate: `q3`" in md
    for chart in CHARTS:
        assert f"]({chart})" in md
    assert report.passed and not report.gates


def test_flips_count_questions_both_runs_scored() -> None:
    base = make_run("a", {"q1": True, "q2": False, "q3": True, "q4": False}, 1.0)
    new = make_run("b", {"q1": False, "q2": True, "q3": True, "q4": False}, 1.0)
    new.results = new.results[:3]
    change = flips(base, new, "b")
    assert (change.shared, change.fixed, change.broken) == (3, ["q2"], ["q1"])


def test_gates_check_the_last_run(run_dirs: list[Path], tmp_path: Path) -> None:
    report = build_report(run_dirs, tmp_path / "r1", [parse_gate("accuracy=0.7", "under"),
                                                     parse_gate("latency_p50_s=1.0", "over")])
    assert report.passed and [g.value for g in report.gates] == [0.75, pytest.approx(0.5)]
    report = build_report(run_dirs, tmp_path / "r2", [parse_gate("accuracy:novel-generated=0.6", "under")])
    assert not report.passed and report.gates[0].value == 0.5
    assert "**FAIL**" in report.markdown.read_text(encoding="utf-8")
    summary = load_runs(run_dirs[:1])[0].summary
    assert not check_gates(summary, [Gate(metric="refusal_rate", threshold=0.25, direction="over")])[0].passed


def test_bad_gates_and_inputs_are_clear_errors(run_dirs: list[Path], tmp_path: Path) -> None:
    for text in ("accuracy", "accuracy=high", "=0.5"):
        with pytest.raises(FinragError, match="METRIC=VALUE"):
            parse_gate(text, "under")
    summary = summarise(load_runs(run_dirs)[0].record)
    with pytest.raises(FinragError, match=r"unknown metric 'acc'.*accuracy"):
        check_gates(summary, [Gate(metric="acc", threshold=0.5, direction="under")])
    with pytest.raises(FinragError, match="not a run directory"):
        build_report([tmp_path / "nowhere"], tmp_path / "out")
    with pytest.raises(FinragError, match="at least one"):
        load_runs([])


def test_runs_with_one_name_get_distinct_labels(run_dirs: list[Path], tmp_path: Path) -> None:
    twin = tmp_path / "again"
    write_run(make_run("baseline", {q: True for q, _ in QUESTIONS}, 0.1), twin)
    labels = [r.label for r in load_runs([run_dirs[0], twin])]
    assert labels == ["baseline (base)", "baseline (again)"]
