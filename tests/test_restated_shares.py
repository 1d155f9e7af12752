"""A sentence that states an amount and restates it as a share of another figure ('$96.8 million, or 0.41% of
total loans') answers an amount question with the amount, never with the share; a question asking the rate gets
the share. Typeset filing printed to PDF."""

from __future__ import annotations

import pytest
from support import ask_once, printed_filing, stated

from agent.config import Settings

PAGE_ONE = """Kestrel Bancorp, Inc.
FORM 10-Q
For the quarterly period ended June 30, 2025
Item 2. Management's Discussion and Analysis
Financial Highlights
(In thousands)
| | Three Months Ended June 30, 2025 | Three Months Ended June 30, 2024 |
| Net interest income | 188,240 | 176,915 |
| Provision for credit losses | 14,300 | 11,050 |
| Net income | 61,875 | 58,410 |
"""
PAGE_TWO = """Asset Quality
Credit quality remained stable in the quarter.
Nonaccrual loans were $96.8 million, or
0.41% of total loans, at June 30, 2025.
Net charge-offs were modest and were
concentrated in consumer lending.
"""


@pytest.fixture(scope="module")
def kestrel(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return printed_filing(tmp_path_factory.mktemp("kestrel-pdf"), "KESTREL_2025Q2_10Q.pdf", [PAGE_ONE, PAGE_TWO])


def test_an_amount_asked_is_the_amount_the_share_restates(kestrel: Settings) -> None:
    # the date closing the sentence dates both its figures; the share answers no amount question
    for question in ("What were Kestrel's nonaccrual loans at June 30, 2025?", "Kestrel nonaccrual loans Q2 2025"):
        answer = stated(ask_once(kestrel, question))
        assert "$96.8 million" in answer and "0.41%" not in answer, answer


def test_a_rate_asked_is_never_the_amount(kestrel: Settings) -> None:
    question = "What percentage of total loans were Kestrel's nonaccrual loans at June 30, 2025?"
    answer = stated(ask_once(kestrel, question))
    assert "$96.8 million" not in answer, answer
