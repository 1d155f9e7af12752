"""Definitions a question writes win over the lexicon's: read into formulas and computed by them in code, or the
metric is refused when they cannot be read (never computed by another definition)."""

from __future__ import annotations

import pytest
from support import typed_evidence

from agent.answer.compose import answer_sub_query
from agent.answer.reading import EvidenceReader
from agent.finance.lexicon import metric_info
from agent.query.decompose import decompose
from agent.query.definitions import question_definitions, question_formulas
from agent.query.intent import extract_intent

DPO_BY_PURCHASES = (
    "What is Northwind's FY2024 days payable outstanding (DPO)? DPO is defined as: 365 * (average accounts payable "
    "between FY2023 and FY2024) / (FY2024 COGS + change in inventory between FY2023 and FY2024). Round your answer "
    "to two decimal places."
)
SCALE = "(in millions)"
STATEMENTS = "\n".join(
    [
        "Consolidated Balance Sheets | columns: 2024, 2023 | (in millions)",
        f"Inventories | 2024: 598 | 2023: 561 | {SCALE}",
        f"Accounts payable | 2024: 402 | 2023: 377 | {SCALE}",
        "Consolidated Statements of Operations | columns: 2024, 2023 | (in millions)",
        f"Revenue | 2024: $4,812 | 2023: $4,305 | {SCALE}",
        f"Cost of revenue | 2024: 2,695 | 2023: 2,453 | {SCALE}",
    ]
)


def test_a_written_definition_reads_into_a_formula_over_lexicon_metrics() -> None:
    (dpo,) = question_definitions(DPO_BY_PURCHASES)
    assert dpo.metric == "days payable outstanding"
    assert dpo.formula is not None
    assert dpo.formula.describe() == "365 * average accounts payable / (cost of goods sold + change in inventories)"
    formulas, unreadable = question_formulas(DPO_BY_PURCHASES)
    assert list(formulas) == ["days payable outstanding"] and unreadable == {}


@pytest.mark.parametrize(
    "question",
    [
        # finrag's own definitions, written out: nothing to override (a percent metric's x100 is presentation).
        "What is the FY2024 ROA? ROA is defined as: FY2024 net income / (average total assets between FY2023 and "
        "FY2024). Round your answer to two decimal places.",
        "What is the FY2024 inventory turnover ratio? Inventory turnover ratio is defined as: (FY2024 COGS) / "
        "(average inventory between FY2023 and FY2024).",
        "What is the FY2024 working capital ratio? Define working capital ratio as total current assets divided by "
        "total current liabilities.",
        "What is the FY2024 free cash flow? FCF here is defined as: (cash from operations - capex).",
    ],
)
def test_the_lexicons_own_definition_written_out_changes_nothing(question: str) -> None:
    definitions = question_definitions(question)
    assert definitions and all(d.formula is not None for d in definitions), definitions
    assert question_formulas(question) == ({}, {})


def test_a_nested_definition_overrides_only_the_component_it_changes() -> None:
    question = (
        "What is the FY2024 cash conversion cycle (CCC)? CCC is defined as: DIO + DSO - DPO. DIO is defined as: "
        "365 * (average inventory between FY2023 and FY2024) / (FY2024 COGS). DPO is defined as: 365 * (average "
        "accounts payable between FY2023 and FY2024) / (FY2024 COGS + change in inventory between FY2023 and "
        "FY2024). CCC is a metric of working capital efficiency."
    )
    formulas, _ = question_formulas(question)
    assert list(formulas) == ["days payable outstanding"]


def _answer(question: str, text: str) -> str:
    evidence = [typed_evidence(chunk_id="NW-c0", doc_name="NORTHWIND_2024_10K", text=text, company="Northwind", score=1.0)]
    intent = extract_intent(question, ["Northwind"])
    (sub_query,) = decompose(question, intent, ["Northwind"]).sub_queries
    return answer_sub_query(sub_query, evidence, EvidenceReader(evidence)).answer


def test_the_question_definition_is_computed_in_code_not_the_lexicons() -> None:
    answer = _answer(DPO_BY_PURCHASES, STATEMENTS)
    # 365 x (402 + 377) / 2 / (2,695 + (598 - 561)) = 52.0 days; finrag's own formula would give 52.7.
    expected = 365 * (402 + 377) / 2 / (2695 + (598 - 561))
    assert f"{expected:.1f} days" in answer, answer
    assert "(598 - 561)" in answer
    own = metric_info("days payable outstanding").formula
    assert own is not None and f"{365 * (402 + 377) / 2 / 2695:.1f}" not in answer


def test_a_change_term_without_the_prior_year_is_refused_not_dropped() -> None:
    current_only = STATEMENTS.replace(" | 2023: 561", "")
    answer = _answer(DPO_BY_PURCHASES, current_only)
    assert answer.startswith("Not found in the filings"), answer


def test_an_unreadable_definition_naming_other_inputs_is_refused() -> None:
    question = (
        "What is Northwind's FY2024 DPO? DPO is defined as: 365 * average accounts payable over COGS adjusted for "
        "inventory write-downs."
    )
    (dpo,) = question_definitions(question)
    assert dpo.formula is None and "inventories" in dpo.inputs
    answer = _answer(question, STATEMENTS)
    assert answer.startswith("Not found in the filings") and "in a way finrag cannot compute" in answer, answer


def test_a_formula_reads_numbers_words_and_operators_alike() -> None:
    (dpo,) = question_definitions(
        "What is the FY2024 DPO? DPO is defined as: 365 x average accounts payable / cost of goods sold."
    )
    assert dpo.formula is not None
    assert dpo.formula.describe() == "365 * average accounts payable / cost of goods sold"
    (unread,) = question_definitions("What is the FY2024 DPO? DPO is defined as: 10k / cost of goods sold.")
    assert unread.formula is None  # a number that runs into a word is no operand
