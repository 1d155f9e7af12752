"""A segment named with a word of its company's name is named by its other words: 'Consumer Publishing' is a part of
Bellows Publishing Corp., and a question about Bellows Publishing's operating income asks the total column, never
the segment's column that shares the word 'Publishing'. A column that is the company itself (a performance graph's
'Bellows Publishing Corp.') is still named by the company's name.

The filing is typeset here: a publisher's 10-K with segments as columns and a performance graph.
"""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings

FILING = """# Bellows Publishing Corp.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

Bellows Publishing Corp.
(Exact name of registrant as specified in its charter)

## Item 7. Management's Discussion and Analysis

We report two segments: Consumer Publishing and Education.

### Segment Results

(In millions)

| Year Ended December 31, 2024 | Consumer Publishing | Education | Total |
|---|---|---|---|
| Revenue | 1,240 | 860 | 2,100 |
| Operating income | 96 | 151 | 247 |

| Year Ended December 31, 2023 | Consumer Publishing | Education | Total |
|---|---|---|---|
| Revenue | 1,180 | 805 | 1,985 |
| Operating income | 88 | 139 | 227 |
"""


@pytest.fixture(scope="module")
def bellows(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("bellows"), "BELLOWS_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "figure", "wrong"), [
    ("What was Bellows Publishing's operating income in 2024?", "$247 million", "96"),
    ("Bellows Publishing revenue 2023", "$1,985 million", "1,180"),
])
def test_the_companys_name_asks_the_total_not_a_segment_sharing_its_word(bellows: Settings, question: str,
                                                                        figure: str, wrong: str) -> None:
    answer = stated(ask_once(bellows, question))
    assert figure in answer and wrong not in answer


def test_the_segment_named_by_its_own_words_gets_its_figure(bellows: Settings) -> None:
    assert "$96 million" in stated(ask_once(bellows, "What was Consumer Publishing's operating income in 2024?"))
