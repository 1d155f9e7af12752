"""Finance lexicon (metric names, abbreviations, formulas) and fiscal period normalisation."""

from __future__ import annotations

import re

import pytest

from agent.errors import FinragError
from agent.finance.fiscal_calendar import fiscal_quarter_of
from agent.finance.formulas import FormulaKind
from agent.finance.lexicon import (
    canonical,
    components,
    find_metrics,
    metric_info,
    surface_forms,
    synonyms,
    topic_from_cues,
    topic_of,
)
from agent.finance.metrics import METRICS, TOPICS
from agent.finance.periods import (
    ends_in_month,
    ends_in_month_day,
    expand_range,
    find_periods,
    granularity,
    infer_fy_end_month,
    normalise_period,
    parse_date,
    period_year,
    periods_overlap,
    quarters_of,
    shift_period,
    sort_key,
    without_periods,
)


# ---------------------------------------------------------------------------------------------------------
# Lexicon
# ---------------------------------------------------------------------------------------------------------
def _found(text: str) -> list[tuple[str, str]]:
    return [(m.canonical, m.surface) for m in find_metrics(text)]


def test_lexicon_is_broad_and_consistent() -> None:
    metrics = [d for d in METRICS.values() if d.kind == "metric"]
    assert len(metrics) >= 80
    for d in METRICS.values():
        assert d.topic in TOPICS, d.canonical
        for name in d.related:
            assert name in METRICS, f"{d.canonical} relates to unknown {name}"
        if d.formula is not None:
            for inp in d.formula.inputs():
                assert inp in METRICS, f"{d.canonical} reads unknown {inp}"
    # Every surface maps to exactly one canonical metric (the trie refuses collisions when it is built).
    forms = surface_forms()
    assert forms[("capex",)] == "capital expenditure"
    assert forms[("sg&a",)] == "selling general and administrative expense"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What is the FY2016 COGS for Microsoft?", [("cost of goods sold", "COGS")]),
        ("SG&A rose while D&A fell", [
            ("selling general and administrative expense", "SG&A"),
            ("depreciation and amortization", "D&A"),
        ]),
        ("Purchases of property, plant and equipment (PP&E)", [
            ("capital expenditure", "Purchases of property, plant and equipment (PP&E)"),
        ]),
        ("Net PP&E was $9.0 billion", [("property plant and equipment", "Net PP&E")]),
        ("capex and Capital Expenditures", [
            ("capital expenditure", "capex"), ("capital expenditure", "Capital Expenditures"),
        ]),
        ("Net cash provided by (used in)\noperating activities", [
            ("cash from operations", "Net cash provided by (used in)\noperating activities"),
        ]),
        ("diluted EPS and basic earnings per share", [
            ("diluted earnings per share", "diluted EPS"),
            ("basic earnings per share", "basic earnings per share"),
        ]),
        ("Total liabilities and shareholders’ equity", [
            ("total liabilities and equity", "Total liabilities and shareholders’ equity"),
        ]),
        ("stockholders' equity", [("shareholders equity", "stockholders' equity")]),
        ("R&D and selling, general & administrative expenses", [
            ("research and development expense", "R&D"),
            ("selling general and administrative expense", "selling, general & administrative expenses"),
        ]),
    ],
)
def test_find_metrics_abbreviations_and_variants(text: str, expected: list[tuple[str, str]]) -> None:
    assert _found(text) == expected


def test_longest_match_wins() -> None:
    # "cost of sales" is one metric, not "cost" + revenue ("sales").
    assert _found("Total cost of sales increased") == [("cost of goods sold", "Total cost of sales")]
    # "gross margin" beats "margin"-less readings; "operating income margin" is the ratio, not the income.
    assert [m.canonical for m in find_metrics("operating income margin")] == ["operating margin"]
    assert [m.canonical for m in find_metrics("net income attributable to 3M")] == [
        "net income attributable to shareholders"
    ]
    # Statements' names are absorbed so their words do not read as metrics.
    assert find_metrics("shown in the cash flow statement") == []
    assert [m.canonical for m in find_metrics("the cash flow statement", include_statements=True)] == [
        "cash flow statement"
    ]


def test_mentions_have_exact_offsets() -> None:
    text = "In 2018, Revenues were up; Capital Expenditures (capex) fell."
    for m in find_metrics(text):
        assert text[m.start:m.end] == m.surface
    assert [m.canonical for m in find_metrics(text)] == ["revenue", "capital expenditure"]


def test_ambiguous_abbreviation_needs_capitals_and_context() -> None:
    assert _found("Cash from operations (CFO) was strong") == [
        ("cash from operations", "Cash from operations (CFO)")
    ]
    assert _found("CFO rose to $6.4 billion") == [("cash from operations", "CFO")]
    assert find_metrics("our CFO, Monish Patolawala, signed the certification") == []
    assert find_metrics("the cfo said") == []  # lower case is not the abbreviation


def test_canonical_synonyms_and_info() -> None:
    assert canonical("capex") == "capital expenditure"
    assert canonical("Purchases of property, plant and equipment") == "capital expenditure"
    assert canonical("net sales") == "revenue"
    assert canonical("revenue") == "revenue"
    assert canonical("net sales grew") is None  # only whole names
    assert canonical("unicorn horns") is None
    assert "purchases of property plant and equipment" in synonyms("capex")
    assert synonyms("capital expenditure")[0] == "capital expenditure"
    assert metric_info("SG&A").topic == "Costs/Expenses"
    with pytest.raises(FinragError, match="unknown metric"):
        metric_info("unicorn horns")


def test_components_of_derived_metrics() -> None:
    assert components("gross margin") == ["gross profit", "revenue", "cost of goods sold"]
    assert components("quick ratio") == ["current assets", "inventories", "current liabilities"]
    assert components("gross margin", recursive=False) == ["gross profit", "revenue"]
    assert components("revenue") == []
    ccc = components("cash conversion cycle")
    inputs = {"inventories", "accounts receivable", "accounts payable", "revenue", "cost of goods sold"}
    assert inputs <= set(ccc)


def test_formulas_compute_in_code() -> None:
    quick = metric_info("quick ratio").formula
    assert quick is not None and quick.kind is FormulaKind.RATIO
    assert quick.describe() == "(current assets - inventories) / current liabilities"
    balances = {"current assets": 300.0, "inventories": 100.0, "current liabilities": 100.0}
    assert quick.evaluate(balances) == 2.0

    gm = metric_info("gross margin").formula
    # Gross profit is derived on the way: (1000 - 600) / 1000 * 100.
    assert gm.evaluate({"revenue": 1000.0, "cost of goods sold": 600.0}, None, METRICS) == pytest.approx(40.0)

    dpo = metric_info("days payable outstanding").formula
    assert dpo.needs_prior_period()
    value = dpo.evaluate({"accounts payable": 120.0, "cost of goods sold": 730.0}, {"accounts payable": 80.0})
    assert value == pytest.approx(365 * 100.0 / 730.0)

    growth = metric_info("revenue growth").formula
    assert growth.evaluate({"revenue": 110.0}, {"revenue": 100.0}) == pytest.approx(10.0)

    ccc = metric_info("cash conversion cycle").formula
    current = {"inventories": 50.0, "accounts receivable": 40.0, "accounts payable": 30.0,
               "cost of goods sold": 365.0, "revenue": 730.0}
    prior = {"inventories": 50.0, "accounts receivable": 40.0, "accounts payable": 30.0}
    assert ccc.evaluate(current, prior, METRICS) == pytest.approx(50.0 + 20.0 - 30.0)

    with pytest.raises(FinragError, match="missing current-period value for 'inventories'"):
        quick.evaluate({"current assets": 1.0, "current liabilities": 1.0})
    with pytest.raises(FinragError, match="denominator is zero"):
        quick.evaluate({"current assets": 1.0, "inventories": 0.0, "current liabilities": 0.0})


def test_topics() -> None:
    assert topic_of(["revenue", "segment revenue", "net income"]) == "Revenue"
    assert topic_of([]) == "Other"
    assert topic_from_cues("What are the main risks and uncertainties?") == "Risk"
    assert topic_from_cues("geographies where PepsiCo operates") == "Other"  # "eps" inside a name is no cue


# ---------------------------------------------------------------------------------------------------------
# Periods
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "norms"),
    [
        ("fiscal 2018", ["FY2018"]),
        ("fiscal year 2018", ["FY2018"]),
        ("FY2018", ["FY2018"]),
        ("FY18", ["FY2018"]),
        ("FY 2021", ["FY2021"]),
        ("FY'22", ["FY2022"]),
        ("revenue in 2018 grew", ["FY2018"]),
        ("year ended December 31, 2018", ["FY2018"]),
        ("Years ended December 31, 2018, 2017 and 2016", ["FY2018", "FY2017", "FY2016"]),
        ("fiscal year ended May 31, 2019", ["FY2019"]),
        ("three months ended June 30, 2023", ["FY2023Q2"]),
        ("three months ended June 30, 2023 and 2022", ["FY2023Q2", "FY2022Q2"]),
        ("three and six months ended June 30, 2023", ["FY2023Q2", "FY2023H1"]),
        ("six months ended June 30, 2023", ["FY2023H1"]),
        ("nine months ended September 30, 2023", ["FY2023M9"]),
        ("thirteen weeks ended April 29, 2023", ["FY2023Q2"]),
        ("quarter ended March 31, 2023", ["FY2023Q1"]),
        ("Q2 2023", ["FY2023Q2"]),
        ("Q22023", ["FY2023Q2"]),
        ("Q2'2023", ["FY2023Q2"]),
        ("Q2 FY2023", ["FY2023Q2"]),
        ("Q2 of FY2023", ["FY2023Q2"]),
        ("2Q23", ["FY2023Q2"]),
        ("FY2023Q1", ["FY2023Q1"]),
        ("2023Q2", ["FY2023Q2"]),
        ("second quarter of 2023", ["FY2023Q2"]),
        ("fourth-quarter 2022", ["FY2022Q4"]),
        ("first quarter of fiscal 2023", ["FY2023Q1"]),
        ("first half of 2022", ["FY2022H1"]),
        ("H1 FY2023", ["FY2023H1"]),
        ("1H22", ["FY2022H1"]),
        ("as of December 31, 2022", ["FY2022"]),
        ("December 31, 2022 and 2021", ["FY2022", "FY2021"]),
        ("at June 30, 2023", ["FY2023Q2"]),
        ("fifty-two weeks ended January 1, 2022", ["FY2021"]),
        # 52/53-week calendars count weeks, never months: 12 to 17 weeks a quarter, 24 a half, 36 nine months.
        ("12 weeks ended March 25, 2023", ["FY2023Q1"]),
        ("12 weeks ended 3/25/2023", ["FY2023Q1"]),
        ("16 weeks ended December 31, 2022", ["FY2022Q4"]),
        ("24 weeks ended June 17, 2023", ["FY2023H1"]),
        ("36 weeks ended September 9, 2023", ["FY2023M9"]),
        ("twelve months ended December 31, 2022", ["FY2022"]),
        ("between FY2021 and FY2022", ["FY2021", "FY2022"]),
        ("2018: (1,577) | 2017: (1,373)", ["FY2018", "FY2017"]),
        ("between 12/28/12 and 12/29/13", ["FY2012", "FY2013"]),
        ("as of 12/31/05", ["FY2005"]),
        ("31-dec-2016", ["FY2016"]),
        ("closing price as of 2/11/11", ["FY2011Q1"]),
        ("R&D growth FY24 %", ["FY2024"]),  # a year label's prefix makes it a year before a '%' too
    ],
)
def test_period_normalisation(text: str, norms: list[str]) -> None:
    assert [p.norm for p in find_periods(text)] == norms


@pytest.mark.parametrize(
    "text",
    [
        "1.500% Notes due 2026",
        "Securities Exchange Act of 1934",
        "$2,018 million",
        "ASU 2016-02",
        "grew 2019% (sic)",
        "section 2018 of the plan",
        "about 1/2 of the shares",
        "ratio of 3/4",
    ],
)
def test_years_that_are_not_periods(text: str) -> None:
    assert find_periods(text) == []


def test_period_mentions_keep_surface_kind_and_date() -> None:
    text = "Balance as of December 31, 2022 versus the three months ended June 30, 2023."
    found = find_periods(text)
    assert [(p.norm, p.kind, p.date) for p in found] == [
        ("FY2022", "point", "2022-12-31"),
        ("FY2023Q2", "quarter", "2023-06-30"),
    ]
    assert found[0].surface == "as of December 31, 2022"
    for p in found:
        assert text[p.start:p.end] == p.surface


def test_fiscal_year_end_month() -> None:
    # Stated in the text: a May year end makes August the first fiscal quarter of the next year.
    text = "three months ended August 31, 2019 (our fiscal year ended May 31, 2019)"
    assert [p.norm for p in find_periods(text)] == ["FY2020Q1", "FY2019"]
    assert infer_fy_end_month("years ended May 31") == 5
    # Passed in.
    assert [p.norm for p in find_periods("three months ended August 31, 2019", 5)] == ["FY2020Q1"]
    d = parse_date("September 28, 2019")
    assert d is not None and fiscal_quarter_of(d, 9) == (2019, 4)
    with pytest.raises(ValueError):
        find_periods("FY2018", 25)  # 13-24: a month of the next year (a year named by the year it began)


def test_normalise_and_period_arithmetic() -> None:
    assert normalise_period("fiscal 2018") == "FY2018"
    assert normalise_period("2023Q2") == "FY2023Q2"
    assert normalise_period("2018") == "FY2018"
    assert normalise_period("fy2023q2") == "FY2023Q2"
    assert normalise_period("no period here") == ""
    assert period_year("FY2023Q2") == 2023
    assert period_year("2023") is None
    assert granularity("FY2022H1") == "half"
    assert quarters_of("FY2023M9") == frozenset({1, 2, 3})
    assert periods_overlap("FY2023", "FY2023Q2")
    assert periods_overlap("FY2022H1", "FY2022Q2")
    assert not periods_overlap("FY2023Q1", "FY2023Q2")
    assert not periods_overlap("FY2022", "FY2023Q1")
    assert shift_period("FY2023Q2", -1) == "FY2022Q2"
    assert shift_period("FY2023Q1", quarters=-1) == "FY2022Q4"
    assert shift_period("FY2018", 2) == "FY2020"
    with pytest.raises(ValueError):
        shift_period("2018", -1)
    assert expand_range("FY2018", "FY2020") == ["FY2018", "FY2019", "FY2020"]
    assert expand_range("FY2023Q3", "FY2024Q1") == ["FY2023Q3", "FY2023Q4", "FY2024Q1"]
    assert sorted(["FY2023Q2", "FY2022", "FY2023", "FY2023Q1"], key=sort_key) == [
        "FY2022", "FY2023Q1", "FY2023Q2", "FY2023"
    ]


def test_a_month_year_column_header_is_that_months_period() -> None:
    assert normalise_period("12/09") == "FY2009"  # a performance graph's December column
    assert normalise_period("6/14") == "FY2014Q2"
    assert normalise_period("13/09") == ""  # no such month
    assert find_periods("12/09") == []  # only a whole header label, never inside prose


def test_a_duration_in_weeks_or_twelve_months_normalises_to_its_own_length() -> None:
    assert normalise_period("12 Weeks Ended 3/25/2023") == "FY2023Q1"
    assert normalise_period("52 Weeks Ended 12/31/2022") == "FY2022"
    assert normalise_period("12 months ended December 31, 2022") == "FY2022"  # a year, not its fourth quarter
    assert normalise_period("Six Months Ended June 30, 2023") == "FY2023H1"


@pytest.mark.parametrize(("text", "norm"), [
    ("revenue in the fiscal 2024 third quarter", "FY2024Q3"),
    ("the fiscal 2019 second quarter", "FY2019Q2"),
    ("2024 fourth-quarter revenue", "FY2024Q4"),
    ("FY2023 first quarter sales", "FY2023Q1"),
    ("the third quarter of fiscal 2024", "FY2024Q3"),
])
def test_a_quarter_is_read_with_its_year_written_before_or_after(text: str, norm: str) -> None:
    # 'the fiscal 2019 second quarter' is a quarter: read as the year, the year's figure was stated for it
    assert [p.norm for p in find_periods(text)] == [norm]


@pytest.mark.parametrize(("text", "left"), [
    ("the change in additions of financial assets between 2018 year end and 2019 year end", "additions"),
    ("sales and marketing expenses for year ended 2019 compared to year ended 2018", "sales and marketing"),
    ("year-end 2019 headcount", "headcount"),
])
def test_year_end_beside_a_period_is_part_of_it(text: str, left: str) -> None:
    """'2019 year end' dates what the text names: 'year end' names no row ('At end of the year') of its own."""
    rest = without_periods(text)
    assert left in rest and not re.search(r"\b(?:end|ended)\b", rest)


def test_the_end_of_a_period_still_says_end() -> None:
    """'the balance at the end of 2019' asks a closing balance: 'end' stays a word of the question."""
    assert "end" in without_periods("the balance at the end of 2019")


@pytest.mark.parametrize(
    ("text", "month", "month_day"),
    [
        ("as of December ", True, False),
        ("on Sept. ", True, False),
        ("the tokenizer's dec . ", True, False),
        ("fiscal year ended November 27", False, True),
        ("revenue decreased ", False, False),  # a word that only starts like a month is none
        ("Sales and Marketing ", False, False),
        ("declined 27", False, False),
        ("December 31, ", False, False),  # the day already read: what follows is the year
    ],
)
def test_a_month_ends_text_only_as_a_whole_word(text: str, month: bool, month_day: bool) -> None:
    assert ends_in_month(text) is month
    assert ends_in_month_day(text) is month_day


def test_a_revenue_line_net_of_interest_is_revenue() -> None:
    # a card issuer's headline line nets the interest it pays: one metric, not revenue and interest expense
    assert [m.canonical for m in find_metrics("Total revenues net of interest expense")] == ["revenue"]
    assert [m.canonical for m in find_metrics("Interest expense")] == ["interest expense"]


@pytest.mark.parametrize(("text", "fy_end_month", "expected"), [
    # a span closed by 'to' or 'through', as British filings and analysts write it, is that span, never a day
    ("the three months to June 30, 2025", 12, ("FY2025Q2", "quarter", "2025-06-30")),
    ("the six months to 30 June 2025", 12, ("FY2025H1", "half", "2025-06-30")),
    ("six months through June 30, 2025", 12, ("FY2025H1", "half", "2025-06-30")),
    ("the quarter to June 30, 2025", 12, ("FY2025Q2", "quarter", "2025-06-30")),
    # a span closed by a month alone closes on its last day: a quarter, never the year
    ("the quarter ended June 2025", 12, ("FY2025Q2", "quarter", "2025-06-30")),
    ("the June 2025 quarter", 12, ("FY2025Q2", "quarter", "2025-06-30")),
    ("the March quarter of 2025", 12, ("FY2025Q1", "quarter", "2025-03-31")),
    ("the June 2025 quarter", 9, ("FY2025Q3", "quarter", "2025-06-30")),  # in the filer's calendar
    # a year to date closed by a day or month: the fiscal year's months to the quarter it closes
    ("YTD June 2025", 12, ("FY2025H1", "half", "2025-06-30")),
    ("year-to-date through September 30, 2025", 12, ("FY2025M9", "nine_months", "2025-09-30")),
    ("June 2025 YTD", 9, ("FY2025M9", "nine_months", "2025-06-30")),
])
def test_a_span_is_read_from_the_day_or_month_it_closes(text: str, fy_end_month: int,
                                                        expected: tuple[str, str, str]) -> None:
    assert [(p.norm, p.kind, p.date) for p in find_periods(text, fy_end_month)] == [expected]


def test_a_month_alone_in_prose_stays_its_year() -> None:
    assert [(p.norm, p.kind) for p in find_periods("In June 2025, we issued notes.")] == [("FY2025", "year")]


@pytest.mark.parametrize(("question", "periods"), [
    # a year to date through a quarter is the fiscal year's months to that quarter's end
    ("Quillon capex YTD Q3 FY26", ["FY2026M9"]),
    ("What was Quillon's capex year to date through Q2 FY2026?", ["FY2026H1"]),
    ("Quillon capex YTD Q1 FY26", ["FY2026Q1"]),
    ("What was Quillon's capex in Q3 FY26?", ["FY2026Q3"]),
])
def test_a_year_to_date_through_a_quarter_is_its_months(question: str, periods: list[str]) -> None:
    from agent.query.intent import extract_intent

    assert extract_intent(question, ["Quillon Software, Inc."]).temporal_scope.periods == periods
