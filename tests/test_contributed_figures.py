"""A question that asks what something added to a figure ('How much did Alpine Trails add to net sales?', 'What
did the 53rd week contribute to ...?') asks that contributor's figure: the plan holds it as the part asked, the
figure whose own words name it is read -- a sentence beside the statement -- and the year's statement row, which
names none of it, is never stated for it."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.query.intent import extract_intent

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Tailspin Outdoor Goods, Inc.

FORM 10-K

For the fiscal year ended January 31, 2025

Tailspin Outdoor Goods, Inc.
(Exact name of registrant as specified in its charter)

## Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations

### Results of Operations

(In millions)

| | Fiscal 2024 | Fiscal 2023 |
|---|---|---|
| Net sales | 4,812 | 4,530 |
| Gross profit | 1,733 | 1,610 |
| Operating income | 402 | 371 |

Alpine Trails, acquired in March 2024, added net sales of $188 million in fiscal 2024. Comparable store sales increased
2.1% in fiscal 2024. The 53rd week of fiscal 2024 added net sales of $61 million.
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory):
    return ingested_typeset(tmp_path_factory.mktemp("qualified"), "TAILSPIN_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "part"), [
    ("How much did Alpine Trails add to Tailspin's fiscal 2024 net sales?", "Alpine Trails"),
    ("What did the 53rd week contribute to Tailspin's net sales in fiscal 2024?", "53rd week"),
])
def test_the_plan_holds_what_contributed_to_the_figure(question: str, part: str) -> None:
    intent = extract_intent(question, ["Tailspin Outdoor Goods, Inc."])
    assert intent.metrics == ["revenue"] and [t.text for t in intent.scope] == [part]


def test_the_figure_whose_own_words_say_what_was_asked_is_read(home) -> None:
    answer = ask_once(home, "How much did Alpine Trails add to Tailspin's fiscal 2024 net sales?")
    assert "$188 million" in stated(answer) and "Alpine Trails" in answer, answer
    assert "4,812" not in stated(answer), answer


def test_the_statement_row_still_answers_the_plain_question(home) -> None:
    assert "$4,812 million" in stated(ask_once(home, "What were Tailspin's net sales in fiscal 2024?"))


def test_the_statement_row_is_no_answer_for_what_only_another_figure_names(home) -> None:
    # the acquisition's figure is fiscal 2024's only: the year's net sales are not what it added in fiscal 2023
    answer = ask_once(home, "How much did Alpine Trails add to Tailspin's fiscal 2023 net sales?")
    assert answer.startswith("Not found"), answer
    assert "4,530" not in stated(answer), answer


def test_a_lower_case_qualifier_is_held_too(home) -> None:
    answer = ask_once(home, "What did the 53rd week contribute to Tailspin's net sales in fiscal 2024?")
    assert "$61 million" in stated(answer) and "53rd week" in answer, answer
    # no figure of fiscal 2023 names the week: the year's 'Net sales' row is no answer for what it added
    answer = ask_once(home, "What did the 53rd week contribute to Tailspin's net sales in fiscal 2023?")
    assert answer.startswith("Not found") and "4,530" not in stated(answer), answer


def test_a_metric_named_as_what_contributes_is_no_second_metric_asked(home) -> None:
    question = "How much did the Alpine Trails acquisition add to Tailspin's fiscal 2024 net sales?"
    intent = extract_intent(question, ["Tailspin Outdoor Goods, Inc."])
    assert intent.metrics == ["revenue"] and "Alpine Trails acquisition" in [t.text for t in intent.scope]
    # never the year's net sales stated for what the acquisition added
    assert not any(f in stated(ask_once(home, question)) for f in ("4,812", "4,530"))
