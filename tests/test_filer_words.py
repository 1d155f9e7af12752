"""Words that only look like names: a filing calls its filer 'the Company' or 'the Group', a question may open with
a capitalised preposition ('Between 2023 and 2024, ...') or name a period in title case ('Fiscal Year Ended ...').
None of them is another company; a name that is one (and is indexed nowhere) is still refused.
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.query.intent import guess_company
from agent.query.names import question_names

FILING = """# Wingtip Outfitters Group plc

ANNUAL REPORT
For the fiscal year ended December 31, 2024

## Note 9. Other Receivables

Other receivables of the Group were as follows (in thousands):

| | 2024 | 2023 |
|---|---|---|
| Tooling deposits | 1,250 | 950 |
| Supplier rebates receivable | 310 | 420 |
"""


@pytest.fixture(scope="module")
def wingtip(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("wingtip"), "WINGTIP_2024_AR.md", FILING)


@pytest.mark.parametrize("question", ["What were the Group's tooling deposits in 2024?",
                                      "What were the Company's tooling deposits in 2024?"])
def test_the_filer_named_as_the_group_or_the_company_is_the_filer(wingtip: Settings, question: str) -> None:
    answer = ask_once(wingtip, question)
    assert "1,250" in answer and not answer.startswith("Not found"), answer


def test_a_question_opening_with_a_preposition_names_no_company(wingtip: Settings) -> None:
    answer = ask_once(wingtip, "Between 2023 and 2024, which year had higher tooling deposits?")
    assert "Between" not in answer, answer
    assert answer.startswith("Year with") and "2024 (1,250" in answer, answer


def test_a_company_that_is_indexed_nowhere_is_still_refused(wingtip: Settings) -> None:
    answer = ask_once(wingtip, "What were Contoso's tooling deposits in 2024?")
    assert answer.startswith("Not found") and "1,250" not in stated(answer), answer


def test_filer_words_and_period_words_are_no_names() -> None:
    assert guess_company("How is the Group's revenue diversified?") == ""
    assert guess_company("What does the Company's investments consist of?") == ""
    assert guess_company("What was the average net actuarial loss for 2017-2019?") == ""  # a span of years
    assert question_names("What is the change in Net Sales from Fiscal Year Ended April 28, 2018 to Fiscal Year "
                          "Ended April 27, 2019?") == []
    assert question_names("Between 2018 and 2019, which year had higher revenue in Canada?") == ["Canada"]
    assert question_names("What was Costco's revenue in FY2023?") == ["Costco"]
