"""The unprinted-words model: labels from where gold figures sit, counting, thresholds, folds, the packaged model,
the commands, and what the closed world makes of the words it learns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.answer.words import ASKING_WORDS
from agent.errors import FinragError
from agent.query.unprinted import (
    MIN_ASKED,
    MIN_GROUPS,
    PACKAGED_MODEL,
    LabelledWords,
    load_model,
    train,
    unprinted_words,
)
from evals.printed_labels import label_words, labelled_words, markdown_table, provenance
from evals.unprinted_cv import cross_validate, render

ROOT = Path(__file__).resolve().parents[1]

TABLE = markdown_table(
    "| | notes payable at may 27 2012 | notes payable at may 29 2011 |\n|---|---|---|\n"
    "| u.s . commercial paper | 412.0 | 192.5 |\n| financial institutions | 114.5 | 118.8 |\n"
    "| total notes payable | 526.5 | 311.3 |"
)


# --- labels ---------------------------------------------------------------------------------------------------
def test_a_figure_in_a_cell_is_named_by_its_row_and_its_column() -> None:
    where = provenance(TABLE, [], [526.5])
    assert where is not None and "total notes payable" in where and "may 27 2012" in where


def test_a_figure_no_cell_holds_is_named_by_its_sentence_and_a_missing_one_labels_nothing() -> None:
    texts = ["Revenue rose. During 2015, $82 million of provision recapture was recorded."]
    assert provenance(TABLE, texts, [82.0]) == "During 2015, $82 million of provision recapture was recorded."
    assert provenance(TABLE, texts, [526.5, 999.0]) is None  # one figure nowhere: the question is not labelled


def test_each_word_of_the_question_is_labelled_printed_or_not_in_any_of_its_forms() -> None:
    labels = label_words("what was the full total of notes payable?", "total notes payable 2012")
    assert labels == {"full": False, "note": True, "payable": True}  # "total" asks nothing of its own


# --- counting and thresholds ------------------------------------------------------------------------------------
def _examples(word: str, printed: int, asked: int, groups: int) -> list[LabelledWords]:
    return [LabelledWords(group=f"co{i % groups}", printed={word: i < printed, "revenue": True}) for i in range(asked)]


def test_a_word_asked_often_by_many_companies_and_never_printed_is_an_asking_word() -> None:
    model = train(_examples("combined", printed=0, asked=MIN_ASKED, groups=MIN_GROUPS))
    assert model.unprinted("combined") and not model.unprinted("revenue")
    assert model.words() == frozenset({"combined"})


@pytest.mark.parametrize(("printed", "asked", "groups"), [
    (0, MIN_ASKED - 1, MIN_GROUPS),  # too rarely asked to say
    (0, MIN_ASKED, MIN_GROUPS - 1),  # one filer's habit is no rule
    (4, MIN_ASKED, MIN_GROUPS),  # printed often enough with the right figure: its absence is telling
])
def test_a_word_seen_too_little_or_printed_too_often_stays_a_naming_word(printed: int, asked: int, groups: int) -> None:
    assert not train(_examples("combined", printed, asked, groups)).unprinted("combined")


def test_an_unseen_word_is_a_naming_word() -> None:
    assert not load_model().unprinted("impella")


def test_the_saved_model_reads_the_same_and_a_broken_file_is_one_clear_error(tmp_path: Path) -> None:
    model = train(_examples("combined", 0, MIN_ASKED, MIN_GROUPS), trained_on="test")
    path = tmp_path / "words.json"
    model.save(path)
    assert load_model(path) == model
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(FinragError, match="finrag train unprinted-words"):
        load_model(broken)


def test_words_that_point_back_at_an_earlier_turn_are_never_asking_words() -> None:
    # 'those payments' stands for what the last turn named: a figure that does not print it may be another one
    assert load_model().counts["those"].asked >= MIN_ASKED
    assert "those" not in unprinted_words() and "them" not in unprinted_words()


def test_the_learned_words_join_the_asking_words_the_closed_world_leaves_out() -> None:
    assert unprinted_words() <= ASKING_WORDS
    assert {"combined", "concerning", "full", "relation"} <= unprinted_words()


# --- folds ------------------------------------------------------------------------------------------------------
def test_folds_check_flagged_words_against_labels_of_companies_never_counted() -> None:
    examples = [LabelledWords(group=f"co{g}", printed={"combined": False, "german": g == 0, "sale": True})
                for g in range(40) for _ in range(2)]
    report = cross_validate(examples, folds=4)
    assert len(report.folds) == 4 and report.coverage == 1.0
    # the one company that prints 'german' is held out once: counted without it, the word is flagged, and wrongly
    held = next(f for f in report.folds if f.flagged_printed)
    assert held.flagged_printed == {"german": 2} and held.precision == 38 / 40
    assert report.precision == pytest.approx((3 + 38 / 40) / 4)
    assert "'german' (2)" in render(report)
    with pytest.raises(ValueError):
        cross_validate(examples, folds=1)


# --- the data, when it is here: the shipped counts are the ones it gives ------------------------------------------
def test_the_packaged_model_is_rebuilt_from_the_data(findata: Path) -> None:
    rebuilt = train(labelled_words(findata))
    assert rebuilt.counts == load_model(PACKAGED_MODEL).counts, "run `finrag train unprinted-words`"


# --- the commands ----------------------------------------------------------------------------------------------
def _finrag(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FINRAG_HOME": str(home), "HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": ""}
    return subprocess.run([sys.executable, "-m", "cli.main", *args], cwd=ROOT, capture_output=True, text=True,
                          env=env, timeout=600)


def test_train_and_cv_commands_on_a_small_layout(tmp_path: Path) -> None:
    data = tmp_path / "findata"
    (data / "convfinqa").mkdir(parents=True)
    (data / "tatqa").mkdir()
    pages, conversations = [], []
    for n, company in enumerate(("ALFA", "BRAVO", "CHARLIE", "DELTA", "ECHO", "FOXTROT", "GOLF", "HOTEL")):
        doc = f"{company}/2024/page_{n}.pdf"
        pages.append({"doc_id": doc, "company": company, "pre_text": "", "post_text": "",
                      "table_markdown": f"| | 2024 |\n|---|---|\n| total notes payable | {500 + n} |"})
        turns = [{"turn": t, "question": "what was the full total of notes payable?", "answer": str(500 + n),
                  "program": str(500 + n)} for t in range(2)]
        conversations.append({"id": f"conv-{company}", "question": "", "doc_name": doc, "company": company,
                              "turns": turns})
    (data / "convfinqa" / "pages.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pages))
    (data / "convfinqa" / "conversations.jsonl").write_text("".join(json.dumps(c) + "\n" for c in conversations))
    (data / "tatqa" / "contexts.jsonl").write_text("")
    (data / "tatqa" / "questions.jsonl").write_text("")
    out = tmp_path / "words.json"
    trained = _finrag("train", "unprinted-words", "--data", str(data), "--out", str(out), home=tmp_path / "home")
    assert trained.returncode == 0, trained.stderr
    assert "of 16 questions (8 companies and filings)" in trained.stdout and "1 asking words" in trained.stdout
    assert load_model(out).words() == frozenset({"full"})
    cv = _finrag("eval", "cv", "--model", "unprinted-words", "--data", str(data), "--folds", "2",
                 home=tmp_path / "home")
    assert cv.returncode == 0 and "Unprinted-words model" in cv.stdout, cv.stderr
    missing = _finrag("train", "unprinted-words", "--data", str(tmp_path / "nowhere"), home=tmp_path / "home")
    assert missing.returncode != 0 and "Traceback" not in missing.stderr
