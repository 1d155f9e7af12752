"""An acronym is read as the part the company asked about prints in full: 'U.S. revenues' of a filer whose table
prints 'United States' is that row's figure, though another filer in the index prints 'U.S.' as a row of its own
(before, the acronym was left as written for every filer, and the question refused). Two typeset filings, one index."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_file, stated

from agent.config import Settings

SPELLED = """# Proseware Therapeutics Inc.

EXHIBIT 99.1

Proseware Therapeutics Reports Fiscal 2024 Results

### Revenues by Region

(In millions of U.S. dollars)

| | 2024 | 2023 |
|---|---|---|
| United States | 5,281 | 4,760 |
| Europe | 2,374 | 2,221 |
| Total revenues | 7,655 | 6,981 |
"""

ABBREVIATED = """# Fabrikam Containers Inc.

EXHIBIT 99.1

Fabrikam Containers Reports Fiscal 2024 Results

### Net Sales by Region

(Dollars in millions)

| | 2024 | 2023 |
|---|---|---|
| U.S. | 2,012 | 1,950 |
| International | 801 | 766 |
| Total net sales | 2,813 | 2,716 |
"""


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    folder = tmp_path_factory.mktemp("acronyms")
    for name, text in (("PROSEWARE_2024_PR.md", SPELLED), ("FABRIKAM_2024_PR.md", ABBREVIATED)):
        (folder / name).write_text(text, encoding="utf-8")
        settings = ingested_file(folder / "home", folder / name)
    return settings


def test_an_acronym_is_the_part_its_company_prints_in_full(index: Settings) -> None:
    answer = stated(ask_once(index, "What were Proseware's U.S. revenues in 2024?"))
    assert "$5,281 million" in answer and "7,655" not in answer, answer


def test_the_filer_printing_the_acronym_never_answers_with_its_total(index: Settings) -> None:
    # its own 'U.S.' row is not read yet (the plan takes no part 'U.S.'), so the question is refused, never answered
    # with the company's total
    answer = stated(ask_once(index, "What were Fabrikam's U.S. net sales in 2024?"))
    assert "2,813" not in answer, answer
