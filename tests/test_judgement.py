"""Yes/no judgement questions: a verdict only when a computed or read figure decides it, with the rule stated."""

from __future__ import annotations

from agent.answer.judgement import verdict
from agent.answer.records import SubAnswer
from agent.finance.arithmetic import CitedValue, Computation
from agent.schemas import NumericValue


def _value(v: float, unit: str = "USD") -> NumericValue:
    return NumericValue(text=f"{v:g}", value=v, scale=1e6, unit=unit)


def _change(metric: str, old: float, new: float) -> Computation:
    inputs = [CitedValue(label=f"{metric} {p}", metric=metric, value=_value(v)) for p, v in (("a", old), ("b", new))]
    return Computation(operation="change", metric=metric, inputs=inputs, formula=f"{new:g} - {old:g}",
                       result=_value(new - old))


def _answer(metric: str, value: float, unit: str = "USD") -> SubAnswer:
    return SubAnswer(question="q", status="found", answer="a", metric=metric, value=_value(value, unit),
                     display=f"{value:g}")


def test_a_change_decides_an_increase_question() -> None:
    assert verdict("Has Acme increased its debt between FY2022 and FY2023?", [],
                   [_change("total debt", 100, 80)]).startswith("No: total debt fell")
    assert verdict("Did revenue grow in 2024?", [], [_change("revenue", 100, 120)]).startswith("Yes")


def test_improving_follows_the_metrics_direction() -> None:
    assert verdict("Does Acme have an improving operating margin?", [],
                   [_change("operating margin", 12, 15)]).startswith("Yes")
    # Less debt is the improvement; an unknown metric gets no verdict at all.
    assert verdict("Is Acme's debt improving?", [], [_change("total debt", 100, 80)]).startswith("Yes")
    assert verdict("Is Acme's widget index improving?", [], [_change("widget index", 1, 2)]) == ""


def test_sign_and_capital_intensity_rules() -> None:
    assert verdict("Does Acme have positive working capital?", [_answer("working capital", -355)], []).startswith("No")
    intense = verdict("Is Acme a capital-intensive business?", [_answer("capex to revenue", 16.9, "%")], [])
    assert intense.startswith("Yes") and "a tenth of revenue" in intense
    assert verdict("Is Acme a capital-intensive business?", [_answer("capex to revenue", 5.1, "%")], []).startswith("No")


def test_no_verdict_without_a_yes_no_question_or_a_deciding_figure() -> None:
    assert verdict("What was Acme's change in debt?", [], [_change("total debt", 100, 80)]) == ""
    assert verdict("Is Acme's revenue rising?", [_answer("revenue", 10)], []) == ""


def test_an_event_question_is_decided_by_the_events_own_figure() -> None:
    def read(value: float) -> SubAnswer:
        return SubAnswer(sub_query_id="q", question="", status="found", metric="dividends paid", answer="",
                         value=NumericValue(text=f"{value:,.0f}", value=value, period="FY2022"), display=f"${value:,.0f} thousand")

    assert verdict("Has MGM Resorts paid dividends to common shareholders in FY2022?", [read(4048)], []) == (
        "Yes: dividends paid in FY2022 was $4,048 thousand (rule: the event happened when its amount is not zero).")
    assert verdict("Did MGM pay dividends in FY2022?", [read(0)], []).startswith("No: dividends paid in FY2022")
    assert verdict("Did MGM pay higher dividends in FY2022?", [read(4048)], []) == ""  # a comparison, not an event
    assert verdict("What dividends did MGM pay in FY2022?", [read(4048)], []) == ""  # not a yes/no question
    assert verdict("Did MGM pay dividends in FY2022 and FY2021?", [read(4048), read(0)], []) == ""
