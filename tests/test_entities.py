"""One company, one identity: the registry of filers that ingest, questions, the gate and search share.

Filings are typeset here (fictional companies and figures); the collisions are the ones a shared word, a prefix,
a first word or an ordinary word used to cause.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from agent.config import Settings
from agent.entities import EntityRegistry, name_key, proper_case
from agent.entities.names import opening_verb
from agent.index.store import Store
from agent.ingest.pipeline import open_ingestor
from agent.schemas import DocumentMeta
from cli.main import main

COVER = """# UNITED STATES SECURITIES AND EXCHANGE COMMISSION

## FORM 10-K

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934

For the fiscal year ended December 31, {year}

Commission File Number {file_number}

{name}

(Exact name of registrant as specified in its charter)

{former}

| Title of each class | Trading Symbol | Name of each exchange on which registered |
|---|---|---|
| Common Stock | {ticker} | New York Stock Exchange |

<!-- page -->

## PART II

### Item 8. Financial Statements and Supplementary Data

#### Consolidated Statements of Operations

{body_name}

(in millions)

| | {year} | {prior} |
|---|---|---|
| Total revenue | {revenue} | {prior_revenue} |
| Net income | {income} | {prior_income} |
"""


def ten_k(folder: Path, stem: str, name: str, year: int, *, ticker: str = "", file_number: str = "",
          former: str = "", body_name: str = "", revenue: str = "1,000", income: str = "100") -> Path:
    """A small 10-K: a cover (name, commission file number, ticker, former name) and an income statement."""
    former_block = f"{former}\n\n(Former name, former address and former fiscal year, if changed since last report)" if former else ""
    text = COVER.format(
        year=year, prior=year - 1, file_number=file_number or "-", name=name, former=former_block, ticker=ticker or "-",
        body_name=body_name or name, revenue=revenue, prior_revenue="900", income=income, prior_income="90",
    )
    path = folder / f"{stem}.md"
    path.write_text(text, encoding="utf-8")
    return path


def release(folder: Path, stem: str, text: str) -> Path:
    path = folder / f"{stem}.md"
    path.write_text(text, encoding="utf-8")
    return path


def fresh(tmp_path: Path) -> tuple[Settings, Path]:
    """A new FINRAG_HOME and an empty folder to typeset filings in."""
    folder = tmp_path / "filings"
    folder.mkdir()
    return Settings.from_env(home=tmp_path / "home"), folder


def ingest(settings: Settings, *paths: Path) -> None:
    with open_ingestor(settings) as ingestor:
        for path in paths:
            assert ingestor.ingest_file(path).status == "ingested", path


def registry_of(settings: Settings) -> EntityRegistry:
    with Store.open(settings) as store:
        return store.entities()


# --- names --------------------------------------------------------------------------------------------------
def test_name_keys_ignore_case_spacing_and_legal_forms() -> None:
    assert name_key("AMERICANWATERWORKS") == name_key("American Water Works Company, Inc.")
    assert name_key("The Coca-Cola Company") == name_key("Coca Cola")
    assert name_key("Amazon.com, Inc.") == "amazon"
    assert name_key("Intel Corporation") != name_key("Intelligent Systems Corporation")


def test_an_all_caps_cover_takes_the_case_the_filing_writes() -> None:
    text = "Acme Buy Co., Inc. designs widgets. Acme Buy Co., Inc. was founded in 1901."
    assert proper_case("ACME BUY CO., INC.", text) == "Acme Buy Co., Inc."
    # word by word where the whole name is never written out; an acronym stays in capitals
    assert proper_case("MGM GROWTH WIDGETS CORPORATION", "Widgets are made by our Growth team.") == (
        "MGM Growth Widgets Corporation"
    )
    assert proper_case("Acme Plc") == "Acme Plc"  # a name in mixed case is kept as printed


# --- questions name companies through the registry only ----------------------------------------------------
INDEXED = EntityRegistry.of([
    "Johnson & Johnson", "The Kraft Heinz Company", "Lockheed Martin Corporation", "Intel Corporation",
    "Visa Inc.", "Best Buy Co., Inc.", "State Street Corporation", "Principal Financial Group, Inc.",
    "Regions Financial Corporation", "The Coca-Cola Company", "MGM Resorts International", "Target Corporation",
])


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # a shared word with an indexed company is not that company
        ("What was Johnson Controls' revenue in 2022?", None),
        ("What was Kraft Foods' net income in 2012?", None),
        ("How much did Martin Marietta spend on capex?", None),
        ("What was Coca-Cola Europacific's revenue?", None),
        # a prefix is not a name
        ("What is Intelligent Systems' gross margin?", None),
        ("What were Visant's net sales?", None),
        # ordinary words are not companies
        ("What is the best operating margin among segments?", None),
        ("state the revenue for 2022", None),
        ("Who is the principal auditor?", None),
        ("Which regions grew fastest?", None),
        ("Show me the revenue by segment in 2022", None),
        ("Compare the gross margin in 2022 and 2021", None),
        # the companies themselves, written as people write them
        ("What was Johnson & Johnson's revenue in 2022?", "Johnson & Johnson"),
        ("What was Kraft Heinz's net income?", "The Kraft Heinz Company"),
        ("Did Lockheed Martin's backlog grow?", "Lockheed Martin Corporation"),
        ("Intel revenue in 2022?", "Intel Corporation"),
        ("What were Visa's net revenues?", "Visa Inc."),
        ("What was Best Buy's revenue?", "Best Buy Co., Inc."),
        ("Regions Financial net interest income", "Regions Financial Corporation"),
        ("How did Coca-Cola do in 2022?", "The Coca-Cola Company"),
        ("Which region had the highest EBITDAR for MGM?", "MGM Resorts International"),
        ("What were MGM Resorts' revenues?", "MGM Resorts International"),
        ("What is Target's inventory turnover?", "Target Corporation"),
        ("What is the target leverage ratio?", None),
    ],
)
def test_questions_name_companies_by_whole_names_only(question: str, expected: str | None) -> None:
    found = INDEXED.named_in(question)
    assert (found.name if found else None) == expected


def test_a_ticker_counts_only_as_written() -> None:
    registry = EntityRegistry.of([])
    registry.attach(DocumentMeta(doc_id="", name="", company="Acme Plc", ticker="ACME", company_source="cover"))
    assert registry.named_in("What was ACME's revenue?").name == "Acme Plc"
    assert registry.named_in("acme revenue") is not None  # the name itself, in any case
    assert registry.resolve("acme").name == "Acme Plc"
    assert EntityRegistry.of(["Alpha Beta Inc."]).named_in("How did ALL segments do?") is None


# --- filings attach to one entity at ingest -----------------------------------------------------------------
def test_a_release_without_a_cover_joins_its_issuers_10k(tmp_path: Path) -> None:
    settings, folder = fresh(tmp_path)
    k = ten_k(folder, "ACME_2023_10K", "Acme Plc", 2023, ticker="ACME", file_number="001-11111")
    bare = release(folder, "ACME_2024Q1_EARNINGS", (
        "# First Quarter 2024 Results\n\nRevenue grew to $270 million in the first quarter of 2024.\n\n"
        "| Three months ended March 31, | 2024 | 2023 |\n|---|---|---|\n| Total revenue | 270 | 250 |\n"
    ))
    ingest(settings, bare, k)
    registry = registry_of(settings)
    assert list(registry) == ["Acme Plc"]
    with Store.open(settings) as store:
        docs = {d.name: d for d in store.list_documents()}
    assert {d.company for d in docs.values()} == {"Acme Plc"}
    assert docs["ACME_2024Q1_EARNINGS"].company_source == "file name"
    assert docs["ACME_2023_10K"].entity_id == docs["ACME_2024Q1_EARNINGS"].entity_id == "file:001-11111"


def test_a_renamed_filer_is_one_company_under_both_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings, folder = fresh(tmp_path)
    old = ten_k(folder, "FACEPLATE_2020_10K", "Faceplate, Inc.", 2020, ticker="FPL", file_number="001-35551",
                revenue="85,965")
    new = ten_k(folder, "METAFORM_2022_10K", "Metaform Platforms, Inc.", 2022, ticker="MTFM",
                file_number="001-35551", former="Faceplate, Inc.", revenue="116,609")
    ingest(settings, new, old)
    registry = registry_of(settings)
    assert list(registry) == ["Metaform Platforms, Inc."]
    entity = registry.entities[0]
    assert entity.former_names == ["Faceplate, Inc."] and set(entity.tickers) == {"FPL", "MTFM"}
    assert registry.named_in("What was Faceplate's revenue in 2020?") == entity
    assert registry.resolve("FPL") == entity
    from agent.index.search import HybridSearcher

    with Store.open(settings) as store:  # search filters resolve a former name or a ticker to the entity
        searcher = HybridSearcher(store)
        assert len(searcher.filter_documents(company="Faceplate")) == 2
        assert len(searcher.filter_documents(company="MTFM")) == 2

    home = ["--home", str(settings.home)]
    assert main([*home, "ask", "What was Faceplate's total revenue in 2020?", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "85,965" in out["answer"], out["answer"]
    assert main([*home, "docs"]) == 0
    listing = capsys.readouterr().out
    assert "2 documents of 1 companies" in listing and "Faceplate, Inc." not in listing.split("\n", 2)[2]


def test_an_all_caps_cover_and_a_file_stem_are_one_company(tmp_path: Path) -> None:
    settings, folder = fresh(tmp_path)
    k = ten_k(folder, "WIDGETCO_2023_10K", "WIDGETCO INC.", 2023, body_name="Widgetco Inc.")
    stem_only = release(folder, "WIDGETCO_2022_NOTES", "Widget shipments rose in 2022.\n\nNet income was $12 million.\n")
    ingest(settings, k, stem_only)
    assert list(registry_of(settings)) == ["Widgetco Inc."]


def test_johnson_controls_is_not_answered_with_johnson_and_johnsons_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings, folder = fresh(tmp_path)
    ingest(settings, ten_k(folder, "JNJ_2022_10K", "Johnson & Johnson", 2022, ticker="JNJ", revenue="94,943"))
    home = ["--home", str(settings.home)]
    main([*home, "ask", "What was Johnson Controls' total revenue in 2022?", "--json"])
    answer = json.loads(capsys.readouterr().out)["answer"]
    assert "94,943" not in answer.split("Closest evidence")[0], answer
    assert "Johnson Controls" in answer and "Johnson & Johnson" in answer, answer
    main([*home, "ask", "What was Johnson & Johnson's total revenue in 2022?", "--json"])
    assert "94,943" in json.loads(capsys.readouterr().out)["answer"]


def test_one_company_is_answered_once_and_never_computed_against_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings, folder = fresh(tmp_path)
    k = ten_k(folder, "ACME_2023_10K", "Acme Plc", 2023, ticker="ACME", revenue="1,240")
    bare = release(folder, "ACME_2023_EARNINGS", "# Full Year 2023\n\nRevenue for 2023 was $1,240 million.\n")
    ingest(settings, k, bare)
    main(["--home", str(settings.home), "ask", "What was ACME's total revenue in 2023?", "--json"])
    answer = json.loads(capsys.readouterr().out)["answer"]
    assert "minus" not in answer and "0.00" not in answer, answer
    assert answer.count("1,240") >= 1 and "Acme Plc" in answer, answer


# --- migration, editing, merging ----------------------------------------------------------------------------
def test_an_index_made_before_the_registry_migrates_on_open(tmp_path: Path) -> None:
    settings, folder = fresh(tmp_path)
    ingest(settings,
           ten_k(folder, "ACME_2023_10K", "Acme Plc", 2023, ticker="ACME"),
           release(folder, "ACME_2022_NOTES", "Revenue was flat in 2022.\n"))
    db = settings.index_dir / "finrag.sqlite"
    with sqlite3.connect(db) as conn:  # what an older finrag left: no entities, no entity ids
        conn.execute("DROP TABLE entities")
        conn.execute("DROP TABLE schema_versions")
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
        conn.execute("UPDATE documents SET data = json_remove(data, '$.entity_id', '$.company_source')")
        conn.execute("UPDATE documents SET data = json_set(data, '$.company', 'ACME') WHERE name = 'ACME_2022_NOTES'")
    registry = registry_of(settings)
    assert list(registry) == ["Acme Plc"]
    with Store.open(settings) as store:
        assert {d.entity_id for d in store.list_documents()} == {"ticker:ACME"}


def test_docs_edit_reattaches_and_merge_folds_two_companies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings, folder = fresh(tmp_path)
    ingest(settings,
           ten_k(folder, "ACME_2023_10K", "Acme Plc", 2023, ticker="ACME"),
           release(folder, "ROADRUNNER_2023_NOTES", "Revenue was flat in 2023.\n"),
           release(folder, "COYOTE_2023_NOTES", "Revenue fell in 2023.\n"))
    home = ["--home", str(settings.home)]
    assert len(registry_of(settings)) == 3
    assert main([*home, "docs", "edit", "ROADRUNNER_2023_NOTES", "--company", "ACME"]) == 0
    assert len(registry_of(settings)) == 2  # the empty entity is gone
    assert main([*home, "companies", "merge", "Acme Plc", "COYOTE"]) == 0
    assert "merged into Acme Plc: 3 filings" in capsys.readouterr().out
    registry = registry_of(settings)
    assert list(registry) == ["Acme Plc"] and registry.resolve("Coyote") is not None
    assert main([*home, "companies", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert len(listed) == 1 and len(listed[0]["filings"]) == 3
    assert main([*home, "companies", "merge", "Acme Plc", "Nobody Corp"]) == 1
    assert "No company named 'Nobody Corp'" in capsys.readouterr().err


def test_opening_verbs_are_not_names() -> None:
    assert opening_verb("Show me the revenue") == "Show"
    assert opening_verb("Compare the margins of both years") == "Compare"
    assert opening_verb("Target revenue in 2022") == ""


def test_a_filing_that_names_no_company_makes_no_absence_claim(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A table with no cover, release line or company in its file name: its company is unknown, so a name the
    # question uses may be its company and is never refused as 'no filing of X is indexed'.
    settings = Settings.from_env(home=tmp_path / "home")
    notes = tmp_path / "notes.md"
    notes.write_text("IMFT balance sheet\n\n| (in millions) | 2019 | 2018 |\n|---|---|---|\n"
                     "| Total liabilities | 1,210 | 1,045 |\n", encoding="utf-8")
    ingest(settings, notes)
    registry = registry_of(settings)
    assert len(registry) == 0 and not registry.complete and len(registry.entities) == 1
    with Store.open(settings) as store:
        assert store.list_documents()[0].company == ""
    main(["--home", str(settings.home), "ask", "What were the total liabilities of IMFT in 2018?", "--json"])
    answer = json.loads(capsys.readouterr().out)["answer"]
    assert "is indexed" not in answer and "1,045" in answer, answer


def test_the_shipped_list_of_ordinary_words_is_the_one_wordfreq_gives(tmp_path: Path) -> None:
    from agent.entities.names import COMMON_WORDS_FILE, build_common_words

    pytest.importorskip("wordfreq", reason="wordfreq (a test extra) rebuilds the list")
    rebuilt = tmp_path / "common_words.txt"
    assert build_common_words(rebuilt) > 5000
    assert rebuilt.read_text() == COMMON_WORDS_FILE.read_text()
