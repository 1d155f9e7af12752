"""The word classes of financial questions, defined once (agent/finance/wording.py), and what reads them."""

from __future__ import annotations

import re

import pytest

from agent.finance.wording import (
    AS_SHARE_RE,
    CHANGE_RE,
    FALL_RE,
    RISE,
    SHARE_RE,
    plain_words,
    without_possessive,
)
from agent.query.intent import extract_intent
from agent.query.operations import named_operations
from agent.schemas import Relation


@pytest.mark.parametrize("word", ["rose", "risen", "rising", "grew", "growth", "increased", "increase"])
def test_every_form_of_a_rise_is_a_rise_and_a_change(word: str) -> None:
    assert re.search(rf"\b(?:{RISE})\b", f"revenue {word} in 2024") and CHANGE_RE.search(f"revenue {word} in 2024")
    assert not FALL_RE.search(f"revenue {word} in 2024")


@pytest.mark.parametrize("word", ["fell", "fallen", "dropped", "declined", "decrease", "shrank"])
def test_every_form_of_a_fall_is_a_fall_and_a_change(word: str) -> None:
    assert FALL_RE.search(f"margin {word} in 2024") and CHANGE_RE.search(f"margin {word} in 2024")
    assert not re.search(rf"\b(?:{RISE})\b", f"margin {word} in 2024")


@pytest.mark.parametrize("text", ["amounts falling due within one year", "items that fall under", "the reduction"])
def test_a_word_that_also_names_things_is_a_fall_only_where_a_direction_is_asked(text: str) -> None:
    # 'falling due' and a row named 'Compensation expense reduction' ask no change; a ranking ('the biggest
    # reduction') or a yes/no judgement ('did revenue fall?') reads them as a fall
    assert FALL_RE.search(text) and not CHANGE_RE.search(text)


@pytest.mark.parametrize("text", ["y/y revenue", "revenue year-over-year", "the yoy move", "how did it vary"])
def test_a_change_named_without_a_direction(text: str) -> None:
    assert CHANGE_RE.search(text)


@pytest.mark.parametrize("text", ["the different segments", "the fallow land", "a contract liability"])
def test_words_that_only_start_like_a_change_are_none(text: str) -> None:
    assert not CHANGE_RE.search(text)


@pytest.mark.parametrize(
    "question",
    ["What % of revenue was cost of sales?", "as a percentage of total assets", "what share of net sales",
     "what fraction of the workforce", "how big a slice of revenue"],
)
def test_a_part_of_a_whole_in_any_of_its_wordings(question: str) -> None:
    assert SHARE_RE.search(question) and AS_SHARE_RE.search(question)


def test_a_share_without_its_whole_is_asked_but_names_no_whole() -> None:
    assert AS_SHARE_RE.search("what is that as a percentage?") and not SHARE_RE.search("what is that as a percentage?")


@pytest.mark.parametrize(
    "text", ["earnings per share of Class A stock", "the current portion of deferred revenue",
             "the noncurrent portion of debt", "the long-term portion of the lease liability"],
)
def test_a_unit_or_a_balance_sheet_line_is_no_share(text: str) -> None:
    assert not SHARE_RE.search(text) and not AS_SHARE_RE.search(text)


def test_a_class_reaches_every_reader() -> None:
    # 'fell' and 'shrank' were change words to one reader and not to the next: the relation and the prior year a
    # change needs now read them as the operation model's features do.
    for question in ("How much was Contoso's revenue in 2024, after it fell?", "By how much did Contoso's debt shrink in 2024?"):
        intent = extract_intent(question, [])
        assert intent.relation is Relation.COMPARISON, question
        assert "FY2023" in intent.temporal_scope.periods, question


def test_named_operations_read_the_classes_outside_metric_names() -> None:
    assert named_operations("by how much did it grow, in percent?") == ["change", "percent_change"]
    assert named_operations("what was the total revenue in 2024?") == []  # 'total' is the metric's own word
    assert named_operations("what is the total of these two years?") == ["sum"]
    assert named_operations("and the three-year average?") == ["average"]


def test_plain_words_and_possessives() -> None:
    assert plain_words("R&D costs, in 2024 (US)") == ["r&d", "costs", "in", "us"]
    assert plain_words("R&D costs, in 2024", 3) == ["r&d", "costs"]
    assert without_possessive("Space's operating income and the firm’s debt") == "Space operating income and the firm debt"
