"""A question over several periods of one table row the lexicon has no name for: the figures of each period it
lists ('in 2024 and 2023, respectively'), or the average or sum over them, read from that one row and computed in
code. The filing is typeset here: a tool maker's property note and a price table whose row is itself an average.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ask_once, ingested_typeset, stated

from agent.answer.compose import _share_unplanned
from agent.config import Settings
from agent.finance import arithmetic
from agent.finance.arithmetic import CitedValue
from agent.query.cues import one_period_question, spans_range
from agent.query.decompose import decompose
from agent.query.intent import extract_intent
from agent.schemas import NumericValue

FILING = """# Tailspin Tooling Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 8. Financial Statements

### Note 6. Property and Equipment

Property and equipment consisted of the following (in thousands):

| | 2024 | 2023 | 2022 |
|---|---|---|---|
| Furniture and fixtures | 4,120 | 3,880 | 3,500 |
| Tooling deposits | 1,250 | 950 | 700 |
| Leasehold improvements | 2,600 | 2,400 | 2,000 |

### Note 8. Results

| | 2024 | 2023 |
|---|---|---|
| Net revenue | 52,000 | 48,000 |
| Cost of net revenue | 26,000 | 25,000 |

### Note 7. Selling Prices

| | 2024 | 2023 |
|---|---|---|
| Average selling price per press | 41.5 | 39.0 |
| Presses shipped | 812 | 760 |
"""


@pytest.fixture(scope="module")
def tailspin(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("tailspin"), "TAILSPIN_2024_10K.md", FILING)


def test_an_average_over_the_periods_named_is_computed_from_one_row(tailspin: Settings) -> None:
    answer = ask_once(tailspin, "What was the average tooling deposits for 2023 and 2024?")
    assert "1,100" in answer and "(950 + 1,250) / 2" in answer, answer
    assert "[TAILSPIN_2024_10K" in answer or "p. 1]" in answer


def test_an_average_over_a_span_takes_every_year_between(tailspin: Settings) -> None:
    answer = ask_once(tailspin, "What was the average leasehold improvements from 2022 to 2024?")
    assert "(2,000 + 2,400 + 2,600) / 3" in answer, answer
    assert "2,333.33" in answer


@pytest.mark.parametrize(
    ("question", "first", "second"),
    [
        ("What were the furniture and fixtures in 2024 and 2023, respectively?", "4,120", "3,880"),
        ("What are the respective furniture and fixtures in 2023 and 2024?", "3,880", "4,120"),
    ],
)
def test_a_list_of_periods_gets_each_periods_figure_in_the_order_asked(
    tailspin: Settings, question: str, first: str, second: str
) -> None:
    answer = stated(ask_once(tailspin, question))
    assert not answer.startswith("Not found"), answer
    assert first in answer and second in answer and answer.index(first) < answer.index(second), answer
    assert "3,500" not in answer  # 2022 was not asked


def test_a_row_that_is_itself_an_average_is_not_averaged_again(tailspin: Settings) -> None:
    # 'the average selling price in 2023 and 2024' over an 'Average selling price' row asks for its figures (which
    # one answer cannot list yet); the mean of the two averages is what the row does not report.
    answer = stated(ask_once(tailspin, "What was the average selling price per press in 2023 and 2024?"))
    assert "40.25" not in answer, answer


def test_one_period_of_a_listed_question_keeps_every_other_word() -> None:
    question = "What was the income tax expense of the Nordic segment in 2019, 2018 and 2017 respectively?"
    assert one_period_question(question, "FY2018") == "What was the income tax expense of the Nordic segment in FY2018?"
    assert one_period_question("What are the values of X for the years ended December 31, 2019 and 2018?",
                               "FY2019") == "What are the values of X in FY2019?"


@pytest.mark.parametrize(
    "question",
    [
        "What was the change in tooling deposits between 2023 and 2024?",  # the ends of a span
        "What was tooling deposits in 2024 compared with the 2022 figure?",  # periods apart: no single list
        "What was tooling deposits in 2024?",  # one period
    ],
)
def test_a_span_or_scattered_periods_is_no_list(question: str) -> None:
    assert one_period_question(question, "FY2024") == ""


def test_spans() -> None:
    assert spans_range("the average for 2017-2019")
    assert spans_range("from 2017 to 2019") and spans_range("over the three-year period")
    assert not spans_range("in 2018 and 2019")


def test_a_word_the_row_does_not_print_refuses_the_computed_figure_too(tailspin: Settings) -> None:
    # The closed world holds for a figure computed from one row's cells as for one read: no 'deferred' on the page.
    answer = ask_once(tailspin, "What was the average deferred tooling deposits for 2023 and 2024?")
    assert answer.startswith("Not found") and "1,100" not in stated(answer), answer


def test_an_average_of_amounts_is_no_answer_to_an_average_share() -> None:
    # A plan that computed no share for a question asking one states no average of amounts as the share.
    question = "What is the average % of net revenue for cost of net revenue for 2023 and 2024?"
    plan = decompose(question, extract_intent(question, []))
    assert any(c.operation == "share" for c in plan.combinations)  # the share is planned ...
    plan = plan.model_copy(update={"combinations": [c for c in plan.combinations if c.operation != "share"]})
    costs = [CitedValue(label=f"cost {y}", value=NumericValue(text=t, value=v, unit="USD", period=f"FY{y}"))
             for y, t, v in ((2023, "25,000", 25_000.0), (2024, "26,000", 26_000.0))]
    assert _share_unplanned(plan, [arithmetic.average(costs)]) == "a ratio or share"
    shares = [c.model_copy(update={"value": c.value.model_copy(update={"unit": "%"})}) for c in costs]
    assert _share_unplanned(plan, [arithmetic.average(shares)]) == ""  # a '% of revenue' column averaged is one


def test_the_years_a_table_gives_are_listed_from_its_columns(tailspin: Settings) -> None:
    answer = ask_once(tailspin, "Which years does the table provide information for leasehold improvements?")
    assert "2024, 2023 and 2022" in answer and not answer.startswith("Not found"), answer


LEASES = """# Wingtip Freight, Inc.

(Exact name of registrant as specified in its charter)

ANNUAL REPORT ON FORM 10-K for the fiscal year ended December 31, 2024

## Note 9. Leases

| (in thousands) | 2024 | 2023 | 2022 |
|---|---|---|---|
| Operating lease cost | 4,210 | 3,980 | 3,655 |
| Variable lease cost | 615 | 590 | 542 |
| Total lease cost | 4,825 | 4,570 | 4,197 |
"""


@pytest.fixture(scope="module")
def wingtip(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("wingtip"), "WINGTIP_2024_10K.md", LEASES)


@pytest.mark.parametrize("question", [
    "Which financial years' information is shown in the table?",
    "What are the fiscal years included in the table?",
    "What years does the table provide data for?",
])
def test_the_years_of_the_table_in_view_however_its_years_are_asked(wingtip: Settings, question: str) -> None:
    # The years are the answer's noun ('which financial years', 'what are the years'); the words that ask about the
    # table ('information is shown', 'data') are printed by no table, so they name none: the best-ranked one.
    answer = ask_once(wingtip, question)
    assert "2024, 2023 and 2022" in answer and not answer.startswith("Not found"), answer


LEAD_IN = """# Wingtip Freight, Inc.

(Exact name of registrant as specified in its charter)

ANNUAL REPORT ON FORM 10-K for the fiscal year ended December 31, 2024

## Note 11. Other Current Liabilities

The following table presents the components of other current liabilities as of December 31:

| (in thousands) | 2024 | 2023 |
|---|---|---|
| Accrued freight claims | 1,210 | 1,045 |
| Customer deposits | 860 | 795 |
| Total other current liabilities | 2,070 | 1,840 |
"""


@pytest.mark.parametrize("question", ["What does the table show?", "What does the table represent?",
                                      "What information does the table show?"])
def test_what_a_table_shows_is_what_introduces_it(tmp_path: Path, question: str) -> None:
    wingtip_lead = ingested_typeset(tmp_path, "WINGTIP_2024_10K.md", LEAD_IN)
    answer = ask_once(wingtip_lead, question)
    assert "presents the components of other current liabilities" in answer, answer
    assert not answer.startswith("Not found") and "2,070" not in answer, answer


@pytest.mark.parametrize("question", ["What financial items are listed in the table?",
                                      "What are the financial items listed in the table?"])
def test_the_items_of_the_table_in_view(tmp_path: Path, question: str) -> None:
    # 'financial' is printed by no table: it asks rather than names, so the best-ranked table's rows are its items
    wingtip_lead = ingested_typeset(tmp_path, "WINGTIP_2024_10K.md", LEAD_IN)
    answer = ask_once(wingtip_lead, question)
    assert "Accrued freight claims and Customer deposits" in answer and "Total" not in answer, answer


def test_the_table_is_the_subject_only_of_its_own_verb() -> None:
    assert extract_intent("What does the table show?").wording.of_table
    assert extract_intent("What is the table about?").wording.of_table
    # the table is where the figure sits, not what is asked about: its lead-in is no answer
    assert not extract_intent("What is the unit used for the data in the table?").wording.of_table
    assert not extract_intent("What do Other items in the table represent?").wording.of_table


def test_a_question_naming_what_the_table_prints_is_no_question_about_the_table(tmp_path: Path) -> None:
    wingtip_lead = ingested_typeset(tmp_path, "WINGTIP_2024_10K.md", LEAD_IN)
    answer = ask_once(wingtip_lead, "What were customer deposits in the table for 2024?")
    assert "860" in stated(answer) and "introduced as" not in answer, answer


def test_the_value_read_for_an_average_gets_no_line_of_its_own(tailspin: Settings) -> None:
    # 'the 2024 average' is over 2023 and 2024 of the row read; the 2024 figure is an operand, stated by the formula.
    answer = ask_once(tailspin, "What was the average tooling deposits in 2024?")
    assert answer.startswith("Average") and "(950 + 1,250) / 2" in answer, answer
    assert "was 1,250" not in answer and len(answer.strip().splitlines()) == 1, answer


def test_a_percentage_change_over_a_rows_latest_years_is_relative(tailspin: Settings) -> None:
    answer = ask_once(tailspin, "What was the percentage change in tooling deposits?")
    assert "31.58%" in answer and "(1,250 - 950) / 950" in answer, answer


DEFERRED = """# Fabrikam Utilities plc

ANNUAL REPORT 2024
For the year ended 31 December 2024

## Notes to the Financial Statements

### 19. Deferred income

Deferred income is recognised when customers pay ahead of the service.

| $ million | 2024 | 2023 |
|---|---|---|
| Current | 53.2 | 55.2 |
| Non-current | 13.6 | 14.4 |
| | 66.8 | 69.6 |

### 20. Provisions

| $ million | 2024 | 2023 |
|---|---|---|
| Restoration | 12.0 | 10.5 |
| Onerous contracts | 3.1 | 4.0 |
"""


@pytest.fixture(scope="module")
def fabrikam(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("fabrikam"), "FABRIKAM_2024_AR.md", DEFERRED)


def test_a_change_over_a_row_named_by_the_sentence_above_its_table_is_computed(fabrikam: Settings) -> None:
    # 'Current' is current deferred income by the note's words above the table; its two years give the change
    answer = stated(ask_once(fabrikam, "What was the change in current deferred income?"))
    assert "(53.2 - 55.2" in answer and answer.startswith("Change"), answer


def test_a_word_naming_another_row_keeps_the_row_from_answering(fabrikam: Settings) -> None:
    # 'restoration' names a row of another table on the page: the 'Current' row's years answer no question about it
    answer = stated(ask_once(fabrikam, "What was the change in current restoration deferred income?"))
    assert "(53.2 - 55.2" not in answer and "(12 - 10.5" not in answer, answer
