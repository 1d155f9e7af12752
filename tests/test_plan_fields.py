"""What the question's words say is read once, into the plan (issue 57): the period it writes as a date, the
arithmetic or choice it asks for. The readers take them from there and do not read the words again."""

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


def test_the_operations_asked_are_in_the_plan_of_the_turn_and_of_each_sub_query() -> None:
    question = "What was the average of Acme's revenue in 2023 and 2024?"
    intent = extract_intent(question, ["Acme"])
    assert "average" in intent.operations
    plan = decompose(question, intent, ["Acme"])
    for sub_query in plan.sub_queries:  # a sub-query's own words: 'What was Acme's revenue in 2023?' asks none
        assert set(sub_query.intent.operations) <= set(intent.operations)
    assert extract_intent("What was Acme's revenue in 2024?", ["Acme"]).operations == []
    which = extract_intent("Which segment of Acme had the highest operating income in 2024?", ["Acme"])
    assert which.operations


def test_the_cell_reader_and_the_answer_kind_read_operations_from_the_plan() -> None:
    for name in ("cells.py", "compose.py"):
        tree = ast.parse((ANSWER / name).read_text(encoding="utf-8"))
        reads = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id == "operations_asked" and any(isinstance(a, ast.Attribute) and a.attr == "question"
                                                             for a in n.args)]
        assert not reads, name  # operations_asked(sub_query.question): read from the plan instead


def test_each_sub_query_knows_the_operations_that_take_its_figure() -> None:
    question = "What was Acme's inventory as a percentage of total assets in 2024?"
    plan = decompose(question, extract_intent(question, ["Acme"]), ["Acme"])
    assert [c.operation for c in plan.combinations] == ["share"]
    assert all(sq.operand_of == ["share"] for sq in plan.sub_queries) and len(plan.sub_queries) == 2
    lookup = "What was Acme's operating income in 2024?"
    assert decompose(lookup, extract_intent(lookup, ["Acme"]), ["Acme"]).sub_queries[0].operand_of == []


def test_a_margin_asked_of_revenue_is_the_margin_itself() -> None:
    question = "What was Acme's gross margin as a percent of sales in 2024?"
    plan = decompose(question, extract_intent(question, ["Acme"]), ["Acme"])
    assert [sq.metric for sq in plan.sub_queries] == ["gross margin"] and not plan.combinations


def test_a_year_to_date_is_in_the_plan_and_each_sub_query() -> None:
    question = "What were Acme's year-to-date net sales in 2024 and 2023?"
    plan = decompose(question, extract_intent(question, ["Acme"]), ["Acme"])
    assert plan.intent.temporal_scope.to_date
    assert {sq.period for sq in plan.sub_queries} == {"FY2024", "FY2023"}
    assert all(sq.intent.temporal_scope.to_date for sq in plan.sub_queries)
    assert not extract_intent("What were Acme's net sales in 2024?", ["Acme"]).temporal_scope.to_date


def test_a_year_to_date_is_the_months_to_the_quarter_the_filing_reports() -> None:
    from agent.finance.periods import to_date

    assert [to_date("FY2024", f) for f in ("FY2024Q1", "FY2024Q2", "FY2024Q3", "FY2024")] == [
        "FY2024Q1", "FY2024H1", "FY2024M9", "FY2024"]
    assert to_date("FY2023", "FY2024Q2") == "" and to_date("FY2024Q2", "FY2024Q2") == ""


def test_a_capitalised_part_is_a_name_even_when_a_word_of_it_says_change() -> None:
    scope = extract_intent("What were Acme's Home Improvement net sales in 2024?", ["Acme"]).scope
    assert [(t.text, t.kind) for t in scope] == [("home improvement", "part")]
    assert extract_intent("What was the increase in Acme's net sales in 2024?", ["Acme"]).scope == []


def test_a_metric_that_narrows_another_is_no_figure_of_its_own() -> None:
    def metrics(question: str) -> list[str]:
        plan = decompose(question, extract_intent(question, ["Acme"]), ["Acme"])
        return sorted({sq.metric for sq in plan.sub_queries})

    # 'associated with', 'from', 'attributed to': the second metric says which part of the first is asked
    assert metrics("What were Acme's debt issuance costs associated with credit facilities in 2024?") == [
        "debt issuance"]
    assert metrics("What was Acme's depreciation expense attributed to property, plant and equipment in 2024?") == [
        "depreciation"]
    # a list, a computation and a ratio keep every metric they name
    assert metrics("What were Acme's revenue and net income in 2024?") == ["net income", "revenue"]
    assert metrics("What was Acme's interest expense as a percentage of revenue in 2024?") == [
        "interest expense", "revenue"]
    assert len(metrics("What was Acme's revenue less cost of goods sold in 2024?")) == 2


def test_the_total_asked_is_in_the_plan_of_each_lookup_it_holds_for() -> None:
    def totals(question: str) -> dict[str, bool]:
        plan = decompose(question, extract_intent(question, ["Acme"]), ["Acme"])
        return {sq.question: sq.intent.total for sq in plan.sub_queries}

    # the whole of a share is the total; the part is one of its components, not a total itself
    share = totals("Asia Pacific as a share of Acme's total net sales in 2024?")
    assert sorted(share.values()) == [False, True], share
    assert all(total == ("total" in q.lower()) for q, total in share.items()), share
    # a total asked over years holds for each year's lookup
    assert set(totals("What was Acme's average total debt in 2023 and 2024?").values()) == {True}
    assert set(totals("What was Acme's revenue in 2023 and 2024?").values()) == {False}
