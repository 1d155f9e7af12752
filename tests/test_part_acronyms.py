"""An acronym of a part the filings print is that part ('APAC' for the Asia Pacific the revenue table prints,
'LATAM' for Latin America, 'U.S.' for the United States): the plan reads it with the registry's part names as
vocabulary, so the part's figure is found and checked under the name the filing gives it. An acronym of no part
printed stays as written, and the part check refuses it. The check reads an acronym the filing prints for the
words asked too ('% Change at CER' for constant exchange rates)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.answer.provenance import covers
from agent.config import Settings
from agent.entities import EntityRegistry
from agent.query.utterance import plain_question
from agent.schemas import Entity

pytestmark = pytest.mark.usefixtures("no_yfinance")

REPORT = """# Wideworld Software Corporation

FORM 10-K

For the fiscal year ended December 31, 2024

Wideworld Software Corporation
(Exact name of registrant as specified in its charter)

Our common stock trades on the Nasdaq Global Select Market under the symbol "WWSC".

## Item 7. Management's Discussion and Analysis

### Revenue by Geographic Region

(in millions)

| | 2024 | 2023 |
|---|---|---|
| North America | 3,120 | 2,870 |
| Asia Pacific | 1,140 | 990 |
| Latin America | 415 | 388 |
| Total revenue | 4,675 | 4,248 |
"""

WIDEWORLD = Entity(entity_id="name:wideworld", name="Wideworld Software Corporation", tickers=["WWSC"],
                   name_source="cover", parts=["North America", "Asia Pacific", "Latin America", "United States"])


@pytest.mark.parametrize(("asked", "read"), [
    ("WWSC APAC revenue 2024", "Wideworld Software Corporation's Asia Pacific revenue 2024"),
    ("What was Wideworld's LATAM revenue in 2024?", "What was Wideworld's Latin America revenue in 2024?"),
    ("Wideworld U.S. revenue 2024?", "Wideworld Software Corporation's United States revenue 2024?"),
    # no part's name: as written; an ordinary word in capitals is no acronym
    ("What was Wideworld's EMEA revenue in 2024?", "What was Wideworld's EMEA revenue in 2024?"),
    ("What was Wideworld's TOTAL revenue in 2024?", "What was Wideworld's TOTAL revenue in 2024?"),
])
def test_an_acronym_of_a_printed_part_is_read_as_its_name(asked: str, read: str) -> None:
    assert plain_question(asked, EntityRegistry([WIDEWORLD])) == read


def test_an_acronym_printed_as_a_part_stays_as_written() -> None:
    printed = WIDEWORLD.model_copy(update={"parts": [*WIDEWORLD.parts, "U.S."]})
    assert plain_question("Wideworld U.S. revenue 2024?", EntityRegistry([printed])) == (
        "Wideworld Software Corporation's U.S. revenue 2024?")


@pytest.mark.parametrize(("provenance", "name", "said"), [
    ("United States | 2024: 1,390", "U.S.", True),
    ("U.S. | 2024: 1,390", "United States", True),
    ("Tenzolin | % Change at CER: 1%", "constant exchange rates", True),
    ("Europe | 2024: 602", "U.S.", False),
    ("Europe | 2024: NA", "North America", False),  # two capitals alone may be a word: no acronym
    ("EBITDA at CER", "exchange rates", False),  # an acronym stands for all of its words
])
def test_the_part_check_reads_acronyms_both_ways(provenance: str, name: str, said: bool) -> None:
    assert covers(provenance, name) is said


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("acronyms"), "WIDEWORLD_2024_10K.md", REPORT)


@pytest.mark.parametrize(("asked", "figure"), [
    ("WWSC APAC rev FY24", "1,140"),
    ("What was Wideworld's LATAM revenue in 2023?", "388"),
])
def test_a_parts_figure_asked_by_its_acronym_is_answered(home: Settings, asked: str, figure: str) -> None:
    answer = stated(ask_once(home, asked))
    assert figure in answer and "4,675" not in answer and "4,248" not in answer, answer


def test_an_acronym_of_no_printed_part_is_refused(home: Settings) -> None:
    answer = ask_once(home, "What was Wideworld's EMEA revenue in 2024?")
    assert answer.startswith("Not found"), answer
    assert not any(f in stated(answer) for f in ("3,120", "1,140", "415", "4,675")), answer
