"""An amount a sentence pays for a count of things is named by the count's clause: in 'During 2024 we repurchased
2.4 million shares of our common stock for $310 million', the $310 million is the repurchase, in 2024, though the
few words just before it ('shares of our common stock for') say neither. The count stays the count: 'how many
shares' is never answered with the amount. A sentence says what its figure is with a verb ('repurchased'), so a
question's noun ('repurchases') meets it by its root.

The filing is typeset here: an industrial company's 10-K with its capital returns in prose.
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.answer.evidence_cells import _paid_for
from agent.config import Settings
from agent.finance.numbers import find_numbers

FILING = """# Litware Industrial Holdings, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 7. Management's Discussion and Analysis

### Capital Returned to Shareholders

During 2024 we repurchased 2.4 million shares of our common stock for $310 million. We paid dividends of $1.20 per
share in 2024.

### Consolidated Statements of Income

(In millions, except per share data)

| | 2024 | 2023 |
|---|---|---|
| Net sales | 4,210 | 3,980 |
| Net income | 388 | 351 |
| Diluted earnings per share | 4.12 | 3.70 |
"""


@pytest.fixture(scope="module")
def litware(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("litware"), "LITWARE_2024_10K.md", FILING)


def test_the_amount_paid_for_a_count_is_the_counts_clause(litware: Settings) -> None:
    answer = stated(ask_once(litware, "What were Litware's share repurchases in 2024?"))
    assert "$310 million" in answer and "4.12" not in answer


def test_a_count_asked_is_never_the_amount_paid(litware: Settings) -> None:
    answer = stated(ask_once(litware, "How many shares did Litware repurchase in 2024?"))
    assert "310" not in answer
    assert "2.4 million" in answer


def test_an_amount_in_another_clause_is_no_price_of_the_count() -> None:
    text = "In 2024 we issued 0.3 million shares and paid dividends of $41 million."
    count, amount = find_numbers(text)
    between = text[count.end:amount.start]
    assert not _paid_for(count, "", amount, between)
    text = "We acquired 9 properties for $286.5 million."
    count, amount = find_numbers(text)
    assert _paid_for(count, "properties", amount, text[count.end:amount.start])


LICENSES = """# Consolidated Messenger Corp.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

### Indefinite-lived Intangible Assets

The carrying amount of indefinite-lived intangible assets was as follows (in millions):

| | December 31, 2024 | December 31, 2023 |
|---|---|---|
| Broadcast licenses | 136.2 | 120.6 |
| State licenses | 2.5 | 2.5 |

In 2024, broadcast licenses increased $15.6 million, $18.2 million of which was through acquisitions.
"""


def test_a_word_asking_how_a_figure_moved_is_no_sentences_verb(tmp_path) -> None:
    # 'the increase in broadcast licenses' once matched 'licenses increased $15.6 million' by the verb's root, and
    # the change was computed from that increase and the table's 2023 level
    settings = ingested_typeset(tmp_path, "CONSOLIDATEDMESSENGER_2024_10K.md", LICENSES)
    answer = stated(ask_once(settings, "What was the increase in broadcast licenses from 2023 to 2024?"))
    assert "136.2 - 120.6" in answer
