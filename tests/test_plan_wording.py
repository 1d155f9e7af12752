"""The question's wording is read once, into the plan (``QueryIntent.wording``): the composer, the row reader, the
gate and the cell and passage readers take it from there, and a model that fills the rest of the intent is never
asked for it."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from scripted import ScriptedChatModel

from agent.index.store import Store
from agent.query.decompose import decompose
from agent.query.intent import extract_intent
from agent.retrieval import DeepRetriever
from agent.schemas import QueryIntent


def wording(question: str) -> dict[str, Any]:
    return extract_intent(question).wording.model_dump(exclude_defaults=True)


def test_a_typed_number_is_arithmetic_not_words_the_figure_must_print() -> None:
    question = "What is the value of the Contoso index in 2021 less an initial investment of $100?"
    read = wording(question)
    assert read["typed"] == {"op": "less", "number": "100", "start": question.index("less")}
    assert "investment" not in read["words"] and "initial" not in read["words"]
    assert {"contoso", "index"} <= set(read["words"])


def test_a_threshold_and_its_bound_are_typed() -> None:
    read = wording("In which years did Fabrikam's net sales exceed $3,000 million?")
    assert read["threshold"]["comparison"] == ">"
    assert read["threshold"]["bound"]["value"] == 3000


def test_a_share_names_its_part_and_whole() -> None:
    read = wording("What was freight expense as a percentage of 2023 net revenue?")
    assert read["share"] == {"part": "freight expense", "whole": "2023 net revenue", "percent": True}
    assert read["as_share"] is True


def test_the_span_ranking_and_direction_the_words_ask() -> None:
    read = wording("Which year had the largest net loss over the past three years?")
    assert read["counted_years"] == 3
    assert read["contrary"] == {"net income": "net loss"}
    assert read.get("lowest", False) is False and read["by_size"] is True
    # what the words ask of a net-income figure beside its name and the span: the row must not name more
    assert "net" not in read["beside"]["net income"] and "three" not in read["beside"]["net income"]


def test_a_choice_names_the_kind_of_item_and_a_schedule_its_cue() -> None:
    assert wording("Which region had the highest revenue in 2024?")["item_kind"] == "region"
    assert wording("How much long-term debt is due in 2027?")["schedule"] is True
    assert wording("What were the quarterly dividends per share in 2024?")["per_unit"] is True


def test_each_lookup_reads_its_own_words() -> None:
    question = "What was Northwind's revenue in 2023 and its net loss in 2024?"
    plan = decompose(question, extract_intent(question))
    contrary = {sq.metric: sq.intent.wording.contrary for sq in plan.sub_queries}
    assert contrary.get("net income") == {"net income": "net loss"}
    assert contrary.get("revenue") == {}


def test_the_model_is_never_asked_for_the_wording() -> None:
    schema = json.dumps(convert_to_openai_tool(QueryIntent))
    assert "wording" not in schema and "beside" not in schema


def test_a_models_intent_gets_the_wording_from_code(sample_store: Store) -> None:
    question = "Which year had Northwind's lowest capital expenditure over the past three years?"
    args = {"question": question, "metrics": ["capital expenditure"], "relation": "trend", "company": "Northwind",
            "requires_numeric": True, "source": "llm"}
    model = ScriptedChatModel(rules=[(("Call the QueryIntent function",), AIMessage(
        content="", tool_calls=[{"name": "QueryIntent", "args": args, "id": "call-1"}]))])
    retriever = DeepRetriever(sample_store.settings, sample_store, chat_model=model)
    intent, source, _ = retriever.stage_intent(question)
    assert source == "llm" and intent.metrics == ["capital expenditure"]
    assert intent.wording == extract_intent(question).wording
    assert intent.wording.counted_years == 3 and intent.wording.lowest
