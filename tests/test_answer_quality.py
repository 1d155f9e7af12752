"""Answer quality on the question shapes the evaluations measured: table cells the lexicon does not name,
years in row labels, two-period changes read from one row, period-only follow-ups, arithmetic with typed
numbers, 'in relation to' ratios and filing prices that are not market data."""

from __future__ import annotations

import pytest
from support import typed_evidence

from agent.answer.compose import answer_offline, answer_references, answer_sub_query
from agent.answer.reading import Evidence
from agent.answer.records import SubAnswer
from agent.finance.arithmetic import CitedValue, change
from agent.query.decompose import decompose
from agent.query.dialogue import DialogueSlots, Turn, update_slots
from agent.query.kind import QueryKind, classify_query
from agent.query.plan import QueryPlan
from agent.query.rewrite import rewrite
from agent.schemas import NumericValue

PAYABLES = (
    "Accounts payable and other current liabilities\n"
    "columns: 2008, 2007\n"
    "accounts payable | 2008: 629 | 2007: 732\n"
    "accrued casualty costs | 2008: 390 | 2007: 371\n"
    "equipment rents payable | 2008: 93 | 2007: 103\n"
    "total accounts payable and other current liabilities | 2008: 2560 | 2007: 2902"
)
# A walk from one year's figure to the next: the years sit in the row labels, the items carry no period.
WALK = (
    "Net revenue\n(in millions)\n"
    "2015 net revenue | 1666 | (in millions)\n"
    "nuclear realized price changes | -149 | (in millions)\n"
    "nuclear fuel expenses | 68 | (in millions)\n"
    "2016 net revenue | 1542 | (in millions)"
)
PROSE = "Net revenue decreased $124 million in 2016 compared to 2015 primarily due to lower prices."


def _evidence(*texts: str) -> list[Evidence]:
    return [
        typed_evidence(chunk_id=f"c{i}", doc_name="ACME_2008", text=t, score=1.0 - i / 10) for i, t in enumerate(texts)
    ]


def _answers(question: str, evidence: list[Evidence]) -> list[SubAnswer]:
    rw = rewrite(question, [], DialogueSlots())
    plan = decompose(rw.question, rw.intent)
    return [answer_sub_query(sq, evidence) for sq in plan.sub_queries]


def _value(question: str, evidence: list[Evidence]) -> NumericValue:
    (answer,) = _answers(question, evidence)
    assert answer.value is not None, answer.answer
    return answer.value


@pytest.mark.parametrize(
    ("question", "expected", "period"),
    [
        ("what was the equipment rents payable in 2008?", 93, "FY2008"),
        ("what were the accrued casualty costs during 2007?", 371, "FY2007"),
        ("what was the total accounts payable and other current liabilities in 2007?", 2902, "FY2007"),
    ],
)
def test_reads_the_cell_of_a_row_the_lexicon_does_not_name(question: str, expected: float, period: str) -> None:
    value = _value(question, _evidence(PAYABLES))
    assert value.value == expected
    assert value.period == period


def test_reads_the_year_from_the_row_label() -> None:
    assert _value("what was the 2015 net revenue?", _evidence(WALK)).value == 1666
    assert _value("what was the net revenue in 2016?", _evidence(WALK)).value == 1542


def test_table_cell_beats_a_prose_restatement() -> None:
    # The sentence's $124 million is the change, not 2016 net revenue; the table row names the question.
    assert _value("what was the 2016 net revenue?", _evidence(WALK, PROSE)).value == 1542


def test_undated_item_of_a_walk_table_is_read() -> None:
    assert _value("what were nuclear fuel expenses in 2016?", _evidence(WALK)).value == 68


def test_change_between_two_years_is_computed_from_one_row() -> None:
    (answer,) = _answers("what was the change in equipment rents payable from 2007 to 2008?", _evidence(PAYABLES))
    assert answer.status == "computed"
    assert answer.value is not None and answer.value.value == pytest.approx(-10)  # 93 - 103: the sign kept
    (pct,) = _answers(
        "what was the percentage change in accrued casualty costs between 2007 and 2008?", _evidence(PAYABLES)
    )
    assert pct.value is not None and pct.value.unit == "%"
    assert pct.value.value == pytest.approx((390 - 371) / 371 * 100)


def test_no_matching_cell_is_still_not_a_guess() -> None:
    answers = _answers("what was the number of gas customers in 2008?", _evidence(PAYABLES))
    assert all(a.value is None for a in answers)


def test_period_only_follow_up_repeats_the_last_question() -> None:
    first = rewrite("what was the equipment rents payable in 2008?", [], DialogueSlots())
    slots = first.slots.model_copy(update={"last_question": first.question})
    history = [Turn(question=first.question)]
    for follow_up in ("and in 2007?", "and what were they in 2007?", "and the specific value for 2007?"):
        assert rewrite(follow_up, history, slots).question == "What was the equipment rents payable in 2007?"
    # A follow-up that says more than a period is not a bare repeat.
    assert "equipment" not in rewrite("and what was it in the second section?", history, slots).question


def _slots_after_change() -> DialogueSlots:
    old = CitedValue(label="revenue FY2008", value=NumericValue(text="6197", value=6197, period="FY2008"))
    new = CitedValue(label="revenue FY2009", value=NumericValue(text="6305", value=6305, period="FY2009"))
    return DialogueSlots(last_values=[old, new], last_computation=change(old, new), periods=["FY2008"])


def test_typed_number_arithmetic_on_the_last_answer() -> None:
    last = CitedValue(
        label="obligations FY2014", value=NumericValue(text="385373", value=385373, scale=1e3, period="FY2014")
    )
    slots = DialogueSlots(last_values=[last])
    history = [Turn(question="what are the annual long-term obligations in 2014?")]
    divided = answer_references(rewrite("what is that divided by 1000?", history, slots))
    assert divided is not None and divided.result.value == pytest.approx(385.373)
    less = answer_references(rewrite("what is that less an initial $100 investment?", history, slots))
    assert less is not None and less.result.value == pytest.approx(385273)
    # 'times 1000' re-scales as often as it multiplies: no product is computed, no figure stated from it
    assert answer_references(rewrite("what is that times 1000?", history, slots)) is None
    typed = rewrite("what is 100000 divided by 100?", [], DialogueSlots())
    answer = answer_offline(QueryPlan(question=typed.question), [], typed)
    assert "1,000" in answer.text
    # A year is a period, not an operand.
    assert not rewrite("what is the value of the stock in 2017 less an initial $100?", [], slots).references


def test_relation_to_another_year_is_a_ratio_and_to_this_change_a_percentage() -> None:
    slots = _slots_after_change()
    history = [Turn(question="x")]
    ratio = rewrite("how much did the 2009 amount represent in relation to this 2008 one?", history, slots)
    assert ratio.operation == "ratio"
    assert [r.value.period for r in ratio.references] == ["FY2009", "FY2008"]
    share = rewrite(
        "and how much does this change represent in relation to the 2008 total, in percentage?", history, slots
    )
    assert share.operation == "percent_change"
    comp = answer_references(share)
    assert comp is not None and comp.result.value == pytest.approx(108 / 6197 * 100)


@pytest.mark.parametrize(
    "question",
    [
        "what was the weighted average exercise price per share in 2007?",
        "what was the average price paid per share in december?",
    ],
)
def test_prices_the_filing_reports_are_filing_questions(question: str) -> None:
    assert classify_query(question) is QueryKind.FILING


def test_live_share_price_stays_a_market_question() -> None:
    assert classify_query("what is the share price of MSFT?") is QueryKind.MARKET


def test_another_companys_table_is_no_answer() -> None:
    rw = rewrite("what was Globex's equipment rents payable in 2008?", [], DialogueSlots(), ["Globex"])
    plan = decompose(rw.question, rw.intent, ["Globex"])
    answers = [answer_sub_query(sq, _evidence(PAYABLES)) for sq in plan.sub_queries]
    assert answers and all(a.value is None for a in answers)


# A table whose header row was lost: the filing's own year is the first column, the year before the second.
HEADERLESS = (
    "Results\nTable\n"
    "cost of sales | 10432 | 9391 | 1041 | -11.1\n"
    "operating income | 11503 | 10815 | 688 | -6.4"
)


def test_headerless_columns_take_the_filings_year_then_the_year_before() -> None:
    evidence = [typed_evidence(chunk_id="c0", doc_name="ACME_2017_page_38", text=HEADERLESS, score=1.0)]
    assert _value("what was the operating income in 2016?", evidence).value == 10815
    assert _value("what was the operating income in 2017?", evidence).value == 11503
    # Without the filing's year nothing says which column is 2016: the same figure is not given for both.
    unknown = [typed_evidence(chunk_id="c0", doc_name="ACME_page_38", text=HEADERLESS, score=1.0)]
    (a2016,) = _answers("what was the operating income in 2016?", unknown)
    (a2017,) = _answers("what was the operating income in 2017?", unknown)
    stated = [a.value.value for a in (a2016, a2017) if a.status == "found" and a.value is not None and a.period_stated]
    assert len(stated) < 2 or stated[0] != stated[1]
    # A header line no reader parsed still says the columns are named ('three months ended ...'): no guessing.
    quarters = HEADERLESS.replace("Table\n", "three months ended dec 28 | three months ended sept 28 | change\n")
    headed = [typed_evidence(chunk_id="c0", doc_name="ACME_2017_page_38", text=quarters, score=1.0)]
    (quarter,) = _answers("what was the operating income in 2017?", headed)
    assert quarter.value is None or quarter.value.value != 11503


def test_a_change_read_from_a_table_is_remembered_for_the_percent_change() -> None:
    rw = rewrite("what was the change in equipment rents payable from 2007 to 2008?", [], DialogueSlots())
    plan = decompose(rw.question, rw.intent)
    final = answer_offline(plan, _evidence(PAYABLES), rw)
    assert [c.operation for c in final.computations] == ["change"]
    slots = update_slots(DialogueSlots(), rw, plan, final.cited_values(), final.computations)
    follow = rewrite("what is the percent change?", [Turn(question=rw.question)], slots)
    comp = answer_references(follow)
    assert comp is not None and comp.result.value == pytest.approx(-10 / 103 * 100)


def test_one_item_as_a_percentage_of_another_is_computed_from_two_cells() -> None:
    (walk,) = _answers("what were nuclear fuel expenses as a percentage of 2016 net revenue?", _evidence(WALK))
    assert walk.value is not None and walk.value.unit == "%"
    assert walk.value.value == pytest.approx(68 / 1542 * 100)
    # 'the ratio of X to Y': one lookup an item, the ratio computed in code over the two cells
    rw = rewrite("what was the ratio of equipment rents payable to accrued casualty costs in 2008?", [], DialogueSlots())
    final = answer_offline(decompose(rw.question, rw.intent), _evidence(PAYABLES), rw)
    assert [c.operation for c in final.computations] == ["ratio"]
    assert final.computations[0].result.value == pytest.approx(93 / 390)


# A purchase price allocation: goodwill is a lexicon metric, yet the question divides it by the total.
ALLOCATION = (
    "Purchase price allocation (in thousands)\n"
    "cash and cash equivalents | 12,900\n"
    "customer relationships | 41,000\n"
    "goodwill | 203,828\n"
    "total purchase consideration | 266,000"
)


def test_a_share_of_two_named_figures_divides_them_even_when_one_is_a_lexicon_metric() -> None:
    (share,) = _answers(
        "what portion of the total purchase consideration is allocated to goodwill?", _evidence(ALLOCATION)
    )
    assert share.value is not None, share.answer
    assert share.value.value == pytest.approx(203_828 / 266_000 * 100, rel=1e-3) and share.value.unit == "%"
    liabilities = (
        "Liabilities (in thousands)\ncapital leases | 50,049\nother long-term liabilities | 190,821\n"
        "total liabilities | 8,071,342"
    )
    (lease,) = _answers("What is the percentage of capital leases in the total liabilities?", _evidence(liabilities))
    assert lease.value is not None, lease.answer
    assert lease.value.value == pytest.approx(50_049 / 8_071_342 * 100, rel=1e-3)  # the total is the whole
    no_total = liabilities.rsplit("\n", 1)[0]  # without its total row, no item stands in for the total
    (none,) = _answers("What is the percentage of capital leases in the total liabilities?", _evidence(no_total))
    assert none.value is None or none.value.value != pytest.approx(50_049 / 190_821 * 100, rel=1e-3), none.answer
    (plain,) = _answers("what was goodwill?", _evidence(ALLOCATION))  # one figure asked: the figure
    assert plain.value is not None and plain.value.value == 203_828


def test_period_only_follow_up_after_a_computation_repeats_the_last_lookup() -> None:
    first = rewrite("what was the equipment rents payable in 2008?", [], DialogueSlots())
    slots = update_slots(DialogueSlots(), first)
    change_turn = rewrite("what was the change from 2007 to 2008?", [Turn(question=first.question)], slots)
    slots = update_slots(slots, change_turn)
    again = rewrite("and the value for 2007 again?", [Turn(question=change_turn.question)], slots)
    assert again.question == "What was the equipment rents payable in 2007?"


def test_a_deduction_printed_negative_is_read_as_its_amount() -> None:
    table = (
        "Accumulated other comprehensive losses\ncolumns: 2015, 2014\n"
        "total accumulated other comprehensive losses | 2015: -9402 | 2014: -6826\n"
        "net currency translation gain | 2015: -12 | 2014: 5"
    )
    evidence = _evidence(table)
    assert _value("what were the total accumulated other comprehensive losses in 2015?", evidence).value == 9402
    (change_answer,) = _answers(
        "by how much did the accumulated other comprehensive losses increase from 2014 to 2015?", evidence
    )
    assert change_answer.value is not None and change_answer.value.value == pytest.approx(2576)
    # A row whose sign means something keeps it.
    assert _value("what was the net currency translation gain in 2015?", evidence).value == -12


def test_a_schedule_row_labelled_by_its_year_answers_that_year() -> None:
    schedule = "Maturities\n(in thousands)\n2014 | 385373 | (in thousands)\n2015 | 1110566 | (in thousands)"
    assert _value("what is the amount due in 2015?", _evidence(schedule)).value == 1110566
    # Two schedules with a 2015 row: nothing says which one is asked.
    other = "Leases\n2015 | 2450 |\n2016 | 1500 |"
    answers = _answers("what is the amount due in 2015?", _evidence(schedule, other))
    assert all(a.value is None for a in answers)


def test_a_deduction_whose_sign_flips_keeps_its_signs() -> None:
    table = "Tax rate reconciliation\ncolumns: 2018, 2017\ndomestic manufacturers deduction | 2018: -2545 | 2017: 4095"
    (pct,) = _answers(
        "what was the percentage change in the domestic manufacturers deduction from 2017 to 2018?", _evidence(table)
    )
    assert pct.value is not None and pct.value.value == pytest.approx((-2545 - 4095) / 4095 * 100)


def test_a_row_whose_label_merely_contains_ratio_keeps_the_tables_scale() -> None:
    """'operations' and 'consideration' contain the letters of 'ratio': they are no ratio rows, so their
    figures are in the table's millions like every other row."""
    table = (
        "Consolidated results (in millions)\ncolumns: 2024, 2023\n"
        "income from continuing operations | 2024: 1,200 | 2023: 1,100\n"
        "current ratio | 2024: 1.4 | 2023: 1.3"
    )
    income = _value("what was income from continuing operations in 2024?", _evidence(table))
    assert income.value == 1200 and income.scale == 1e6
    ratio = _value("what was the current ratio in 2024?", _evidence(table))
    assert ratio.value == pytest.approx(1.4) and ratio.scale == 1.0


def test_a_figure_another_noun_claims_is_not_the_metrics() -> None:
    """'net operating loss carryforwards of $27 million' is the carryforwards' figure, not operating income's;
    'operating income of $5,207 million' is operating income's."""
    nol = (
        "The carryforward balance as of December 31, 2022 is related to pre-tax U.S. federal and non-U.S. net "
        "operating loss (NOL) carryforwards of $27 million and $1.0 billion, respectively."
    )
    revenue = "Total revenues | 2022: 42,967 | 2021: 34,630 | (in millions)"
    (answer,) = _answers("What was the operating margin in 2022?", _evidence(nol, revenue))
    assert answer.value is None, answer.answer
    stated = "In 2022, operating income of $5,207 million rose on higher sales."
    income = _value("What was operating income in 2022?", _evidence(stated))
    assert income.value == 5207 and income.scale == 1e6


def test_a_share_of_undated_rows_is_not_labelled_with_an_asked_period_its_table_does_not_name() -> None:
    facilities = (
        "Major facilities as of December 28, 2013 (square feet in millions)\n"
        "owned facilities | 29.9\nleased facilities | 2.3\ntotal facilities | 32.2"
    )
    question = "as of december 28, {}, what percentage of the square footage of major facilities was owned?"
    (trap,) = _answers(question.format(1993), _evidence(facilities))
    assert trap.value is None or trap.value.period != "FY1993", trap.answer
    (share,) = _answers(question.format(2013), _evidence(facilities))
    assert share.value is not None and share.value.value == pytest.approx(29.9 / 32.2 * 100, rel=1e-3)
