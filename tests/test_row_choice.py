"""Which item of a table ranks first ('Which region had the highest net sales?', 'What was the largest
liability?'): the rows of one block ranked in code, by their figure for the asked period or by the change each
shows; refused when the table is not about the kind of item asked, a period is missing, or the company is absent."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance import arithmetic
from agent.finance.arithmetic import CitedValue
from agent.schemas import NumericValue

FILING = """# Contoso Ltd.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 7. Management's Discussion and Analysis

### Net sales by geographic region

| (in millions) | 2024 | 2023 |
|---|---|---|
| Americas | $ 2,900 | $ 2,610 |
| Europe | 1,180 | 1,240 |
| Asia Pacific | 1,165 | 1,010 |
| Total net sales | $ 5,245 | $ 4,860 |

### Foreign currency

| (in millions) | 2024 | 2023 |
|---|---|---|
| Foreign exchange loss | (42) | (15) |

## Item 8. Financial Statements

### Consolidated Balance Sheets

| (in millions) | December 31, 2024 | December 31, 2023 |
|---|---|---|
| Total assets | $ 9,870 | $ 9,120 |
| Liabilities: | | |
| Accounts payable | 610 | 580 |
| Accrued expenses | 420 | 400 |
| Long-term debt | 2,500 | 2,650 |
| Total liabilities | $ 3,530 | $ 3,630 |

## Note 21. Parent Company

### PARENT COMPANY - CONDENSED BALANCE SHEETS

| (in millions) | December 31, 2024 | December 31, 2023 |
|---|---|---|
| Liabilities: | | |
| Due to subsidiaries | 3,900 | 3,100 |
| Long-term debt | 2,500 | 2,650 |
| Total liabilities | $ 6,400 | $ 5,750 |
"""


@pytest.fixture(scope="module")
def contoso(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("choice"), "CONTOSO_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "item", "figure"), [
    ("Which region had the highest net sales in 2024?", "Americas", "2,900"),
    ("Which geographic region had the lowest revenue in 2024?", "Asia Pacific", "1,165"),
    ("Which region's net sales grew the most in percent in 2024?", "Asia Pacific", "15.35%"),
    ("Which region had the biggest drop in net sales in 2024?", "Europe", "60"),
    ("What was the largest liability on Contoso's balance sheet in 2024?", "Long-term debt", "2,500"),
    # a verb of contribution asks nothing of the heading; a geographic area is a region
    ("Which geographic area generated the most net sales for Contoso in 2024?", "Americas", "2,900"),
])
def test_the_rows_of_one_block_are_ranked_in_code(contoso: Settings, question: str, item: str, figure: str) -> None:
    full = ask_once(contoso, question)
    answer = stated(full)
    assert f": {item} (" in answer and figure in answer
    assert "Not found" not in full  # one answer: the sub-queries' own findings are no lines of it
    assert "[CONTOSO_2024_10K, p. 1]" in answer
    assert "5,245" not in answer and "3,530" not in answer  # a total is never one of the items


@pytest.mark.parametrize("question", [
    "Which segment had the highest revenue in 2024?",  # the table is by region, not by segment
    "Which region had the highest net sales in 2022?",  # no column for 2022
    "Which region had the highest net sales for Fabrikam in 2024?",  # no filing of Fabrikam
    "Which region had the worst topline performance in 2024?",  # 'performance' is neither a figure nor a change
])
def test_a_ranking_the_evidence_does_not_support_is_refused(contoso: Settings, question: str) -> None:
    answer = ask_once(contoso, question)
    assert answer.startswith("Not found")
    assert not any(f": {item} (" in stated(answer) for item in ("Americas", "Europe", "Asia Pacific"))


def test_extreme_names_the_item_when_all_values_are_of_one_period() -> None:
    def value(label: str, x: float) -> CitedValue:
        return CitedValue(label=label, value=NumericValue(value=x, text=f"{x:g}", period="FY2024", scale=1e6))

    comp = arithmetic.extreme([value("Europe", 1180), value("Americas", 2900), value("Asia Pacific", 1165)])
    assert comp.item == "Americas" and comp.result.value == 2900
    assert comp.formula.startswith("Americas 2,900 > Europe")
    lowest = arithmetic.extreme([value("Europe", 1180), value("Americas", 2900)], lowest=True)
    assert lowest.item == "Europe"
    years = arithmetic.extreme([value("x", 1).model_copy(update={"value": NumericValue(value=1, text="1", period="FY2023")}),
                                value("x", 2)])
    assert years.item == "" and years.formula.startswith("FY2024")


def test_the_parent_companys_own_statement_is_no_statement_of_the_company(contoso: Settings) -> None:
    """Schedule I's 'PARENT COMPANY - CONDENSED BALANCE SHEETS' is the registrant alone: its liabilities are neither
    ranked nor stated as the company's."""
    assert "Due to subsidiaries" not in stated(
        ask_once(contoso, "What was the largest liability on Contoso's balance sheet in 2024?"))
    answer = stated(ask_once(contoso, "What were Contoso's total liabilities in 2024?"))
    assert "3,530" in answer and "6,400" not in answer


@pytest.mark.parametrize(("question", "year"), [
    ("In which year was Contoso's foreign exchange loss larger?", "2024 ($-42 million)"),
    ("In which year was Contoso's foreign exchange loss smaller?", "2023 ($-15 million)"),
])
def test_a_size_word_compares_losses_by_their_size(contoso: Settings, question: str, year: str) -> None:
    """'Larger' and 'smaller' compare sizes: a loss of (42) is the larger, though -42 is the lower number."""
    answer = stated(ask_once(contoso, question))
    assert f": {year}" in answer.replace("-$", "$-"), answer


def test_extreme_by_size_compares_negative_figures_by_their_size() -> None:
    def value(period: str, x: float) -> CitedValue:
        return CitedValue(label="loss", value=NumericValue(value=x, text=f"{x:g}", period=period, scale=1e6))

    larger = arithmetic.extreme([value("FY2023", -15), value("FY2024", -42)], by_size=True)
    assert larger.result.period == "FY2024" and larger.formula.endswith("in size")
    assert arithmetic.extreme([value("FY2023", -15), value("FY2024", -42)]).result.period == "FY2023"
    mixed = arithmetic.extreme([value("FY2023", 15), value("FY2024", -42)], by_size=True)
    assert mixed.result.period == "FY2023"  # a gain and a loss are compared as numbers
    # where the order of negatives is no answer (which item 'used the most cash'), all-negative figures are not
    # ranked unless a size word says how
    with pytest.raises(arithmetic.ArithmeticRefusal):
        arithmetic.extreme([value("FY2023", -15), value("FY2024", -42)], signed_order=False)
    assert arithmetic.extreme([value("FY2023", -15), value("FY2024", 42)], signed_order=False).result.period == "FY2024"


SEGMENTS = """# Fabrikam, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 7. Management's Discussion and Analysis

### Segment Results

#### Industrial Automation

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Net sales | 3,410 | 3,050 |
| Operating income | 515 | 470 |

#### Medical Imaging

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Net sales | 2,260 | 2,390 |
| Operating income | 640 | 410 |

## Item 8. Financial Statements

### Consolidated Statements of Operations

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Net sales | 5,670 | 5,440 |
| Operating income | 1,155 | 880 |
"""


@pytest.fixture(scope="module")
def fabrikam(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("named"), "FABRIKAM_2024_10K.md", SEGMENTS)


@pytest.mark.parametrize(("question", "item", "figures"), [
    ("Which segment had the higher operating income in 2024, Industrial Automation or Medical Imaging?",
     "Medical Imaging", ("640", "515")),
    ("Which segment had the higher operating income in 2023, Industrial Automation or Medical Imaging?",
     "Industrial Automation", ("470", "410")),
    ("Between Industrial Automation and Medical Imaging, which segment had the lower net sales in 2024?",
     "Medical Imaging", ("2,260", "3,410")),
    ("Which had the larger net sales in 2023: Medical Imaging, or Industrial Automation?",
     "Industrial Automation", ("3,050", "2,390")),
])
def test_items_the_question_names_are_each_read_from_their_own_table_and_ranked_in_code(
    fabrikam: Settings, question: str, item: str, figures: tuple[str, str]
) -> None:
    full = ask_once(fabrikam, question)
    answer = stated(full)
    assert answer.count("\n") == 0 and f": {item} (" in answer, full  # one line: the ranking
    assert all(f in answer for f in figures) and "[FABRIKAM_2024_10K, p. 1]" in answer
    assert "1,155" not in answer and "5,670" not in answer and "880" not in answer  # never the company's total


@pytest.mark.parametrize("question", [
    "Which segment had the higher operating income in 2024, Industrial Automation or Consumer Devices?",  # absent
    "Which segment had the higher operating income in 2022, Industrial Automation or Medical Imaging?",  # no 2022
    "Which segment had the higher backlog in 2024, Industrial Automation or Medical Imaging?",  # no backlog
])
def test_a_named_item_the_filing_does_not_give_refuses_the_ranking(fabrikam: Settings, question: str) -> None:
    answer = ask_once(fabrikam, question)
    assert answer.startswith("Not found"), answer
    assert not any(f": {item} (" in stated(answer) for item in ("Industrial Automation", "Medical Imaging"))


def test_choice_items_read_the_list_before_or_after_the_question() -> None:
    from agent.query.asked import choice_items

    comparative, ranked_by, items = choice_items("Which segment had the lower net sales in 2024, A Co or B Co?") or (
        "", "", [])
    assert comparative == "lower" and ranked_by == "lower net sales in 2024"
    assert items == [("A Co", "What was the net sales of A Co in 2024?"), ("B Co", "What was the net sales of B Co in 2024?")]
    shared = choice_items("Among operating, investing and financing activities, which brought in the most cash in 2024?")
    assert shared is not None and [i for i, _ in shared[2]] == [
        "operating activities", "investing activities", "financing activities"]
    assert choice_items("Which year had the higher revenue, 2023 or 2024?") is None  # periods: a period's question
    assert choice_items("Which region had the highest revenue in 2024?") is None  # no items named


CASH_FLOWS = """# Northwind Traders, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 8. Financial Statements

### Consolidated Statements of Cash Flows

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Net income | 640 | 590 |
| Net cash provided by operating activities | 905 | 812 |
| Capital expenditures | (437) | (392) |
| Net cash used in investing activities | (455) | (401) |
| Net cash used in financing activities | (362) | (298) |
"""


LOSSES = """# Tailspin Ltd.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 7. Management's Discussion and Analysis

### Operating loss by region

| (in millions) | 2024 | 2023 |
|---|---|---|
| Americas | (120) | (80) |
| Europe | (45) | (60) |
| Asia Pacific | (210) | (150) |
| Total operating loss | (375) | (290) |
"""


def test_a_block_of_negative_figures_is_ranked_by_a_size_word_only(tmp_path_factory: pytest.TempPathFactory) -> None:
    tailspin = ingested_typeset(tmp_path_factory.mktemp("losses"), "TAILSPIN_2024_10K.md", LOSSES)
    # 'the highest operating loss': the largest loss, or the least negative figure? not guessed
    assert ask_once(tailspin, "Which region had the highest operating loss in 2024?").startswith("Not found")
    larger = stated(ask_once(tailspin, "Which region had the largest operating loss in 2024?"))
    assert ": Asia Pacific (" in larger, larger


@pytest.fixture(scope="module")
def northwind(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("flows"), "NORTHWIND_2024_10K.md", CASH_FLOWS)


def test_items_naming_metrics_of_their_own_are_ranked_too(northwind: Settings) -> None:
    # each activity's cash flow is a metric of its own; the one that brought in the most is the one ranked first
    answer = stated(ask_once(northwind, "Among operating, investing, and financing activities, which brought in the "
                                        "most cash in 2024?"))
    assert ": operating activities (905" in answer and "(455)" in answer and "(362)" in answer


def test_a_ranking_of_figures_that_are_all_negative_needs_a_size_word(northwind: Settings) -> None:
    # 'the highest' of two outflows is the smaller one, 'used the most' the larger: neither is guessed
    answer = ask_once(northwind, "Which had the highest cash flow in 2024, investing activities or financing "
                                 "activities?")
    assert answer.startswith("Not found") and ": financing activities (" not in stated(answer), answer
    sized = stated(ask_once(northwind, "Which had the larger cash flow in 2024, investing activities or financing "
                                       "activities?"))
    assert ": investing activities (" in sized, sized  # larger in size: 455 of outflow


@pytest.mark.parametrize("verb", ["used", "spent", "consumed"])
def test_the_verb_that_gives_the_items_their_figures_is_any_past_tense(northwind: Settings, verb: str) -> None:
    # 'used', 'spent', 'consumed' were not on the list of verbs a choice was read by: two lookups, nothing ranked
    answer = stated(ask_once(northwind, f"Which {verb} the larger amount of cash in 2024, investing activities or "
                                        "financing activities?"))
    assert ": investing activities (" in answer, answer
