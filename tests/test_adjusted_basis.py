"""One basis under the names filers and analysts give it: 'adjusted EPS' is the release's 'Non-GAAP diluted earnings
per share' (it was refused: the reader took the GAAP row, the gate then found no 'adjusted' in its words), and never
the GAAP figure; a basis the filing does not print is still refused. Typeset release."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings

RELEASE = """# Northwind Pharma Inc.

EXHIBIT 99.1

Northwind Pharma Reports Third Quarter 2025 Results

### Condensed Consolidated Statements of Income

(In millions of U.S. dollars, except per share amounts)

| | Q3 2025 | Q3 2024 |
|---|---|---|
| Total revenues | 2,318 | 2,070 |
| Operating income | 547 | 441 |
| Diluted earnings per share | 1.54 | 1.03 |

### Reconciliation of GAAP to Non-GAAP Diluted EPS

| | Q3 2025 | Q3 2024 |
|---|---|---|
| GAAP diluted earnings per share | 1.54 | 1.03 |
| Amortization of acquired intangibles | 0.27 | 0.29 |
| Restructuring | 0.05 | 0.11 |
| Non-GAAP diluted earnings per share | 1.86 | 1.43 |
"""


@pytest.fixture(scope="module")
def northwind(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("northwind"), "NORTHWIND_2025Q3_PR.md", RELEASE)


@pytest.mark.parametrize(("question", "figure", "never"), [
    ("What was Northwind's adjusted EPS for the third quarter of 2025?", "$1.86", "1.54"),
    ("Northwind adj. diluted EPS Q3 2024", "$1.43", "1.03"),
    ("What was Northwind's non-GAAP diluted EPS in Q3 2025?", "$1.86", "1.54"),
    ("What was Northwind's GAAP diluted EPS in Q3 2025?", "$1.54", "1.86"),
    ("What was Northwind's diluted EPS in Q3 2025?", "$1.54", "1.86"),
])
def test_adjusted_and_non_gaap_are_one_basis(northwind: Settings, question: str, figure: str, never: str) -> None:
    answer = stated(ask_once(northwind, question))
    assert figure in answer and never not in answer, answer


def test_a_basis_the_filing_does_not_print_is_refused(northwind: Settings) -> None:
    answer = stated(ask_once(northwind, "What was Northwind's adjusted operating income in Q3 2025?"))
    assert "547" not in answer, answer
