"""The verb a question asks with ('How many seat miles did Lucerne fly?', 'How much did Woodgrove set aside for
credit losses?') is read by its place after the auxiliary and the subject, whatever the verb. Where the filing
never prints it, it says what the company did, so the figure's row need not print it; where the filing does
('Stores opened'), it names the figure. A part the question adds ('to Europe') is never dropped with the verb."""

from __future__ import annotations

import pytest
from support import typed_evidence

from agent.answer.compose import answer_offline
from agent.query.decompose import decompose
from agent.query.intent import extract_intent
from agent.query.predicate import asked_predicate

STORES = """Store count
| | 2024 | 2023 |
|---|---|---|
| Stores at beginning of year | 598 | 571 |
| Stores opened | 31 | 40 |
| Stores closed | (17) | (13) |
| Stores at end of year | 612 | 598 |
"""
STATISTICS = """Operating statistics
| | 2024 | 2023 |
|---|---|---|
| Available seat miles (millions) | 52,310 | 49,874 |
| Load factor | 84.5% | 83.1% |
| Passengers carried (thousands) | 38,400 | 36,950 |
"""


@pytest.mark.parametrize(("question", "verb"), [
    ("How many available seat miles did Lucerne fly in 2024?", ["fly"]),
    ("How much did Woodgrove set aside for credit losses in Q1 2025?", ["set", "aside"]),
    ("How much cash did Fourth Coffee have at the end of fiscal 2024?", ["have"]),
    ("Did Lucerne Air Group, Inc. report a profit?", ["report"]),
    ("how much did the company spend on r&d in 2019?", ["spend"]),
    ("Will they pay out a dividend?", ["pay", "out"]),
])
def test_the_verb_after_the_subject_is_read_by_its_place(question: str, verb: list[str]) -> None:
    assert asked_predicate(question) == verb


@pytest.mark.parametrize("question", [
    "How much did Sandpiper's purchased transportation costs grow in Q2?",  # the subject is longer than a name
    "how much did the net revenue change?",  # 'the net' is no subject the position can be read after
    "What was the change in ownership interest held in Golar Partners?",  # no inverted clause
])
def test_no_verb_is_read_where_the_subject_does_not_end_at_a_known_place(question: str) -> None:
    assert asked_predicate(question) == []


def test_the_plan_records_the_verb_beside_the_words_it_asks() -> None:
    wording = extract_intent("How many available seat miles did Lucerne fly in 2024?", []).wording
    assert wording.predicate == ["fly"]
    assert "mile" in wording.words


def _answer(question: str, table: str = STATISTICS) -> str:
    evidence = [typed_evidence(chunk_id="k0", doc_name="D", text=table, score=1.0)]
    return answer_offline(decompose(question, extract_intent(question, [])), evidence).text


def test_a_figure_asked_with_a_verb_its_row_does_not_print_is_stated() -> None:
    answer = _answer("How many available seat miles did the company fly in 2024?")
    assert "52,310" in answer and not answer.startswith("Not found"), answer


def test_a_part_asked_beside_the_verb_still_has_to_be_the_figures() -> None:
    answer = _answer("How many available seat miles did the company fly to Europe in 2024?")
    assert answer.startswith("Not found") and "52,310" not in answer.split("Closest")[0], answer


def test_a_verb_the_filing_prints_names_the_figure() -> None:
    # 'open' tells the 'Stores opened' row from the others: it stays asked, and no other row answers it
    answer = _answer("How many stores did the company open in 2024?", STORES)
    assert "31" in answer and "612" not in answer, answer
