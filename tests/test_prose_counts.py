"""Counts a filing states in its sentences are facts of the thing they count (issue 58, item 5): read once at
ingest with their date, and stated only for exactly the thing, company and date asked. Before, 'How many stores
did Litware operate at the end of fiscal 2024?' was refused ('no passage addresses') while the page prints '318
stores', and 'How many part-time employees' was answered with the company's whole headcount (typeset filing)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance.counted import counted_key, counted_words
from agent.index.store import Store
from agent.query.counted import counted_thing
from agent.query.scope import metric_modifiers

FILING = """# Litware Home Centers, Inc.

Annual Report on Form 10-K for the fiscal year ended February 1, 2025 ("fiscal 2024")

## Item 1. Business

Litware Home Centers, Inc. sells tools and building supplies to homeowners and contractors. As of February 1, 2025,
we operated 318 stores in 19 states, compared with 301 stores a year earlier. We also operate four distribution
centers that replenish the stores.

During fiscal 2024 we opened 22 new stores and closed 5 stores.

### Human Capital

As of February 1, 2025, we had approximately 21,600 associates, of whom about 9,800 worked part time.

## Item 2. Properties

Our store support center occupies 240,000 square feet in Raleigh, North Carolina.

## Item 8. Financial Statements

### Consolidated Statements of Operations

| (in millions) | Fiscal 2024 | Fiscal 2023 |
|---|---|---|
| Net sales | 7,420 | 6,980 |
| Operating income | 512 | 488 |
| Net income | 371 | 352 |
"""


@pytest.fixture(scope="module")
def litware(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("litware"), "LITWARE_2024_10K.md", FILING)


def test_ingest_reads_each_count_of_a_state_with_its_date(litware: Settings) -> None:
    with Store.open(litware) as store:
        doc = store.list_documents()[0]
        counts = {(c.key, c.text): c for c in store.counts([doc.doc_id])}
    assert counts[("store", "318")].as_of == "2025-02-01" and counts[("store", "318")].dated_by == "sentence"
    assert counts[("store", "301")].as_of == "2024-02-01"  # 'a year earlier'
    assert counts[("distribution center", "four")].value == 4
    assert counts[("distribution center", "four")].dated_by == "filing"  # present tense, no date: the filing's
    associates = counts[("employee", "21,600")]  # the workforce, under the filer's name for it
    assert associates.bound == "approximately" and associates.period == "FY2024"  # fiscal 2024 ends Feb 1, 2025
    assert "21,600 associates" in associates.quote and associates.page == 0
    # events count changes, not the thing; amounts, years and elliptic counts ('about 9,800 worked') count nothing
    assert ("store", "22") not in counts and ("store", "5") not in counts
    assert not [c for c in counts.values() if c.text in {"9,800", "7,420", "2025"}]


@pytest.mark.parametrize(("question", "figure"), [
    ("How many stores did Litware operate at the end of fiscal 2024?", "318 stores"),
    ("How many stores did Litware have as of February 1, 2025?", "318 stores"),
    ("What was Litware's store count?", "318 stores"),
    ("How many distribution centers does Litware operate?", "four distribution centers"),
    ("How many associates did Litware have at the end of fiscal 2024?", "approximately 21,600 associates"),
    ("How many stores did Litware operate at the end of fiscal 2023?", "301 stores"),
    # the workforce under the filer's own name for it: employees, people employed, team members, headcount
    ("How many employees did Litware have?", "approximately 21,600 associates"),
    ("How many people did Litware employ?", "approximately 21,600 associates"),
    ("How many team members did Litware have at the end of fiscal 2024?", "approximately 21,600 associates"),
    ("Litware headcount FY24", "approximately 21,600 associates"),
])
def test_a_count_in_prose_answers_the_count_asked(litware: Settings, question: str, figure: str) -> None:
    answer = ask_once(litware, question)
    assert figure in stated(answer) and "[LITWARE_2024_10K, p. 1]" in answer, answer


@pytest.mark.parametrize(("question", "never"), [
    ("How many part-time associates did Litware have?", "21,600"),  # a kind of the thing: not the whole
    ("How many part-time employees did Litware have?", "21,600"),  # ... under any name of the workforce
    ("How many people did Litware serve?", "21,600"),  # people are the workforce only when employed
    ("How many stores did Litware operate in North Carolina?", "318"),  # a part of the company
    ("How many stores did Litware open in fiscal 2024?", "318"),  # an event, not the state
    ("How many stores did Litware operate at the end of fiscal 2022?", "301"),  # a date the filing does not give
])
def test_a_count_never_answers_another_thing_part_or_date(litware: Settings, question: str, never: str) -> None:
    answer = stated(ask_once(litware, question))
    assert answer.startswith("Not found") or never not in answer  # a refusal may quote what it found, stating none


@pytest.mark.parametrize(("question", "thing"), [
    ("How many stores did Litware operate?", "store"),
    ("What was the number of distribution centers at year end?", "distribution center"),
    ("What was Litware's store count?", "store"),
    ("How many holders of record were there?", "holder of record"),
    ("How many stores did Litware open in 2024?", ""),  # counts a change
    ("How many stores did Litware operate in Ohio?", ""),  # says more than the thing: a part
    ("How many stores did Litware operate a year earlier?", ""),  # a date the plan does not type
    ("How many shares were outstanding?", ""),  # shares are amounts of the share metrics
    ("How many years did revenue exceed $1 billion?", ""),
    ("How many associates did Litware have?", "employee"),  # one key for the workforce's names
    ("How many part-time team members did Litware have?", "part-time employee"),
    ("How many people did Litware employ?", "employee"),
])
def test_the_plan_reads_the_thing_counted(question: str, thing: str) -> None:
    assert counted_thing(question, "Litware Home Centers, Inc.") == thing


def test_both_sides_key_a_thing_alike() -> None:
    text = "we had 12 Regional Distribution Centers and 3 offices"
    assert counted_key(counted_words(text.lower(), text.index("12") + 2)) == counted_thing(
        "How many regional distribution centers are there?")
    assert counted_words("312 stores, compared", 3) == ["stores"]
    assert counted_words("25 million in cash", 2) == [] and counted_words("7,100 worked part time", 5) == []


@pytest.mark.parametrize(("question", "metric", "words"), [
    ("How many part-time employees did Litware have?", "employees", ["part-time"]),
    ("What were e-commerce sales in 2024?", "revenue", ["e-commerce"]),
    ("What was year-over-year revenue growth?", "revenue growth", []),  # a period, no kind of revenue
    ("What was non-GAAP net income?", "net income", []),  # a basis, read apart
    ("What was first-quarter revenue?", "revenue", []),
])
def test_a_hyphenated_word_before_a_metric_narrows_it_unless_it_says_when_or_how(
        question: str, metric: str, words: list[str]) -> None:
    assert metric_modifiers(question, metric) == words


def test_a_count_of_several_companies_needs_the_company_named(tmp_path) -> None:
    from support import ingested_typeset as typeset

    settings = typeset(tmp_path, "LITWARE_2024_10K.md", FILING)
    other = FILING.replace("Litware Home Centers", "Proseware Hardware").replace("318 stores", "142 stores")
    from agent.ingest.pipeline import open_ingestor

    (tmp_path / "PROSEWARE_2024_10K.md").write_text(other, encoding="utf-8")
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(tmp_path / "PROSEWARE_2024_10K.md").status == "ingested"
    assert "142 stores" in stated(ask_once(settings, "How many stores did Proseware operate at the end of fiscal 2024?"))
    unnamed = stated(ask_once(settings, "How many stores were operated at the end of fiscal 2024?"))
    assert "stores as of" not in unnamed  # no company's count stated as the answer (a quoted sentence names its own)


def test_a_count_that_is_the_subject_of_a_complement_is_a_part_of_the_thing() -> None:
    # 'N employees ... were union represented' counts the represented ones; 'N people were employed by' is all
    def read(sentence: str) -> dict[str, str]:
        from agent.ingest.counts import _NUMBER_RE, _count

        return {m.group(): f.key for m in _NUMBER_RE.finditer(sentence)
                if (f := _count(sentence, m, 12, "2024-12-31")) is not None}

    assert read("Approximately 15,500 employees, which constitute 32% of our total workforce, were union "
                "represented as of December 31, 2024.") == {}
    assert read("Approximately 1,200 employees are located outside the United States.") == {}
    assert read("As of December 31, 2024, approximately 12,000 people were employed by the Company.") == {
        "12,000": "employee"}
    assert read("As of December 31, 2024, we had approximately 48,200 employees.") == {"48,200": "employee"}


def test_a_count_bounded_by_a_threshold_is_no_count_of_the_thing() -> None:
    # '1,215 customers with ARR of more than $100,000' counts the large customers, never all of them
    from agent.ingest.counts import _NUMBER_RE, _count

    def read(sentence: str) -> dict[str, str]:
        return {m.group(): f.key for m in _NUMBER_RE.finditer(sentence)
                if (f := _count(sentence, m, 1, "2025-10-31")) is not None}

    assert read("We had 1,215 customers with ARR of more than $100,000 as of October 31, 2025.") == {}
    assert read("We served 340 clients that generated over $1 million of revenue in fiscal 2025.") == {}
    assert read("As of October 31, 2025, we had 4,820 customers.") == {"4,820": "customer"}
