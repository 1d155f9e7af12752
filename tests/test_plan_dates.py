"""A period the question writes as a date is read once, into the plan (issue 57): the fact and count readers take
it from there and never read the question's words again."""

from __future__ import annotations

import ast
from pathlib import Path

from agent.query.decompose import decompose
from agent.query.intent import extract_intent

ANSWER = Path(__file__).resolve().parent.parent / "agent" / "answer"


def test_a_written_date_is_in_the_plan_with_its_kind() -> None:
    intent = extract_intent("What were Acme's net sales for the six months ended March 29, 2025?", ["Acme"])
    assert intent.temporal_scope.dated is not None
    assert (intent.temporal_scope.dated.date, intent.temporal_scope.dated.kind) == ("2025-03-29", "half")
    point = extract_intent("How many stores did Acme operate at January 31, 2025?", ["Acme"]).temporal_scope.dated
    assert point is not None and (point.date, point.kind) == ("2025-01-31", "point")


def test_no_date_or_two_dates_leave_it_empty() -> None:
    assert extract_intent("What was Acme's revenue in FY2024?", ["Acme"]).temporal_scope.dated is None
    two = "What was Acme's revenue for the three months ended June 30, 2024 and the three months ended June 30, 2023?"
    assert extract_intent(two, ["Acme"]).temporal_scope.dated is None


def test_each_sub_query_carries_the_date_its_own_words_write() -> None:
    question = "What was Acme's revenue for the three months ended June 30, 2024 and the three months ended June 30, 2023?"
    plan = decompose(question, extract_intent(question, ["Acme"]), ["Acme"])
    for sub_query in plan.sub_queries:
        dated = sub_query.intent.temporal_scope.dated
        assert dated is None or dated.date[:4] in sub_query.question


def test_the_fact_and_count_readers_do_not_read_dates_from_the_words() -> None:
    for name in ("facts.py", "counts.py"):
        tree = ast.parse((ANSWER / name).read_text(encoding="utf-8"))
        called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert "find_periods" not in called and "dated_period" not in called, name
