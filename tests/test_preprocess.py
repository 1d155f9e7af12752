"""Query preprocessing: slot carry-over across turns, references to earlier answers, decomposition, routing
kind, and the language-model twins with a scripted chat model (replies keyed by prompt content)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from scripted import ScriptedChatModel

from agent.answer.compose import answer_references, combine
from agent.answer.records import SubAnswer
from agent.finance.arithmetic import CitedValue
from agent.llm.models import UsageLog
from agent.llm.prompts import MAX_SUB_QUERIES
from agent.query.cues import subject_phrase
from agent.query.decompose import decompose, decompose_llm
from agent.query.dialogue import DialogueSlots, Rewrite, Turn, update_slots
from agent.query.intent import extract_intent
from agent.query.kind import QueryKind, asks_definition, classify_query
from agent.query.rewrite import rewrite, rewrite_llm
from agent.schemas import Basis, Citation, NumericValue, Relation

COMPANIES = ["3M", "Microsoft", "Northwind Instruments"]


def tool_reply(name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": "call-1"}])


def value(metric: str, number: float, period: str, text: str = "") -> CitedValue:
    return CitedValue(
        label=f"{metric} {period}",
        metric=metric,
        value=NumericValue(text=text or f"{number:,g}", value=number, scale=1e6, unit="USD", period=period),
        citation=Citation(doc="NORTHWIND_2024_10K", page=7),
    )


class Conversation:
    """Drives rewrite turn by turn, recording each turn's figures like the graph does."""

    def __init__(self) -> None:
        self.slots = DialogueSlots()
        self.history: list[Turn] = []

    def ask(self, question: str, answer_values: Sequence[CitedValue] = ()) -> Rewrite:
        result = rewrite(question, self.history, self.slots, COMPANIES)
        computations = []
        if len(result.references) >= 2:  # one reference is combined with a figure read from the evidence
            comp = answer_references(result)
            assert comp is not None
            computations.append(comp)
        self.slots = update_slots(self.slots, result, None, answer_values, computations)
        self.history.append(
            Turn(
                question=question,
                rewritten=result.question,
                values=list(answer_values),
                computations=computations,
            )
        )
        return result


# ---------------------------------------------------------------------------------------------------------
# Rewrite: slot carry-over
# ---------------------------------------------------------------------------------------------------------
def test_first_turn_is_unchanged_and_fills_slots() -> None:
    chat = Conversation()
    first = chat.ask("What was 3M's capital expenditure in FY2018?")
    assert first.question == "What was 3M's capital expenditure in FY2018?"
    assert not first.changed and first.carried_over == []
    assert (chat.slots.company, chat.slots.metrics, chat.slots.periods) == (
        "3M",
        ["capital expenditure"],
        ["FY2018"],
    )


def test_new_period_carries_company_and_metric() -> None:
    chat = Conversation()
    chat.ask("What was 3M's capital expenditure in FY2018?")
    follow = chat.ask("what about 2022?")
    assert follow.question == "What was 3M's capital expenditure in 2022?"
    assert follow.carried_over == ["company: 3M", "metric: capital expenditure"]
    assert follow.intent.temporal_scope.periods == ["FY2022"] and follow.intent.company == "3M"
    assert chat.slots.periods == ["FY2022"]


def test_relative_period_shifts_the_last_one() -> None:
    chat = Conversation()
    chat.ask("What was 3M's capital expenditure in FY2018?")
    assert chat.ask("and the year before?").question == "What was 3M's capital expenditure in FY2017?"


def test_percentage_of_another_metric_keeps_company_and_period() -> None:
    chat = Conversation()
    chat.ask("What was 3M's capital expenditure in FY2018?")
    follow = chat.ask("and as a percentage of revenue?")
    assert follow.question == "What was 3M's capital expenditure as a percentage of revenue in FY2018?"
    assert set(follow.carried_over) == {"company: 3M", "period: FY2018", "metric: capital expenditure"}
    assert chat.slots.metrics == ["capital expenditure", "revenue"]


def test_new_company_with_compare_becomes_a_comparison() -> None:
    chat = Conversation()
    chat.ask("What was 3M's capital expenditure in FY2018?")
    follow = chat.ask("how does that compare with Microsoft?")
    assert follow.question == "Compare 3M's and Microsoft's capital expenditure in FY2018."
    assert chat.slots.companies == ["3M", "Microsoft"]
    plan = decompose(follow.question, follow.intent, COMPANIES)
    assert [s.id for s in plan.sub_queries] == [
        "3m:capital-expenditure:FY2018",
        "microsoft:capital-expenditure:FY2018",
    ]
    # A period follow-up after a comparison keeps both companies.
    again = chat.ask("what about 2017?")
    assert again.question == "Compare 3M's and Microsoft's capital expenditure in FY2017."


def test_new_company_alone_switches_company() -> None:
    chat = Conversation()
    chat.ask("What was 3M's capital expenditure in FY2018?")
    assert chat.ask("what about Microsoft?").question == "What was Microsoft's capital expenditure in FY2018?"


def test_new_metric_keeps_company_and_period_and_explicit_slots_win() -> None:
    chat = Conversation()
    chat.ask("What was 3M's capital expenditure in FY2018?")
    assert chat.ask("and its net income?").question == "What was 3M's net income in FY2018?"
    standalone = chat.ask("What was Microsoft's revenue in FY2021?")
    assert standalone.question == "What was Microsoft's revenue in FY2021?" and not standalone.changed


def test_change_and_percent_refer_to_earlier_answers_convfinqa_style() -> None:
    chat = Conversation()
    chat.ask(
        "what was the net cash provided by operating activities in 2013?",
        [value("cash from operations", 6823, "FY2013")],
    )
    second = chat.ask("and in 2012?", [value("cash from operations", 6161, "FY2012")])
    assert second.question == "What was the net cash provided by operating activities in 2012?"
    change = chat.ask("so what was the difference in this value between the years?")
    assert change.operation == "change"
    assert [r.value.value for r in change.references] == [6161, 6823]
    assert change.question == "What was the change in cash from operations from FY2012 to FY2013?"
    computed = answer_references(change)
    assert computed is not None and computed.result.value == 662 and computed.formula == "6,823 - 6,161 = 662"
    percent = chat.ask("what is that as a %?")
    assert percent.operation == "percent_change"
    result = answer_references(percent)
    assert result is not None and result.result.value == pytest.approx(10.745, abs=1e-3)
    assert result.result.text == "10.75%"


def test_a_subject_the_lexicon_does_not_name_carries_to_period_follow_ups() -> None:
    chat = Conversation()
    first = chat.ask("what was the net change in rental expense for operating leases from 2008 to 2009?")
    assert first.slots.subject == "" and chat.slots.subject == "rental expense for operating leases"
    again = chat.ask("what was the value in 2008?")
    assert again.question == "What was the rental expense for operating leases in 2008?"
    later = chat.ask("and over the subsequent year, from 2009 to 2010, what was that change?")
    assert "rental expense for operating leases" in later.question and "2009 to 2010" in later.question
    renamed = chat.ask("and what was the change in that expense from 2007 to 2008?")
    assert "the rental expense for operating leases from 2007 to 2008" in renamed.question
    # A follow-up naming its own item keeps its words.
    own = chat.ask("and the change in the original amount invested from 2001 to 2004?")
    assert "rental" not in own.question


def test_a_report_date_before_a_schedules_years_is_not_a_period_asked() -> None:
    asked = "as of 12/31/05, what was the change in total debt to be repaid between 2008 and 2009?"
    assert extract_intent(asked).temporal_scope.periods == ["FY2009", "FY2008"]
    def periods(question: str) -> list[str]:
        return extract_intent(question).temporal_scope.periods

    assert periods("as of december 31, 2007, what were the purchase obligations due in 2008?") == ["FY2008"]
    # A comparison with an earlier year, or a fiscal label ('as of FY2021'), keeps every period.
    assert periods("as of december 31, 2008, what was the total debt compared to 2007?") == ["FY2008", "FY2007"]
    assert "FY2021" in periods("As of FY 2021, what did it expect to pay its retirees in 2024?")
    chat = Conversation()
    chat.ask(asked)
    again = chat.ask("and between 2007 and 2008?")  # the two periods of the last question, swapped in order
    assert again.question == "As of 12/31/05, what was the change in total debt to be repaid between 2007 and 2008?"


def test_subject_phrase_keeps_the_users_words_for_the_figure() -> None:
    assert subject_phrase("between the years of 2008 and 2009, what was the change in the rental expense?") == (
        "rental expense"
    )
    assert subject_phrase("what was the total of risk and insurance segment revenue in 2009?") == (
        "risk and insurance segment revenue"
    )
    assert subject_phrase("what was the pension service cost in 2018, in millions?") == "pension service cost"
    for nothing in ("what was the value in 2008?", "what is the percent change?", "and what was it in 2007?",
                    "so what was the difference between the two years?"):
        assert subject_phrase(nothing) == "", nothing


def test_totals_and_averages_over_the_years_named_and_including_one_more() -> None:
    chat = Conversation()
    chat.ask("what was the pension service cost in 2018?", [value("pension obligations", 136, "FY2018")])
    chat.ask("and what was it in 2017?", [value("pension obligations", 110, "FY2017")])
    total = chat.ask("what was, then, the total pension service cost in the two years?")
    assert total.operation == "sum" and [r.value.value for r in total.references] == [136, 110]
    including = chat.ask("including the year of 2015, what then becomes this total?")
    assert including.operation == "sum" and [r.value.value for r in including.references] == [246]
    assert including.question == "What was the pension service cost in 2015?"
    chat = Conversation()
    for year, number in (("2016", 113), ("2017", 138), ("2018", 137)):
        chat.ask(f"what was the service cost in {year}?", [value("service cost", number, f"FY{year}")])
    three = chat.ask("combined, what was the total for these three years?")
    result = answer_references(three)
    assert result is not None and result.result.value == pytest.approx(388)


def test_a_change_word_names_the_operation_over_average_and_total() -> None:
    for question in (
        "how much did the weighted average exercise price per share increase between 2005 and 2007?",
        "what was the difference in total stock-based compensation expense between 2009 and 2010?",
    ):
        plan = decompose(question, extract_intent(question, []))
        assert [c.operation for c in plan.combinations][:1] == ["change"], (question, plan.combinations)
    question = "what was the average revenue of 3M between 2008 and 2010?"
    plan = decompose(question, extract_intent(question, COMPANIES))
    assert [c.operation for c in plan.combinations] == ["average"]


def test_year_sub_queries_keep_the_users_qualified_subject() -> None:
    question = "what is the net change in revenue for risk solutions from 2010 to 2011?"
    plan = decompose(question, extract_intent(question, []))
    assert [s.question for s in plan.sub_queries] == [
        "What was the revenue for risk solutions in FY2010?", "What was the revenue for risk solutions in FY2011?"
    ]
    assert [c.operation for c in plan.combinations] == ["change"]  # the net change asked, not its rate
    question = "between the years of 2004 and 2005, what was the variation in the long-term debt?"
    plan = decompose(question, extract_intent(question, []))
    assert [c.operation for c in plan.combinations][:1] == ["change"]  # 'variation' is a change
    assert plan.sub_queries[0].question == "What was the long term debt in FY2004?"  # nothing beyond the metric


def test_that_is_the_change_the_answer_led_with_even_over_a_named_base() -> None:
    from agent.finance.arithmetic import change, percent_change

    old, new = value("revenue", 231, "FY2007"), value("revenue", 252.7, "FY2008")
    first = rewrite("what is the net change in revenue from 2007 to 2008?", [], DialogueSlots(), COMPANIES)
    slots = update_slots(DialogueSlots(), first, None, [old, new], [change(old, new), percent_change(old, new)])
    assert slots.last_computation is not None and slots.last_computation.operation == "change"
    history = [Turn(question=first.original, rewritten=first.question)]
    follow = rewrite("what is that divided by the 2007 net revenues?", history, slots, COMPANIES)
    assert follow.operation == "percent_change"
    assert [r.value.value for r in follow.references] == [231, 252.7]
    result = answer_references(follow)
    assert result is not None and result.result.text == "9.39%"


def test_ratio_follow_up_orders_operands_by_the_question() -> None:
    chat = Conversation()
    chat.ask(
        "what was the aggregate fair value of the outstanding fuel hedges in 2016?",
        [value("derivative instruments", 37.8, "FY2016")],
    )
    chat.ask("what was it in 2015?", [value("derivative instruments", 2.7, "FY2015")])
    ratio = chat.ask("how much, then, did the 2016 fair value represent in relation to this 2015 one?")
    assert ratio.operation == "ratio"
    result = answer_references(ratio)
    assert result is not None and result.result.value == pytest.approx(14.0)


def test_scale_follow_up_restates_the_last_answer_in_the_larger_unit() -> None:
    chat = Conversation()
    thousands = CitedValue(
        label="long-term debt FY2004",
        value=NumericValue(text="965,635", value=965635, scale=1e3, unit="USD", period="FY2004"),
    )
    chat.ask("what was the long-term debt due in 2004, in thousands?", [thousands])
    millions = chat.ask("what is that in millions?")
    assert millions.operation == "ratio"
    result = answer_references(millions)
    assert result is not None and result.result.value == pytest.approx(965.635)
    chat = Conversation()
    chat.ask("what was the net income in 2015, in millions?", [value("net income", 6955.2, "FY2015")])
    billions = answer_references(chat.ask("and how much is that in billions?"))
    assert billions is not None and billions.result.value == pytest.approx(6.9552)
    # Nothing to gain by re-stating millions in dollars, nor a percentage in percent.
    assert not chat.ask("and how much is that in dollars?").references


def test_a_product_of_earlier_results_is_never_computed_as_another_operation() -> None:
    chat = Conversation()
    chat.ask("what is the change in price of the index from 2015 to 2016?", [value("index", 18.77, "FY2016")])
    chat.ask("what is 100000 divided by 100?")
    product = chat.ask("what is the product of the change by the quotient?")
    assert not product.operation and answer_references(product) is None  # not 'the change': 18.77 - 1,000


def test_a_named_total_is_looked_up_not_summed_from_earlier_answers() -> None:
    chat = Conversation()
    chat.ask("what was the tier 2 capital in 2008?", [value("tier 2 capital", 37.4, "FY2008")])
    chat.ask("and what was it in 2007?", [value("tier 2 capital", 39.6, "FY2007")])
    assert not chat.ask("and in 2008, what was the total capital?").references
    chat = Conversation()
    chat.ask("what was the tier 2 capital in 2008?", [value("tier 2 capital", 37.4, "FY2008")])
    chat.ask("and what was it in 2007?", [value("tier 2 capital", 39.6, "FY2007")])
    summed = chat.ask("what is the total of both years?")
    assert summed.operation == "sum"
    result = answer_references(summed)
    assert result is not None and result.result.value == pytest.approx(77.0)


def test_percentage_follow_up_turns_a_fraction_into_percent() -> None:
    chat = Conversation()
    fraction = CitedValue(label="ratio", value=NumericValue(text="0.0111", value=0.0111), computed=True)
    chat.ask("what is the change divided by the 2001 value?", [fraction])
    result = answer_references(chat.ask("how much is that in percentage?"))
    assert result is not None and result.result.value == pytest.approx(1.11)


# ---------------------------------------------------------------------------------------------------------
# Rewrite: turns that inherit nothing (small talk, generic definitions, self-contained questions)
# ---------------------------------------------------------------------------------------------------------
def test_small_talk_inherits_no_slots_and_leaves_the_conversation_as_it_was() -> None:
    chat = Conversation()
    chat.ask("What was Northwind's revenue in 2024?")
    for small_talk in ("hello", "thanks!"):
        turn = chat.ask(small_talk)
        assert (turn.question, turn.changed, turn.carried_over, turn.standalone) == (
            small_talk,
            False,
            [],
            "small_talk",
        )
        assert (
            turn.intent.company == "" and classify_query(turn.question, turn.intent) is QueryKind.NO_EVIDENCE
        )
    assert (
        chat.slots.last_question == "What was Northwind's revenue in 2024?"
    )  # small talk did not replace it
    follow = chat.ask("what about 2023?")
    assert follow.question == "What was Northwind's revenue in 2023?"
    assert follow.carried_over == ["company: Northwind Instruments", "metric: revenue"]


def test_generic_definition_mid_conversation_is_not_about_the_company() -> None:
    chat = Conversation()
    chat.ask("What was Northwind's revenue in 2024?")
    for question in ("What is EBITDA?", "what does free cash flow mean?"):
        turn = chat.ask(question)
        assert (turn.question, turn.carried_over, turn.standalone) == (question, [], "definition")
        assert turn.intent.relation is Relation.DEFINITION and turn.intent.company == ""
        assert classify_query(turn.question, turn.intent) is QueryKind.NO_EVIDENCE
        plan = decompose(turn.question, turn.intent, COMPANIES)
        assert [(s.question, s.company, s.metric) for s in plan.sub_queries] == [(question, "", "")]
    # The defined term becomes the subject; company and period stay for the next follow-up.
    assert (chat.slots.company, chat.slots.metrics, chat.slots.periods) == (
        "Northwind Instruments",
        ["free cash flow"],
        ["FY2024"],
    )
    assert chat.ask("and for Microsoft?").question == "What was Microsoft's free cash flow in FY2024?"


def test_company_specific_lookup_without_a_company_is_a_follow_up() -> None:
    chat = Conversation()
    chat.ask("What was Northwind's revenue in 2024?")
    net_income = chat.ask("What was the net income?")
    assert net_income.question == "What was Northwind Instruments' net income in FY2024?"
    assert net_income.carried_over == ["company: Northwind Instruments", "period: FY2024"]
    assert net_income.standalone == ""
    # 'the EBITDA' is the company's figure, not the term.
    assert chat.ask("What is the EBITDA?").question == "What was Northwind Instruments' EBITDA in FY2024?"


def test_question_naming_its_own_company_keeps_it() -> None:
    chat = Conversation()
    chat.ask("What was Northwind's revenue in 2024?")
    own = chat.ask("What is Microsoft's EBITDA?")
    assert (own.question, own.changed, own.carried_over) == ("What is Microsoft's EBITDA?", False, [])
    assert (chat.slots.company, chat.slots.metrics, chat.slots.periods) == ("Microsoft", ["ebitda"], [])


def test_its_margin_is_the_margin_of_the_previous_metric() -> None:
    chat = Conversation()
    chat.ask("What was Northwind's operating income in 2024?")
    margin = chat.ask("and its margin?")
    assert margin.question == "What was Northwind Instruments' operating margin in FY2024?"
    assert margin.carried_over == [
        "metric: operating income",
        "company: Northwind Instruments",
        "period: FY2024",
    ]


@pytest.mark.parametrize(
    ("question", "definition"),
    [
        ("What is EBITDA?", True),
        ("What does free cash flow mean?", True),
        ("Define EBITDA", True),
        ("What is an operating lease?", True),
        ("What is the EBITDA?", False),
        ("What was the net income?", False),
        ("What is Northwind's EBITDA?", False),
        ("What is its EBITDA?", False),
        ("What is EBITDA in 2024?", False),
        ("What is the net income?", False),
        ("Explain what EBITDA is.", True),
        ("What does EBITDA stand for?", True),
        ("What does goodwill consist of?", False),  # what a measure is made of is a filing's to say
        ("How is adjusted EBITDA calculated?", False),
    ],
)
def test_asks_definition(question: str, definition: bool) -> None:
    intent = extract_intent(question, COMPANIES)
    assert asks_definition(question, intent) is definition
    # the router and the conversation read a generic definition the same way: it needs no filing
    assert (classify_query(question, intent) is QueryKind.NO_EVIDENCE) is definition


def test_rewrite_llm_does_not_send_small_talk_or_definitions_to_the_model() -> None:
    model = ScriptedChatModel(rules=[])  # any call would fail and leave a fallback reason
    slots = DialogueSlots(
        company="Northwind Instruments",
        companies=["Northwind Instruments"],
        metrics=["revenue"],
        periods=["FY2024"],
        last_question="What was Northwind's revenue in 2024?",
    )
    history = [Turn(question="What was Northwind's revenue in 2024?")]
    for question in ("hello", "What is EBITDA?"):
        result = rewrite_llm(question, history, slots, model=model, known_companies=COMPANIES)
        assert (result.question, result.source, result.reason) == (question, "offline", "")
    assert model.prompts == []


# ---------------------------------------------------------------------------------------------------------
# Decomposition
# ---------------------------------------------------------------------------------------------------------
def test_decompose_two_companies() -> None:
    question = "Compare 3M's and Microsoft's FY2022 revenue"
    plan = decompose(question, extract_intent(question, COMPANIES), COMPANIES)
    assert [(s.id, s.question, s.company, s.metric, s.period) for s in plan.sub_queries] == [
        ("3m:revenue:FY2022", "What was 3M's revenue in FY2022?", "3M", "revenue", "FY2022"),
        (
            "microsoft:revenue:FY2022",
            "What was Microsoft's revenue in FY2022?",
            "Microsoft",
            "revenue",
            "FY2022",
        ),
    ]
    assert [(c.operation, c.operands) for c in plan.combinations] == [
        ("difference", ["3m:revenue:FY2022", "microsoft:revenue:FY2022"])
    ]
    for sq in plan.sub_queries:  # each sub-query carries its own intent
        assert sq.intent.company == sq.company and sq.intent.metrics == ["revenue"]
        assert sq.intent.temporal_scope.periods == ["FY2022"]


def test_decompose_change_between_two_years() -> None:
    question = "How did capex change from 2017 to 2018?"
    plan = decompose(question, extract_intent(question, COMPANIES), COMPANIES)
    assert [(s.id, s.question) for s in plan.sub_queries] == [
        ("any:capital-expenditure:FY2017", "What was the capital expenditure in FY2017?"),
        ("any:capital-expenditure:FY2018", "What was the capital expenditure in FY2018?"),
    ]
    assert [(c.operation, c.operands) for c in plan.combinations] == [
        ("change", ["any:capital-expenditure:FY2017", "any:capital-expenditure:FY2018"]),
        ("percent_change", ["any:capital-expenditure:FY2017", "any:capital-expenditure:FY2018"]),
    ]


def test_two_period_comparison_of_a_percentage_is_a_change_in_points() -> None:
    question = "What was Northwind's gross margin in 2024 and how did it compare with 2023?"
    plan = decompose(question, extract_intent(question, COMPANIES), COMPANIES)
    old, new = "northwind-instruments:gross-margin:FY2023", "northwind-instruments:gross-margin:FY2024"
    assert [(s.id, s.question) for s in plan.sub_queries] == [
        (old, "What was Northwind Instruments' gross margin in FY2023?"),
        (new, "What was Northwind Instruments' gross margin in FY2024?"),
    ]
    assert [(c.operation, c.operands, c.label) for c in plan.combinations] == [
        (
            "change",
            [old, new],
            "change in Northwind Instruments gross margin from FY2023 to FY2024 (percentage points)",
        )
    ]
    # The answer step computes it in code: 42.0% - 43.1% is -1.1 percentage points.
    cite = Citation(doc="NORTHWIND_2024_10K", page=31)
    sub_answers = [
        SubAnswer(
            sub_query_id=sq.id,
            question=sq.question,
            status="found",
            answer="",
            metric=sq.metric,
            company=sq.company,
            period=sq.period,
            value=NumericValue(text=f"{v}%", value=v, unit="%", period=sq.period),
            citation=cite,
        )
        for sq, v in zip(plan.sub_queries, (43.1, 42.0), strict=True)
    ]
    (change,) = combine(plan, sub_answers).computations
    assert change.result.value == pytest.approx(-1.1) and change.result.unit == "%"
    assert change.formula == "42 - 43.1 = (1.1)"


def test_two_period_comparison_of_an_amount_adds_change_and_growth() -> None:
    question = "What was 3M's revenue in 2018 and how did it compare with 2017?"
    plan = decompose(question, extract_intent(question, COMPANIES), COMPANIES)
    ids = ["3m:revenue:FY2017", "3m:revenue:FY2018"]
    assert [s.id for s in plan.sub_queries] == ids
    assert [(c.operation, c.operands, c.label) for c in plan.combinations] == [
        ("change", ids, "change in 3M revenue from FY2017 to FY2018"),
        ("percent_change", ids, "percentage change in 3M revenue from FY2017 to FY2018"),
    ]


@pytest.mark.parametrize(
    ("question", "operations"),
    [
        ("Was Northwind's gross margin higher in 2024 than in 2023?", ["change"]),
        ("How did Northwind's gross margin change from 2023 to 2024?", ["change"]),
        ("What was the percentage change in Northwind's gross margin from 2023 to 2024?", ["percent_change"]),
        ("Compare 3M's and Microsoft's gross margin in FY2022", ["difference"]),
    ],
)
def test_percentage_metrics_change_in_points_unless_a_relative_change_is_asked(
    question: str, operations: list[str]
) -> None:
    plan = decompose(question, extract_intent(question, COMPANIES), COMPANIES)
    assert [c.operation for c in plan.combinations] == operations
    assert all(
        c.label.endswith("(percentage points)") for c in plan.combinations if c.operation != "percent_change"
    )


def test_simple_question_stays_whole_and_ids_are_stable() -> None:
    question = "What is the FY2018 capital expenditure amount (in USD millions) for 3M?"
    first = decompose(question, extract_intent(question, COMPANIES), COMPANIES)
    again = decompose(question, extract_intent(question, COMPANIES), COMPANIES)
    assert [s.question for s in first.sub_queries] == [question]
    assert (
        [s.id for s in first.sub_queries]
        == [s.id for s in again.sub_queries]
        == ["3m:capital-expenditure:FY2018"]
    )
    assert first.combinations == []


def test_definition_inputs_and_averaged_prior_year_do_not_split() -> None:
    question = (
        "What is the FY2017 return on assets (ROA) for 3M? ROA is defined as: FY2017 net income / "
        "(average total assets between FY2016 and FY2017)."
    )
    plan = decompose(question, extract_intent(question, COMPANIES), COMPANIES)
    assert [(s.metric, s.period) for s in plan.sub_queries] == [("return on assets", "FY2017")]
    formula = "What is 3M's FY2021 operating income + depreciation and amortization (unadjusted EBITDA)?"
    assert [
        s.metric for s in decompose(formula, extract_intent(formula, COMPANIES), COMPANIES).sub_queries
    ] == ["ebitda"]


def test_ad_hoc_share_over_three_years_is_averaged() -> None:
    question = "What is the FY2018 - FY2020 3 year average of capex as a % of revenue for 3M?"
    plan = decompose(question, extract_intent(question, COMPANIES), COMPANIES)
    assert len(plan.sub_queries) == 6
    ops = [(c.id, c.operation, c.operands) for c in plan.combinations]
    assert ops[:3] == [
        ("c1", "share", ["3m:capital-expenditure:FY2018", "3m:revenue:FY2018"]),
        ("c2", "share", ["3m:capital-expenditure:FY2019", "3m:revenue:FY2019"]),
        ("c3", "share", ["3m:capital-expenditure:FY2020", "3m:revenue:FY2020"]),
    ]
    assert ops[3] == ("c4", "average", ["c1", "c2", "c3"])


def test_amount_margin_is_a_share_of_revenue() -> None:
    question = (
        "What is the FY2015 depreciation and amortization (D&A from cash flow statement) % margin for 3M?"
    )
    plan = decompose(question, extract_intent(question, COMPANIES), COMPANIES)
    assert [s.metric for s in plan.sub_queries] == ["depreciation and amortization", "revenue"]
    assert [c.operation for c in plan.combinations] == ["share"]


def test_explanation_stays_one_text_sub_query() -> None:
    question = "What drove the increase in Northwind's gross margin in 2024?"
    plan = decompose(question, extract_intent(question, COMPANIES), COMPANIES)
    assert len(plan.sub_queries) == 1 and plan.sub_queries[0].metric == ""
    assert plan.sub_queries[0].question == question


def test_too_many_sub_queries_are_capped_with_a_note() -> None:
    question = (
        "Compare 3M's and Microsoft's net income, revenue and capital expenditure in FY2019, FY2020 "
        "and FY2021"
    )
    plan = decompose(question, extract_intent(question, COMPANIES), COMPANIES)
    assert len(plan.sub_queries) == MAX_SUB_QUERIES
    assert plan.notes and plan.notes[0].startswith("18 sub-queries asked")


# ---------------------------------------------------------------------------------------------------------
# Router kind
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("hello!", QueryKind.NO_EVIDENCE),
        ("thanks a lot", QueryKind.NO_EVIDENCE),
        ("What is EBITDA?", QueryKind.NO_EVIDENCE),
        ("What does free cash flow mean?", QueryKind.NO_EVIDENCE),
        ("What is Microsoft's market cap?", QueryKind.MARKET),
        ("How has 3M stock performed this year?", QueryKind.MARKET),
        ("What is the current share price of Microsoft?", QueryKind.MARKET),
        ("What was 3M's revenue in 2018?", QueryKind.FILING),
        ("What is Northwind's free cash flow?", QueryKind.FILING),
        ("How much stock-based compensation did 3M record in 2018?", QueryKind.FILING),
        ("What aggregate market value of voting stock does the 10-K report?", QueryKind.FILING),
    ],
)
def test_classify_query(question: str, kind: QueryKind) -> None:
    assert classify_query(question, extract_intent(question, COMPANIES)) is kind


# ---------------------------------------------------------------------------------------------------------
# Language-model twins
# ---------------------------------------------------------------------------------------------------------
def test_rewrite_llm_uses_the_model_and_keeps_offline_references() -> None:
    model = ScriptedChatModel(
        rules=[
            (
                ("what about 2022?",),
                tool_reply(
                    "RewriteOutput",
                    {
                        "question": "What was 3M's capital expenditure in FY2022?",
                        "carried_over": ["company: 3M"],
                        "changed": True,
                    },
                ),
            )
        ]
    )
    history = [Turn(question="What was 3M's capital expenditure in FY2018?", answer="It was $1,577 million.")]
    slots = DialogueSlots(
        company="3M",
        companies=["3M"],
        metrics=["capital expenditure"],
        periods=["FY2018"],
        last_question="What was 3M's capital expenditure in FY2018?",
    )
    usage = UsageLog()
    result = rewrite_llm(
        "what about 2022?", history, slots, model=model, usage=usage, known_companies=COMPANIES
    )
    assert result.source == "llm" and result.question == "What was 3M's capital expenditure in FY2022?"
    assert result.slots.periods == ["FY2022"] and result.slots.company == "3M"
    assert "It was $1,577 million." in model.prompts[0]  # the conversation is in the prompt
    assert [r.step for r in usage.records] == ["rewrite"]


def test_rewrite_llm_falls_back_to_the_offline_twin() -> None:
    model = ScriptedChatModel(rules=[])  # every call fails
    slots = DialogueSlots(
        company="3M",
        companies=["3M"],
        metrics=["capital expenditure"],
        periods=["FY2018"],
        last_question="What was 3M's capital expenditure in FY2018?",
    )
    history = [Turn(question="What was 3M's capital expenditure in FY2018?")]
    result = rewrite_llm("what about 2022?", history, slots, model=model, known_companies=COMPANIES)
    assert result.source == "offline" and result.reason
    assert result.question == "What was 3M's capital expenditure in 2022?"


def test_decompose_llm_canonicalises_and_plans_combinations() -> None:
    question = "Compare 3M's and Microsoft's FY2022 revenue"
    model = ScriptedChatModel(
        rules=[
            (
                ("Compare 3M",),
                tool_reply(
                    "Decomposition",
                    {
                        "sub_queries": [
                            {
                                "question": "What was 3M's total net sales in fiscal 2022?",
                                "company": "3M",
                                "metric": "net sales",
                                "period": "fiscal 2022",
                            },
                            {
                                "question": "What was Microsoft's total net sales in fiscal 2022?",
                                "company": "Microsoft",
                                "metric": "net sales",
                                "period": "FY2022",
                            },
                        ]
                    },
                ),
            )
        ]
    )
    plan = decompose_llm(
        question, extract_intent(question, COMPANIES), model=model, known_companies=COMPANIES
    )
    assert plan.source == "llm"
    assert [(s.id, s.metric, s.period) for s in plan.sub_queries] == [
        ("3m:revenue:FY2022", "revenue", "FY2022"),
        ("microsoft:revenue:FY2022", "revenue", "FY2022"),
    ]
    assert [c.operation for c in plan.combinations] == ["difference"]
    assert plan.sub_queries[0].intent.metrics == ["revenue"]


def test_decompose_llm_rejects_invented_companies_then_falls_back() -> None:
    question = "What was 3M's revenue in FY2022?"
    model = ScriptedChatModel(
        rules=[
            (
                ("3M's revenue",),
                tool_reply(
                    "Decomposition",
                    {
                        "sub_queries": [
                            {
                                "question": "What was Apple's revenue in FY2022?",
                                "company": "Apple",
                                "metric": "revenue",
                                "period": "FY2022",
                            }
                        ]
                    },
                ),
            )
        ]
    )
    usage = UsageLog()
    plan = decompose_llm(
        question, extract_intent(question, COMPANIES), model=model, usage=usage, known_companies=COMPANIES
    )
    assert plan.source == "offline" and "Apple" in plan.reason
    assert [s.id for s in plan.sub_queries] == ["3m:revenue:FY2022"]
    assert [r.outcome for r in usage.records] == ["invalid", "invalid"]


def _decomposition(*sub_queries: tuple[str, str, str, str]) -> AIMessage:
    return tool_reply(
        "Decomposition",
        {
            "sub_queries": [
                {"question": q, "company": c, "metric": m, "period": p} for q, c, m, p in sub_queries
            ]
        },
    )


def test_decompose_llm_retries_made_up_sub_queries_then_drops_the_invalid_ones() -> None:
    question = "What was 3M's revenue in FY2022?"
    valid = ("What was 3M's revenue in FY2022?", "3M", "revenue", "FY2022")
    model = ScriptedChatModel(
        rules=[
            (
                ("3M's revenue",),
                _decomposition(valid, ("What were 3M's synergies?", "3M", "synergy magic", "")),
            ),
            # The retry (its prompt carries the reason) still invents a period: that sub-query is dropped.
            (
                ("3M's revenue", "synergy magic"),
                _decomposition(valid, ("What was 3M's revenue in FY2015?", "3M", "revenue", "FY2015")),
            ),
        ]
    )
    usage = UsageLog()
    plan = decompose_llm(
        question, extract_intent(question, COMPANIES), model=model, usage=usage, known_companies=COMPANIES
    )
    assert plan.source == "llm" and [r.outcome for r in usage.records] == ["invalid", "ok"]
    assert "'synergy magic' is neither a known metric nor in the question" in model.prompts[1]
    assert [s.id for s in plan.sub_queries] == ["3m:revenue:FY2022"]
    assert plan.notes == [
        "dropped the model's sub-query \"What was 3M's revenue in FY2015?\": "
        "period FY2015 is neither in the question nor derivable from it"
    ]


def test_decompose_llm_accepts_derivable_periods_and_companies_from_the_slots() -> None:
    question = "What was the revenue growth in FY2022?"
    model = ScriptedChatModel(
        rules=[
            (
                ("revenue growth",),
                _decomposition(
                    ("What was Northwind's revenue in FY2022?", "Northwind", "net sales", "FY2022"),
                    ("What was Northwind's revenue in the prior year?", "Northwind", "revenue", "prior year"),
                ),
            )
        ]
    )
    slots = DialogueSlots(company="Northwind Instruments", companies=["Northwind Instruments"])
    usage = UsageLog()
    plan = decompose_llm(
        question,
        extract_intent(question, COMPANIES),
        model=model,
        usage=usage,
        known_companies=COMPANIES,
        slots=slots,
    )
    assert plan.source == "llm" and [r.outcome for r in usage.records] == ["ok"]
    assert [(s.id, s.company, s.period) for s in plan.sub_queries] == [
        ("northwind-instruments:revenue:FY2022", "Northwind Instruments", "FY2022"),
        ("northwind-instruments:revenue:FY2021", "Northwind Instruments", "FY2021"),
    ]
    ids = ["northwind-instruments:revenue:FY2021", "northwind-instruments:revenue:FY2022"]
    # a growth asks its rate, as the offline plan reads it
    assert [(c.operation, c.operands) for c in plan.combinations] == [("percent_change", ids)]


def test_decompose_llm_falls_back_when_no_sub_query_is_valid() -> None:
    question = "What was 3M's revenue in FY2022?"
    model = ScriptedChatModel(
        rules=[(("3M's revenue",), _decomposition(("What was 3M's revenue?", "3M", "revenue", "FY2015")))]
    )
    usage = UsageLog()
    plan = decompose_llm(
        question, extract_intent(question, COMPANIES), model=model, usage=usage, known_companies=COMPANIES
    )
    assert plan.source == "offline" and [r.outcome for r in usage.records] == ["invalid", "invalid"]
    assert plan.reason == (
        '"What was 3M\'s revenue?": period FY2015 is neither in the question nor derivable from it'
    )
    assert [s.id for s in plan.sub_queries] == ["3m:revenue:FY2022"]


def test_a_model_rewrite_that_drops_the_asked_period_or_company_is_not_used() -> None:
    from agent.query.dialogue import DialogueSlots
    from agent.query.rewrite import rewrite, rewrite_drift

    offline = rewrite("What was 3M's capital expenditure in FY2018?", [], DialogueSlots(), ["3M"])
    assert rewrite_drift(offline, "What was 3M's capital expenditure in FY2018?", ["3M"]) is None
    assert "FY2018" in (rewrite_drift(offline, "What was 3M's capital expenditure in FY2022?", ["3M"]) or "")
    assert "3M" in (rewrite_drift(offline, "What was Boeing's capital expenditure in FY2018?", ["3M"]) or "")
    echoed = "What was 3M's capital expenditure in FY2018? <question> What was 3M's capital expenditure in FY2018?"
    assert rewrite_drift(offline, echoed, ["3M"]) == "the rewrite repeats the prompt"


@pytest.mark.parametrize(
    ("question", "relation", "numeric", "kind"),
    [
        ("What does goodwill consist of?", Relation.DEFINITION, False, QueryKind.FILING),
        ("What does order intake represent?", Relation.DEFINITION, False, QueryKind.FILING),
        ("How is EBITDA calculated?", Relation.DEFINITION, False, QueryKind.FILING),
        ("What are the components considered when calculating the net debt ratio?", Relation.DEFINITION, False,
         QueryKind.FILING),
        ("When did the Board of Directors approve the restructuring plan?", Relation.EXPLANATION, False,
         QueryKind.FILING),
        ("Where can the discussion of operating income be found?", Relation.EXPLANATION, False, QueryKind.FILING),
        ("How much did the restructuring plan cost in 2018?", Relation.LOOKUP, True, QueryKind.FILING),
        ("What does EBITDA mean?", Relation.DEFINITION, False, QueryKind.NO_EVIDENCE),
    ],
)
def test_questions_about_what_a_measure_holds_ask_for_words_not_a_figure(
    question: str, relation: Relation, numeric: bool, kind: QueryKind
) -> None:
    """'What does X consist of?', 'How is X calculated?', 'When did ...?' are answered from the filing's words;
    a figure stated for them is a wrong answer. A glossary question ('What does EBITDA mean?') needs no filing."""
    intent = extract_intent(question, [])
    assert intent.relation is relation
    assert intent.requires_numeric is numeric
    assert classify_query(question, intent) is kind


def test_two_periods_read_from_one_cell_are_not_combined() -> None:
    """'The change from 2018 to 2019' where both years resolved to the same cell is refused, never '0'."""
    from agent.query.plan import Combination, QueryPlan, SubQuery

    cite = Citation(doc="AUDIT_FEES", page=1, quote="Audit-Related Fees | 2019: 209,005 | 2018: 172,000")
    value = NumericValue(text="209,005", value=209005, start=30, period="FY2019")
    reads = [
        SubAnswer(sub_query_id=sq, question="", status="found", answer="", value=value.model_copy(update={"period": p}),
                  citation=cite, citations=[cite])
        for sq, p in (("a", "FY2018"), ("b", "FY2019"))
    ]
    intent = extract_intent("What was the change in audit-related fees from 2018 to 2019?", [])
    plan = QueryPlan(
        question="What was the change in audit-related fees from 2018 to 2019?",
        sub_queries=[SubQuery(id="a", question="fees 2018", intent=intent), SubQuery(id="b", question="fees 2019", intent=intent)],
        combinations=[Combination(id="c", operation="change", operands=["a", "b"], label="change in fees")],
    )
    result = combine(plan, reads)
    assert result.computations == []
    assert "both read from the same figure (209,005 [AUDIT_FEES, p. 1])" in result.failed[0]


def test_decompose_llm_never_drops_a_part_the_question_names() -> None:
    """'How much has the effective tax rate changed between FY2021 and FY2022?': a model plan asking FY2022 alone
    would answer a change with one year's rate; the offline plan, which asks both years, is used."""
    question = "How much has 3M's effective tax rate changed between FY2021 and FY2022?"
    model = ScriptedChatModel(rules=[(("effective tax rate",), _decomposition(
        ("What was 3M's effective tax rate in FY2022?", "3M", "effective tax rate", "FY2022")))])
    plan = decompose_llm(question, extract_intent(question, COMPANIES), model=model, known_companies=COMPANIES)
    assert plan.source == "offline" and "leaves out" in plan.reason
    assert {s.period for s in plan.sub_queries} == {"FY2021", "FY2022"}
    assert [c.operation for c in plan.combinations][:1] == ["change"]


def test_a_model_plan_keeps_the_parts_the_question_names() -> None:
    """The model words its sub-queries without 'adjusted'; the plan's reading of the question keeps it as the
    basis, so the gate still asks the figure's row for it."""
    question = "What was the adjusted (non-GAAP) net income of 3M in FY2022?"
    model = ScriptedChatModel(rules=[(("net income",), _decomposition(
        ("What was 3M's net income in FY2022?", "3M", "net income", "FY2022")))])
    plan = decompose_llm(question, extract_intent(question, COMPANIES), model=model, known_companies=COMPANIES)
    assert plan.source == "llm"
    (sub_query,) = plan.sub_queries
    assert "adjusted" not in sub_query.question
    assert sub_query.intent.wording.basis == [Basis.ADJUSTED] and not sub_query.intent.scope


def row_value(label: str, number: float, period: str, row: str) -> CitedValue:
    """A figure no lexicon metric names, read from a table row."""
    return CitedValue(
        label=period,
        value=NumericValue(text=f"{number:g}", value=number, scale=1e6, unit="USD", period=period),
        citation=Citation(doc="NORTHWIND_2024_10K", page=7, quote=row),
    )


def test_two_rows_of_one_year_are_two_figures_to_add() -> None:
    chat = Conversation()
    chat.ask("during 2009, what was the total of additions charged to expense?",
             [row_value("additions", 27.3, "FY2009", "additions charged to expense | 27.3")])
    chat.ask("and what was the total of accounts written-off?",
             [row_value("written-off", -37.8, "FY2009", "accounts written-off | -37.8")])
    total = chat.ask("what was, then, the combined total of both segments?")
    assert total.operation == "sum"
    result = answer_references(total)
    assert result is not None and result.result.value == pytest.approx(-10.5)


def test_a_share_of_this_total_divides_the_part_by_the_larger_figure() -> None:
    chat = Conversation()
    europe, total = value("revenue", 1100, "FY2007"), value("revenue", 5245, "FY2007")
    europe.citation = Citation(doc="NORTHWIND_2024_10K", page=7, quote="european sales were $1.1 billion")
    total.citation = Citation(doc="NORTHWIND_2024_10K", page=7, quote="total industrial packaging | 5245")
    chat.ask("in 2007, what was the amount of the industrial packaging sales from europe?", [europe])
    chat.ask("and what was the total of those sales?", [total])
    share = chat.ask("what percentage, then, of this total did that amount represent?")
    assert share.operation == "share"
    result = answer_references(share)
    assert result is not None and result.result.text == "20.97%"


def test_a_prior_sum_that_was_never_computed_is_not_divided_by() -> None:
    chat = Conversation()
    chat.ask("what is the value of the purchased distressed loan portfolio in 2010?",
             [row_value("portfolio", 392, "FY2010", "purchased distressed loan portfolio | 392")])
    chat.ask("what is the allowance value at the end of 2010?",
             [row_value("allowance", 77, "FY2010", "allowance | 77")])
    follow = chat.ask("what is that value divided by the prior sum?")
    assert not follow.references  # asked afresh: there is no sum to divide by


def test_a_share_naming_new_things_is_asked_afresh() -> None:
    chat = Conversation()
    chat.ask("during 2009, what was the total of additions charged to expense?",
             [row_value("additions", 27.3, "FY2009", "additions charged to expense | 27.3")])
    chat.ask("and what was the total of accounts written-off?",
             [row_value("written-off", -37.8, "FY2009", "accounts written-off | -37.8")])
    follow = chat.ask("what percentage of the restricted cash was due to proceeds from bond issuance?")
    assert not follow.references


def test_that_divided_by_a_figure_named_now_looks_it_up_and_divides() -> None:
    chat = Conversation()
    chat.ask("what is the value of european industrial packaging net sales for 2007?",
             [value("revenue", 1100, "FY2007")])
    follow = chat.ask("what is that divided by total 2007 sales?")
    assert follow.question == "What was total 2007 sales?"
    assert follow.operation == "ratio" and not follow.read_first
    assert [r.value.value for r in follow.references] == [1100]


def test_a_figure_named_now_divided_by_that_change_is_read_first() -> None:
    from agent.finance.arithmetic import change

    old, new = value("revenue", 231, "FY2007"), value("revenue", 252.7, "FY2008")
    chat = Conversation()
    first = rewrite("what was the net change in revenue from 2007 to 2008?", [], DialogueSlots(), COMPANIES)
    chat.slots = update_slots(DialogueSlots(), first, None, [old, new], [change(old, new)])
    follow = chat.ask("what is the 2008 rider revenue divided by that net change?")
    assert follow.question.startswith("What was the 2008 rider revenue")
    assert follow.operation == "ratio" and follow.read_first


def test_the_change_over_the_year_is_no_division() -> None:
    chat = Conversation()
    chat.ask("what was the operating income in 2017?", [value("operating income", 11503, "FY2017")])
    chat.ask("and what was it in 2016?", [value("operating income", 10815, "FY2016")])
    follow = chat.ask("what was, then, the change over the year, in millions?")
    assert follow.operation == "change" and len(follow.references) == 2


def test_one_year_less_another_subtracts_in_the_order_written() -> None:
    chat = Conversation()
    chat.ask("what was the 2016 net revenue?", [value("revenue", 1542, "FY2016")])
    chat.ask("what was the 2015 net revenue?", [value("revenue", 1666, "FY2015")])
    follow = chat.ask("what is the 2016 less the 2015 values?")
    result = answer_references(follow)
    assert result is not None and result.result.value == pytest.approx(-124)


def test_an_average_after_a_total_averages_the_totals_inputs() -> None:
    chat = Conversation()
    chat.ask("what was the interest cost for 2018?", [value("interest expense", 90, "FY2018")])
    chat.ask("and in 2017?", [value("interest expense", 61, "FY2017")])
    chat.ask("and in 2016?", [value("interest expense", 72, "FY2016")])
    chat.ask("so what was the total for the three years?")
    follow = chat.ask("and what was the average during this period?")
    result = answer_references(follow)
    assert result is not None and result.result.value == pytest.approx(74.33, abs=0.01)


def test_a_ratio_of_two_answered_years_of_the_named_metric_uses_them() -> None:
    chat = Conversation()
    chat.ask("what was the total revenue in 2011?", [value("revenue", 11287, "FY2011")])
    chat.ask("and what was it in 2010?", [value("revenue", 8512, "FY2010")])
    follow = chat.ask("how much, then, does the 2011 total revenue represent in relation to the 2010 one?")
    result = answer_references(follow)
    assert follow.operation == "ratio" and result is not None and result.result.value == pytest.approx(1.326, abs=1e-3)


def test_the_first_in_relation_to_the_second_divides_the_earlier_answer_by_the_later() -> None:
    chat = Conversation()
    chat.ask("what was the free cash flow in 2015?",
             [value("free cash flow", 524, "FY2015"), value("cash from operations", 7344, "FY2015")])
    chat.ask("and what was the cash provided by operating activities in that same year?",
             [value("cash from operations", 7344, "FY2015")])
    follow = chat.ask("how much, then, did the first represent in relation to the second?")
    result = answer_references(follow)
    assert result is not None and result.result.value == pytest.approx(524 / 7344)


def test_a_change_since_a_year_not_yet_answered_looks_that_year_up() -> None:
    chat = Conversation()
    chat.ask("what was the price performance of the pmi in 2014?", [value("price performance", 97.9, "FY2014")])
    follow = chat.ask("and by what amount did it change since 2013?")
    assert follow.question == "What was the price performance of the pmi in 2013?"
    assert follow.operation == "change" and follow.read_first  # 2013 read now is the old value
    assert [r.value.value for r in follow.references] == [97.9]


def test_that_change_for_another_subject_is_asked_afresh() -> None:
    chat = Conversation()
    chat.ask("what was the value of cadence design systems in 2012?", [value("cadence", 78.92, "FY2012")])
    chat.ask("and in 2007?", [value("cadence", 100, "FY2007")])
    chat.ask("what was the change over the period?")
    follow = chat.ask("in that same period, what was that fluctuation for the nasdaq composite?")
    assert not follow.references


def test_what_turns_asking_a_figure_split_into_are_no_generic_definitions() -> None:
    from agent.query.kind import QueryKind, classify_query

    chat = Conversation()
    chat.ask("what is the total goodwill?", [value("goodwill", 14722, "")])
    follow = chat.ask("what about total assets?")
    assert classify_query(follow.original) is not QueryKind.NO_EVIDENCE  # a follow-up, not 'what is X?'
    assert follow.standalone == ""


def test_a_part_of_an_earlier_whole_puts_the_named_metric_over_it() -> None:
    chat = Conversation()
    chat.ask("what was the total acquisition price?", [value("acquisitions", 267100, "FY2007")])
    follow = chat.ask("what percentage of this price was dedicated to goodwill?")
    assert follow.question.startswith("What was the goodwill as a percentage of acquisitions")


def test_a_follow_up_naming_a_figure_more_exactly_than_the_lexicon_keeps_its_words() -> None:
    chat = Conversation()
    chat.ask("in the year of 2005, what was the total amount of the non-tower cash flow?",
             [value("cash flow", -30584, "FY2005")])
    follow = chat.ask("and what was the adjusted consolidated cash flow?")
    assert "adjusted consolidated cash flow" in follow.question and "FY2005" in follow.question


def test_that_amount_as_a_portion_of_this_named_figure_divides_the_two_answers() -> None:
    chat = Conversation()
    chat.ask("in the year of 2005, what was the total amount of the non-tower cash flow?",
             [value("cash flow", -30584, "FY2005")])
    chat.ask("and what was the adjusted consolidated cash flow?", [value("cash flow", 531822, "FY2005")])
    follow = chat.ask("what, then, was that amount as a portion of this adjusted cash flow?")
    result = answer_references(follow)
    assert follow.operation == "share" and result is not None
    assert result.result.value == pytest.approx(-30584 / 531822 * 100)


def test_a_follow_up_with_its_own_subject_keeps_it_in_the_period_it_names() -> None:
    chat = Conversation()
    chat.ask("as of december 31, 2012, what was the remaining amount under the share repurchase program?",
             [value("share repurchases", 0.88, "FY2012")])
    follow = chat.ask("and in the year before, what was the average price paid per share?")
    assert "average price paid per share" in follow.question and "2011" in follow.question
    assert "remaining amount" not in follow.question


def test_two_cells_of_one_row_add_up_between_those_two_numbers() -> None:
    chat = Conversation()
    row = "equity compensation plans approved by security holders | 448859 | 4087587"
    chat.ask("what is the number of securities to be issued upon exercise of outstanding options?",
             [row_value("a", 448859, "FY2014", row)])
    chat.ask("and what is the number of securities remaining available for future issuance?",
             [row_value("c", 4087587, "FY2014", row)])
    total = chat.ask("what is, then, the combined total of securities between those two numbers?")
    result = answer_references(total)
    assert result is not None and result.result.value == pytest.approx(4536446)
    chat.ask("what is the number of securities remaining available for future issuance?",
             [row_value("c", 4087587, "FY2014", row)])
    share = chat.ask("and how much does this number represent in relation to that combined total?")
    result = answer_references(share)
    assert share.operation == "ratio" and result is not None
    assert result.result.value == pytest.approx(4087587 / 4536446)


def test_that_value_over_a_sum_never_made_is_no_sum() -> None:
    chat = Conversation()
    chat.ask("what is the value of interest only product in 2012?", [row_value("a", 904, "FY2012", "interest only | 904")])
    chat.ask("and the principal and interest product?", [row_value("b", 266, "FY2012", "p&i | 266")])
    follow = chat.ask("what is that value over the sum of both product values?")
    assert follow.operation != "sum"


def test_that_value_divided_by_the_prior_sum_uses_the_sum_made_earlier() -> None:
    chat = Conversation()
    chat.ask("what is the value of the purchased distressed loan portfolio in 2010?",
             [row_value("portfolio", 392, "FY2010", "portfolio | 392")])
    chat.ask("what is the value of allowances in 2010?", [row_value("allowance", 77, "FY2010", "allowance | 77")])
    chat.ask("what is the sum?")
    total = chat.history[-1].computations[0]  # the graph remembers a computed result among the turn's figures
    chat.slots.last_values.append(CitedValue(label=f"sum {total.result.period}", value=total.result, computed=True))
    chat.ask("what is the allowance value at the end of 2010?", [row_value("allowance", 77, "FY2010", "allowance | 77")])
    follow = chat.ask("what is that value divided by the prior sum?")
    result = answer_references(follow)
    assert result is not None and result.result.value == pytest.approx(77 / 469)
