"""A product, segment or region the question names instead of the company ('What were Zorvexa sales?') is a part
of the company whose filing prints it, also in an index of several companies; and columns that split one period
into parts ('Q1 2025 U.S. | Q1 2025 Ex-U.S. | Q1 2025 Total') answer only the part asked, the total answering
for the whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ask_once, ask_thread, stated

from agent.config import Settings
from agent.entities import EntityRegistry
from agent.ingest.parts import printed_names
from agent.ingest.pipeline import open_ingestor
from agent.query.intent import extract_intent
from agent.schemas import Entity, TableColumn, TableLine, TableRecord

pytestmark = pytest.mark.usefixtures("no_yfinance")

PHARMA = """# Tailspin Therapeutics, Inc.

FORM 8-K

Date of Report: April 30, 2025

Tailspin Therapeutics, Inc.
(Exact name of registrant as specified in its charter)

Exhibit 99.1

## Tailspin Therapeutics Reports First Quarter 2025 Financial Results

BOSTON, April 30, 2025 -- Tailspin Therapeutics, Inc. today reported financial results for the first quarter ended
March 31, 2025.

### Product Revenues

(In millions)

| | Q1 2025 U.S. | Q1 2025 Ex-U.S. | Q1 2025 Total | Q1 2024 U.S. | Q1 2024 Ex-U.S. | Q1 2024 Total |
|---|---|---|---|---|---|---|
| Zorvexa | 612 | 188 | 800 | 520 | 161 | 681 |
| Kelmira | 241 | 96 | 337 | 210 | 85 | 295 |
| Other products | 101 | 46 | 147 | 78 | 34 | 112 |
| Total product revenues | 954 | 330 | 1,284 | 808 | 280 | 1,088 |
"""

MINER = """# Northwind Resources Ltd.

FORM 10-K

For the fiscal year ended December 31, 2024

Northwind Resources Ltd.
(Exact name of registrant as specified in its charter)

## Item 8. Financial Statements

### Consolidated Statements of Income

(In thousands)

| | 2024 | 2023 |
|---|---|---|
| Revenue | 2,841,560 | 2,655,210 |
| Profit for the year | 646,080 | 583,810 |
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    folder = tmp_path_factory.mktemp("products")
    settings = Settings.from_env(home=folder / "home")
    with open_ingestor(settings) as ingestor:
        for name, text in (("TAILSPIN_2025Q1_PR.md", PHARMA), ("NORTHWIND_2024_10K.md", MINER)):
            path = Path(folder / name)
            path.write_text(text, encoding="utf-8")
            assert ingestor.ingest_file(path).status == "ingested"
    return settings


def _record(labels: list[str], columns: list[TableColumn] | None = None, part: str = "") -> TableRecord:
    return TableRecord(table_id="t", part=part, columns=columns or [],
                       rows=[TableLine(label=label) for label in labels])


def test_the_names_a_filing_prints_for_its_parts() -> None:
    rows = ["Zorvexa", "Kelmira", "Other products", "Total product revenues", "Net sales", "Commercial Banking",
            "International", "2024", "Cost of sales"]
    named = [TableColumn(label="Wealth Management", kind="name"), TableColumn(label="Total", kind="name")]
    assert printed_names([_record(rows, named, part="Defense Systems")]) == [
        "Defense Systems", "Wealth Management", "Zorvexa", "Kelmira", "Commercial Banking"]


def test_a_part_printed_by_one_filer_names_that_filer() -> None:
    registry = EntityRegistry([
        Entity(entity_id="name:tailspin", name="Tailspin Therapeutics, Inc.", name_source="cover",
               parts=["Zorvexa", "Kelmira"]),
        Entity(entity_id="name:northwind", name="Northwind Resources Ltd.", name_source="cover"),
    ])
    assert registry.part_owner("zorvexa") == "Tailspin Therapeutics, Inc."
    assert registry.part_owner("Keytruda") == ""
    intent = extract_intent("What were Zorvexa's U.S. sales in the first quarter of 2025?", registry)
    assert intent.company == "Tailspin Therapeutics, Inc."
    assert "Zorvexa" in [t.text for t in intent.scope if t.kind == "name"]


def test_the_registry_gathers_the_parts_of_each_filers_filings(home: Settings) -> None:
    from agent.index.store import Store

    registry = Store.open(home).entities()
    assert registry.part_owner("Kelmira") == "Tailspin Therapeutics, Inc."


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Zorvexa revenue in Q1 2025?", "$800 million"),
    ("What were Zorvexa's U.S. sales in the first quarter of 2025?", "$612 million"),
    ("What were Kelmira's U.S. sales in Q1 2024?", "$210 million"),
    ("What were Tailspin's U.S. product revenues in Q1 2025?", "$954 million"),
])
def test_a_product_question_is_answered_from_its_row_and_the_column_asked(home: Settings, question: str,
                                                                           figure: str) -> None:
    answer = stated(ask_once(home, question))
    assert figure in answer, answer


def test_a_part_of_a_period_is_never_the_whole_periods_figure(home: Settings) -> None:
    # 'Q1 2025 U.S.' is a part of the quarter: no answer to a question after Zorvexa's total, and the total
    # column answers for the whole
    answer = stated(ask_once(home, "What were total Zorvexa revenues in Q1 2025?"))
    assert "$800 million" in answer and "612" not in answer, answer


def test_a_product_follow_up(home: Settings) -> None:
    first, second = ask_thread(home, ["What was Zorvexa revenue in Q1 2025?", "and Kelmira?"])
    assert "$800 million" in stated(first) and "$337 million" in stated(second), second
