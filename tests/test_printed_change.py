"""A change a release prints in a column of its own ('% Change', '% Change at CER') is read for a change asked: on
the basis the question asks (an acronym read both ways), never on another. Growth at constant exchange rates cannot
be computed from the two reported levels, so it is read where printed, however the question words the basis; a plain
growth question keeps the change computed from the levels; a basis no column prints is refused, whatever the levels
give. Typeset release."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.answer.printed_change import column_bases, compared_periods, label_words
from agent.config import Settings
from agent.schemas import Basis, TableColumn, TableRecord

RELEASE = """# Kelmira Therapeutics plc

EXHIBIT 99.1

Kelmira Therapeutics Reports Third Quarter 2025 Results

### Product Revenues

(In millions of U.S. dollars)

| | Q3 2025 | Q3 2024 | % Change | % Change at CER |
|---|---|---|---|---|
| Brivora | 1,142 | 948 | 20% | 18% |
| Tolmexa | 611 | 598 | 2% | 1% |
| Total revenues | 1,753 | 1,546 | 13% | 12% |
"""


@pytest.fixture(scope="module")
def kelmira(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("kelmira"), "KELMIRA_2025Q3_PR.md", RELEASE)


@pytest.mark.parametrize(("question", "figure"), [
    ("How much did Tolmexa revenue grow at constant exchange rates in Q3 2025?", "1%"),
    ("What was Brivora's revenue growth at CER in Q3 2025?", "18%"),
    ("Kelmira total revenue growth Q3 2025 at constant exchange rates", "12%"),
])
def test_a_change_on_the_basis_asked_is_read_from_its_column(kelmira: Settings, question: str, figure: str) -> None:
    answer = stated(ask_once(kelmira, question))
    assert f": {figure}" in answer and "% Change at CER" in answer, answer


def test_a_change_asked_on_no_basis_is_computed_from_the_reported_levels(kelmira: Settings) -> None:
    answer = stated(ask_once(kelmira, "How much did Tolmexa revenue grow in Q3 2025?"))
    assert "2.17%" in answer and "CER" not in answer, answer


def test_a_basis_is_read_whatever_words_say_it(kelmira: Settings) -> None:
    # 'constant currency' spells no 'CER', but both say one basis: the plan's, which the column states
    answer = stated(ask_once(kelmira, "What was the percentage change in Brivora revenue at constant currency in Q3 "
                                      "2025?"))
    assert ": 18%" in answer and "% Change at CER" in answer, answer


def test_a_basis_no_column_prints_is_refused(kelmira: Settings) -> None:
    # no column is organic: neither the reported change, the one at CER, nor one computed from the levels answers
    answer = stated(ask_once(kelmira, "What was Brivora's organic revenue growth in Q3 2025?"))
    assert answer.startswith("Not found") and "20%" not in answer and "18%" not in answer, answer
    assert "20.46" not in answer, answer


def _record(*columns: TableColumn) -> TableRecord:
    return TableRecord(table_id="t", columns=list(columns), rows=[])


def test_a_change_column_compares_the_two_periods_its_label_names_or_those_left_of_it() -> None:
    q3 = TableColumn(label="Q3 2025", kind="period", period="FY2025Q3", months=3)
    q3_before = TableColumn(label="Q3 2024", kind="period", period="FY2024Q3", months=3)
    nine = TableColumn(label="Nine Months 2025", kind="period", period="FY2025M9", months=9)
    nine_before = TableColumn(label="Nine Months 2024", kind="period", period="FY2024M9", months=9)
    change = TableColumn(label="% Change", kind="change", unit="%")
    record = _record(q3, q3_before, change, nine, nine_before, change)
    assert compared_periods(record, 2) == ("FY2024Q3", "FY2025Q3")
    assert compared_periods(record, 5) == ("FY2024M9", "FY2025M9")
    named = _record(TableColumn(label="2019", kind="period", period="FY2019", months=12),
                    TableColumn(label="2018", kind="period", period="FY2018", months=12),
                    TableColumn(label="2017", kind="period", period="FY2017", months=12),
                    TableColumn(label="2018 vs 2017", kind="change"))
    assert compared_periods(named, 3) == ("FY2017", "FY2018")
    assert compared_periods(_record(q3, change), 1) is None


def test_a_change_columns_basis_and_words_are_what_it_names_beyond_the_change() -> None:
    assert column_bases("% Change at CER") == {Basis.CONSTANT_CURRENCY} and label_words("% Change at CER") == set()
    assert column_bases("Organic % Change") == {Basis.ORGANIC}
    assert label_words("% Change excluding divestitures") == {"excluding", "divestiture"}
    assert column_bases("% Change") == set() and label_words("% Change") == set()
    assert label_words("2019 vs 2018") == set()
