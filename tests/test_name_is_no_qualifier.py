"""A word of the company's own name is no qualifier of the figure asked: 'Tailwind Traders International's net
sales' asks the company's net sales, not its international ones, however the question writes the name (with a
possessive, without the legal form). The plan holds the name as the question wrote it (`company_written`); the
reader and the gate take it out before reading a region or a basis from the question. Typeset 10-K."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings

FILING = """# Tailwind Traders International Inc.

UNITED STATES SECURITIES AND EXCHANGE COMMISSION

FORM 10-K

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

Tailwind Traders International Inc.
(Exact name of registrant as specified in its charter)

## Item 8. Financial Statements

### Consolidated Statements of Operations

(In millions)

| | 2024 | 2023 |
|---|---|---|
| Net sales | 8,420 | 7,910 |
| Cost of sales | 5,120 | 4,880 |
| Operating income | 1,106 | 948 |
| Net income | 804 | 690 |

### Net Sales by Geography

(In millions)

| | 2024 | 2023 |
|---|---|---|
| United States | 5,310 | 5,020 |
| International | 3,110 | 2,890 |
| Total net sales | 8,420 | 7,910 |
"""


@pytest.fixture(scope="module")
def tailwind(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("tailwind"), "TAILWIND_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "figure"), [
    ("What were Tailwind Traders International's net sales in 2024?", "$8,420 million"),
    ("What was Tailwind Traders International's operating income in 2024?", "$1,106 million"),
    ("What were Tailwind Traders International's U.S. net sales in 2024?", "$5,310 million"),
])
def test_the_companys_name_narrows_no_figure(tailwind: Settings, question: str, figure: str) -> None:
    answer = stated(ask_once(tailwind, question))
    assert figure in answer and not answer.startswith("Not found"), answer


def test_a_region_the_question_asks_is_still_one(tailwind: Settings) -> None:
    # the region asked beside the name is asked: never the company's total
    answer = stated(ask_once(tailwind, "What were Tailwind Traders International's international net sales in "
                                       "2024?"))
    assert "8,420" not in answer and "5,310" not in answer, answer
