"""An acronym a filing defines is the question's vocabulary: 'Remaining performance obligations (RPO)' in the
filing lets an analyst ask for 'RPO'. Read at ingest (agent/ingest/terms.py), kept per company, and written out in
the question as the filing prints it; an acronym no filing defines, or two define differently, is left as typed.

The filing is typeset here: a software company's 10-Q that defines its operating metrics in prose.
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.config import Settings
from agent.entities import EntityRegistry
from agent.ingest.terms import defined_terms
from agent.schemas import DefinedTerm, Entity

FILING = """# Trey Research Software, Inc.

FORM 10-Q

QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the quarterly period ended June 30, 2025

## Key Business Metrics

Remaining performance obligations (RPO) were $4.62 billion as of June 30, 2025, compared with $3.95 billion as of
June 30, 2024. Our dollar-based net retention rate (DBNRR) was 118% as of June 30, 2025.

### Condensed Consolidated Statements of Operations

(In millions)

| | Three Months Ended June 30, 2025 | Three Months Ended June 30, 2024 |
|---|---|---|
| Total revenue | 802.4 | 701.9 |
| Operating income | 96.3 | 71.0 |
"""


@pytest.fixture(scope="module")
def trey(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("trey"), "TREYRESEARCH_2025Q2_10Q.md", FILING)


def test_definitions_are_read_with_the_words_as_printed() -> None:
    text = ("Annual recurring revenue (ARR) rose. Sales in Europe, Middle East and Africa (EMEA) grew. The Common "
            "Equity Tier 1 (CET1) ratio was 11%. See note (a) and the Company (the 'Company').")
    assert {(t.short, t.long) for t in defined_terms(text)} == {
        ("ARR", "Annual recurring revenue"), ("EMEA", "Europe, Middle East and Africa"),
        ("CET1", "Common Equity Tier 1")}
    # letters that begin no words before them define nothing
    assert defined_terms("Revenue grew strongly (XYZ) in the quarter.") == []


def test_an_acronym_two_filings_define_differently_names_no_one_thing() -> None:
    def company(name: str, long: str) -> Entity:
        return Entity(entity_id=f"name:{name.lower()}", name=name, name_source="text",
                      terms=[DefinedTerm(short="ARR", long=long)])
    agree = EntityRegistry([company("Alpha Corp", "Annual recurring revenue"),
                            company("Beta Corp", "annual recurring revenue")])
    assert agree.defined_terms() == {"ARR": "Annual recurring revenue"} or agree.defined_terms() == {
        "ARR": "annual recurring revenue"}
    differ = EntityRegistry([company("Alpha Corp", "Annual recurring revenue"),
                             company("Beta Corp", "Average revenue rate")])
    assert "ARR" not in differ.defined_terms()


@pytest.mark.parametrize(("question", "figure"), [
    ("Trey Research RPO at June 30, 2025", "$4.62 billion"),
    ("What was Trey Research's RPO as of June 30, 2024?", "$3.95 billion"),
])
def test_the_filings_acronym_asks_for_the_figure_it_defines(trey: Settings, question: str, figure: str) -> None:
    answer = ask_once(trey, question)
    assert figure in answer and not answer.startswith("Not found")


def test_an_acronym_no_filing_defines_is_not_guessed(trey: Settings) -> None:
    answer = ask_once(trey, "Trey Research NRR at June 30, 2025")
    assert "4.62" not in answer.split("Closest evidence")[0]
