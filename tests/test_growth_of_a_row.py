"""'How much did X grow' of a row the lexicon does not name is answered as a lexicon metric's growth is: the change's
size and its rate, both computed in code from the row's two periods. 'What was the change' asks the size alone. A
line of the operating expenses asked as 'costs' is that line. Typeset release."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings

RELEASE = """# Pelican Freight Holdings, Inc.

EXHIBIT 99.1

Pelican Freight Reports Second Quarter Fiscal 2025 Results

### Consolidated Results

(In millions of U.S. dollars)

| | Q2 FY25 | Q2 FY24 |
|---|---|---|
| Revenue | 1,271.4 | 1,194.9 |
| Salaries, wages and benefits | 598.2 | 571.0 |
| Purchased transportation | 241.6 | 226.0 |
| Fuel and fuel taxes | 102.5 | 110.3 |
| Depreciation and amortization | 64.1 | 60.8 |
| Total operating expenses | 1,006.4 | 968.1 |
| Operating income | 265.0 | 226.8 |
"""


@pytest.fixture(scope="module")
def pelican(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("pelican"), "PELICAN_2025Q2_PR.md", RELEASE)


def test_growth_asked_in_no_unit_is_its_size_and_its_rate(pelican: Settings) -> None:
    answer = stated(ask_once(pelican, "How much did Pelican's purchased transportation costs grow year over year in "
                                      "Q2 FY25?"))
    assert "$15.6 million" in answer and "6.90%" in answer, answer


def test_the_change_asked_is_its_size_alone(pelican: Settings) -> None:
    answer = stated(ask_once(pelican, "What was the change in Pelican's purchased transportation from Q2 FY24 to "
                                      "Q2 FY25?"))
    assert "$15.6 million" in answer and "6.90%" not in answer, answer
