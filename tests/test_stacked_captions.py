"""A chip maker's 10-Q (a 52-week year ending in late January) whose note captions a stack of tables once ('Revenue
by market platform:' over '(In millions)', then the quarter's table with '$ Change' and '% Change' columns, then the
nine months' table right under it), and whose MD&A names a part after a figure that is not the part's ('Revenue ...
was $8.1 billion, up 22%, led by Cloud Compute'). Typeset filing."""

from __future__ import annotations

import pytest
from support import ask_once, ask_thread, ingested_typeset, stated

from agent.config import Settings
from evals.metrics.answers import is_refusal

FILING = """# Margay Microsystems, Inc.

FORM 10-Q

For the quarterly period ended October 26, 2025

Margay Microsystems, Inc. (NASDAQ: MRGY) designs processors. Our fiscal year 2026 is a 52-week year ending January
25, 2026.

### Item 1. Condensed Consolidated Statements of Income

(In millions, except per share data)

| | Three Months Ended October 26, 2025 | Three Months Ended October 27, 2024 | Nine Months Ended October 26, 2025 | Nine Months Ended October 27, 2024 |
|---|---|---|---|---|
| Revenue | 8,120 | 6,655 | 22,910 | 18,240 |
| Operating income | 2,310 | 1,702 | 6,455 | 4,630 |
| Net income | 1,984 | 1,431 | 5,520 | 3,902 |

### Note 9. Revenue

Revenue by market platform:

(In millions)

| | Three Months Ended October 26, 2025 | Three Months Ended October 27, 2024 | $ Change | % Change |
|---|---|---|---|---|
| Cloud Compute | 5,240 | 4,010 | 1,230 | 31% |
| Consoles | 1,615 | 1,560 | 55 | 4% |
| Embedded | 1,265 | 1,085 | 180 | 17% |
| Total revenue | 8,120 | 6,655 | 1,465 | 22% |

| | Nine Months Ended October 26, 2025 | Nine Months Ended October 27, 2024 | % Change |
|---|---|---|---|
| Cloud Compute | 14,480 | 10,760 | 35% |
| Consoles | 4,710 | 4,420 | 7% |
| Embedded | 3,720 | 3,060 | 22% |
| Total revenue | 22,910 | 18,240 | 26% |

### Item 2. Management's Discussion and Analysis

Revenue for the third quarter of fiscal 2026 was $8.1 billion, up 22% from a year ago, led by Cloud Compute.

During the first nine months of fiscal 2026, we repurchased 11 million shares of our common stock for $2.4 billion and
paid $96 million in cash dividends.
"""


@pytest.fixture(scope="module")
def margay(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("margay"), "MARGAY_2026Q3_10Q.md", FILING)


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Margay's Consoles revenue in the third quarter of fiscal 2026?", "$1,615 million"),
    # the nine months' table stacked under the quarter's: captioned, and scaled, by the same lines
    ("What was Margay's Embedded revenue for the nine months ended October 27, 2024?", "$3,060 million"),
])
def test_a_caption_over_a_stack_of_tables_titles_each(margay: Settings, question: str, figure: str) -> None:
    assert figure in stated(ask_once(margay, question))


def test_the_part_a_sentence_names_after_its_figure_is_not_the_figures(margay: Settings) -> None:
    answer = ask_once(margay, "By what percentage did Margay's Cloud Compute revenue grow year over year in Q3 FY2026?")
    assert "8.1 billion" not in stated(answer)  # the company's revenue, 'led by Cloud Compute', is not Cloud Compute's
    assert "30.67%" in stated(answer)  # (5,240 - 4,010) / 4,010, from the part's own row


def test_a_sentence_opened_by_its_period_dates_every_figure(margay: Settings) -> None:
    answer = ask_once(margay, "What were Margay's share repurchases in the first nine months of fiscal 2026?")
    assert "$2.4 billion" in stated(answer)


def test_a_follow_up_in_the_fiscal_calendar(margay: Settings) -> None:
    turns = ask_thread(margay, ["What was Margay's Consoles revenue in the third quarter of fiscal 2026?",
                                "and a year earlier?", "what was the percentage change?"])
    assert "$1,560 million" in stated(turns[1]) and "3.53%" in stated(turns[2])


def test_no_figure_of_the_whole_year_is_in_a_quarters_filing(margay: Settings) -> None:
    assert is_refusal(ask_once(margay, "What was Margay's revenue for fiscal 2025?"))
