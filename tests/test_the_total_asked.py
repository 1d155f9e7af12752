"""A question naming nothing but 'the total' ('What was the total in 2017?', 'the change in the total from 2018 to
2019') asks the total row of the one table its evidence holds: ingest typed that row as the table's total. Over
evidence holding two tables that print a total, 'the total' names neither, and nothing is stated."""

from __future__ import annotations

from support import typed_evidence

from agent.answer.compose import answer_offline
from agent.query.decompose import decompose
from agent.query.intent import extract_intent

INCOME = """| | Year Ended | | |
|---|---|---|---|
| | 2019 | 2018 | 2017 |
| Domestic | $22,330 | $(55,197) | $(7,228) |
| Foreign | (48,204) | 8,550 | 9,824 |
| Total | $(25,874) | $(46,647) | $2,596 |
"""

HEDGES = """| | 2019 | 2018 |
|---|---|---|
| Commodity contracts | $45.4 | $41.4 |
| Foreign exchange contracts | (0.9) | (0.4) |
| Total | $44.5 | $41.0 |
"""


def _answer(question: str, *tables: str) -> str:
    evidence = [typed_evidence(chunk_id=f"k{i}", doc_name="D", text=t, score=1.0) for i, t in enumerate(tables)]
    return answer_offline(decompose(question, extract_intent(question, [])), evidence).text


def test_the_total_of_the_one_table_is_its_total_row() -> None:
    assert "$2,596" in _answer("What was the total in 2017?", INCOME)
    change = _answer("What was the change in the Total amount in 2019 from 2018?", HEDGES)
    assert "44.5 - 41 = 3.5" in change, change


def test_over_two_tables_with_totals_the_total_names_neither() -> None:
    answer = _answer("What was the total in 2018?", INCOME, HEDGES)
    assert answer.startswith("Not found") and "46,647" not in answer.split("Closest")[0], answer
