"""What a question asks for decides what answers it: the periods a row passes a test in are counted in code; a
question after a description gets the filing's sentence, never a figure of the metric it names; a sum or a share
asked in words no list holds is never answered by one read figure; a sentence that introduces a table answers nothing;
a row label written in title case is no company, and the year it is largest in is computed from its figures.

The filing is typeset here: a 10-K's notes with a three-year table of other income, a policy paragraph, franchise
revenues, contractual obligations and other assets.
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.config import Settings
from agent.finance import arithmetic
from agent.finance.arithmetic import ArithmeticRefusal, CitedValue
from agent.query.asked import PERIODS_MEETING, operations_asked, threshold_asked
from agent.query.intent import guess_company
from agent.schemas import NumericValue

FILING = """# Fabrikam Devices Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 8. Financial Statements

### Note 6. Other Income

Other income (in thousands)

| | 2024 | 2023 | 2022 |
|---|---|---|---|
| Servicing fees | 3,901 | 2,321 | 3,120 |
| Royalty income | 1,200 | 1,450 | 990 |

### Note 2. Inventories

Inventories are stated at the lower of cost, determined on a first-in, first-out basis, or net realizable value.
Inventories were $48,200 thousand at December 31, 2024, up from $41,000 thousand a year earlier.
The components of inventories are as follows:

| | 2024 | 2023 |
|---|---|---|
| Raw materials | 30,100 | 25,500 |
| Finished goods | 18,100 | 15,500 |
| Total inventories | 48,200 | 41,000 |

### Note 9. Franchise Revenues

Franchise revenues (in thousands)

| | 2024 | 2023 |
|---|---|---|
| Franchise royalty revenues | 340,485 | 321,100 |
| Franchise rental revenues | 272,815 | 259,400 |
| Total franchise revenues | 613,300 | 580,500 |

### Note 10. Restructuring

The following table summarizes expected, incurred and remaining charges for the fiscal 2024 program by segment:

| | Expected | Incurred | Remaining |
|---|---|---|---|
| Devices | 40 | 25 | 15 |
| Services | 12 | 9 | 3 |

### Note 11. Commitments

Contractual obligations (in thousands)

| | Less than 1 year | 1-3 years | 3-5 years |
|---|---|---|---|
| Operating leases | 15,363 | 22,919 | 9,492 |
| Purchase obligations | 199,097 | 8,996 | – |

### Note 12. Other Assets

Other assets consist of the following (in thousands):

| | 2024 | 2023 |
|---|---|---|
| Deposits | 2,150 | 2,480 |
| Other assets | 9,521 | 18,111 |
"""


@pytest.fixture(scope="module")
def fabrikam(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("fabrikam"), "FABRIKAM_2024_10K.md", FILING)


@pytest.mark.parametrize(
    ("question", "comparison", "bound"),
    [
        ("How many years did servicing fees exceed $3,000 thousand?", ">", 3_000_000.0),
        ("In which years was royalty income below $1 million?", "<", 1_000_000.0),
        ("Which years had a margin of at least 2.5%?", ">=", 2.5),
        ("In which year was other income negative?", "<", 0.0),
    ],
)
def test_a_test_against_a_bound_is_read_with_its_scale(question: str, comparison: str, bound: float) -> None:
    assert operations_asked(question) == {PERIODS_MEETING}
    found = threshold_asked(question)
    assert found is not None
    assert found[0] == comparison and found[1].value * found[1].scale == bound


@pytest.mark.parametrize("question", ["In which year was revenue the largest?", "What was revenue in 2024?",
                                      "Which years are shown in the table?"])
def test_other_questions_ask_no_threshold(question: str) -> None:
    assert PERIODS_MEETING not in operations_asked(question)


def _value(period: str, value: float, scale: float = 1e3, unit: str = "") -> CitedValue:
    return CitedValue(label=f"fees {period}", value=NumericValue(text=f"{value:,.0f}", value=value, scale=scale,
                                                                unit=unit, period=period))


def test_meeting_counts_the_periods_in_code() -> None:
    values = [_value("FY2022", 3120), _value("FY2023", 2321), _value("FY2024", 3901)]
    bound = NumericValue(text="$3 million", value=3.0, scale=1e6, unit="USD")
    comp = arithmetic.meeting(values, bound, ">", metric="servicing fees")
    assert comp.result.value == 2 and comp.result.text.startswith("2022 and 2024: 2 of 3")
    assert "FY2023 2,321 <= $3 million" in comp.formula
    # A table that states no scale is read in the question's, and the answer says so.
    plain = [v.model_copy(update={"value": v.value.model_copy(update={"scale": 1.0})}) for v in values]
    thousands = NumericValue(text="$3,000 thousand", value=3000.0, scale=1e3, unit="USD")
    unscaled = arithmetic.meeting(plain, thousands, ">")
    assert unscaled.result.value == 2 and "states no scale" in unscaled.explanation
    with pytest.raises(ArithmeticRefusal):  # a percentage bound never meets amounts
        arithmetic.meeting(values, NumericValue(text="5%", value=5.0, unit="%"), ">")


def test_the_periods_passing_a_test_are_counted_from_the_row(fabrikam: Settings) -> None:
    answer = ask_once(fabrikam, "How many years did servicing fees exceed $3,000 thousand?")
    assert "2022 and 2024: 2 of 3" in answer and "FABRIKAM_2024_10K, p." in answer
    assert "FY2023 2,321 <= $3,000 thousand" in answer
    below = ask_once(fabrikam, "In which years was royalty income below $1,000 thousand?")
    assert "2022: 1 of 3" in below


def test_a_description_asked_gets_the_filings_sentence_not_a_figure(fabrikam: Settings) -> None:
    answer = ask_once(fabrikam, "How are Fabrikam's inventories stated?")
    assert "lower of cost" in answer
    assert "48,200" not in answer and "41,000" not in answer
    # The amount asked of the same metric is still the figure.
    assert "48,200" in ask_once(fabrikam, "What were Fabrikam's inventories at December 31, 2024?")


@pytest.mark.parametrize(
    ("question", "read"),
    [
        # The operation model reads a share and a sum here; no word list of the gate's names them.
        ("What is the percentage constitution of franchise rental revenues among the total franchise revenues in "
         "2024?", "272,815"),
        ("What is the total operating leases due within 3 years?", "15,363"),
    ],
)
def test_arithmetic_the_model_reads_is_never_answered_by_one_read_figure(
    fabrikam: Settings, question: str, read: str
) -> None:
    answer = ask_once(fabrikam, question)
    assert answer.startswith("Not found in the filings")
    assert read not in answer.split("Closest evidence", 1)[0]  # the read figure is shown only as the closest evidence


def test_a_sentence_introducing_a_table_is_no_answer(fabrikam: Settings) -> None:
    answer = ask_once(fabrikam, "What are the segments for which the expected, incurred and remaining charges for the "
                                "fiscal 2024 program are recorded?")
    assert "The following table summarizes" not in answer.split("Closest evidence", 1)[0]


@pytest.mark.parametrize(
    ("question", "company"),
    [
        # A row label written in title case is no company: a metric's name that runs on past the capital ...
        ("In which year was Operating profit larger?", ""),
        ("How many years did Gross deferred tax assets exceed $400 million?", ""),
        # ... or a determiner, which never opens a name.
        ("In which year was Other assets larger?", ""),
        # Companies keep their names, metric words in them or not.
        ("Has Microsoft increased its debt?", "Microsoft"),
        ("How much did Capital One pay in dividends in 2020?", "Capital One"),
        ("How much did Sales Force earn in 2020?", "Sales Force"),
    ],
)
def test_a_row_label_in_title_case_is_no_company(question: str, company: str) -> None:
    assert guess_company(question) == company


@pytest.mark.parametrize(
    ("question", "year", "figures"),
    [
        # A row the lexicon does not name: the question says no period, but only the row's figures can answer.
        ("In which year was Other assets larger?", "2023", "FY2023 18,111 > FY2024 9,521"),
        # A lexicon row written in title case.
        ("In which year was Raw materials larger?", "2024", "FY2024 30,100 > FY2023 25,500"),
    ],
)
def test_which_year_of_a_title_case_row_is_computed_from_its_figures(
    fabrikam: Settings, question: str, year: str, figures: str
) -> None:
    answer = ask_once(fabrikam, question)
    assert answer.startswith("Year with the highest") and f": {year} (" in answer
    assert figures in answer and "[FABRIKAM_2024_10K, p. " in answer


def test_the_plan_reads_the_turns_kind_where_a_split_reworded_it() -> None:
    from agent.query.decompose import decompose
    from agent.query.intent import extract_intent

    def kinds(question: str) -> list[tuple[str, bool]]:
        plan = decompose(question, extract_intent(question, []))
        return [(sq.metric, sq.intent.asks_words) for sq in plan.sub_queries]

    # split into 'What was the registered securities in FY2022?', a figure's wording: the turn asks names
    words = kinds("Which debt securities are registered to trade on a national securities exchange under Contoso's "
                  "name as of 2022?")
    assert ("registered securities", True) in words
    assert kinds("What was Contoso's revenue in 2022?") == [("revenue", False)]
    assert kinds("Contoso revenue FY22") == [("revenue", False)]  # shorthand asks its figure
