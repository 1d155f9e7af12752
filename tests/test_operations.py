"""The learned operation model: labels read off gold arithmetic, training, the packaged model, folds, commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.errors import FinragError
from agent.query.operations import (
    ANSWER_FIGURE,
    ANSWER_WORDS,
    KIND_MODEL_ENV,
    MODEL_ENV,
    PACKAGED_KIND_MODEL,
    PACKAGED_MODEL,
    LabelledQuestion,
    OperationContext,
    OperationGuess,
    asks_words,
    features,
    guess_operation,
    load_model,
    train,
)
from evals.datasets import FinanceBenchQuestion, TatQAQuestion
from evals.operation_cv import cross_validate, fold_of, render
from evals.operation_labels import (
    answer_kind,
    answer_kind_questions,
    derivation_operation,
    financebench_kind,
    labelled_questions,
    program_operation,
)

ROOT = Path(__file__).resolve().parent.parent


# --- labels: structure of the gold arithmetic, never the question's words ------------------------------------
@pytest.mark.parametrize(
    ("program", "earlier", "operation"),
    [
        ("812.5", "", "lookup"),
        ("subtract(812.5, 640)", "640", "change"),
        ("subtract(812.5, 640), divide(#0, 640)", "subtract(812.5, 640)", "percent_change"),
        ("subtract(812.5, 640), divide(#0, 640)", "640", "percent_change"),  # both steps new
        ("add(3, 4), add(#0, 5)", "", "sum"),
        ("add(3, 4), add(#0, 5), divide(#1, const_3)", "add(3, 4), add(#0, 5)", "average"),
        ("divide(128, 1018)", "", "ratio"),  # a division; its unit is read apart
        ("divide(37.8, 2.7)", "", "ratio"),
        ("divide(932, const_1000)", "932", "other"),  # a change of scale, not a ratio of figures
        ("multiply(2.2, const_1000)", "", "other"),
        ("exp(1.2, const_0.2)", "", "cagr"),
    ],
)
def test_a_turn_is_labelled_by_what_its_program_adds(program: str, earlier: str, operation: str) -> None:
    assert program_operation(program, earlier) == operation


@pytest.mark.parametrize(
    ("answer_type", "derivation", "scale", "operation"),
    [
        ("span", "", "million", "lookup"),
        ("arithmetic", "758-622", "million", "change"),
        ("arithmetic", "(758-622)/622", "percent", "percent_change"),
        ("arithmetic", "(758 - 622) / 622 * 100", "percent", "percent_change"),
        ("arithmetic", "(1,200+1,500+900)/3", "million", "average"),
        ("arithmetic", "(8,217+7,527+6,447)/(2019-2017+1)", "thousand", "average"),
        ("arithmetic", "1,200+1,500", "million", "sum"),
        ("arithmetic", "1,100/5,245", "percent", "ratio"),
        ("arithmetic", "948/358", "", "ratio"),
        ("arithmetic", "19,468,186*48.105", "", "other"),
        ("count", "2019##2018", "", "other"),
        ("arithmetic", "not an expression (", "", "other"),
    ],
)
def test_a_tatqa_question_is_labelled_by_its_derivation(
    answer_type: str, derivation: str, scale: str, operation: str
) -> None:
    q = TatQAQuestion(id="q", question="-", answer="1", answer_type=answer_type, derivation=derivation, scale=scale)
    assert derivation_operation(q) == operation


@pytest.mark.parametrize(
    ("answer_type", "answer", "derivation", "kind"),
    [
        ("span", ["$2.5 million"], "", ANSWER_FIGURE),
        ("span", ["(494)"], "", ANSWER_FIGURE),
        ("multi-span", ["23%", "77%"], "", ANSWER_FIGURE),
        ("arithmetic", 1580, "3,901-2,321", ANSWER_FIGURE),
        ("count", 2, "2019##2018", ANSWER_FIGURE),
        ("multi-span", ["2019", "2018"], "(2019:6.8),(2018:8.1)", ANSWER_FIGURE),  # picked by comparing figures
        ("span", ["at cost, net of accumulated depreciation"], "", ANSWER_WORDS),
        ("span", ["within 30 days of recognition."], "", ANSWER_WORDS),  # a number inside words is no amount
        ("multi-span", ["UK", "USA", "Germany"], "", ANSWER_WORDS),
        ("span", ["2019"], "", ANSWER_WORDS),  # a year alone is no amount
    ],
)
def test_a_tatqa_question_is_labelled_by_what_its_gold_answer_is(
    answer_type: str, answer: object, derivation: str, kind: str
) -> None:
    q = TatQAQuestion(id="q", question="-", answer=answer, answer_type=answer_type, derivation=derivation)
    assert answer_kind(q) == kind


@pytest.mark.parametrize(
    ("question_type", "answer", "kind"),
    [
        ("metrics-generated", "$1577.00", ANSWER_FIGURE),
        ("novel-generated", "65.4%", ANSWER_FIGURE),
        ("domain-relevant", "Operating margin decreased by 1.7% primarily due to higher costs.", ""),  # either
        ("domain-relevant", "The consumer segment dragged growth down.", ANSWER_WORDS),
        ("domain-relevant", "No, the company manages its capex efficiently.", ""),  # yes-or-no: figures decide it
    ],
)
def test_a_financebench_question_is_labelled_by_its_gold_answer(question_type: str, answer: str, kind: str) -> None:
    q = FinanceBenchQuestion(id="q", question="-", answer=answer, doc_name="X", question_type=question_type)
    assert financebench_kind(q) == kind


# --- features and the model --------------------------------------------------------------------------------
def test_features_reduce_numbers_to_their_kind_and_carry_the_conversation() -> None:
    feats = features("And what was it in 2024, 812.5 or 12%?", OperationContext(follow_up=True, last_operation="difference"))
    assert {"w:<year>", "w:<num>", "w:<pct>", "first:what", "years:1", "ctx:follow_up", "ctx:last=change"} <= set(feats)
    assert not any("2024" in f or "812" in f for f in feats)


def _toy_examples() -> list[LabelledQuestion]:
    rows = []
    for n, company in enumerate(("ALFA", "BRAVO", "CHARLIE", "DELTA", "ECHO", "FOXTROT")):
        rows += [
            LabelledQuestion(question=f"what were the {w} in 2024?", operation="lookup", group=company)
            for w in ("sales", "net earnings", "deposits")
        ]
        rows += [
            LabelledQuestion(question=q, operation="change", group=company,
                             context=OperationContext(follow_up=True, answers=2))
            for q in ("what was the change between the years?", "and the difference between them?")
        ]
        rows.append(LabelledQuestion(question=f"what is that as a percentage of the total {n}?", operation="ratio",
                                     group=company, context=OperationContext(follow_up=True, answers=2)))
    return rows


def test_training_learns_the_examples_and_the_saved_model_reads_the_same(tmp_path: Path) -> None:
    model = train(_toy_examples(), trained_on="toy")
    assert model.guess("what was the change between the years?",
                       OperationContext(follow_up=True, answers=2)).operation == "change"
    assert model.guess("what were the deposits in 2024?").operation == "lookup"
    path = tmp_path / "ops.json"
    model.save(path)
    again = load_model(path)
    for question in ("what is that as a percentage of the total?", "what were the sales in 2024?"):
        assert again.guess(question).operation == model.guess(question).operation
    assert again.trained_on == "toy"


def test_a_guess_computes_only_what_the_answer_step_does() -> None:
    sure = OperationGuess(operation="change", probability=0.4,
                          scores={"change": 0.4, "percent_change": 0.3, "lookup": 0.2, "other": 0.1})
    assert sure.computed == "change"  # arithmetic (0.7 together) outweighs a lookup: the likeliest arithmetic
    unsure = OperationGuess(operation="lookup", probability=0.55,
                            scores={"lookup": 0.55, "change": 0.25, "sum": 0.2})
    assert unsure.computed == ""
    product = OperationGuess(operation="other", probability=0.8, scores={"other": 0.8, "ratio": 0.2})
    assert product.computed == ""  # a product is arithmetic the answer step does not do: never guessed as another


def test_training_on_one_kind_of_question_is_one_clear_error() -> None:
    with pytest.raises(FinragError, match="at least two kinds"):
        train([LabelledQuestion(question="what was the change?", operation="change", group="g")] * 3)


def test_an_unreadable_model_file_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text("{not json")
    with pytest.raises(FinragError, match="finrag train operations"):
        load_model(bad)


# --- the packaged model, offline: follow-ups of our own wording ---------------------------------------------
AFTER_TWO = OperationContext(follow_up=True, answers=2)
AFTER_CHANGE = OperationContext(follow_up=True, answers=3, last_operation="change")
PARAPHRASES = [
    ("what was the change?", AFTER_TWO, "change"),
    ("and how much did it move between those years?", AFTER_TWO, "change"),
    ("what is the difference between these two values?", AFTER_TWO, "change"),
    ("what was the percentage increase?", AFTER_TWO, "percent_change"),
    ("so by what percent did it rise?", AFTER_TWO, "percent_change"),
    ("what is the percent change between them?", AFTER_TWO, "percent_change"),
    ("so what was the growth rate?", AFTER_TWO, "percent_change"),
    ("and what is that change as a percentage of the 2023 value?", AFTER_CHANGE, "percent_change"),
    ("what is that as a percentage of the total?", AFTER_TWO, "ratio"),  # a share: the unit is read apart
    ("what is the ratio of these two?", AFTER_TWO, "ratio"),
    ("what is the sum of these values?", AFTER_TWO, "sum"),
    ("and what is the average of the two years?", AFTER_TWO, "average"),
]


@pytest.mark.parametrize(("question", "context", "operation"), PARAPHRASES, ids=[p[0] for p in PARAPHRASES])
def test_the_packaged_model_reads_follow_ups_in_wordings_of_our_own(
    question: str, context: OperationContext, operation: str
) -> None:
    assert guess_operation(question, context).computed == operation


@pytest.mark.parametrize("question", ["what was the net revenue in 2008?", "and in 2007?", "hello, who are you?"])
def test_the_packaged_model_asks_no_arithmetic_of_a_lookup(question: str) -> None:
    assert guess_operation(question, AFTER_TWO).computed == ""


def test_a_cold_ask_never_loads_the_training_library() -> None:
    code = ("import sys; from agent.query.rewrite import rewrite; "
            "from agent.query.operations import guess_operation; guess_operation('what was the change?'); "
            "print('sklearn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_model_named_in_the_environment_is_the_one_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = train([LabelledQuestion(question="what was the change?", operation=op, group="g")
                   for op in ("sum", "sum", "lookup")])
    path = tmp_path / "fold.json"
    model.save(path)
    monkeypatch.setenv(MODEL_ENV, str(path))
    assert guess_operation("what was the change?").operation == "sum"
    monkeypatch.delenv(MODEL_ENV)
    assert guess_operation("what was the change?", AFTER_TWO).operation == "change"


# Descriptions asked in our own words: the packaged answer-kind model reads them as asking for words, and
# amounts (and questions that pick periods by their figures) as asking for figures.
WORDS_ASKED = [
    "How are the company's inventories valued?",
    "What does the allowance for credit losses consist of?",
    "Why did selling expenses rise in 2024?",
    "What is included in other accrued liabilities?",
]
FIGURES_ASKED = [
    "What was the valuation allowance in 2024?",
    "How much did selling expenses rise in 2024?",
    "What is the average inventory for 2023 and 2024?",
    "and what about in 2023?",
]


@pytest.mark.parametrize("question", WORDS_ASKED)
def test_the_packaged_answer_kind_model_reads_descriptions_as_words(question: str) -> None:
    assert asks_words(question)


@pytest.mark.parametrize("question", FIGURES_ASKED)
def test_the_packaged_answer_kind_model_reads_amounts_as_figures(question: str) -> None:
    assert not asks_words(question)


def test_the_answer_kind_model_named_in_the_environment_is_the_one_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = train([LabelledQuestion(question=q, operation=ANSWER_WORDS, group="g") for q in FIGURES_ASKED] +
                  [LabelledQuestion(question="hello", operation=ANSWER_FIGURE, group="g")])
    path = tmp_path / "kinds.json"
    model.save(path)
    monkeypatch.setenv(KIND_MODEL_ENV, str(path))
    assert asks_words(FIGURES_ASKED[0])
    monkeypatch.delenv(KIND_MODEL_ENV)
    assert not asks_words(FIGURES_ASKED[0])


# --- folds ---------------------------------------------------------------------------------------------------
def test_folds_never_split_a_company_and_report_mean_and_spread() -> None:
    examples = _toy_examples()
    report = cross_validate(examples, folds=3)
    by_fold: dict[str, set[int]] = {}
    for e in examples:
        by_fold.setdefault(e.group, set()).add(fold_of(e.group, 3))
    assert all(len(f) == 1 for f in by_fold.values())
    assert sum(s.questions for s in report.folds) == len(examples)
    assert 0.0 <= report.mean <= 1.0 and report.spread >= 0.0
    assert "Mean accuracy" in render(report)
    with pytest.raises(ValueError):
        cross_validate(examples, folds=1)


# --- the data, when it is here (conftest's findata fixture skips otherwise): the shipped model is the one it gives
def test_the_packaged_model_is_rebuilt_from_the_data(findata: Path) -> None:
    examples = labelled_questions(findata)
    rebuilt = train(examples)
    shipped = load_model(PACKAGED_MODEL)
    same = sum(rebuilt.guess(e.question, e.context).operation == shipped.guess(e.question, e.context).operation
               for e in examples)
    assert same == len(examples), f"{len(examples) - same} questions read differently: run `finrag train operations`"


def test_the_packaged_answer_kind_model_is_rebuilt_from_the_data(findata: Path) -> None:
    examples = answer_kind_questions(findata)
    rebuilt = train(examples)
    shipped = load_model(PACKAGED_KIND_MODEL)
    same = sum(rebuilt.guess(e.question).operation == shipped.guess(e.question).operation for e in examples)
    assert same == len(examples), f"{len(examples) - same} questions read differently: run `finrag train answer-kinds`"


# --- the commands ----------------------------------------------------------------------------------------------
def _finrag(*args: str, home: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "FINRAG_HOME": str(home), "HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": "", **(env or {})}
    return subprocess.run([sys.executable, "-m", "cli.main", *args], cwd=ROOT, capture_output=True, text=True,
                          env=full, timeout=600)


def _tiny_findata(root: Path) -> Path:
    """Six companies' one-page conversations and a few TAT-QA questions, typeset here."""
    (root / "convfinqa").mkdir(parents=True)
    (root / "tatqa").mkdir()
    pages, conversations = [], []
    for n, company in enumerate(("ALFA", "BRAVO", "CHARLIE", "DELTA", "ECHO", "FOXTROT")):
        new, old = 500 + 10 * n, 400 + 10 * n
        doc = f"{company}/2024/page_{n + 3}.pdf"
        pages.append({"doc_id": doc, "company": company, "fiscal_period": "2024", "page": n + 3,
                      "pre_text": f"{company.lower()} corp . results ( in millions ) .",
                      "table_markdown": f"| | 2024 | 2023 |\n|---|---|---|\n| net sales | {new} | {old} |",
                      "post_text": "net sales rose on volume ."})
        turns = [
            {"turn": 0, "question": "what were the net sales in 2024?", "answer": str(new), "program": str(new)},
            {"turn": 1, "question": "and in 2023?", "answer": str(old), "program": str(old)},
            {"turn": 2, "question": "what was the change?", "answer": str(new - old),
             "program": f"subtract({new}, {old})"},
            {"turn": 3, "question": "and what is that as a percentage of the 2023 sales?", "answer": "25%",
             "program": f"subtract({new}, {old}), divide(#0, {old})"},
        ]
        conversations.append({"id": f"conv-{company}", "question": turns[-1]["question"], "answer": "25%",
                              "doc_name": doc, "company": company, "turns": turns})
    (root / "convfinqa" / "pages.jsonl").write_text("\n".join(json.dumps(p) for p in pages) + "\n")
    (root / "convfinqa" / "conversations.jsonl").write_text("\n".join(json.dumps(c) for c in conversations) + "\n")
    # two filings, one in each of two folds, each with a figure and a words question (both kinds learned either way)
    (root / "tatqa" / "contexts.jsonl").write_text(
        "".join(json.dumps({"doc_id": doc, "table_markdown": "| a |"}) + "\n" for doc in ("ctx-1", "ctx-4")))
    (root / "tatqa" / "questions.jsonl").write_text(json.dumps(
        {"id": "tq-1", "question": "What was the change in revenue from 2023 to 2024?", "answer": 10,
         "answer_type": "arithmetic", "scale": "million", "derivation": "60-50", "doc_name": "ctx-1"}) + "\n" +
        json.dumps({"id": "tq-2", "question": "How are inventories valued?", "answer": ["at the lower of cost"],
                    "answer_type": "span", "doc_name": "ctx-1"}) + "\n" +
        json.dumps({"id": "tq-3", "question": "What was the total of revenue in 2023 and 2024?", "answer": 110,
                    "answer_type": "arithmetic", "scale": "million", "derivation": "60+50", "doc_name": "ctx-4"}) + "\n"
        + json.dumps({"id": "tq-4", "question": "What does revenue consist of?", "answer": ["product sales"],
                      "answer_type": "span", "doc_name": "ctx-4"}) + "\n")
    return root


def test_train_and_cv_commands_on_a_small_layout(tmp_path: Path) -> None:
    data = _tiny_findata(tmp_path / "findata")
    out = tmp_path / "ops.json"
    trained = _finrag("train", "operations", "--data", str(data), "--out", str(out), home=tmp_path / "home")
    assert trained.returncode == 0, trained.stderr
    assert "trained on 28 questions" in trained.stdout and out.is_file()
    assert load_model(out).trained_on.startswith("28 questions")

    cv = _finrag("eval", "cv", "--data", str(data), "--folds", "2", "--answers", "--out", str(tmp_path / "cv"),
                 home=tmp_path / "home")
    assert cv.returncode == 0, cv.stderr
    assert "Mean accuracy" in cv.stdout and "answered end to end" in cv.stdout
    report = json.loads((tmp_path / "cv" / "cv.json").read_text())[0]
    answered = [f["answers"] for f in report["folds"] if f["answers"]]
    assert sum(a["turns"] for a in answered) == 24  # every conversation answered once, by its fold's model

    kinds_out = tmp_path / "kinds.json"
    kinds = _finrag("train", "answer-kinds", "--data", str(data), "--out", str(kinds_out), home=tmp_path / "home")
    assert kinds.returncode == 0, kinds.stderr
    assert set(load_model(kinds_out).operations) == {ANSWER_FIGURE, ANSWER_WORDS}
    kinds_cv = _finrag("eval", "cv", "--model", "answer-kinds", "--data", str(data), "--folds", "2", "--answers",
                       "--out", str(tmp_path / "kinds-cv"), home=tmp_path / "home")
    assert kinds_cv.returncode == 0 and "Answer-kind model" in kinds_cv.stdout, kinds_cv.stderr
    assert "TAT-QA questions answered end to end" in kinds_cv.stdout
    kinds_report = json.loads((tmp_path / "kinds-cv" / "cv.json").read_text())[0]
    # each TAT-QA question answered once, by the model of the fold its filing is in
    assert sum(f["answers"]["turns"] for f in kinds_report["folds"] if f["answers"]) == 4

    missing = _finrag("train", "operations", "--data", str(tmp_path / "nowhere"), home=tmp_path / "home")
    assert missing.returncode != 0 and "Traceback" not in missing.stderr
