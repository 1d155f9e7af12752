"""What a figure is comes from its own words: the table's title and header sit above the whole table, never a
sub-heading inside it; a row naming another kind of quantity (a balance for an expense), or a roll-forward's
movement read for its balance, is no answer; a row whose words negate the question's ('non-current' for 'current')
is the opposite of what was asked; a tax component whose sign flips between years keeps its signs in a sum; a question asking what
caused a change asks words, not the change. The filing is typeset here: a memory maker's tax note, currency note
and results discussion. The currency note names its columns and gives its periods as blocks of rows.
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated, typed_evidence

from agent.answer.reading import Evidence, naming_context
from agent.answer.words import negated_words
from agent.config import Settings
from agent.query.intent import asking_part, extract_intent
from agent.schemas import Relation, TableColumn, TableRecord

FILING = """# Contoso Memory Ltd.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 7. Management's Discussion and Analysis

Total revenue decreased to $23,406 thousand in 2024 from $30,391 thousand in 2023. The decrease in total revenue
was due to pricing declines resulting from the challenging memory market environment in 2024.

## Item 8. Financial Statements

### Note 12. Income Taxes

The components of the provision for income taxes are as follows (in thousands):

| | 2024 | 2023 | 2022 |
|---|---|---|---|
| Current provision for income taxes: | | | |
| State | 49 | 44 | 48 |
| Foreign | 1,716 | 953 | 1,023 |
| Total current | 1,765 | 997 | 1,071 |
| Deferred tax expense (benefit): | | | |
| Federal | 3 | (13) | 26 |
| Foreign | (361) | 98 | 109 |
| Total deferred | (358) | 85 | 135 |
| Provision for income taxes | 1,407 | 1,082 | 1,206 |

### Note 6. Property and Equipment

Property and equipment consisted of the following (in thousands):

| | 2024 | 2023 |
|---|---|---|
| Property and equipment, gross | 30,000 | 28,000 |
| Accumulated depreciation and amortization | (20,188) | (16,050) |
| Property and equipment, net | 9,812 | 11,950 |

### Note 5. Accounts Receivable

| | 2024 | 2023 |
|---|---|---|
| Accounts receivable | 1,215 | 1,108 |
| Less: allowance for doubtful accounts | (15) | (16) |
| Accounts receivable, net | 1,200 | 1,092 |

### Note 7. Service Revenue by Region

| | 2024 | 2023 |
|---|---|---|
| Americas | 8,173 | 7,982 |
| Percentage of service revenue | 63.4% | 63.3% |
| EMEA | 4,726 | 4,639 |
| Percentage of service revenue | 36.6% | 36.7% |
| Total service revenue | 12,899 | 12,621 |

### Note 8. Accumulated Depreciation

| | Amount |
|---|---|
| Balance December 31, 2022 | 450,697 |
| Additions during period: depreciation and amortization expense | 83,656 |
| Deductions during period: disposition and retirements of property | (15,244) |
| Balance December 31, 2023 | 519,109 |

### Note 20. Currency Risk

Monetary assets by currency (in thousands):

| | USD denominated | Non-USD denominated |
|---|---|---|
| As at December 31, 2024 | | |
| Monetary assets, current | 27,728 | 2,899 |
| Monetary assets, non-current | 373 | – |
| As at December 31, 2023 | | |
| Monetary assets, current | 18,041 | 1,994 |
| Monetary assets, non-current | 2,642 | – |
"""


@pytest.fixture(scope="module")
def contoso(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("contoso"), "CONTOSO_2024_10K.md", FILING)


def test_a_sub_heading_inside_a_table_is_not_its_title() -> None:
    # a row's wider words are its typed table's title and headers, never the rows or sub-headings printed above it
    text = (
        "Taxes | columns: 2024, 2023\nCurrent:\nState | 2024: 49 | 2023: 44\nDeferred (benefit):\n"
        "Federal | 2024: 3 | 2023: (13)\nProvision for income taxes | 2024: 1,407 | 2023: 1,082\n"
    )
    record = TableRecord(table_id="x:t0", title="Taxes", columns=[TableColumn(label="2024", kind="period", period="FY2024"),
                                                                   TableColumn(label="2023", kind="period", period="FY2023")])
    ev = Evidence(chunk_id="x:1", doc_name="X", text=text, table=record)
    context = naming_context(ev, text.index("1,407"), "Provision for income taxes")
    assert "Federal" not in context and "Taxes" in context, context


def test_a_row_negating_the_question_s_word_is_its_opposite() -> None:
    assert negated_words("the current monetary assets", "Monetary assets, non-current") == ["current"]
    assert negated_words("the non-current monetary assets", "Monetary assets, non-current") == []
    assert negated_words("total revenue", "Revenue") == []


def test_a_reason_asked_is_no_figure() -> None:
    for question in (
        "What caused the decrease of total revenue from 2023 to 2024?",
        "What accounts for the change in interest expense from 2023 to 2024?",
        "What was the increase in free cash flow from 2023 to 2024 driven by?",
        "What could result in the 2024 operating income increasing or decreasing by approximately $6.5 million?",
    ):
        assert not extract_intent(question).requires_numeric, question
    assert extract_intent("How much of the increase in revenue was caused by acquisitions?").requires_numeric
    assert not extract_intent("When did the board approve the 2024 repurchase program?").requires_numeric
    # a 'when' clause that sets a condition before the question: it still asks a figure
    assert extract_intent("When primarily referencing the income statement, what is the FY2021 inventory turnover "
                          "ratio for Nike?").requires_numeric


def test_a_condition_before_the_question_is_not_what_it_asks() -> None:
    question = "Where primarily referencing the balance sheet, what is the 2024 current ratio?"
    assert asking_part(question) == "what is the 2024 current ratio?"
    intent = extract_intent(question)
    assert intent.relation is Relation.LOOKUP and intent.requires_numeric  # no place is asked


def test_a_decimal_point_ends_no_sentence() -> None:
    question = "What could result in operating income changing by approximately $6.5 million?"
    assert asking_part(question) == question


def test_a_sum_of_a_component_keeps_its_signs(contoso: Settings) -> None:
    answer = stated(ask_once(contoso, "What is the total federal tax expense from 2022 to 2024?"))
    assert "3,695" not in answer, answer  # never the provisions' sum: the question asks the federal row
    assert "16" in answer and "(13)" in answer, answer


def test_named_columns_and_period_blocks_give_each_cell_its_name_and_period(contoso: Settings) -> None:
    answer = stated(ask_once(contoso, "What was the amount of USD denominated current monetary assets in 2024?"))
    assert "27,728" in answer and "373" not in answer, answer
    earlier = stated(ask_once(contoso, "What was the amount of non-USD denominated current monetary assets in 2023?"))
    assert "1,994" in earlier, earlier
    # the years of a table whose columns are names are its period lines', which its typed figures carry
    years = ask_once(contoso, "Which years does the table provide information for monetary assets by currency?")
    assert "2024 and 2023" in years and "Not found" not in years, years


def test_a_balance_is_no_answer_for_the_year_s_expense(contoso: Settings) -> None:
    answer = stated(ask_once(contoso, "What was the depreciation amount in 2024?"))
    assert "20,188" not in answer, answer  # accumulated depreciation is what was written off so far
    balance = stated(ask_once(contoso, "What was the accumulated depreciation and amortization in 2024?"))
    assert "20,188" in balance, balance


def test_a_contra_asset_is_averaged_as_the_amount_set_aside(contoso: Settings) -> None:
    answer = stated(ask_once(contoso, "What is the average allowance for doubtful accounts in 2023 and 2024?"))
    assert "15.5" in answer and "-15.5" not in answer, answer


def test_a_share_printed_beside_the_amounts_is_not_the_amount(contoso: Settings) -> None:
    answer = stated(ask_once(contoso, "What was the percentage change in total service revenue from 2023 to 2024?"))
    assert "63.4" not in answer and "63.3" not in answer, answer


def test_a_share_row_is_no_amount(contoso: Settings) -> None:
    amount = stated(ask_once(contoso, "How much service revenue was from EMEA in 2024?"))
    assert "36.6%" not in amount, amount


def test_a_roll_forward_movement_is_no_balance(contoso: Settings) -> None:
    from agent.answer.gate import check_metric
    from agent.answer.reading import EvidenceReader
    from agent.answer.records import SubAnswer
    from agent.schemas import Citation, NumericValue

    text = ("Table\nbalance december 31 2004 | 595338000\nadditions during period depreciation and amortization "
            "expense | 83656000\nbalance december 31 2005 | 663750000\n")
    reader = EvidenceReader([typed_evidence(chunk_id="c1", doc_name="FRT_2005", text=text, score=1.0)])

    def read(figure: str) -> SubAnswer:
        at = text.index(figure)
        cite = Citation(doc="FRT_2005", page=1, quote=text.splitlines()[text[:at].count("\n")], chunk_id="c1")
        return SubAnswer(question="What is the accumulated depreciation at the end of 2005?", status="found",
                         answer="", metric="accumulated depreciation", citation=cite,
                         value=NumericValue(text=figure, value=float(figure), start=at, end=at + len(figure)))

    movement = check_metric(read("83656000"), "What is the accumulated depreciation at the end of 2005?", reader)
    assert not movement.passed and "roll-forward" in movement.detail
    assert check_metric(read("663750000"), "What is the accumulated depreciation at the end of 2005?", reader).passed
    answer = stated(ask_once(contoso, "What was the accumulated depreciation balance at the end of 2023?"))
    assert "83,656" not in answer and "15,244" not in answer, answer


def test_a_cause_asked_is_answered_with_the_cause(contoso: Settings) -> None:
    answer = stated(ask_once(contoso, "What caused the decrease of total revenue from 2023 to 2024?"))
    assert "pricing declines" in answer, answer
    assert "computed" not in answer and "6,985" not in answer, answer


def test_a_change_of_an_amount_is_never_computed_over_its_shares() -> None:
    from agent.answer.compose import combine
    from agent.answer.records import SubAnswer
    from agent.query.plan import Combination, QueryPlan, SubQuery
    from agent.schemas import Citation, NumericValue

    cite = Citation(doc="CONTOSO_2024_10K", page=2, quote="Percentage of service revenue | 2024: 63.4% | 2023: 63.3%")
    plan = QueryPlan(
        question="What was the percentage change in total service revenue from 2023 to 2024?",
        sub_queries=[SubQuery(id=f"any:revenue:FY{y}", question=f"What was the revenue in FY{y}?", metric="revenue",
                              period=f"FY{y}") for y in (2023, 2024)],
        combinations=[Combination(id="c1", operation="percent_change", operands=["any:revenue:FY2023",
                                                                                "any:revenue:FY2024"],
                                  metric="revenue", label="growth in revenue from FY2023 to FY2024")],
    )
    reads = [SubAnswer(sub_query_id=f"any:revenue:FY{y}", question="", status="found", answer="", metric="revenue",
                       value=NumericValue(text=f"{v}%", value=v, unit="%", period=f"FY{y}"), citation=cite)
             for y, v in ((2023, 63.3), (2024, 63.4))]
    result = combine(plan, reads)
    assert not result.computations and "is a percentage" in result.failed[0]
    assert set(result.misread) == {"any:revenue:FY2023", "any:revenue:FY2024"}


QUARTERS = """# Contoso Telematics Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended November 30, 2024

## Item 8. Financial Statements

### Note 21. Quarterly Results (unaudited)

These unaudited quarterly results should be read with the financial statements and notes included in this report.

| (in thousands) | First | Second | Third | Fourth |
|---|---|---|---|---|
| Revenue | 101,230 | 98,114 | 104,020 | 109,236 |
| Gross profit | 41,530 | 40,100 | 43,210 | 45,660 |

The net income in the fiscal 2024 first, third and fourth quarter included a gain from legal settlement of $13.3
million, $2.5 million and $2.5 million, respectively. Revenue for fiscal 2024 was $412.6 million, compared with
$398.1 million for fiscal 2023.
"""


@pytest.fixture(scope="module")
def telematics(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("telematics"), "CONTOSO_2024_10K.md", QUARTERS)


def test_a_sentence_about_another_metric_gives_no_figure_of_the_one_asked(telematics: Settings) -> None:
    # 'the fiscal 2024 third quarter' is a quarter (the year written first): neither the year's revenue nor the
    # settlement gain of net income's sentence answers it
    answer = ask_once(telematics, "What was Contoso's revenue in the fiscal 2024 third quarter?")
    assert "412.6" not in stated(answer) and "13.3" not in stated(answer), answer
    # a sentence naming the metric still answers, its second figure included
    answer = stated(ask_once(telematics, "What was Contoso's revenue in fiscal 2023?"))
    assert "398.1" in answer, answer


def test_a_sentence_names_what_its_figure_is() -> None:
    from agent.answer.gate import check_metric
    from agent.answer.reading import EvidenceReader
    from agent.answer.records import SubAnswer
    from agent.schemas import Citation, NumericValue

    text = ("Revenue rose in every quarter. The net income in the fiscal 2024 third quarter included a gain from legal "
            "settlement of $13.3 million. Revenue for fiscal 2024 was $412.6 million.")
    reader = EvidenceReader([typed_evidence(chunk_id="c1", doc_name="X_2024", text=text, score=1.0)])

    def read(figure: str) -> SubAnswer:
        at = text.index(figure)
        return SubAnswer(question="What was revenue in 2024?", status="found", answer="", metric="revenue",
                         citation=Citation(doc="X_2024", page=1, quote=text, chunk_id="c1"),
                         value=NumericValue(text=figure, value=1.0, start=at, end=at + len(figure)))

    gain = check_metric(read("$13.3 million"), "What was revenue in 2024?", reader)
    assert not gain.passed and "net income" in gain.detail
    assert check_metric(read("$412.6 million"), "What was revenue in 2024?", reader).passed
