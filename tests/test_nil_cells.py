"""A table cell that prints only a dash ('—', '$ —') states a nil amount: the row's figure for that year is zero,
so a lookup, an average or a change over it reads that row, never another row's figure for the year the row
left blank (typeset filing)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.config import Settings
from agent.finance.numbers import nil_cell

FILING = """# Fabrikam Controls Inc.

Annual Report on Form 10-K for the fiscal year ended December 31, 2024

## Item 8. Financial Statements and Supplementary Data

### Note 9. Income taxes

The components of deferred tax assets (in thousands):

| | December 31, 2024 | December 31, 2023 |
|---|---|---|
| Net operating losses | $ 263,199 | $ 321,982 |
| Deferred compensation | — | 3,810 |
| Deferred gain | $ — | 6,575 |
| Deferred revenue | 7,170 | — |
| Valuation allowance | (252,536) | (243,112) |
| Total deferred tax assets | $ 17,833 | $ 89,255 |
"""


@pytest.fixture(scope="module")
def fabrikam(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("fabrikam"), "FABRIKAM_2024_10K.md", FILING)


@pytest.mark.parametrize(("cell", "zero"), [
    ("—", True), ("$ —", True), ("-", True), (" – ", True), ("n/a", False), ("", False), ("(1)", False),
    ("nm", False),
])
def test_only_a_dash_is_a_nil_cell(cell: str, zero: bool) -> None:
    found = nil_cell(cell)
    assert (found is not None and found.value == 0.0) is zero


@pytest.mark.parametrize(("question", "figure", "not_figure"), [
    # (3,810 + 0) / 2; the old reader took the total's 17,833 for 2024 and averaged it with 3,810
    ("What was the average deferred compensation for 2023 and 2024?", "1,905", "17,833"),
    ("What was the change in deferred revenue from 2023 to 2024?", "7,170", "17,833"),
    ("What was the deferred gain in 2024?", "Deferred gain", "17,833"),
])
def test_a_dash_is_the_rows_nil_figure(fabrikam: Settings, question: str, figure: str, not_figure: str) -> None:
    out = ask_once(fabrikam, question)
    assert figure in out and not out.startswith("Not found"), out
    assert not_figure not in out, out


def test_no_growth_from_a_nil_year(fabrikam: Settings) -> None:
    out = ask_once(fabrikam, "What was the percentage change in deferred revenue from 2023 to 2024?")
    assert out.startswith("Not found") and "zero" in out, out
