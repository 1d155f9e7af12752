"""A segment's figure is read as the filing prints it: the company named, then its part ("CTSO Cloud Platforms op
income FY23"), the block of the metric asked (segments listed once under 'Revenue' and again under 'Operating
Income'), never a part's row of another metric's table ('Unearned revenue by segment' is no revenue); a row under a
per-share sub-heading is per share ('Diluted Earnings Per Common Share' over 'Net income attributable to Contoso').
Typeset filings."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.entities import EntityRegistry
from agent.finance.lexicon import find_metrics
from agent.query.intent import extract_intent
from agent.query.utterance import plain_question
from agent.schemas import Entity

pytestmark = pytest.mark.usefixtures("no_yfinance")

COVER = """# Contoso Systems Corporation

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended June 30, 2023

Contoso Systems Corporation

(Exact name of registrant as specified in its charter)

| Title of each class | Trading Symbol | Name of each exchange on which registered |
|---|---|---|
| Common Stock | CTSO | Nasdaq |

<!-- page -->

## Item 8. Financial Statements and Supplementary Data

### Income Statements

(In millions, except per share amounts)

| Year Ended June 30, | 2023 | 2022 |
|---|---|---|
| Revenue | 31,650 | 29,020 |
| Operating income | 9,420 | 8,870 |
| Net income | 7,310 | 6,980 |
| Basic Earnings Per Common Share | | |
| Net income attributable to Contoso | 3.12 | 2.95 |
| Diluted Earnings Per Common Share | | |
| Net income attributable to Contoso | 3.07 | 2.91 |

<!-- page -->

### Note 13. Unearned Revenue

Unearned revenue by segment was as follows:

(In millions)

| June 30, | 2023 | 2022 |
|---|---|---|
| Cloud Platforms | 4,310 | 3,874 |
| Devices | 936 | 896 |
| Total | 5,246 | 4,770 |
"""

SEGMENTS = """
<!-- page -->

### Note 19. Segment Information

Segment revenue and operating income were as follows during the periods presented:

(In millions)

| Year Ended June 30, | 2023 | 2022 |
|---|---|---|
| Revenue | | |
| Cloud Platforms | 20,880 | 18,530 |
| Devices | 8,270 | 8,190 |
| Gaming and Search | 2,500 | 2,300 |
| Total | 31,650 | 29,020 |
| Operating Income (Loss) | | |
| Cloud Platforms | 7,660 | 6,900 |
| Devices | (1,760) | 1,970 |
| Total | 5,900 | 8,870 |
"""

CONTOSO = Entity(entity_id="name:contoso", name="Contoso Systems Corporation", tickers=["CTSO"], name_source="cover")


@pytest.fixture(scope="module")
def contoso(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("contoso"), "CONTOSO_2023_10K.md", COVER + SEGMENTS)


@pytest.fixture(scope="module")
def unearned_only(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("unearned"), "CONTOSO_2023_10K.md", COVER)


@pytest.mark.parametrize(("question", "figure"), [
    ("CTSO Cloud Platforms op income FY23", "7,660"),
    ("Contoso Cloud Platforms revenue FY23", "20,880"),
    ("CTSO Devices revenue FY22", "8,190"),
    ("What was Contoso's Cloud Platforms operating income in fiscal 2023?", "7,660"),
    ("What was the operating income of Devices in fiscal 2022?", "1,970"),
    # the sub-heading says which way the block's figures run: a loss printed in parentheses is a loss
    ("CTSO Devices operating loss FY23", "operating loss (devices) in FY2023 was $1,760 million"),
    ("Contoso Gaming and Search revenue FY23", "2,500"),
    ("What was Contoso's unearned revenue for Cloud Platforms at June 30, 2023?", "4,310"),
    # a per-share sub-heading over a row named for the amount it divides: the row's figures are per share
    ("CTSO diluted EPS FY23", "3.07"),
    ("What were Contoso's basic earnings per share in fiscal 2022?", "2.95"),
])
def test_a_part_asked_in_any_wording_gets_its_block_figure(contoso: Settings, question: str, figure: str) -> None:
    out = ask_once(contoso, question)
    assert figure in stated(out) and not out.startswith("Not found"), out


@pytest.mark.parametrize("question", [
    "What was Cloud Platforms revenue in fiscal 2023?",
    "CTSO Devices revenue FY22",  # the unearned table's row is no revenue
])
def test_a_part_row_of_another_metrics_table_is_not_the_metric(unearned_only: Settings, question: str) -> None:
    out = ask_once(unearned_only, question)
    assert out.startswith("Not found"), out
    assert not any(f in stated(out) for f in ("4,310", "3,874", "936", "896")), out


def test_a_per_share_row_is_no_net_income_and_has_no_scale(contoso: Settings) -> None:
    out = ask_once(contoso, "What was Contoso's net income in fiscal 2023?")
    assert "7,310" in stated(out), out
    assert "3.07 million" not in ask_once(contoso, "CTSO diluted EPS FY23")


def test_a_name_that_runs_on_into_a_filer_word_is_another_company(contoso: Settings) -> None:
    out = ask_once(contoso, "Contoso Bank revenue FY23")
    assert not any(f in stated(out) for f in ("31,650", "20,880", "8,270")), out


@pytest.mark.parametrize(("question", "written", "part"), [
    ("CTSO Cloud Platforms op income FY23", "Contoso Systems Corporation's Cloud Platforms", "cloud platforms"),
    ("Contoso Devices revenue FY22", "Contoso Systems Corporation's Devices", "devices"),
    ("In FY23 what was CTSO Devices revenue?", "Contoso Systems Corporation's Devices", "devices"),
])
def test_the_company_then_its_part(question: str, written: str, part: str) -> None:
    registry = EntityRegistry([CONTOSO])
    plain = plain_question(question, registry)
    intent = extract_intent(plain, registry)
    assert written in plain
    assert intent.company == CONTOSO.name
    assert [t.text for t in intent.scope] == [part]


@pytest.mark.parametrize("question", [
    "CTSO revenue FY23",  # the company alone
    "Contoso Holdings revenue FY23",  # a legal form: another company's name
    "What were accounts payable for Contoso Systems? Answer in USD millions.",  # a question mark ends it
    "What was Contoso Systems Corporation's revenue in FY23?",  # the name and its possessive
])
def test_no_part_where_the_name_ends(question: str) -> None:
    registry = EntityRegistry([CONTOSO])
    assert plain_question(question, registry).count("'s") == question.count("'s")
    assert registry.leading("Contoso Holdings") is None
    assert registry.leading("CTSO Cloud Platforms") == (CONTOSO, "Cloud Platforms")


def test_a_metric_in_capitals_after_the_name_is_the_companys_no_part() -> None:
    registry = EntityRegistry([CONTOSO])
    plain = plain_question("What was Contoso Revenue in FY23?", registry)
    assert plain == f"What was {CONTOSO.name}'s Revenue in FY23?"
    intent = extract_intent(plain, registry)
    assert intent.company == CONTOSO.name and not intent.scope and intent.metrics == ["revenue"]


def test_a_metric_split_by_a_preposition_keeps_the_words_before_its_head() -> None:
    assert [m.canonical for m in find_metrics("Unearned revenue by segment")] == ["deferred revenue"]
    assert [m.canonical for m in find_metrics("Revenue by segment")] == ["segment revenue"]
