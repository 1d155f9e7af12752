"""Fiscal years as British and Australian reports write them: 'F19' and 'F18' column heads, '2017/18' for the
year that ends in 2018. A question in those words reads those columns; before, 'F19' was taken for the name of
a segment and '2017/18' for no period at all, so the latest year was stated (typeset filings)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.config import Settings
from agent.finance.periods import find_periods

HOTELS = """# Contoso Leisure Group Limited

Annual Report for the financial year ended 30 June 2019

## Operating and financial review

### Hotels

| $ MILLION | F19 | F18 | CHANGE |
|---|---|---|---|
| Sales | 1,671 | 1,612 | 3.7% |
| EBITDA | 372 | 361 | 3.0% |
| Funds employed | 2,068 | 1,995 | 3.7% |
"""

RETAIL = """# Northwind Stores plc

Annual Report and Accounts 2019

## Notes to the financial statements

### 8. Taxation

| | 52 weeks ended 30 Mar 2019 £m | 52 weeks ended 31 Mar 2018 £m |
|---|---|---|
| Profit before taxation | 42.7 | 20.9 |
| Non-deductible items | (0.9) | (0.1) |
| Adjustments to prior periods | 1.7 | (8.1) |
| Income tax charge | 8.9 | 13.7 |
"""


@pytest.mark.parametrize(("text", "norms"), [
    ("sales in F19 and F18", ["FY2019", "FY2018"]),
    ("the adjustments in 2017/18", ["FY2018"]),
    ("revenue for 2018/2019", ["FY2019"]),
    ("revenue in 2018-19", ["FY2019"]),
    # not fiscal years: an aircraft, a form, a range, a maturity
    ("the F-16 programme", []),
    ("a registration on Form F-1", []),
    ("the 2017-19 plan period", []),
    ("notes due 2018-2019", []),
])
def test_split_and_short_fiscal_years(text: str, norms: list[str]) -> None:
    assert [p.norm for p in find_periods(text)] == norms


@pytest.fixture(scope="module")
def contoso(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("contoso"), "CONTOSO_2019_AR.md", HOTELS)


@pytest.fixture(scope="module")
def northwind(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("northwind"), "NORTHWIND_2019_AR.md", RETAIL)


@pytest.mark.parametrize(("question", "figure"), [
    ("What were the average sales for F19 and F18?", "1,641.5"),
    ("What was the difference in EBITDA between F19 and F18?", "11"),
    ("What were sales in F18?", "1,612"),
])
def test_short_fiscal_year_columns(contoso: Settings, question: str, figure: str) -> None:
    out = ask_once(contoso, question)
    assert figure in out and not out.startswith("Not found"), out


def test_a_year_written_by_the_years_it_spans(northwind: Settings) -> None:
    out = ask_once(northwind, "What were the adjustments to prior periods in 2017/18?")
    assert "(8.1)" in out and "FY2018" in out, out
