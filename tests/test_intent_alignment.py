"""Offline Query Intents and card-intent alignment (the FinCARDS Stage 2/3 judge)."""

from __future__ import annotations

import json
import random
import re
import statistics
from pathlib import Path

import pytest

from agent.ingest.cards import build_card
from agent.query.intent import extract_intent, find_form, find_ticker, guess_company, match_company
from agent.query.kind import points_at_filing
from agent.retrieval.alignment import BOILERPLATE_PENALTY, align, rank
from agent.schemas import Chunk, ChunkCard, DocumentMeta, QueryIntent, Relation, TemporalScope

KNOWN = [
    "3M", "American Water Works", "AMCOR", "Johnson & Johnson", "Coca-Cola Company",
    "MGM Resorts International", "PepsiCo", "AMERICANEXPRESS", "Adobe", "American Express Company",
    "Northwind Ridge Logistics Inc.",
]


# ---------------------------------------------------------------------------------------------------------
# Intent
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "metrics", "periods", "company", "numeric", "relation"),
    [
        (
            "What is the FY2018 capital expenditure amount (in USD millions) for 3M? Give a response to the "
            "question by relying on the details shown in the cash flow statement.",
            ["capital expenditure"], ["FY2018"], "3M", True, Relation.LOOKUP,
        ),
        (
            "What is Adobe's year-over-year change in unadjusted operating income from FY2015 to FY2016 (in "
            "units "
            "of percents and round to one decimal place)?",
            ["operating income"], ["FY2016", "FY2015"], "Adobe", True, Relation.COMPARISON,
        ),
        (
            "What is the FY2017 operating cash flow ratio for Adobe? Operating cash flow ratio is defined "
            "as: cash "
            "from operations / total current liabilities.",
            ["operating cash flow ratio", "cash from operations", "current liabilities"], ["FY2017"], "Adobe",
            True, Relation.LOOKUP,
        ),
        (
            "What drove operating margin change as of FY2022 for 3M? If operating margin is not a useful "
            "metric "
            "for a company like this, then please state that and explain why.",
            ["operating margin"], ["FY2022", "FY2021"], "3M", False, Relation.EXPLANATION,
        ),
        (
            "Does Adobe have an improving operating margin profile as of FY2022?",
            ["operating margin"], ["FY2022", "FY2021", "FY2020"], "Adobe", True, Relation.TREND,
        ),
        (
            "How much (in USD billions) did American Water Works pay out in cash dividends for FY2020?",
            ["dividends paid"], ["FY2020"], "American Water Works", True, Relation.LOOKUP,
        ),
        (
            "What is the FY2018 - FY2020 3 year average of capex as a % of revenue for MGM Resorts?",
            ["capital expenditure", "revenue"], ["FY2020", "FY2019", "FY2018"], "MGM Resorts International",
            True, Relation.TREND,
        ),
        (
            "Does 3M have a reasonably healthy liquidity profile based on its quick ratio for Q2 of FY2023?",
            ["liquidity", "quick ratio"], ["FY2023Q2"], "3M", True, Relation.LOOKUP,
        ),
        (
            "What is Coca Cola's FY2021 COGS % margin?",
            ["cost of goods sold margin"], ["FY2021"], "Coca-Cola Company", True, Relation.LOOKUP,
        ),
        (
            "What is the definition of free cash flow used by Johnson & Johnson?",
            ["free cash flow"], [], "Johnson & Johnson", False, Relation.DEFINITION,
        ),
        (
            "What is AMCOR's revenue recognition policy?",
            ["revenue recognition"], [], "AMCOR", False, Relation.POLICY,
        ),
        (
            # a request naming an amount, not a question: what it can ask of net income is the figures
            "Compare American Express net income in 2022 vs 2021.",
            ["net income"], ["FY2022", "FY2021"], "American Express Company", True, Relation.COMPARISON,
        ),
    ],
)
def test_intent_table(
    question: str, metrics: list[str], periods: list[str], company: str, numeric: bool, relation: Relation
) -> None:
    intent = extract_intent(question, KNOWN)
    assert intent.metrics == metrics
    assert intent.temporal_scope.periods == periods
    assert intent.company == company
    assert intent.requires_numeric is numeric
    assert intent.relation == relation
    assert intent.source == "offline"
    assert intent.question == question


def test_intent_details_for_a_lookup() -> None:
    intent = extract_intent("What is the FY2018 capital expenditure amount (in USD millions) for 3M?", ["3M"])
    assert intent.topic == "Cash Flow"
    assert intent.entities == ["3M"]
    assert intent.temporal_scope.type == "point"
    assert intent.temporal_scope.granularity == "year"
    assert intent.keywords == ["capital", "expenditure", "usd", "millions"]


def test_average_balances_and_changes_bring_the_prior_period() -> None:
    dpo = extract_intent("What is Amazon's FY2017 days payable outstanding (DPO)?")
    assert dpo.temporal_scope.periods == ["FY2017", "FY2016"]  # DPO averages payables over two year ends
    assert dpo.company == "Amazon"
    assert dpo.relation == Relation.LOOKUP
    assert dpo.temporal_scope.type == "range"


def test_relative_periods_and_quarters() -> None:
    latest = extract_intent("How did revenue change in the latest quarter?")
    assert latest.temporal_scope.type == "latest"
    assert latest.temporal_scope.granularity == "quarter"
    assert latest.temporal_scope.periods == []
    assert latest.relation == Relation.COMPARISON
    q = extract_intent(
        "For Pfizer, which geographic region had the biggest drop in Q22023 year over year revenues?"
    )
    assert q.temporal_scope.periods == ["FY2023Q2", "FY2022Q2"]
    assert q.temporal_scope.granularity == "quarter"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How much did american water works pay?", "American Water Works"),
        ("What is AmericanWaterWorks' capex?", "American Water Works"),
        ("Is Amcor profitable?", "AMCOR"),
        ("Johnson and Johnson's EPS?", "Johnson & Johnson"),
        ("Did 3M's sales grow?", "3M"),
        # one company under two spellings is one entity: the registry answers with one name for both
        ("What did American Express report?", "American Express Company"),
        ("Which region had the highest EBITDAR for MGM?", "MGM Resorts International"),
        ("What is the American economy doing?", ""),
        # a short form of the name's words: an unseen company must not need a hand-written alias
        ("Does AMEX have an improving operating margin?", "American Express Company"),
        ("What was NRL's capex?", "Northwind Ridge Logistics Inc."),
        ("What was NoRiLo's revenue?", "Northwind Ridge Logistics Inc."),
        ("What is the EPS and ROA of the company?", ""),  # metrics, not short forms of a name
        ("How did AMX do?", ""),  # 'x' is no leading letter of 'express'
    ],
)
def test_known_company_matching(question: str, expected: str) -> None:
    assert match_company(question, KNOWN) == expected


def test_company_guess_ticker_and_form() -> None:
    assert guess_company("What is Adobe's FY2022 revenue?") == "Adobe"
    assert guess_company("What is the FY2018 capex for 3M?") == "3M"
    assert guess_company("Does AMD have a healthy quick ratio?") == "AMD"
    assert find_ticker("What is Microsoft (MSFT) revenue?") == "MSFT"
    assert find_ticker("What is Amazon's days payable outstanding (DPO)?") == ""
    assert find_form("in its latest 10-K") == "10-K"
    assert find_form("according to the quarterly report") == "10-Q"
    assert find_form("in the Q1 earnings release") == "EARNINGS"
    assert find_form("What is the revenue?") == ""
    assert find_form("What did the proxy statement say about pay?") == "DEF 14A"
    assert find_form("the 10-Q and the annual report") == "10-K"  # a 10-K is preferred whichever comes first
    assert points_at_filing("What share price did the earnings release quote?")
    assert not points_at_filing("What is Adobe's share price?")


# ---------------------------------------------------------------------------------------------------------
# Alignment
# ---------------------------------------------------------------------------------------------------------
META = DocumentMeta(doc_id="d" * 64, name="3M_2018_10K", company="3M", fiscal_period="FY2018")
CAPEX_2018 = (
    "Consolidated Statement of Cash Flows | Years ended December 31 | columns: 2018, 2017 | (in millions)\n"
    "Purchases of property, plant and equipment (PP&E) | 2018: (1,577) | 2017: (1,373) | (in millions)\n"
    "Net cash used in investing activities | 2018: 222 | 2017: (3,086) | (in millions)"
)
CAPEX_2014 = (
    "Consolidated Statement of Cash Flows | Years ended December 31 | columns: 2014, 2013 | (in millions)\n"
    "Purchases of property, plant and equipment (PP&E) | 2014: (1,493) | 2013: (1,665) | (in millions)\n"
    "Net cash used in investing activities | 2014: (1,149) | 2013: (2,719) | (in millions)"
)
SAFE_HARBOR = (
    "This report contains forward-looking statements within the meaning of the Private Securities Litigation "
    "Reform Act of 1995, including statements about capital expenditures in 2018. Such statements involve "
    "risks "
    "and uncertainties that could cause actual results to differ materially. The Company undertakes no "
    "obligation "
    "to update any forward-looking statement, and investors should not place undue reliance on them."
)
INCOME_2018 = (
    "Consolidated Statement of Income | Years ended December 31 | columns: 2018, 2017 | (in millions)\n"
    "Net sales | 2018: 32,765 | 2017: 31,657 | (in millions)\n"
    "Cost of sales | 2018: 16,682 | 2017: 16,055 | (in millions)"
)
SGA_2018 = (
    "Consolidated Statement of Income | Years ended December 31 | columns: 2018, 2017 | (in millions)\n"
    "Selling, general and administrative expenses | 2018: 7,602 | 2017: 6,626 | (in millions)\n"
    "Research, development and related expenses | 2018: 1,821 | 2017: 1,870 | (in millions)"
)
WHY_MARGIN = (
    "Operating income margin decreased 1.2 percentage points in 2018 compared with 2017, primarily due to "
    "higher "
    "raw material costs and unfavorable foreign currency impacts, partially offset by selling price "
    "increases."
)


def _card(text: str, ordinal: int, is_table: bool = True, meta: DocumentMeta = META):  # noqa: ANN202
    chunk = Chunk(chunk_id=f"dddddddddddd:{ordinal}", doc_id="d" * 64, ordinal=ordinal, section_id=1,
                  section_path=["Item 8"], page=ordinal, page_end=ordinal, char_start=0, char_end=len(text),
                  text=text, is_table=is_table)
    return build_card(chunk, meta)


CAPEX_Q = "What is the FY2018 capital expenditure amount (in USD millions) for 3M?"


def test_matching_card_beats_wrong_period_beats_boilerplate() -> None:
    intent = extract_intent(CAPEX_Q, ["3M"])
    right, wrong_period = _card(CAPEX_2018, 1), _card(CAPEX_2014, 2)
    boiler = _card(SAFE_HARBOR, 3, is_table=False)
    a_right, a_wrong, a_boiler = align(right, intent), align(wrong_period, intent), align(boiler, intent)
    assert a_right.score > a_wrong.score > a_boiler.score
    assert [a.chunk_id for a in rank([boiler, wrong_period, right], intent)] == [
        right.chunk_id, wrong_period.chunk_id, boiler.chunk_id
    ]
    assert a_right.matched[:3] == [
        "metric matched: capital expenditure ~ Purchases of property, plant and equipment (PP&E)",
        "period matched: FY2018",
        "company matched: 3M",
    ]
    assert "table with period columns for numeric question" in a_right.matched
    assert a_right.components.metric == 1.0 and a_right.components.period == 1.0
    assert a_wrong.components.period == 0.0
    assert any(m.startswith("period mismatch: asked FY2018, card has FY2014") for m in a_wrong.matched)
    factor = 1 - BOILERPLATE_PENALTY * boiler.boilerplate
    assert f"boilerplate down-weighted (x{factor:.2f})" in a_boiler.matched
    assert a_boiler.components.boilerplate_factor == pytest.approx(factor)


def test_derived_metric_is_answered_by_its_components() -> None:
    intent = extract_intent("What is 3M's FY2018 gross margin?", ["3M"])
    with_parts, without = _card(INCOME_2018, 1), _card(SGA_2018, 2)
    a_parts, a_without = align(with_parts, intent), align(without, intent)
    assert a_parts.score > a_without.score
    assert "metric components: gross margin <- revenue, cost of goods sold (2/3)" in a_parts.matched
    assert a_parts.components.metric == pytest.approx(0.8 * 2 / 3)


def test_explanation_prefers_prose_and_numbers_prefer_tables() -> None:
    why = extract_intent("What drove operating margin change in 2018 for 3M?", ["3M"])
    prose = _card(WHY_MARGIN, 1, is_table=False)
    table = _card(INCOME_2018, 2)
    assert align(prose, why).score > align(table, why).score
    how_much = extract_intent("What was 3M's FY2018 net sales in USD millions?", ["3M"])
    assert align(table, how_much).score > align(prose, how_much).score


def test_other_company_and_scope() -> None:
    intent = extract_intent(CAPEX_Q, ["3M"])
    other = DocumentMeta(doc_id="e" * 64, name="ACME_2018_10K", company="Acme Corp")
    ours, theirs = _card(CAPEX_2018, 1), _card(CAPEX_2018, 2, meta=other)
    a_theirs = align(theirs, intent)
    assert align(ours, intent).score > a_theirs.score
    assert "company differs: asked 3M" in a_theirs.matched
    assert a_theirs.components.entity == 0.0


def test_alignment_is_deterministic_bounded_and_handles_an_empty_intent() -> None:
    intent = extract_intent(CAPEX_Q, ["3M"])
    card = _card(CAPEX_2018, 1)
    assert align(card, intent) == align(card, intent)
    empty = align(card, QueryIntent())
    assert 0.0 <= empty.score <= 1.0
    assert empty.components.metric is None and empty.components.period is None


def test_language_model_cards_with_other_names_still_align() -> None:
    card = ChunkCard(chunk_id="x:1", metrics=["capex", "Widget units"], periods=["FY2018"], source="llm")
    intent = QueryIntent(metrics=["capital expenditure", "widget units", "gizmo yield"],
                         temporal_scope=TemporalScope(periods=["FY2018"], type="point"))
    a = align(card, intent)
    assert a.matched[:3] == [
        "metric matched: capital expenditure", "metric matched: widget units", "metric missing: gizmo yield"
    ]
    assert a.components.metric == pytest.approx(2 / 3)


@pytest.mark.slow
def test_gold_pages_outscore_other_pages_on_financebench(findata: Path) -> None:
    """Sanity benchmark: the best card on a gold evidence page beats the median of 20 random other pages."""
    root = findata / "financebench"
    docs = {d["doc_name"]: d for d in map(json.loads, (root / "documents.jsonl").open())}
    known = sorted({d["company"] for d in docs.values()})
    rng = random.Random(13)
    wins = total = 0
    for q in map(json.loads, (root / "questions.jsonl").open()):
        if not q.get("doc_available"):
            continue
        doc = q["doc_name"]
        lines = (root / "docs" / "text" / f"{doc}.jsonl").open()
        pages = {p["page"]: p["text"] for p in map(json.loads, lines)}
        gold = {e["page"] for e in q["evidence"] if e["doc"] == doc}
        others = rng.sample([p for p in pages if p not in gold], min(20, len(pages) - len(gold)))
        meta = DocumentMeta(doc_id=doc, name=doc, company=docs[doc]["company"])
        intent = extract_intent(q["question"], known)

        def best(
            page: int, text: str, doc: str = doc, meta: DocumentMeta = meta, intent: QueryIntent = intent
        ) -> float:
            words = list(re.finditer(r"\S+", text))
            scores = [0.0]
            for k in range(0, len(words), 250):
                w = words[k:k + 250]
                chunk = Chunk(chunk_id=f"{doc}:{page}:{k}", doc_id=doc, ordinal=k, section_id=0, page=page,
                              page_end=page, char_start=w[0].start(), char_end=w[-1].end(),
                              text=text[w[0].start():w[-1].end()])
                scores.append(align(build_card(chunk, meta), intent).score)
            return max(scores)

        gold_best = max(best(p, pages[p]) for p in gold)
        wins += gold_best > statistics.median(best(p, pages[p]) for p in others)
        total += 1
    assert total >= 80
    assert wins / total >= 0.9  # measured 0.96 (81/84) when written


def test_the_part_a_plan_asks_is_aligned_like_a_named_entity() -> None:
    # the plan's part ('Commercial Airplanes' of its revenue) is no entity the question lists, but a card that names it
    # answers the part and one that does not is the company's or another part's
    intent = extract_intent("What was Contoso's Commercial Airplanes revenue in 2022?", ["Contoso"])
    assert [t.text for t in intent.scope] == ["commercial airplanes"]
    segment = ChunkCard(chunk_id="x:1", metrics=["revenue"], periods=["FY2022"], entities=["Contoso"],
                        summary="Revenues: Commercial Airplanes 25,867; Defense, Space & Security 23,162")
    company = ChunkCard(chunk_id="x:2", metrics=["revenue"], periods=["FY2022"], entities=["Contoso"],
                        summary="Total revenues 66,608")
    assert "scope matched: commercial airplanes" in align(segment, intent).matched
    assert align(segment, intent).score > align(company, intent).score
