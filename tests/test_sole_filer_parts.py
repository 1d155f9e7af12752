"""A name the question gives as its company which no filing goes by ('What was Asia Pacific revenue?'), over an
index of one filer's filings: the name is a part of that filer, answered only by a figure whose own row, table or
section names it; a company the filing merely prints (a customer with a legal form, a rival in its prose) stays an
absent company, refused with no figure stated."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.entities import as_registry
from agent.query.intent import extract_intent

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Contoso Ltd.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2023

Contoso Ltd. (Exact name of registrant as specified in its charter)

## Item 7. Management's Discussion and Analysis

Our largest customer, Northwind Traders Inc., represented 11% of revenue in 2023, compared with 9% in 2022.
We compete with Litware Corporation and Tailspin Toys in every region.

## Item 8. Financial Statements

### Consolidated Statements of Operations

(in millions)

| | 2023 | 2022 |
|---|---|---|
| Revenue | 5,245 | 4,880 |
| Cost of revenue | 3,100 | 2,950 |
| Operating income | 900 | 810 |
| Net income | 610 | 560 |

### Notes to Consolidated Financial Statements

#### Note 12. Segment Information

Revenue by geographic region

(in millions)

| | 2023 | 2022 |
|---|---|---|
| Americas | 3,000 | 2,800 |
| Europe | 1,100 | 1,020 |
| Asia Pacific | 1,145 | 1,060 |
| Total revenue | 5,245 | 4,880 |

Revenue by major customer

(in millions)

| | 2023 | 2022 |
|---|---|---|
| Fabrikam, Inc. | 640 | 590 |
| All other customers | 4,605 | 4,290 |
| Total revenue | 5,245 | 4,880 |
"""


# The same company's regions in a table a line introduces with its scale, in a note the statements are followed by
# directly: the rows name only the regions.
INTRODUCED = (FILING.split("Revenue by major customer", 1)[0]
              .replace("### Notes to Consolidated Financial Statements\n\n#### Note", "### Note")
              .replace("Revenue by geographic region\n\n(in millions)", "Revenue by geographic region (in millions):"))
assert INTRODUCED != FILING and "Fabrikam" not in INTRODUCED


@pytest.fixture(scope="module")
def contoso(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("contoso"), "CONTOSO_2023_10K.md", FILING)


@pytest.fixture(scope="module", params=["titled", "introduced"])
def either(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    if request.param == "titled":
        return request.getfixturevalue("contoso")
    return ingested_typeset(tmp_path_factory.mktemp("introduced"), "CONTOSO_2023_10K.md", INTRODUCED)


@pytest.mark.parametrize(("question", "part", "figure"), [
    ("What was Asia Pacific revenue in 2023?", "Asia Pacific", "$1,145 million"),
    ("What was Europe's revenue in 2022?", "Europe", "$1,020 million"),
    ("How much revenue did Europe generate in 2023?", "Europe", "$1,100 million"),
    ("What was Americas revenue in 2022?", "Americas", "$2,800 million"),
])
def test_a_name_no_filing_goes_by_is_the_only_filers_part(either: Settings, question: str, part: str,
                                                          figure: str) -> None:
    answer = ask_once(either, question)
    assert not answer.startswith("Not found"), answer
    assert f"Contoso Ltd.'s revenue ({part})" in answer and figure in answer  # whose figure of what, never a company's
    assert "5,245" not in stated(answer) and "4,880" not in stated(answer)  # never the company's total


@pytest.mark.parametrize(("question", "absent"), [
    ("What was Fabrikam's revenue in 2023?", "Fabrikam"),  # a customer the filing prints as 'Fabrikam, Inc.'
    ("What was Litware's revenue in 2023?", "Litware"),  # a rival named in its prose
    ("What was Apple's net income in 2023?", "Apple"),  # a company the filing never names
])
def test_a_company_the_filing_only_mentions_stays_absent(contoso: Settings, question: str, absent: str) -> None:
    answer = ask_once(contoso, question)
    assert answer.startswith("Not found"), answer
    assert f"no filing of {absent} is indexed" in answer
    assert "Closest evidence" not in answer  # any figure shown would be another company's
    for figure in ("640", "5,245", "610"):
        assert figure not in answer


def test_a_part_the_filing_gives_no_figure_of_is_refused(contoso: Settings) -> None:
    answer = ask_once(contoso, "What was Asia Pacific operating income in 2023?")
    assert answer.startswith("Not found") and "900" not in stated(answer)
    assert "no operating income figure of Contoso Ltd.'s names Asia Pacific" in answer


def test_the_filers_figure_from_a_customer_is_answered_when_asked_so(contoso: Settings) -> None:
    answer = ask_once(contoso, "What was Contoso's revenue from Fabrikam in 2023?")
    assert "$640 million" in answer and "Fabrikam, Inc." in answer


def test_the_reading_needs_one_known_filer() -> None:
    question = "What was Asia Pacific revenue in 2023?"
    one = extract_intent(question, as_registry(["Contoso Ltd."]))
    assert one.company == ""  # the question names no company: the only filer's part
    assert [(t.text, t.metric, t.kind) for t in one.scope] == [("Asia Pacific", "revenue", "name")]
    two = extract_intent(question, as_registry(["Contoso Ltd.", "Fabrikam Inc."]))
    assert two.company == "Asia Pacific"  # which filer's part it would be, the question does not say
    assert not [t for t in two.scope if t.kind == "name"]
    named = extract_intent("What was Contoso's Asia Pacific revenue in 2023?", as_registry(["Contoso Ltd."]))
    assert named.company == "Contoso Ltd." and not [t for t in named.scope if t.kind == "name"]


@pytest.mark.parametrize(("question", "share"), [
    ("Europe revenue as a percentage of Contoso's total revenue in 2023?", "20.97%"),  # 1,100 / 5,245
    ("What was Asia Pacific revenue as a percentage of total revenue in 2022?", "21.72%"),  # 1,060 / 4,880
])
def test_a_part_named_before_the_metric_is_a_share_of_the_whole(contoso: Settings, question: str, share: str) -> None:
    answer = ask_once(contoso, question)
    assert share in answer, answer  # the part's own row over the company's total, not the part over itself


@pytest.mark.parametrize(("question", "part", "figure"), [
    ("How much did Contoso's Asia Pacific region contribute to revenue in 2023?", "Asia Pacific", "$1,145 million"),
    ("How much of Contoso's revenue came from Europe in 2022?", "Europe", "$1,020 million"),
    ("How much did the Americas contribute to Contoso's revenue in 2022?", "Americas", "$2,800 million"),
])
def test_the_part_a_contribution_verb_names_narrows_the_figure(contoso: Settings, question: str, part: str,
                                                               figure: str) -> None:
    answer = ask_once(contoso, question)
    assert f"revenue ({part})" in answer and figure in answer, answer  # said as the part's, not the company's
    assert "5,245" not in stated(answer) and "4,880" not in stated(answer)


def test_a_contributing_part_the_filing_lacks_is_refused(contoso: Settings) -> None:
    answer = ask_once(contoso, "How much did Contoso's Latin America business contribute to revenue in 2023?")
    assert answer.startswith("Not found") and "5,245" not in stated(answer)
