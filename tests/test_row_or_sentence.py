"""A table row that names part of a question is no answer to it: the page's other sentences say nothing of the
row, and a sentence that names all the question's words states the figure (typeset filing)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.ingest.tables import find_tables

FILING = """# Fabrikam Analytics, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended March 31, 2024

## Item 8. Financial Statements and Supplementary Data

### Note 6. Property and Equipment, Net

| (In thousands) | 2024 | 2023 |
|---|---|---|
| Furniture and equipment | $12,310 | $11,045 |
| Software | 17,942 | 12,608 |
| Leasehold improvements | 7,215 | 6,930 |
| Projects not yet placed in service | 1,120 | 4,355 |
| Accumulated depreciation and amortization | (21,475) | (17,380) |
| Property and equipment, net | $17,112 | $17,558 |

Property and equipment at March 31, 2024 and 2023 is shown above.

Total depreciation expense on property and equipment was $2.7 million and $2.9 million during fiscal 2024 and
2023, respectively.

The Company capitalizes internal-use software as property and equipment. Total amortization expense on
capitalized internal-use software was $2.6 million and $1.9 million during fiscal 2024 and 2023, respectively.
"""


@pytest.fixture(scope="module")
def fabrikam(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("fabrikam"), "FABRIKAM_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "figure"), [
    ("What was the total amortization expense on capitalized internal-use software in 2024?", "2.6"),
    ("What was the amortization expense on capitalized internal-use software in fiscal 2023?", "1.9"),
])
def test_the_figure_whose_own_words_name_the_question(fabrikam: Settings, question: str, figure: str) -> None:
    assert figure in stated(ask_once(fabrikam, question))


@pytest.mark.parametrize("question", [
    "What was the total cost of software licences sold to customers in 2024?",
    "What was the depreciation expense on software in 2024?",
])
def test_a_row_naming_part_of_the_question_is_refused(fabrikam: Settings, question: str) -> None:
    """'Software' is no 'cost of software licences sold to customers', nor the 'depreciation expense on software',
    although the page's sentences print 'depreciation expense' and 'customers' beside the table: a sentence
    that states figures of its own says nothing of a row."""
    assert "17,942" not in stated(ask_once(fabrikam, question))


def test_a_part_named_before_the_metric_is_no_total(fabrikam: Settings) -> None:
    """'Software in property and equipment' names the metric (property and equipment) and a part of it before
    it: the net total row does not say software."""
    said = stated(ask_once(fabrikam, "What was the amount of software in property and equipment at March 31, 2024?"))
    assert "17,112" not in said
    assert "17,942" in said or "Not found" in said


def test_the_sentence_introducing_a_table_is_no_column_header() -> None:
    """'Property and equipment at March 31, 2024 and 2023 is as follows:' names the table's dates but is its
    introduction: the columns are the header's two years, in its order (before, the sentence's years were read as
    a third column and every figure sat under the wrong year)."""
    page = "\n".join([
        "Note 6. Property and Equipment, Net", "",
        "Property and equipment at March 31, 2024 and 2023 is as follows:", "",
        "(In thousands) | 2024 | 2023",
        "Furniture and equipment | $12,310 | $11,045",
        "Software | 17,942 | 12,608",
        "Property and equipment, net | $17,112 | $17,558",
    ])
    table = next(t for t in find_tables(page) if any(r.label == "Software" for r in t.rows))
    assert table.columns == ["2024", "2023"]
    assert table.title.startswith("Property and equipment at March 31, 2024")
