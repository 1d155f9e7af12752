"""``finrag eval answers | run | report | export-langsmith | calibrate | ems`` end to end on the tiny findata
folder (TAT-QA: two questions over one table), offline."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from test_runner import write_findata

from cli.main import main


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("eval_cli")
    data = write_findata(root / "findata")
    labels = [
        {"question": "What were Northwind Instruments' capital expenditures in FY2024 (in USD millions)?",
         "gold_answer": "$437", "model_answer": "Capex was $437 million.", "human_label": "Correct Answer"},
        {"question": "What was Northwind Instruments' net income in FY2023?", "gold_answer": "$442 million",
         "model_answer": "Net income was $570 million.", "human_label": "Incorrect Answer"},
        {"question": "What was Northwind Instruments' net income in FY2023?", "gold_answer": "$442 million",
         "model_answer": "I cannot find this in the filing.", "human_label": "Refusal"},
    ]
    (data / "financebench" / "judge_labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in labels))
    return root / "home", data


@pytest.fixture(scope="module")
def runs(mini: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """One `eval answers` and one offline `eval run` over TAT-QA, sockets forbidden during the second."""
    home, data = mini
    out = tmp_path_factory.mktemp("eval_cli_runs")
    assert main(["--home", str(home), "eval", "answers", "--data", str(data), "--dataset", "tatqa", "--out",
                 str(out / "answers"), "--quiet", "--name", "answers"]) == 0
    attempts: list[str] = []
    with pytest.MonkeyPatch.context() as mp:
        def refuse(*args: Any, **kwargs: Any) -> Any:
            attempts.append(repr(args))  # recorded: a tracer callback would swallow the exception
            raise AssertionError("network access attempted")

        mp.setattr(socket.socket, "connect", refuse)
        mp.setattr(socket.socket, "connect_ex", refuse)
        mp.setattr(socket, "create_connection", refuse)
        mp.setattr(socket, "getaddrinfo", refuse)
        assert main(["--home", str(home), "eval", "run", "--data", str(data), "--dataset", "tatqa", "--out",
                     str(out / "run"), "--name", "langsmith"]) == 0
    assert attempts == []
    return out / "answers", out / "run"


def test_answers_and_run_write_the_same_kind_of_run_directory(runs: tuple[Path, Path]) -> None:
    for run_dir, runner in zip(runs, ("answers", "langsmith"), strict=True):
        assert {p.name for p in run_dir.iterdir()} == {"run.json", "results.jsonl", "summary.json", "summary.md"}
        info = json.loads((run_dir / "run.json").read_text())
        assert info["runner"] == runner and info["dataset"] == "tatqa" and info["scope"] == "document"
        summary = json.loads((run_dir / "summary.json").read_text())
        assert summary["n"] == 2 and set(summary["by_question_type"]) == {"span/table", "arithmetic/table"}
        assert summary["latency"]["n"] == 2
    answers = [json.loads(line) for line in (runs[0] / "results.jsonl").read_text().splitlines()]
    via_langsmith = [json.loads(line) for line in (runs[1] / "results.jsonl").read_text().splitlines()]
    assert [a["scores"]["correct"] for a in answers] == [b["scores"]["correct"] for b in via_langsmith]


def test_report_and_gates(runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = (str(p) for p in runs)
    out = tmp_path / "report"
    assert main(["eval", "report", a, b, "--out", str(out), "--fail-under", "accuracy=0.5"]) == 0
    printed = capsys.readouterr().out
    assert "gate accuracy >= 0.5" in printed and "pass" in printed
    assert (out / "report.md").is_file() and len(list(out.glob("*.png"))) == 4
    assert main(["eval", "report", a, b, "--out", str(out), "--fail-under", "accuracy=1.01"]) == 1
    assert "FAIL" in capsys.readouterr().out
    assert main(["eval", "report", a, "--out", str(out), "--fail-over", "latency_p50_s=0"]) == 1
    capsys.readouterr()
    assert main(["eval", "report", a, "--fail-under", "speed=1"]) == 1
    assert "unknown metric 'speed'" in capsys.readouterr().err
    assert not (Path(a) / "report").exists()  # a bad gate is refused before anything is written
    assert main(["eval", "report", a]) == 0
    assert (Path(a) / "report" / "report.md").is_file()  # default: beside the last run


def test_export_langsmith_writes_jsonl_without_a_key(mini: tuple[Path, Path], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    home, data = mini
    questions = tmp_path / "mine.jsonl"
    questions.write_text('{"question": "Capex 2024?", "answer": "$437 million"}\n')
    out = tmp_path / "ls"
    assert main(["--home", str(home), "eval", "export-langsmith", "--data", str(data), "--datasets",
                 "convfinqa,tatqa", "--questions", str(questions), "--out", str(out)]) == 0
    assert {p.name for p in out.iterdir()} == {"convfinqa.jsonl", "tatqa.jsonl", "questions.jsonl"}
    rows = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    assert rows == [{"inputs": {"id": "q1", "question": "Capex 2024?", "conversation": "", "turn": 0, "docs": []},
                     "outputs": {"answer": "$437 million"},
                     "metadata": {"dataset": "questions", "question_type": "all", "gold_pages": []}, "split": "dev"}]
    assert "not uploaded (no LANGSMITH_API_KEY)" in capsys.readouterr().out
    assert main(["eval", "export-langsmith", "--data", str(data), "--datasets", "fiqa"]) == 1
    assert "unknown dataset(s) fiqa" in capsys.readouterr().err


def test_calibrate_prints_the_agreement_table(mini: tuple[Path, Path], tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    _, data = mini
    assert main(["eval", "calibrate", "--data", str(data), "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    # the numeric matcher agrees with all three human labels: one correct, one wrong figure, one refusal
    assert "| numeric-match | 3 | 100.0% |" in printed
    assert (tmp_path / "calibration.md").read_text() == printed.rstrip("\n") + "\n"
    report = json.loads((tmp_path / "calibration.json").read_text())
    assert report["n"] == 3 and report["question_type_counts"] == {"metrics-generated": 3}


def test_ems_prints_the_alignment(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reference = tmp_path / "ref.md"
    reference.write_text("Revenue increased 11.8% to $4,812 million.\nGross margin improved to 44.0%.\nDebt fell.\n")
    assert main(["eval", "ems", "--answer", "Gross margin improved to 44.0%. Revenue rose to $4,812 million.",
                 "--reference", f"@{reference}"]) == 0
    out = capsys.readouterr().out
    assert "A = [2, 1, -1]" in out
    assert "| 3 | Debt fell. | -1 | - |" in out
    assert main(["eval", "ems", "--answer", "x", "--reference", "y", "--scorer", "model"]) == 1
    assert "needs a configured language model" in capsys.readouterr().err
    assert main(["eval", "ems", "--answer", "x", "--reference", f"@{tmp_path / 'missing.md'}"]) == 1


def test_missing_data_is_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--home", str(tmp_path / "h"), "eval", "answers", "--data", str(tmp_path), "--dataset",
                 "convfinqa"]) == 1
    assert "has no 'convfinqa' folder" in capsys.readouterr().err
