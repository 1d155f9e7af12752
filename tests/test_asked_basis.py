"""The basis a question asks (as reported, adjusted, at constant currency, organic) is one field of its plan, read
once from one vocabulary that also reads what a filing prints, and the gate states a figure only on that basis: a
growth asked at constant currency is never the growth of the two reported levels (it is read where a sentence
states it on that basis, or refused), a basis said of the whole turn holds for each of its lookups while one said
of a metric's name holds for that metric only, and a figure a filing states on another basis answers only a
question asking it. Typeset release."""

from __future__ import annotations

import pytest
from support import ask_once, ask_thread, ingested_typeset, stated

from agent.config import Settings
from agent.finance.basis import bases_in_series, bases_said, unmet_basis, without_bases
from agent.finance.numbers import find_numbers
from agent.query.decompose import decompose
from agent.query.intent import extract_intent
from agent.query.plan import QueryPlan
from agent.schemas import Basis

RELEASE = """# Norvanta Instruments Inc.

EXHIBIT 99.1

Norvanta Instruments Reports Third Quarter 2025 Results

Total revenues were $2,318 million, an increase of 12% as reported and 10% at constant exchange rates.

### Condensed Consolidated Statements of Operations

(In millions of U.S. dollars)

| | Q3 2025 | Q3 2024 |
|---|---|---|
| Total revenues | 2,318 | 2,070 |
| Cost of revenues | 1,102 | 1,015 |
| Operating income | 547 | 372 |
| Net income | 401 | 288 |

### Reconciliation of GAAP to Adjusted Net Income

(In millions of U.S. dollars)

| | Q3 2025 | Q3 2024 |
|---|---|---|
| Net income (GAAP) | 401 | 288 |
| Restructuring charges | 64 | 35 |
| Adjusted net income | 465 | 323 |

### Non-GAAP Reconciliation: Adjusted EBITDA

(In millions of U.S. dollars)

| | Q3 2025 | Q3 2024 |
|---|---|---|
| Operating income | 547 | 372 |
| Depreciation and amortization | 120 | 110 |
| Restructuring charges | 64 | 35 |
| Adjusted EBITDA | 731 | 517 |
"""

def _plan(question: str) -> QueryPlan:
    return decompose(question, extract_intent(question))


CC, ADJ, ORG, REP = Basis.CONSTANT_CURRENCY, Basis.ADJUSTED, Basis.ORGANIC, Basis.REPORTED


@pytest.mark.parametrize(("text", "bases"), [
    ("revenue growth at constant exchange rates", [CC]),
    ("% Change at CER", [CC]),
    ("sales growth, FX-neutral", [CC]),
    ("growth excluding the impact of foreign currency", [CC]),
    ("net sales ex-FX", [CC]),
    ("Adjusted EBITDA", [ADJ]),
    ("non-GAAP operating margin", [ADJ]),
    ("organic revenue growth", [ORG]),
    ("Diluted EPS (GAAP)", [REP]),
    ("Reconciliation of GAAP to Non-GAAP Net Income", [REP, ADJ]),
    ("Net income", []),
    ("the excluding restructuring charges operating margin", []),  # an amount left out is a figure of its own
])
def test_one_vocabulary_reads_the_basis_of_a_question_and_of_a_filings_words(text: str, bases: list[Basis]) -> None:
    assert bases_said(text) == bases


@pytest.mark.parametrize(("sentence", "bases"), [
    ("Revenue was $2.3 billion, an increase of 12% as reported and 10% at constant exchange rates.", [[], [REP], [CC]]),
    ("Sales grew 12%, or 10% at constant currency.", [[], [CC]]),
    ("On an organic basis sales grew 4%; as reported, 6%.", [[ORG], [REP]]),
    ("Reported revenue growth was 12% and constant-currency growth was 10%.", [None, None]),  # no side names all
])
def test_a_sentence_names_its_figures_bases_on_one_side(sentence: str, bases: list[list[Basis] | None]) -> None:
    spans = [(n.start, n.end) for n in find_numbers(sentence)]
    assert [bases_in_series(sentence, spans, i) for i in range(len(spans))] == bases


def test_what_a_basis_asks_of_a_figures_own_words() -> None:
    assert unmet_basis([CC], [], []) and unmet_basis([CC], [REP], [REP])  # the reported figure is no basis asked
    assert not unmet_basis([CC], [CC], [CC])
    assert unmet_basis([], [ADJ], [ADJ])  # an adjusted row answers only a question asking it
    assert not unmet_basis([], [REP, ADJ], [REP])  # 'Net income (GAAP)' under an adjusted reconciliation's title
    assert not unmet_basis([], [ADJ], [])  # a title alone: its rows may be either
    assert unmet_basis([ORG], [ADJ], [ADJ])  # adjusted is not organic
    assert without_bases("% Change at CER").split() == ["%", "Change"]


def test_a_basis_said_of_the_turn_holds_for_each_lookup_one_said_of_a_metric_for_that_metric() -> None:
    growth = _plan("What was Norvanta's total revenue growth in Q3 2025 at constant currency?")
    assert len(growth.sub_queries) == 2
    assert all(sq.intent.wording.basis == [CC] for sq in growth.sub_queries)
    assert not any("constant" in t.text for sq in growth.sub_queries for t in sq.intent.scope)  # no part
    two = _plan("What was Norvanta's adjusted net income and operating income in Q3 2025?")
    bases = {sq.metric: sq.intent.wording.basis for sq in two.sub_queries}
    assert bases == {"net income": [ADJ], "operating income": []}
    # said of a metric a lookup's formula computes it from, it holds for that lookup: never the reported EBIT
    ratio = _plan("What was Norvanta's interest coverage ratio using Q3 2025 adjusted EBIT as the numerator?")
    bases = {sq.metric: sq.intent.wording.basis for sq in ratio.sub_queries}
    assert bases["interest coverage ratio"] == [ADJ] and bases["ebit"] == [ADJ], bases


@pytest.fixture(scope="module")
def norvanta(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("norvanta"), "NORVANTA_2025Q3_PR.md", RELEASE)


@pytest.mark.parametrize("question", [
    "What was Norvanta's total revenue growth in Q3 2025 at constant currency?",
    "Norvanta revenue growth Q3 2025 ex-FX",
])
def test_a_growth_the_release_states_on_the_basis_asked_is_read_from_its_sentence(norvanta: Settings,
                                                                                  question: str) -> None:
    # '12% as reported and 10% at constant exchange rates': each figure's basis is on the side the sentence names it
    answer = stated(ask_once(norvanta, question))
    assert "as stated: 10%" in answer and "constant currency" in answer, answer
    assert "11.98" not in answer and "12%" not in answer, answer


@pytest.mark.parametrize("question", [
    "What was Norvanta's operating income growth at constant currency in Q3 2025?",
    "What was Norvanta's organic revenue growth in Q3 2025?",
])
def test_a_basis_the_reported_levels_do_not_have_is_never_computed_from_them(norvanta: Settings,
                                                                              question: str) -> None:
    answer = stated(ask_once(norvanta, question))
    assert answer.startswith("Not found"), answer
    assert "11.98" not in answer and "47.04" not in answer and "12%" not in answer, answer


def test_the_same_growth_asked_on_no_basis_is_computed(norvanta: Settings) -> None:
    assert "11.98%" in stated(ask_once(norvanta, "What was Norvanta's total revenue growth in Q3 2025?"))


def test_each_figure_is_read_on_its_own_basis(norvanta: Settings) -> None:
    adjusted = stated(ask_once(norvanta, "What was Norvanta's adjusted net income in Q3 2025?"))
    assert "$465 million" in adjusted, adjusted
    reported = stated(ask_once(norvanta, "What was Norvanta's net income in Q3 2025?"))
    assert "$401 million" in reported and "465" not in reported, reported
    both = stated(ask_once(norvanta, "What was Norvanta's adjusted net income and operating income in Q3 2025?"))
    assert "$465 million" in both and "$547 million" in both, both


def test_a_formula_is_computed_on_the_basis_asked(norvanta: Settings) -> None:
    # the filing's adjusted EBITDA is that figure, never the reported operating income plus depreciation
    adjusted = stated(ask_once(norvanta, "What was Norvanta's adjusted EBITDA in Q3 2025?"))
    assert "$731 million" in adjusted and "667" not in adjusted, adjusted
    # an adjusted margin divides the adjusted EBITDA by revenue, which is on no basis of its own
    margin = stated(ask_once(norvanta, "What was Norvanta's EBITDA margin on an adjusted basis in Q3 2025?"))
    assert "31.54%" in margin, margin
    # the reported EBITDA is computed from the statements, never read from the adjusted row
    reported = stated(ask_once(norvanta, "What was Norvanta's EBITDA margin in Q3 2025?"))
    assert "28.77%" in reported and "31.54" not in reported, reported


def test_a_follow_up_keeps_the_basis_its_words_ask_and_the_one_it_inherits(norvanta: Settings) -> None:
    # the rewrite writes the follow-up in English without 'adjusted'; the plan keeps the turn's basis, and a
    # follow-up that inherits the metric inherits its basis too, until a turn names its own metric
    first, adjusted, earlier, other = ask_thread(norvanta, [
        "What was Norvanta's total revenue growth in Q3 2025?",
        "what was its adjusted net income in Q3 2025?",
        "and in Q3 2024?",
        "what about operating income?",
    ])
    assert "11.98%" in first, first
    assert "$465 million" in stated(adjusted) and "401" not in stated(adjusted), adjusted
    assert "$323 million" in stated(earlier) and "288" not in stated(earlier), earlier
    assert "$372 million" in stated(other) and "adjusted" not in stated(other), other


def test_a_follow_up_naming_only_a_basis_asks_the_last_question_on_it(norvanta: Settings) -> None:
    # the growth asked again at constant exchange rates is the sentence's 10%, organic is refused, as reported the
    # growth computed from the levels: each basis replaces the last
    growth, constant, organic, reported = ask_thread(norvanta, [
        "What was Norvanta's total revenue growth in Q3 2025?",
        "and at constant exchange rates?",
        "what about on an organic basis?",
        "and as reported?",
    ])
    assert "11.98%" in growth, growth
    assert "as stated: 10%" in stated(constant), constant
    assert stated(organic).startswith("Not found") and "10%" not in stated(organic), organic
    assert "11.98%" in stated(reported), reported
