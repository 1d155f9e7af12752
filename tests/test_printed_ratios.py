"""A ratio the filing prints is stated as printed, not recomputed from its components: 'Gross margin (%) | 72.0' is
72.0%, a percentage because its row says so; a footnote digit glued to a label ('margin2') does not hide the metric
(typeset filing)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.config import Settings

FILING = """# Litware Instruments plc

Annual Report and Accounts for the fiscal year ended December 31, 2024

## Strategic report

### Financial highlights

| $ million | 2024 | 2023 | Change (%) |
|---|---|---|---|
| Revenue | 612.4 | 580.1 | 5.6 |
| Gross profit | 441.0 | 409.3 | 7.7 |
| Gross margin (%) | 72.0 | 70.6 | 1.4 |
| Adjusted operating margin2 (%) | 19.1 | 17.0 | 2.1 |
| Effective tax rate3 (%) | 14.2 | 16.8 | (2.6) |
"""


@pytest.fixture(scope="module")
def litware(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("litware"), "LITWARE_2024_AR.md", FILING)


@pytest.mark.parametrize(("question", "figure"), [
    # computed from its components it would be 72.01% (441.0 / 612.4): the filing's own figure is stated
    ("What was Litware's gross margin in 2024?", "72.00%"),
    ("In which year was Litware's gross margin higher?", "2024"),
    ("What was the change in the adjusted operating margin from 2023 to 2024?", "2.10 pp"),
    # split into a lookup a year, each keeps 'adjusted' with the company's name before it
    ("What was the change in Litware's adjusted operating margin from 2023 to 2024?", "2.10 pp"),
    ("What was Litware's effective tax rate in 2023?", "16.80%"),
])
def test_a_printed_ratio_is_stated_as_printed(litware: Settings, question: str, figure: str) -> None:
    out = ask_once(litware, question)
    assert figure in out and not out.startswith("Not found"), out
    assert "computed: 441" not in out, out
