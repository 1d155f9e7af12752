"""A row stating its own scale and no currency ('Revenue passenger miles (millions)') counts something of its own:
its figure is never shown in dollars, though the lexicon reads 'revenue' in its name and SEC filings report money
in USD. The table's money rows keep their currency."""

from __future__ import annotations

from support import typed_evidence

from agent.answer.compose import answer_offline
from agent.finance.numbers import own_measure
from agent.query.decompose import decompose
from agent.query.intent import extract_intent

STATISTICS = """Operating results (in millions)
| | 2024 | 2023 |
|---|---|---|
| Passenger revenue | 8,488 | 7,950 |
| Revenue passenger miles (millions) | 44,180 | 41,905 |
"""


LUCERNE = "Lucerne Air Group, Inc."


def _answer(question: str) -> str:
    evidence = [typed_evidence(chunk_id="k0", doc_name="LUCERNE_2024_10K", text=STATISTICS, score=1.0,
                               company=LUCERNE)]
    return answer_offline(decompose(question, extract_intent(question, [LUCERNE])), evidence).text


def test_a_row_counting_its_own_measure_is_no_money() -> None:
    # the lexicon reads it as Lucerne's passenger revenue; the row's own scale says it counts miles
    answer = _answer("What were Lucerne's revenue passenger miles in 2024?")
    assert "44,180" in answer and "$44,180" not in answer, answer


def test_the_tables_money_rows_keep_their_currency() -> None:
    assert "$8,488" in _answer("What was Lucerne's passenger revenue in 2024?")


def test_own_measure_is_a_scale_without_a_currency() -> None:
    assert own_measure("Available seat miles (millions)")
    assert not own_measure("Revenue ($ millions)")
    assert not own_measure("Net sales")
