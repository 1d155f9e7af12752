"""The plan reads once what later stages used to re-read off the question's text (issue 57): the proper names a
question uses (each lookup's own, and the turn's, which hold for every lookup split from it), the statements it
names as its source, and whether it asks the latest period. The gate, the fact reader and retrieval read these
fields; a sub-query whose words were rewritten keeps them."""

from __future__ import annotations

from agent.answer.companies import check_company
from agent.answer.reading import Evidence, EvidenceReader
from agent.answer.records import SubAnswer
from agent.query.decompose import decompose
from agent.query.intent import extract_intent
from agent.retrieval.rerank import is_recency_sensitive
from agent.retrieval.statements import target_statements
from agent.schemas import Citation, NumericValue

COMPANIES = ["Contoso Ltd", "Fabrikam Inc"]


def test_each_lookup_keeps_its_own_names_and_the_turns() -> None:
    question = "What were Contoso's and Fabrikam's revenues in 2024, next to Globex's?"
    plan = decompose(question, extract_intent(question, COMPANIES), COMPANIES)
    assert plan.intent.names == ["Contoso", "Fabrikam", "Globex"]
    assert plan.sub_queries, plan
    for sq in plan.sub_queries:
        assert sq.turn_names == plan.intent.names  # the turn's names hold for every part of it
        assert sq.intent.names == [sq.company]  # its own words name its company only; 'Globex' is the turn's


def test_the_statement_a_question_relies_on_is_a_plan_field_retrieval_reads() -> None:
    intent = extract_intent("Relying on the statement of cash flows, what was Contoso's capex in FY2024?", COMPANIES)
    assert intent.statements == ["cash flow statement"]
    named, implied = target_statements(intent)
    assert named == {"cash flow statement"}
    # the question's words are not read again: a plan naming no statement names none, whatever its text says
    assert target_statements(intent.model_copy(update={"statements": []}))[0] == set()


def test_recency_is_the_plans_latest_period() -> None:
    assert is_recency_sensitive(extract_intent("What was Contoso's revenue in the most recent quarter?"))
    latest = extract_intent("What was Contoso's revenue in the most recent quarter?")
    assert not is_recency_sensitive(latest.model_copy(update={"temporal_scope": latest.temporal_scope.model_copy(
        update={"type": "point"})}))


def _answer() -> tuple[SubAnswer, EvidenceReader]:
    text = "Contoso Ltd reported revenue of $1,200 million for 2024."
    ev = Evidence(chunk_id="c:1", doc_name="CONTOSO_2024_10K", text=text, company="Contoso Ltd")
    value = NumericValue(text="$1,200 million", value=1.2e9, unit="USD", scale=1e6, start=30, end=44)
    cite = Citation(doc="CONTOSO_2024_10K", page=1, chunk_id="c:1", quote=text)
    answer = SubAnswer(sub_query_id="q", question="revenue", answer="$1,200 million", status="found",
                       metric="revenue", value=value, citation=cite, quote=text)
    return answer, EvidenceReader([ev])


def test_the_company_check_reads_the_names_the_plan_holds() -> None:
    answer, reader = _answer()
    # a name no indexed filing is and the evidence never mentions: the figure is not shown for it
    refused = check_company(answer, reader, ["Contoso Ltd"], ["Globex"])
    assert not refused.passed and "Globex" in refused.detail
    assert check_company(answer, reader, ["Contoso Ltd"], ["Contoso"]).passed


def test_a_figures_wording_is_read_into_the_plan_of_the_turn_and_of_each_lookup() -> None:
    # 'what were the ... in 2019' asks a figure though the lexicon names no metric in it; a passage's figure may
    # answer it. 'Describe ...' asks words.
    assert extract_intent("What were the accrued casualty costs in 2019?").figure_worded
    assert extract_intent("How much did Contoso pay in dividends?", COMPANIES).figure_worded
    assert not extract_intent("Describe Contoso's hedging policy.", COMPANIES).figure_worded
    question = "What were Contoso's and Fabrikam's revenues in 2024?"
    plan = decompose(question, extract_intent(question, COMPANIES), COMPANIES)
    assert plan.sub_queries and all(sq.intent.figure_worded for sq in plan.sub_queries)


def test_a_company_s_name_is_no_metric_s_words() -> None:
    """'Northwind International's revenue' asks the company's revenue, not an international revenue: the plan reads
    metrics with the names of known companies blanked."""
    known = ["Northwind International Inc.", "Fabrikam Capital Corp"]
    intent = extract_intent("What was Northwind International's revenue in 2024?", known)
    assert intent.company == "Northwind International Inc." and intent.metrics == ["revenue"]
    # the same words outside a name still name the metric they do
    assert extract_intent("What was Northwind International's international revenue in 2024?", known).metrics \
        != ["revenue"]
