"""What a row does in its table is typed once at ingest, from the whole table (issue 58): a line of operating
expenses (below revenue, above operating income) and a gain a reconciliation deducts. The reader and the gate read
the role; a table split over chunks keeps it on rows whose chunk holds neither the revenue nor the operating income
row. The filing is typeset here."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.index.store import Store
from agent.ingest.row_roles import row_roles
from agent.schemas import TableLine

pytestmark = pytest.mark.usefixtures("no_yfinance")

EXPENSE_LINES = [f"Cartage item {n}" for n in range(1, 41)]  # enough rows to split the table over chunks

FILING = f"""# Osprey Freight Holdings, Inc.

ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2024

## Item 7. Management's Discussion and Analysis

Consolidated results of operations (in millions):

| | 2024 | 2023 |
|---|---|---|
| Operating revenues | 4,210.5 | 3,980.2 |
| Purchased transportation | 1,118.3 | 1,046.1 |
| Salaries, wages and benefits | 1,402.7 | 1,351.0 |
{chr(10).join(f"| {name} | {n}.0 | {n + 1}.0 |" for n, name in enumerate(EXPENSE_LINES, 10))}
| Operating income | 402.9 | 377.4 |
| Interest expense | 41.2 | 39.8 |

## Reconciliation of Adjusted EBITDA

Reconciliation of net income to adjusted EBITDA (in millions):

| | 2024 | 2023 |
|---|---|---|
| Net income | 280.1 | 262.4 |
| Depreciation and amortization | 190.4 | 181.0 |
| Gain on sale of terminals | (15.8) | (2.1) |
| Adjusted EBITDA | 454.7 | 441.3 |
"""


@pytest.fixture(scope="module")
def osprey(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("osprey"), "OSPREY_2024_10K.md", FILING)


def _roles(settings: Settings) -> dict[str, tuple[str, int]]:
    """Each typed row's role, with how many table chunks the row's table was split into."""
    with Store.open(settings) as store:
        records = [c.table for c in store.chunks() if c.table is not None]
    chunks_of = {r.table_id: sum(1 for s in records if s.table_id == r.table_id) for r in records}
    return {row.label: (row.role, chunks_of[r.table_id]) for r in records for row in r.rows}


def test_lines_between_revenue_and_operating_income_are_expenses_in_every_chunk(osprey: Settings) -> None:
    roles = _roles(osprey)
    assert roles["Cartage item 40"][1] > 1  # the table is split: its last lines share no chunk with revenue
    assert all(roles[name][0] == "expense" for name in ["Purchased transportation", *EXPENSE_LINES])
    assert roles["Salaries, wages and benefits"][0] == ""  # a line naming a metric of its own is that metric
    assert roles["Operating revenues"][0] == roles["Operating income"][0] == roles["Interest expense"][0] == ""


def test_a_gain_a_reconciliation_deducts_is_typed_and_stated_as_the_gain(osprey: Settings) -> None:
    roles = _roles(osprey)
    assert roles["Gain on sale of terminals"][0] == "deducted_gain"
    assert roles["Depreciation and amortization"][0] == ""
    answer = ask_once(osprey, "What was Osprey's gain on sale of terminals in 2024?")
    assert "15.8" in stated(answer) and "-15.8" not in stated(answer) and "(15.8)" not in stated(answer)


def test_an_expense_line_answers_for_its_cost(osprey: Settings) -> None:
    assert "1,118.3" in stated(ask_once(osprey, "What were Osprey's purchased transportation costs in 2024?"))


@pytest.mark.parametrize(("labels", "title", "roles"), [
    (["Revenue", "Fuel", "Operating income"], "", ["", "expense", ""]),
    (["Fuel", "Revenue", "Operating income"], "", ["", "", ""]),  # above revenue: no line it is reduced by
    (["Revenue", "Fuel"], "", ["", ""]),  # no operating income closes the lines
    (["Gain (loss) on sale", "Gains on investments"], "Reconciliation to adjusted EBITDA", ["", "deducted_gain"]),
    (["Gains on investments"], "Other income", [""]),  # no reconciliation: the row's sign is its own
])
def test_row_roles_by_place_and_title(labels: list[str], title: str, roles: list[str]) -> None:
    typed = row_roles([TableLine(label=label) for label in labels], title, [])
    assert [r.role for r in typed] == roles


def test_a_record_stored_before_roles_reads_as_having_none() -> None:
    assert TableLine.model_validate({"label": "Fuel"}).role == ""


def test_an_expense_line_in_a_later_chunk_of_its_table_answers_for_its_cost(osprey: Settings) -> None:
    # its chunk holds neither the revenue nor the operating income row: only the whole table says it is a cost
    assert "49.0" in stated(ask_once(osprey, "What were Osprey's cartage item 40 costs in 2024?"))
