"""'The net change in X' asks X's change: the 'net' qualifies the change, and names no row. A table whose other rows
print 'net' ('Net unrealized loss') made the word look like one of theirs, and the row asked was refused."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.query.content import content_words

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Corvid Trust Corp

FORM 10-K

For the fiscal year ended December 31, 2009

## Item 8. Financial Statements

### Note 4. Investment Securities

Net unrealized losses on securities available for sale were as follows as of December 31:

| (In millions) | 2009 | 2008 |
|---|---|---|
| Fair value | $72,699 | $54,163 |
| Amortized cost | 74,843 | 60,786 |
| Net unrealized loss, pre-tax | (2,144) | (6,623) |
"""


def test_a_net_change_names_the_change_alone() -> None:
    assert content_words("the net change in amortized cost") == content_words("the change in amortized cost")
    assert content_words("net increases in deposits") == content_words("increases in deposits")
    assert "net" in content_words("net unrealized loss")  # a figure's own 'net' stays


def test_the_net_change_of_a_row_is_computed_over_its_years(tmp_path) -> None:
    settings = ingested_typeset(tmp_path, "CORVID_2009_10K.md", FILING)
    answer = stated(ask_once(settings, "What is the net change in amortized cost during 2009?"))
    assert "74,843 - 60,786 = 14,057" in answer
