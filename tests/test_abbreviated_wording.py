"""Wordings an analyst types that were refused although the filing prints the figure: a span of time or a basis
abbreviated ('qtr ended 8/2/25', '6 mos', 'adj EPS'); an aside of ordinary words before a dash ('Quick one - ...');
a part named as what lies outside a region ('Ex-U.S.', 'ex-US'), never the region itself; a count asked as '<thing>
count' after the company's name. Each reads as the plain question; what narrows a figure still narrows it."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.entities import EntityRegistry
from agent.query.counted import counted_thing
from agent.query.intent import extract_intent
from agent.query.utterance import plain_question
from agent.schemas import Entity

pytestmark = pytest.mark.usefixtures("no_yfinance")

RELEASE = """# Proseware Biologics, Inc.

FORM 8-K

Date of Report: May 6, 2025

Proseware Biologics, Inc.
(Exact name of registrant as specified in its charter)

| Title of each class | Trading Symbol(s) | Name of each exchange on which registered |
|---|---|---|
| Common Stock, $0.001 par value | PRSW | Nasdaq Global Select Market |

## Proseware Biologics Reports First Quarter 2025 Financial Results

### Product Revenues

(In millions)

| | Q1 2025 U.S. | Q1 2025 Ex-U.S. | Q1 2025 Total | Q1 2024 U.S. | Q1 2024 Ex-U.S. | Q1 2024 Total |
|---|---|---|---|---|---|---|
| Velantra | 540 | 210 | 750 | 470 | 180 | 650 |
| Ostrix | 190 | 75 | 265 | 160 | 64 | 224 |
| Total product revenues | 730 | 285 | 1,015 | 630 | 244 | 874 |

### Condensed Consolidated Statements of Operations (Unaudited)

(In millions, except per share data)

| | Three Months Ended March 31, 2025 | Three Months Ended March 31, 2024 |
|---|---|---|
| Total revenues | 1,015 | 874 |
| Research and development | 301 | 276 |
| Operating income | 352 | 281 |
| Net income | 268 | 210 |

### Reconciliation of GAAP to Non-GAAP Diluted Earnings per Share (Unaudited)

| | Three Months Ended March 31, 2025 | Three Months Ended March 31, 2024 |
|---|---|---|
| GAAP diluted earnings per share | 1.84 | 1.45 |
| Stock-based compensation | 0.31 | 0.28 |
| Adjusted diluted earnings per share | 2.15 | 1.73 |

As of March 31, 2025, Proseware operated 14 manufacturing sites.
"""

PROSEWARE = Entity(entity_id="name:proseware", name="Proseware Biologics, Inc.", tickers=["PRSW"],
                   name_source="cover", parts=["Velantra", "Ostrix", "Ex-U.S."])


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("release"), "PROSEWARE_2025Q1_8K.md", RELEASE)


@pytest.mark.parametrize(("asked", "read"), [
    ("PRSW net sales qtr ended 3/31/25", "Proseware Biologics, Inc. net sales quarter ended 3/31/25"),
    ("PRSW revenue 3 mos ended 3/31/25", "Proseware Biologics, Inc. revenue 3 months ended 3/31/25"),
    ("PRSW R&D for the 13 wks ended 3/31/25", "Proseware Biologics, Inc.'s R&D for the 13 weeks ended 3/31/25"),
    ("PRSW adj. EPS Q1 25", "Proseware Biologics, Inc. adjusted EPS Q1 25"),
    ("PRSW op income avg last 3 yrs", "Proseware Biologics, Inc. operating income average last 3 years"),
    ("PRSW FCF '23", "Proseware Biologics, Inc.'s FCF 2023"),  # a year written short is that year, never none
    # an ordinary word, or a word of a period already read, is no abbreviation
    ("PRSW revenue in the first qtr of 2025 ended as of now", "Proseware Biologics, Inc. revenue in the first "
                                                               "quarter of 2025 ended as of now"),
    ("PRSW sales at YE 2024", "Proseware Biologics, Inc. sales at YE 2024"),
])
def test_an_abbreviated_span_or_basis_is_written_out(asked: str, read: str) -> None:
    assert plain_question(asked, EntityRegistry([PROSEWARE])) == read


@pytest.mark.parametrize(("asked", "read"), [
    ("what's the increase?", "what is the increase?"),
    ("What's PRSW's revenue in Q1 2025?", "What is Proseware Biologics, Inc.'s revenue in Q1 2025?"),
    ("how’s that compared with 2024?", "how is that compared with 2024?"),
])
def test_a_question_words_contraction_is_written_out(asked: str, read: str) -> None:
    # its 's is 'is', never a possessive: "what's the increase?" asks the change the thread's figures make
    assert plain_question(asked, EntityRegistry([PROSEWARE])) == read


@pytest.mark.parametrize(("asked", "read"), [
    ("Quick one - PRSW revenue Q1 2025?", "Proseware Biologics, Inc. revenue Q1 2025?"),
    ("Heads up - PRSW revenue Q1 2025", "Proseware Biologics, Inc. revenue Q1 2025"),
    # ordinary words that a filing prints as a part's name, a segment or a region narrow what is asked: they stay
    ("manufacturing sites - PRSW count 2025", "manufacturing sites - Proseware Biologics, Inc. count 2025"),
    ("velantra one - PRSW revenue Q1 2025", "velantra one - Proseware Biologics, Inc. revenue Q1 2025"),
    ("Oncology segment - PRSW revenue Q1 2025", "Oncology segment - Proseware Biologics, Inc. revenue Q1 2025"),
    ("Europe only - PRSW revenue Q1 2025", "Europe only - Proseware Biologics, Inc. revenue Q1 2025"),
])
def test_an_aside_of_ordinary_words_before_a_lookup_is_cut(asked: str, read: str) -> None:
    registry = EntityRegistry([PROSEWARE.model_copy(update={"parts": ["Manufacturing sites", "Velantra"]})])
    assert plain_question(asked, registry) == read


def test_outside_a_region_is_a_part_of_its_own() -> None:
    registry = EntityRegistry([PROSEWARE])
    for asked in ("What were Velantra's Ex-U.S. sales in Q1 2025?", "PRSW Velantra ex-US revenue 1Q25"):
        intent = extract_intent(plain_question(asked, registry), registry)
        assert "U.S." not in intent.entities, (asked, intent.entities)
        assert any("ex-u" in t.text.lower() for t in intent.scope), (asked, intent.scope)


def test_a_thing_count_after_the_company_counts_the_thing() -> None:
    # the company's name as written ('Proseware') ends the thing counted, in any case
    assert counted_thing("Proseware manufacturing site count at March 31, 2025", "Proseware Biologics, Inc.") \
        == counted_thing("The manufacturing site count at March 31, 2025", "Proseware Biologics, Inc.") != ""


def test_a_metric_after_a_part_name_is_no_word_of_the_name() -> None:
    from agent.query.names import question_names

    assert question_names("PRSW Velantra NI 1Q25") == ["PRSW Velantra"]
    assert question_names("What was Cloud Services GP in 2024?") == ["Cloud Services"]
    assert extract_intent("What was Cloud Services GP in 2024?").metrics == ["gross profit"]  # 'GP', in capitals


@pytest.mark.parametrize(("question", "figure"), [
    ("PRSW net sales qtr ended 3/31/25", "$1,015 million"),
    ("Quick one - PRSW R&D 1Q24?", "$276 million"),
    ("PRSW adj EPS Q1 2025", "2.15"),
    ("PRSW op income '24 Q1", "$281 million"),
    ("What were Velantra's Ex-U.S. sales in Q1 2025?", "$210 million"),
    ("PRSW Ostrix ex-US revenue 1Q24", "$64 million"),
    ("What were Ostrix's U.S. sales in Q1 2024?", "$160 million"),
])
def test_the_figure_is_found_however_it_is_abbreviated(release: Settings, question: str, figure: str) -> None:
    answer = stated(ask_once(release, question))
    assert figure in answer, answer


@pytest.mark.parametrize(("question", "wrong"), [
    ("What were Velantra's Ex-U.S. sales in Q1 2025?", ("540", "750")),
    ("PRSW adj EPS Q1 2025", ("1.84",)),
])
def test_a_part_or_a_basis_abbreviated_is_never_widened(release: Settings, question: str, wrong: tuple) -> None:
    answer = stated(ask_once(release, question))
    assert not any(w in answer for w in wrong), answer
