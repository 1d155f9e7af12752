"""An ageing or maturity bucket is named by its span ('1-90 days past due', '91-180'): a figure answers for the bucket
its own column prints, never a neighbour whose span shares a number ('61-90' is not '1-90') nor the total column;
and 'the difference between 1-90 and 91-180 days past due' shares 'days past due' between its two items. Spans printed
bare under the labels' head ('Days past due | 1–90 | 91–180') are named by it. A refusal quoting a bucket marks none
of its numbers unverified."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance.column_periods import is_bucket
from agent.ingest.parsing import _markdown_pages
from agent.ingest.tables import find_tables
from agent.query.content import content_words
from agent.query.cues import operation_items

pytestmark = pytest.mark.usefixtures("no_yfinance")

FILING = """# Fabrikam Inc.

Annual Report for the year ended December 31, 2019

## Note 8. Trade receivables past due

(in thousands)

| | Not past due | 1-90 days past due | 91-180 days past due | Total |
|---|---|---|---|---|
| Low risk country | 8,000 | 2,500 | 1,278 | 11,778 |
| High risk country | 3,000 | 900 | 400 | 4,300 |
"""


@pytest.fixture(scope="module")
def fabrikam(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("buckets"), "FABRIKAM_2019_AR.md", FILING)


def test_a_difference_of_two_buckets_reads_each_buckets_column(fabrikam: Settings) -> None:
    answer = ask_once(fabrikam, "What is the difference between 1-90 and 91-180 days past due in low risk country?")
    assert "1,222 thousand" in answer and "2,500 - 1,278" in answer  # the bucket holds amounts, in thousands


@pytest.mark.parametrize("question", [
    "What was the 61-90 days past due in low risk country?",
    "What was the 1-90 in low risk country?",
])
def test_a_bucket_is_answered_by_its_own_column_or_refused(fabrikam: Settings, question: str) -> None:
    answer = stated(ask_once(fabrikam, question))
    assert "11,778" not in answer  # the total column is no bucket
    if "61-90" in question:
        assert answer.startswith("Not found") and "2,500" not in answer  # nor is a bucket of another span
        assert "61-90" in answer and "[unverified]" not in answer  # the bucket's name, quoted, is no figure
    else:
        assert "2,500" in answer or answer.startswith("Not found")


def test_two_items_share_the_words_after_the_seconds_first() -> None:
    found = operation_items("What is the difference between 1-90 and 91-180 days past due in low risk country?")
    assert found is not None and [item for item, _ in found[1]] == ["1-90 days past due", "91-180 days past due"]
    found = operation_items("What is the difference between the domestic and international discount rates?")
    assert found is not None and found[1][0][0] == "domestic discount rates"
    found = operation_items("What is the difference between revenue and cost of sales in 2019?")
    assert found is not None and found[1][0][0] == "revenue"  # a metric of its own takes nothing


def test_a_span_of_years_is_no_bucket() -> None:
    assert "1-90" in content_words("1-90 days past due") and "1-3" in content_words("due in 1-3 years")
    assert not {w for w in content_words("revenue from 2018-2019 and 2018-19") if "-" in w}


UNNAMED_BUCKETS = """# Tailspin Telecom plc

Annual Report for the year ended 31 December 2019

## 18. Trade receivables

The ageing of trade receivables past due by country risk (EUR thousand):

| Days past due | 1–90 | 91–180 | 181–360 | >360 | Total |
|---|---|---|---|---|---|
| Country risk: Low | 1,347 | 125 | 127 | 313 | 1,912 |
| Country risk: Medium | 891 | 725 | 600 | 819 | 3,035 |
"""


def test_spans_under_the_labels_head_are_named_by_it(tmp_path_factory: pytest.TempPathFactory) -> None:
    # 'Days past due' over '1–90 | 91–180 | ...': each span counts days past due; the columns are '1–90 days past due'
    (page,) = _markdown_pages(UNNAMED_BUCKETS)
    (table,) = find_tables(page)
    assert table.columns[:2] == ["1–90 days past due", "91–180 days past due"] and table.columns[-1] == "Total"
    settings = ingested_typeset(tmp_path_factory.mktemp("spans"), "TAILSPIN_2019_AR.md", UNNAMED_BUCKETS)
    answer = ask_once(settings, "What is the difference between 1-90 and 91-180 days past due in low risk country?")
    assert "1,347 - 125" in answer and "1,222" in answer
    medium = stated(ask_once(settings, "What were the 181-360 days past due for medium country risk?"))
    assert "600" in medium and "3,035" not in medium


def test_a_bucket_is_a_span_of_numbers_never_two_years() -> None:
    assert is_bucket("1–90") and is_bucket("91-180") and is_bucket(">360")
    assert not is_bucket("2018-2019") and not is_bucket("2018-19") and not is_bucket("Total")
