"""Company and part names as an analyst types them: in lower case ('fourth coffee rigid packaging op income'), a
part named with a word of the company's own name ('Rigid Packaging' of Harbor Packaging), a company run on into a
period written as a count ('Harbor 3Q FY24'); and a question naming no company over filings of two, which is
asked back ('which company?') instead of answered with the newest filing's figure, the reply filling it in."""

from __future__ import annotations

import pytest
from support import ask_once, ask_thread, ingested_typeset, stated

from agent.config import Settings
from agent.entities import EntityRegistry
from agent.ingest.pipeline import open_ingestor
from agent.query.intent import extract_intent
from agent.query.utterance import plain_question
from agent.schemas import Entity

pytestmark = pytest.mark.usefixtures("no_yfinance")

HARBOR = """# Harbor Packaging Corporation

FORM 10-K

For the fiscal year ended December 31, 2024

Harbor Packaging Corporation
(Exact name of registrant as specified in its charter)

## Item 7. Management's Discussion and Analysis

### Segment Information

(In millions)

| 2024 | Rigid Packaging | Flexible Packaging | Total |
|---|---|---|---|
| Net sales | 3,210 | 2,040 | 5,250 |
| Operating income | 402 | 251 | 653 |

### Quarterly Results (Unaudited)

(In millions)

| Fiscal 2024 | First Quarter | Second Quarter | Third Quarter | Fourth Quarter |
|---|---|---|---|---|
| Net income | 101 | 112 | 118 | 124 |
"""

KESTREL = """# Kestrel Devices, Inc.

FORM 10-Q

For the quarterly period ended September 30, 2024

Kestrel Devices, Inc.
(Exact name of registrant as specified in its charter)

### Condensed Consolidated Statements of Operations

(In millions)

| | Q3 2024 | Q3 2023 |
|---|---|---|
| Revenue | 880 | 812 |
| Net income | 77 | 70 |
"""

REGISTRY = EntityRegistry([Entity(entity_id="name:harbor", name="Harbor Packaging Corporation", name_source="cover",
                                  parts=["Rigid Packaging", "Flexible Packaging"])])


def test_names_typed_in_lower_case_are_read_as_printed() -> None:
    plain = plain_question("harbor packaging rigid packaging op income 2024", REGISTRY)
    assert plain == "Harbor Packaging Corporation's Rigid Packaging operating income 2024", plain
    intent = extract_intent(plain, REGISTRY)
    assert intent.company == "Harbor Packaging Corporation"
    assert [t.text for t in intent.scope] == ["rigid packaging"], intent.scope


def test_lower_case_words_of_a_capitalised_question_are_no_names() -> None:
    registry = EntityRegistry([REGISTRY.entities[0].model_copy(update={"parts": ["Financial Position"]})])
    asked = "From the statement of financial position, what was Harbor Packaging's current ratio in 2024?"
    assert "financial position" in plain_question(asked, registry)


def test_a_company_before_a_counted_quarter_is_named() -> None:
    intent = extract_intent(plain_question("Harbor Packaging 3Q FY24 net income", REGISTRY), REGISTRY)
    assert intent.company == "Harbor Packaging Corporation" and intent.temporal_scope.periods == ["FY2024Q3"]


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    folder = tmp_path_factory.mktemp("two")
    settings = ingested_typeset(folder, "HARBOR_2024_10K.md", HARBOR)
    (folder / "KESTREL_2024Q3_10Q.md").write_text(KESTREL, encoding="utf-8")
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(folder / "KESTREL_2024Q3_10Q.md").status == "ingested"
    return settings


def test_a_segment_typed_in_lower_case_is_the_segments_figure(two: Settings) -> None:
    answer = stated(ask_once(two, "harbor packaging rigid packaging op income 2024"))
    assert "402" in answer and "653" not in answer, answer


def test_the_company_before_a_counted_quarter_is_answered_for(two: Settings) -> None:
    answer = stated(ask_once(two, "Harbor Packaging 3Q FY24 net income"))
    assert "118" in answer and "77" not in answer, answer


def test_no_company_named_over_two_companies_is_asked_back(two: Settings) -> None:
    asked, replied = ask_thread(two, ["What was net income in the third quarter of 2024?", "Kestrel"])
    assert asked.startswith("Not found") and "which company" in asked, asked
    assert "118" in asked and "77" in asked, asked  # both figures shown, neither stated as the answer
    assert "77" in stated(replied) and "118" not in stated(replied), replied
