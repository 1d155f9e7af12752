"""Cohen's kappa by hand, judges with a scripted chat model, calibration on a synthetic labels file and on
the real FinanceBench labels when present."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from scripted import ScriptedChatModel

from agent.errors import FinragError, NotFoundError
from agent.llm.models import UsageLog
from evals.calibration import (
    agreement,
    calibrate,
    cohen_kappa,
    default_scorers,
    gold_is_number,
    load_labels,
    numeric_scorer,
)
from evals.judges import judge_correctness, judge_pairwise, spread


def verdict(name: str, **args: Any) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call_{name}"}])


# --- Cohen's kappa --------------------------------------------------------------------------------------
def test_kappa_hand_value() -> None:
    # 50 items: both yes 20, A yes / B no 5, A no / B yes 10, both no 15.
    # p_o = 35/50 = 0.7; A says yes 25/50, B 30/50; p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5; kappa = 0.2 / 0.5 = 0.4.
    a = ["yes"] * 20 + ["yes"] * 5 + ["no"] * 10 + ["no"] * 15
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_kappa_three_labels_and_degenerate_cases() -> None:
    # Agreements at positions 0, 1, 2, 4: p_o = 4/6. A: x 2, y 2, z 2; B: x 3, y 2, z 1;
    # p_e = (2*3 + 2*2 + 2*1) / 36 = 1/3; kappa = (2/3 - 1/3) / (2/3) = 0.5.
    a = ["x", "x", "y", "y", "z", "z"]
    b = ["x", "x", "y", "x", "z", "y"]
    assert cohen_kappa(a, b) == pytest.approx(0.5)
    assert cohen_kappa([True, True], [True, True]) == 1.0
    assert cohen_kappa([True, True], [False, False]) == pytest.approx(0.0)
    assert cohen_kappa([], []) == 0.0
    with pytest.raises(ValueError):
        cohen_kappa([True], [True, False])


def test_agreement_confusion() -> None:
    result = agreement([True, True, False, False], [True, False, True, False])
    assert (result.true_pos, result.false_pos, result.false_neg, result.true_neg) == (1, 1, 1, 1)
    assert result.accuracy == 0.5 and result.kappa == pytest.approx(0.0)


# --- judges ---------------------------------------------------------------------------------------------
QUESTION = "What is the FY2018 capital expenditure amount (in USD millions) for 3M?"
GOLD = "1577"


def test_spread_hand_values() -> None:
    s = spread([1.0, 0.0, 1.0], ["A", "B", "A"])
    assert s.mean == pytest.approx(2 / 3)
    assert s.std == pytest.approx(0.471405, abs=1e-6)  # sqrt(((1/3)^2 * 2 + (2/3)^2) / 3)
    assert s.agreement == pytest.approx(2 / 3)


def test_correctness_judge_runs_k_times_with_spread() -> None:
    replies = [verdict("CorrectnessVerdict", verdict="CORRECT", reason="states 1,577"),
               verdict("CorrectnessVerdict", verdict="INCORRECT", reason="unsure"),
               verdict("CorrectnessVerdict", verdict="CORRECT", reason="states 1,577")]
    model = ScriptedChatModel(rules=[(("Mark INCORRECT only if the core fact is wrong or missing", "$1.577 billion"),
                                      replies)])
    usage = UsageLog()
    result = judge_correctness(QUESTION, "3M spent $1.577 billion.", GOLD, model=model, runs=3, usage=usage)
    assert result.votes == [True, False, True] and result.correct
    assert result.spread.mean == pytest.approx(2 / 3)
    assert result.spread.agreement == pytest.approx(2 / 3)
    assert result.judge == "llm" and result.notes == []
    assert len(usage.records) == 3
    assert "Do not infer unstated information" in model.prompts[0]  # the 4.6 rules are in the prompt


def test_correctness_judge_falls_back_to_the_matcher_on_invalid_output() -> None:
    bad = AIMessage(content="I think it is probably right")  # no tool call, no JSON
    model = ScriptedChatModel(rules=[(("core fact",), [bad])])
    result = judge_correctness(QUESTION, "Capex was $1,577 million.", GOLD, model=model, runs=1)
    assert result.correct and result.judge == "offline"
    assert len(model.prompts) == 2  # one call and one retry
    assert result.notes and "numeric matcher" in result.notes[0]


def test_offline_correctness_judge_is_the_numeric_matcher() -> None:
    right = judge_correctness(QUESTION, "Capex was $1.577 billion.", GOLD, runs=3)
    wrong = judge_correctness(QUESTION, "Capex was $1.2 billion.", GOLD, runs=3)
    assert right.correct and not wrong.correct
    assert right.votes == [True] and right.judge == "offline" and right.spread.std == 0.0
    assert "1577" in right.reasons[0] or "1.577" in right.reasons[0]


def test_pairwise_judge_swaps_positions_and_reports_position_bias() -> None:
    # A judge that always prefers whatever is shown first: swapped runs expose it as disagreement.
    model = ScriptedChatModel(rules=[(("Decide which response is *better*",),
                                      [verdict("PairwiseVerdict", winner="A", reason="first")])])
    result = judge_pairwise(QUESTION, GOLD, "Capex was $1,577 million.", "Capex was $1,200 million.", model=model,
                            runs=3)
    assert result.votes == ["A", "B", "A"]
    assert result.preferred == "A"
    assert result.spread.mean == pytest.approx(2 / 3) and result.spread.agreement == pytest.approx(2 / 3)
    # The second run showed the answers the other way round.
    assert model.prompts[1].index("$1,200 million") < model.prompts[1].index("$1,577 million")


def test_pairwise_judge_offline() -> None:
    better = judge_pairwise(QUESTION, GOLD, "Capex was $1,200 million.", "Capex was $1,577 million.")
    assert better.preferred == "B" and better.judge == "offline"
    both_wrong = judge_pairwise(QUESTION, GOLD, "Capex was $1,200 million.", "No idea.")
    assert both_wrong.preferred == "TIE"
    with pytest.raises(ValueError):
        judge_pairwise(QUESTION, GOLD, "a", "b", runs=0)


# --- calibration ----------------------------------------------------------------------------------------
CAPEX_Q = "What is the FY2018 capital expenditure amount (in USD millions) for 3M?"
SEGMENT_Q = "Which segment grew the most in FY22?"
YESNO_Q = "Is 3M a capital-intensive business based on FY2022 data?"
ROA_Q = "What is the FY2017 return on assets (ROA) for Coca Cola?"


def _write_labels(root: Path) -> Path:
    fb = root / "financebench"
    fb.mkdir(parents=True)
    labels = [
        (CAPEX_Q, 1577, "Capex was $1,577 million.", "Correct Answer"),
        (CAPEX_Q, 1577, "Capex was $1,200 million.", "Incorrect Answer"),
        (CAPEX_Q, 1577, "I cannot determine this from the filings.", "Refusal"),
        (SEGMENT_Q, "Data Center", "The Data Center segment grew the most.", "Correct Answer"),
        (SEGMENT_Q, "Data Center", "Gaming grew the most.", "Incorrect Answer"),
        (YESNO_Q, "Yes, capex is 5% of revenue.", "No.", "Correct Answer"),  # the people disagree with the matcher
        (ROA_Q, 0.01, "ROA = 1.42%", "Correct Answer"),  # not in questions.jsonl: type unknown
    ]
    with (fb / "judge_labels.jsonl").open("w") as f:
        for q, gold, answer, label in labels:
            f.write(json.dumps({"question": q, "gold_answer": gold, "model_answer": answer, "human_label": label}) + "\n")
    with (fb / "questions.jsonl").open("w") as f:
        for q, qtype in ((CAPEX_Q, "metrics-generated"), (SEGMENT_Q, "domain-relevant"), (YESNO_Q, "novel-generated")):
            f.write(json.dumps({"question": q, "question_type": qtype}) + "\n")
    return root


def test_gold_is_number() -> None:
    assert gold_is_number(1577) and gold_is_number(0.654) and gold_is_number("$1,577 million") and gold_is_number("36%")
    assert not gold_is_number("Data Center") and not gold_is_number("$400,000,000 increase.")
    assert not gold_is_number(True)


def test_calibrate_on_synthetic_labels(tmp_path: Path) -> None:
    root = _write_labels(tmp_path)
    items = load_labels(root)
    assert [x.question_type for x in items][-1] == "unknown" and items[0].question_type == "metrics-generated"
    report = calibrate(root, [numeric_scorer()])
    r = report.scorer("numeric-match")
    # matcher [T, F, F, T, F, F, T] vs people [T, F, F, T, F, T, T]: 6/7 agree;
    # p_e = (3/7)(4/7) + (4/7)(3/7) = 24/49; kappa = (42/49 - 24/49) / (25/49) = 18/25.
    assert r.overall.accuracy == pytest.approx(6 / 7)
    assert r.overall.kappa == pytest.approx(0.72)
    assert r.by_gold_kind["numeric"].accuracy == 1.0 and r.by_gold_kind["numeric"].n == 4
    assert r.by_gold_kind["text"].accuracy == pytest.approx(2 / 3)
    assert r.by_question_type["novel-generated"].accuracy == 0.0
    assert r.by_question_type["unknown"].n == 1
    assert report.joined_by_question_text == 6
    md = report.to_markdown()
    assert "| numeric-match | 7 | 85.7% | 0.720 | 3 | 0 | 1 | 3 |" in md
    assert "novel-generated (n=1)" in md


def test_calibrate_default_scorers_with_llm_judge(tmp_path: Path) -> None:
    root = _write_labels(tmp_path)
    model = ScriptedChatModel(rules=[(("core fact",), [verdict("CorrectnessVerdict", verdict="CORRECT")]),
                                     (("core fact", "Gaming"), [verdict("CorrectnessVerdict", verdict="INCORRECT")])])
    report = calibrate(root, default_scorers(model=model))
    names = [r.name for r in report.scorers]
    assert names[0] == "numeric-match" and "llm-judge" in names and any(n.startswith("ems-recall") for n in names)
    judge = report.scorer("llm-judge")
    assert judge.overall.true_pos == 4 and judge.overall.true_neg == 1  # says CORRECT except for "Gaming"
    with pytest.raises(NotFoundError):
        report.scorer("nope")


def test_calibrate_bad_input(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        calibrate(tmp_path)
    fb = tmp_path / "financebench"
    fb.mkdir()
    (fb / "judge_labels.jsonl").write_text(json.dumps(
        {"question": "q", "gold_answer": "1", "model_answer": "1", "human_label": "Maybe"}) + "\n")
    with pytest.raises(FinragError, match="unknown human_label"):
        calibrate(tmp_path)


def test_calibration_on_financebench_labels(findata: Path) -> None:
    report = calibrate(findata, [numeric_scorer()])
    numeric = report.scorer("numeric-match").by_gold_kind["numeric"]
    assert report.n == 1568 and numeric.n >= 500
    assert numeric.accuracy >= 0.90  # the target: the matcher agrees with people on number-valued golds
