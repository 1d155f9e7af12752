"""A 52/53-week fiscal year stated by its weekday: 'Our fiscal year ends on the last Sunday in January.' A 10-Q with
three-month columns only says nothing else of its calendar, so that sentence is what makes 'Three Months Ended April
27, 2025' the first quarter of fiscal 2026 (before: the second quarter of 2025, and every question in the filer's own
terms refused).

The 10-Q is typeset here: a chip maker whose year ends in late January.
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.index.store import Store
from agent.ingest.metadata import _weekday_year_end

FILING = """# Adatum Silicon Corporation

FORM 10-Q

QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the quarterly period ended April 27, 2025

Adatum Silicon Corporation
(Exact name of registrant as specified in its charter)

Our fiscal year ends on the last Sunday in January.

### Condensed Consolidated Statements of Income

(In millions)

| | Three Months Ended April 27, 2025 | Three Months Ended April 28, 2024 |
|---|---|---|
| Revenue | 3,210 | 2,480 |
| Operating income | 905 | 611 |
"""


@pytest.fixture(scope="module")
def adatum(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("adatum"), "ADATUMSILICON_2025Q1_10Q.md", FILING)


def test_the_weekday_statement_says_the_month() -> None:
    assert _weekday_year_end("Our fiscal year ends on the last Sunday in January.") == 1
    assert _weekday_year_end("The fiscal year ends on the Saturday closest to September 30.") == 9
    assert _weekday_year_end("our fiscal year ends on the first Saturday in February") == 1  # January's year
    assert _weekday_year_end("for the fiscal year ended December 31, 2024") == 0


def test_the_quarter_is_the_filers(adatum: Settings) -> None:
    with Store.open(adatum) as store:
        meta = store.list_documents()[0]
        record = next(c.table for c in store.chunks() if c.table is not None)
    assert meta.fy_end_month == 1
    assert [c.period for c in record.columns] == ["FY2026Q1", "FY2025Q1"]


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Adatum Silicon's revenue in the first quarter of fiscal 2026?", "$3,210 million"),
    ("Adatum Silicon op income Q1 FY25", "$611 million"),
])
def test_questions_in_the_filers_terms_are_answered(adatum: Settings, question: str, figure: str) -> None:
    assert figure in stated(ask_once(adatum, question))
