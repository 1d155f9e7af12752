"""Fiscal calendars that do not end in December: a 10-Q of a retailer whose year ends in late January, typeset
here. Its 'Three Months Ended July 29, 2023' column is the second quarter of fiscal 2024 (the half-year column
beside it says the year began in early February), never the third quarter of 2023."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent.config import Settings
from agent.finance.fiscal_calendar import dated_norm
from agent.finance.periods import find_periods, infer_fy_end_month
from agent.ingest.pipeline import open_ingestor
from agent.query.intent import extract_intent
from graphs.nodes import GraphDeps
from graphs.service import Assistant

HEADER = ("(in millions) | Three Months Ended July 29, 2023 | Three Months Ended July 30, 2022 | "
          "Six Months Ended July 29, 2023 | Six Months Ended July 30, 2022")
# As a 10-Q prints it: the durations on one line, the closing dates under them.
TEN_Q = """# Fabrikam Stores, Inc.

Quarterly Report on Form 10-Q for the quarterly period ended July 29, 2023

We operated 1,134 stores as of July 29, 2023.

## Item 1. Financial Statements

Condensed Consolidated Statements of Operations

Three Months Ended | Six Months Ended

| (in millions) | July 29, 2023 | July 30, 2022 | July 29, 2023 | July 30, 2022 |
|---|---|---|---|---|
| Net sales | 24,310 | 23,540 | 47,020 | 45,910 |
| Operating income | 1,210 | 1,180 | 2,350 | 2,290 |
| Net earnings | 835 | 810 | 1,610 | 1,580 |
"""


def test_a_half_or_nine_month_column_says_when_the_fiscal_year_ends() -> None:
    assert infer_fy_end_month("Six Months Ended July 29, 2023") == 1
    assert infer_fy_end_month("26 Weeks Ended August 3, 2024") == 1  # a 52/53-week year ending in early February
    assert infer_fy_end_month("Nine Months Ended October 28, 2023") == 1
    assert infer_fy_end_month("Six months ended December 31, 2023") == 6
    assert infer_fy_end_month("Six months ended June 30, 2023") == 12
    assert infer_fy_end_month("Three months ended July 29, 2023") == 12  # a quarter alone says nothing
    assert infer_fy_end_month("fiscal year ended May 31, 2024 and six months ended July 29, 2023") == 5
    assert [p.norm for p in find_periods(HEADER)] == ["FY2024Q2", "FY2023Q2", "FY2024H1", "FY2023H1"]


def _assistant_over(tmp_path_factory: pytest.TempPathFactory, text: str) -> Iterator[Assistant]:
    """An offline assistant over an index holding ``text`` as the 10-Q FABRIKAM_10Q.md."""
    work = tmp_path_factory.mktemp("calendar")
    filing = work / "filings" / "FABRIKAM_10Q.md"
    filing.parent.mkdir()
    filing.write_text(text, encoding="utf-8")
    settings = Settings.from_env(home=work / "home")
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(filing).status == "ingested"
    with Assistant(settings, deps=GraphDeps(chat_model=None)) as a:
        yield a


@pytest.fixture(scope="module")
def assistant(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Assistant]:
    yield from _assistant_over(tmp_path_factory, TEN_Q)


def test_the_filing_knows_its_fiscal_quarter(assistant: Assistant) -> None:
    from agent.index.store import Store

    with Store.open(assistant.settings) as store:
        (meta,) = store.list_documents()
    assert (meta.fy_end_month, meta.fiscal_period) == (1, "FY2024Q2")


@pytest.mark.parametrize("question, figure", [
    ("What were Fabrikam's net sales in the second quarter of fiscal 2024?", "$24,310 million"),
    ("What were Fabrikam's net sales in the first half of fiscal 2024?", "$47,020 million"),
    ("What were Fabrikam's net earnings for the three months ended July 29, 2023?", "$835 million"),
])
def test_quarter_and_half_columns_are_read_in_the_filers_calendar(assistant: Assistant, question: str,
                                                                  figure: str) -> None:
    result = assistant.ask(question)
    assert figure in result.answer and "[FABRIKAM_10Q, p. 1]" in result.answer, result.answer


def test_the_calendar_quarter_of_the_same_dates_is_not_answered_with_it(assistant: Assistant) -> None:
    result = assistant.ask("What were Fabrikam's net sales in the third quarter of 2023?")
    assert result.answer.startswith("Not found in the filings"), result.answer
    assert "24,310" not in result.answer.split("Closest evidence")[0]


# The same 10-Q from a filer that names its years by the calendar year they began, and says so.
NAMED_BY_START = TEN_Q.replace(
    "## Item 1.", "Our fiscal year ends on the Saturday nearest January 31. Fiscal 2023 ends on February 3, 2024.\n\n"
    "## Item 1.")


def test_a_filer_that_names_its_years_by_their_start_says_so() -> None:
    from datetime import date

    from agent.finance.fiscal_calendar import fiscal_quarter_of
    from agent.finance.periods import fiscal_naming

    assert fiscal_naming("Fiscal 2023 ends on February 3, 2024.", 1) == 13
    assert fiscal_naming("fiscal 2024 consisted of 52 weeks ended February 1, 2025", 1) == 13
    assert fiscal_naming('the year ended February 1, 2025 ("fiscal 2024")', 1) == 13
    assert fiscal_naming("Fiscal 2024 ended on February 1, 2025.", 12) == 12  # another year-end than the columns'
    assert fiscal_naming("Fiscal 2025 ended January 31, 2025.", 1) == 1  # named by the year it closed in
    assert fiscal_naming("fiscal 2024 ended June 30, 2024", 6) == 6
    assert fiscal_quarter_of(date(2023, 7, 29), 13) == (2023, 2)
    assert fiscal_quarter_of(date(2024, 2, 3), 13) == (2023, 4)  # the last day of fiscal 2023
    assert fiscal_quarter_of(date(2023, 7, 29), 1) == (2024, 2)
    assert [p.norm for p in find_periods(HEADER, 13)] == ["FY2023Q2", "FY2022Q2", "FY2023H1", "FY2022H1"]


@pytest.fixture(scope="module")
def named_by_start(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Assistant]:
    yield from _assistant_over(tmp_path_factory, NAMED_BY_START)


def test_the_filers_own_names_of_its_years_are_kept(named_by_start: Assistant) -> None:
    from agent.index.store import Store

    with Store.open(named_by_start.settings) as store:
        (meta,) = store.list_documents()
    assert (meta.fy_end_month, meta.fiscal_period) == (13, "FY2023Q2")


@pytest.mark.parametrize("question, figure", [
    ("What were Fabrikam's net sales in the second quarter of fiscal 2023?", "$24,310 million"),
    ("What were Fabrikam's net sales in the first half of fiscal 2023?", "$47,020 million"),
    ("What was Fabrikam's operating income in the second quarter of fiscal 2022?", "$1,180 million"),
    ("What were Fabrikam's net earnings for the three months ended July 29, 2023?", "$835 million"),
])
def test_a_year_named_by_its_start_is_read_as_the_filer_names_it(named_by_start: Assistant, question: str,
                                                                  figure: str) -> None:
    result = named_by_start.ask(question)
    assert figure in result.answer, result.answer


def test_the_same_period_last_year_counts_from_the_period_answered(named_by_start: Assistant) -> None:
    thread = named_by_start.new_thread()
    first = named_by_start.ask("What were Fabrikam's net sales for the six months ended July 29, 2023?", thread)
    assert "$47,020 million" in first.answer, first.answer
    then = named_by_start.ask("what about the same period last year?", thread)
    assert "$45,910 million" in then.answer, then.answer


@pytest.mark.parametrize("calendar", ["named_by_end", "named_by_start"])
def test_a_date_in_a_sentence_is_read_in_the_filers_calendar(calendar: str, request: pytest.FixtureRequest) -> None:
    a = request.getfixturevalue("assistant" if calendar == "named_by_end" else "named_by_start")
    result = a.ask("How many stores did Fabrikam operate as of July 29, 2023?")
    assert "1,134" in result.answer.split("Closest evidence")[0], result.answer


def test_the_plan_keeps_a_written_date_so_the_filers_calendar_names_it_without_rereading_the_question() -> None:
    asked = {
        "What were net sales for the six months ended July 29, 2023?": ("FY2024H1", "FY2023H1"),
        "What were net sales year to date through July 29, 2023?": ("FY2024H1", "FY2023H1"),
        "What was cash at July 29, 2023?": ("FY2024Q2", "FY2023Q2"),
    }
    for question, (named_by_end, named_by_start) in asked.items():
        dated = extract_intent(question, []).temporal_scope.dated
        assert dated is not None, question
        # a year ending in January, named by the year it ends in, then by the year it starts in (fy_end_month 13)
        assert dated_norm(dated.date, dated.months, 1, dated.to_date) == named_by_end, question
        assert dated_norm(dated.date, dated.months, 13, dated.to_date) == named_by_start, question
