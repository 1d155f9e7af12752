"""An analyst's shorthand reads as the question it stands for: a ticker is the company (never a part of it), a
clipped word of a metric's name is that metric, an opener before the question is no part of it, and a noun phrase
or a request naming an amount asks its figure. The same figure, however it is asked; a trap stays a trap."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.entities import EntityRegistry
from agent.entities.names import is_common_word
from agent.finance.lexicon import written_out
from agent.query.intent import extract_intent
from agent.query.scope import STOP_WORDS
from agent.query.utterance import plain_question
from agent.schemas import Entity

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Fabrikam Robotics, Inc.

FORM 10-K

For the fiscal year ended December 31, 2024

Fabrikam Robotics, Inc.
(Exact name of registrant as specified in its charter)

Our common stock trades on the New York Stock Exchange under the symbol "FBRK".

## Item 1. Business

Fabrikam builds warehouse robots. As of December 31, 2024 we had approximately 4,800 employees.

## Item 8. Financial Statements and Supplementary Data

### Consolidated Statements of Operations

(in millions, except per share data)

| | 2024 | 2023 |
|---|---|---|
| Revenue | 2,640 | 2,215 |
| Cost of revenue | 1,530 | 1,310 |
| Research and development | 402 | 355 |
| Selling, general and administrative | 318 | 290 |
| Operating income | 390 | 260 |
| Net income | 301 | 198 |
| Diluted earnings per share | 2.41 | 1.60 |
"""

FABRIKAM = Entity(entity_id="name:fabrikam", name="Fabrikam Robotics, Inc.", tickers=["FBRK"], name_source="cover")


def ordinary_clips(text: str) -> str:
    return written_out(text, is_common_word, STOP_WORDS.__contains__)


@pytest.mark.parametrize(("asked", "read"), [
    ("FBRK op income FY24", "FBRK operating income FY24"),
    ("net inc at Fabrikam", "net income at Fabrikam"),
    ("What was the op cash flow?", "What was the operating cash flow?"),
    ("gross prof 2024", "gross profit 2024"),
    ("How much did rev grow y/y?", "How much did revenue grow y/y?"),
    # two clips that name one metric only together are read together
    ("TSPN op inc Q1 2025", "TSPN operating income Q1 2025"),
    ("int exp in 2023", "interest expense in 2023"),
])
def test_a_clipped_word_of_a_metric_is_written_out(asked: str, read: str) -> None:
    assert ordinary_clips(asked) == read


@pytest.mark.parametrize("asked", [
    "What was Contoso Inc. revenue in 2024?",  # a capitalised word is a name
    "What were net sales of the Devices segment in 2023?",  # 'in' is no clipped 'income'
    "How much did the digital channel contribute to net sales?",  # a whole word, and 'to' no 'total'
    "int in 2023",  # 'int': interest or international -- not one word, so not read alone
    "op cf 2024",  # no metric is named by any reading of the two together
])
def test_a_word_that_is_no_clip_or_could_be_several_stays(asked: str) -> None:
    assert ordinary_clips(asked) == asked


def test_a_ticker_is_the_company_with_a_possessive_or_an_acronym_after_it() -> None:
    registry = EntityRegistry([FABRIKAM])
    for text in ("What was FBRK's revenue in 2024?", "FBRK R&D spend FY24", "FBRK EPS 2024"):
        assert registry.named_in(text) == FABRIKAM, text
    assert registry.with_names_for_tickers("What was FBRK's revenue?") == "What was Fabrikam Robotics, Inc.'s revenue?"
    assert registry.named_in("FBRKS revenue") is None  # a longer symbol is another one


@pytest.mark.parametrize(("asked", "read"), [
    ("Quick question for you: What was FBRK's revenue in 2024?", "What was Fabrikam Robotics, Inc.'s revenue in 2024?"),
    ("One more for the model -- what was net income in 2024?", "what was net income in 2024?"),
    # what stands before a colon may be the part asked about: kept, so the gate can hold the figure to it
    ("Europe: what was revenue in 2024?", "Europe: what was revenue in 2024?"),
    ("Cloud Services: what was operating income in 2024?", "Cloud Services: what was operating income in 2024?"),
    ("Note for the reader: revenue is net of returns.", "Note for the reader: revenue is net of returns."),
])
def test_an_opener_that_names_nothing_is_cut(asked: str, read: str) -> None:
    assert plain_question(asked, EntityRegistry([FABRIKAM])) == read


@pytest.mark.parametrize(("asked", "read"), [
    ("In Europe, what was Fabrikam's revenue in 2024?", "What was Fabrikam's revenue in 2024 in Europe?"),
    ("In the Logistics segment in 2024, what was revenue?", "What was revenue in the Logistics segment in 2024?"),
    ("In total, what was Fabrikam's revenue in 2024?", "In total, what was Fabrikam's revenue in 2024?"),
    # the clause ends at a comma outside its date
    ("For the year ended May 27, 2024, what was Fabrikam's interest expense?",
     "What was Fabrikam's interest expense for the year ended May 27, 2024?"),
])
def test_a_fronted_clause_is_read_after_what_it_narrows(asked: str, read: str) -> None:
    assert plain_question(asked, EntityRegistry([FABRIKAM])) == read


@pytest.mark.parametrize(("asked", "read"), [
    ("For my model I need FBRK's total deposits at year-end 2024.",
     "What was Fabrikam Robotics, Inc.'s total deposits at year-end 2024?"),
    ("Can you pull Fabrikam's backlog for 2024 from the release?", "What was Fabrikam's backlog for 2024?"),
    # what the one asking wants the figure for is theirs, never what the figure is of
    ("I need Fabrikam's net sales for 2024 for my comps sheet.", "What was Fabrikam's net sales for 2024?"),
    ("What was Fabrikam's backlog in 2024, for our model?", "What was Fabrikam's backlog in 2024?"),
    ("Could you tell me what Fabrikam's backlog was in 2024?", "What Fabrikam's backlog was in 2024?"),
    # a request to compute or to explain keeps its words; words that name a figure before the company stay
    ("Can you compute the change in Fabrikam's backlog from 2023 to 2024?",
     "Can you compute the change in Fabrikam's backlog from 2023 to 2024?"),
    ("I need the Europe revenue of Fabrikam in 2024.", "I need the Europe revenue of Fabrikam in 2024."),
    ("Pull up Fabrikam's revenue by region from the 10-K for 2024.",
     "Pull up Fabrikam's revenue by region from the 10-K for 2024."),
    # one word before the company's possessive is a verb telling the reader what to do ...
    ("Pull FBRK's revenue for 2024.", "What was Fabrikam Robotics, Inc.'s revenue for 2024?"),
    ("Show Fabrikam's backlog at YE24", "What was Fabrikam's backlog at YE24?"),
    # ... unless it qualifies the figure or asks more than a lookup
    ("Adjusted Fabrikam's EPS for 2024", "Adjusted Fabrikam's EPS for 2024"),
    ("Compare Fabrikam's revenue in 2024 and 2023.", "Compare Fabrikam's revenue in 2024 and 2023."),
])
def test_a_request_addressed_to_the_reader_is_the_lookup_it_asks(asked: str, read: str) -> None:
    assert plain_question(asked, EntityRegistry([FABRIKAM])) == read


def test_a_part_in_a_fronted_clause_is_a_part_of_the_plan() -> None:
    from agent.query.dialogue import DialogueSlots
    from agent.query.rewrite import rewrite

    turn = rewrite("In Asia Pacific in 2024, what was Fabrikam's revenue?", [], DialogueSlots(),
                   EntityRegistry([FABRIKAM]))
    assert [t.text for t in turn.intent.scope] == ["Asia Pacific"] and turn.intent.temporal_scope.periods == ["FY2024"]


@pytest.mark.parametrize("asked", [
    "Fabrikam Robotics, Inc. operating income FY24",
    "For my model, I need Fabrikam Robotics, Inc.'s operating income in 2024.",
    "Pull Fabrikam Robotics, Inc.'s 2024 operating income",
])
def test_a_noun_phrase_or_a_request_naming_an_amount_asks_its_figure(asked: str) -> None:
    intent = extract_intent(asked, EntityRegistry([FABRIKAM]))
    assert intent.metrics == ["operating income"] and intent.requires_numeric, asked
    assert intent.company == FABRIKAM.name and not intent.scope, intent.scope  # the company is no part of itself


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("shorthand"), "FABRIKAM_2024_10K.md", FILING)


@pytest.mark.parametrize("asked", [
    "What was Fabrikam's operating income in 2024?",
    "FBRK op income FY24",
    "What was FBRK's op income in FY24?",
    "Quick question for you: What was Fabrikam's operating income in 2024?",
    "For my model, I need Fabrikam's operating income in 2024.",
    "In 2024, what was Fabrikam's operating income?",
    "I need Fabrikam's operating income for 2024 for my comps sheet.",
])
def test_the_same_figure_however_it_is_asked(home: Settings, asked: str) -> None:
    answer = ask_once(home, asked)
    assert "$390 million" in stated(answer) and "FABRIKAM_2024_10K, p. 1" in answer, (asked, answer)


@pytest.mark.parametrize("asked", ["FBRK EPS FY24", "What was Fabrikam's EPS in 2024?", "FBRK diluted EPS YE24"])
def test_eps_without_a_basis_is_the_diluted_figure_and_says_so(home: Settings, asked: str) -> None:
    answer = stated(ask_once(home, asked))
    assert "2.41" in answer and "diluted earnings per share" in answer, (asked, answer)


@pytest.mark.parametrize(("asked", "figure"), [
    ("FBRK NI FY23", "$198 million"), ("FBRK rev YE24", "$2,640 million"), ("FBRK total revs FY23", "$2,215 million"),
    ("FBRK GM FY24", "42.05%"),  # gross margin: (2,640 - 1,530) / 2,640
])
def test_analyst_abbreviations_of_a_metric_and_a_year_end(home: Settings, asked: str, figure: str) -> None:
    assert figure in stated(ask_once(home, asked)), asked


@pytest.mark.parametrize("asked", [
    "Tailspin's op income FY24",  # a company with no filing, in shorthand
    "FBRK op income FY09",  # a year no filing covers
])
def test_shorthand_for_what_is_not_filed_is_refused(home: Settings, asked: str) -> None:
    answer = ask_once(home, asked)
    assert answer.startswith("Not found") and "390" not in stated(answer), (asked, answer)


def test_invariance_rewords_by_class_and_compares_plans(tmp_path: Path) -> None:
    from evals.invariance import CLASSES, run_invariance, variants_of
    from evals.runner import EvalItem, EvalSet, SourceDoc

    path = tmp_path / "FABRIKAM_2024_10K.md"
    path.write_text(FILING, encoding="utf-8")
    item = EvalItem(id="f1", dataset="questions", question="What was Fabrikam's operating income in 2024?",
                    gold="$390 million", docs=["FABRIKAM_2024_10K"])
    registry = EntityRegistry([FABRIKAM.model_copy(update={"name": "Fabrikam Robotics, Inc."})])
    variants = dict(variants_of(item, registry))
    assert set(variants) == set(CLASSES)
    assert variants["casual"] == "FBRK op income FY24"
    assert variants["ticker"] == "What was FBRK's operating income in 2024?"
    assert variants["reordered"] == "In 2024, what was Fabrikam's operating income?"
    settings = Settings.from_env(home=tmp_path / "home")
    eval_set = EvalSet(dataset="questions", items=[item],
                       sources={"FABRIKAM_2024_10K": SourceDoc(name="FABRIKAM_2024_10K", path=path)})
    report = run_invariance(settings, eval_set, classes=["ticker", "casual"], progress=False, log=lambda _l: None)
    assert report.originals_right == 1
    rows = {r.perturbation: r for r in report.rows}
    assert rows["ticker"].n == 1 and rows["casual"].n == 1
    assert all(v.plan_same and v.outcome == "right" for v in report.variants), report.variants


def test_a_ticker_that_is_also_a_word_names_its_company_in_capitals() -> None:
    boeing = Entity(entity_id="ticker:BA", name="The Boeing Company", tickers=["BA"], name_source="cover")
    lowes = Entity(entity_id="ticker:LOW", name="Lowe's Companies, Inc.", tickers=["LOW"], name_source="cover")
    gartner = Entity(entity_id="ticker:IT", name="Gartner, Inc.", tickers=["IT"], name_source="cover")
    registry = EntityRegistry([boeing, lowes, gartner])
    assert registry.named_in("BA net ppe FY18") == boeing
    assert registry.named_in("LOW op income FY23") == lowes
    assert registry.named_in("what was the low price of the stock?") is None  # a word, not written as a symbol
    assert registry.named_in("IT spending FY22") is None  # one of the most frequent words: a word even in capitals
    assert registry.named_in("LOW AND HIGH SALES PRICES") is None  # a heading set in capitals


def test_a_period_in_shorthand_is_searched_as_the_filing_prints_its_year() -> None:
    from agent.retrieval.candidates import asked_years
    from agent.schemas import QueryIntent, TemporalScope

    intent = QueryIntent(temporal_scope=TemporalScope(type="point", periods=["FY2020", "FY2020Q2", "FY2019"]))
    assert asked_years(intent) == ["2020", "2019"]


def test_the_casual_form_of_a_lookup_worded_otherwise_keeps_its_metric_year_and_unit() -> None:
    from evals.invariance import Company, terse

    question = ("What is the FY2021 capital expenditure amount (in USD billions) for PepsiCo? Respond to the question "
                "using the statement of cash flows.")
    assert terse(question, Company("PepsiCo", "PEP")) == "PEP capex FY21 in billions"
    assert terse("Is 3M a capital-intensive business based on FY2022 data?", Company("3M", "MMM")) == ""

