"""A row that names one kind of what is asked is a part of it, not the whole: 'Other assets' under 'Assets' is no
answer to the total assets, nor 'Total deferred tax assets', nor one of a table's kinds of costs to its total
costs (typeset filing). The rows answer for themselves."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.config import Settings

FILING = """# Tailspin Outfitters, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Notes to Consolidated Financial Statements

### Note 2. Revenue recognition

The effect of adopting the new revenue standard on our balance sheet (in thousands):

| | December 31, 2024 | | |
|---|---|---|---|
| | As reported | Adjustments | Without adoption |
| Assets | | | |
| Prepaid expenses and other current assets | 14,210 | (820) | 13,390 |
| Deferred income tax assets | 9,335 | (415) | 8,920 |
| Other assets | 31,706 | (2,304) | 29,402 |
| Liabilities and Stockholders' Equity | | | |
| Deferred revenue | 18,450 | (1,200) | 17,250 |
| Other non-current liabilities | 27,981 | (3,005) | 24,976 |

### Note 9. Income taxes

Deferred tax assets consisted of the following (in thousands):

| | 2024 | 2023 |
|---|---|---|
| Net operating loss carryforwards | 402,118 | 388,507 |
| Accrued compensation | 61,240 | 58,117 |
| Total deferred tax assets | 463,358 | 446,624 |

### Note 11. Exit costs

Exit costs recorded in the year (in thousands):

| | 2024 | 2023 |
|---|---|---|
| Restructuring costs | 7,214 | 9,880 |
| Costs of closed stores and other | 6,902 | 3,716 |
| Accelerated depreciation | 1,311 | 1,020 |

### Note 12. Intangible assets

Gross carrying amounts of intangible assets (in thousands):

| | 2024 | 2023 |
|---|---|---|
| Non-amortizing intangible assets | 3,678 | 918 |
| Amortizing intangible assets | 1,244 | 577 |
| | 4,922 | 1,495 |
"""


@pytest.fixture(scope="module")
def tailspin(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("tailspin"), "TAILSPIN_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "rows"), [
    # no total of the assets is printed: neither the 'Other assets' row under 'Assets' nor the tax note's total is it
    ("What were Tailspin's total assets as reported?", ("Other assets", "Total deferred tax assets")),
    ("What were Tailspin's total liabilities and stockholders' equity as reported?", ("Other non-current liabilities",)),
    ("What were Tailspin's total assets in 2024?", ("Total deferred tax assets",)),
    ("What was the percentage change in Tailspin's total costs from 2023 to 2024?", ("Restructuring costs",)),
    # the lexicon reads 'intangible assets' in the row; the word before that name still narrows it
    ("What was the percentage change in the gross carrying amount of Tailspin's intangible assets from 2023 to 2024?",
     ("Amortizing intangible assets", "Non-amortizing intangible assets")),
])
def test_a_kind_of_what_is_asked_is_no_answer_to_the_whole(
    tailspin: Settings, question: str, rows: tuple[str, ...]
) -> None:
    out = ask_once(tailspin, question)
    assert out.startswith("Not found"), out
    # the refusal names the row it read and why it is not the whole: one part of it, or another metric altogether
    assert any(f"row '{row}' is one part of what is asked" in out or f"row '{row}' is deferred income taxes" in out
               for row in rows), out


@pytest.mark.parametrize(("question", "figure"), [
    ("What were Tailspin's other assets as reported at December 31, 2024?", "31,706"),
    ("What were Tailspin's total deferred tax assets in 2024?", "463,358"),
    ("What were Tailspin's restructuring costs in 2024?", "7,214"),
    ("What was Tailspin's accrued compensation in 2023?", "58,117"),
    ("What were Tailspin's amortizing intangible assets in 2024?", "1,244"),
])
def test_the_kind_answers_for_itself(tailspin: Settings, question: str, figure: str) -> None:
    out = ask_once(tailspin, question)
    assert figure in out and not out.startswith("Not found"), out
