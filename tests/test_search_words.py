"""Retrieval ranks a company's own filings by the plan's search words: the question's, the company's name written
without its legal form (the words its filings print of it), so a ticker, a short name and a legal name find the
same pages."""

from __future__ import annotations

import pytest

from agent.entities import EntityRegistry
from agent.index.store import Store
from agent.query.decompose import decompose
from agent.query.intent import extract_intent
from agent.retrieval import DeepRetriever
from agent.schemas import DocumentMeta


def registry() -> EntityRegistry:
    known = EntityRegistry.of([])
    known.attach(DocumentMeta(doc_id="", name="", company="Wingtip Water Works Company, Inc.", ticker="WWW",
                              company_source="cover"))
    return known


@pytest.mark.parametrize("written", ["WWW", "Wingtip Water Works", "Wingtip Water Works Company, Inc."])
def test_every_name_of_the_company_leaves_the_same_search_words(written: str) -> None:
    # a ticker is written as the registry's name before the question is read (agent/query/utterance.py)
    question = registry().with_names_for_tickers(f"How much did {written} pay out in cash dividends in FY2020?")
    intent = extract_intent(question, registry())
    assert intent.company == "Wingtip Water Works Company, Inc."
    assert (intent.search or question) == "How much did Wingtip Water Works pay out in cash dividends in FY2020?"


def test_a_question_naming_no_company_is_searched_as_asked() -> None:
    assert extract_intent("How much was paid out in cash dividends in FY2020?", registry()).search == ""


def test_each_lookup_is_searched_by_its_company_s_own_words() -> None:
    question = "What were Wingtip Water Works Company, Inc.'s cash dividends in FY2020 and FY2021?"
    plan = decompose(question, extract_intent(question, registry()), registry())
    assert plan.sub_queries and all("Wingtip Water Works" in sq.intent.search and "Inc" not in sq.intent.search
                                    and "dividends" in sq.intent.search for sq in plan.sub_queries)


def test_the_company_s_filings_are_ranked_by_the_search_words(sample_store: Store) -> None:
    retriever = DeepRetriever(sample_store.settings, sample_store, chat_model=None)
    question = "What were Northwind Instruments, Inc.'s purchases of property, plant and equipment in 2024?"
    result = retriever.retrieve(question)
    notes = result.trace.stage("candidates").notes
    assert "searched the company's filings by its name without its legal form: What were Northwind Instruments's " \
           "purchases of property, plant and equipment in 2024?" in notes
    assert any("Purchases of property, plant and equipment" in h.chunk.text for h in result.selected)
