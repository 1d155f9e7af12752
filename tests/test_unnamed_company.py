"""A question that names no company over filings of several companies (issue 57: 'a plain question back when the
company is ambiguous'). Before, a words answer quoted one company's sentence and another's as one answer (a
FinanceBench question asked without its company was answered from two other filers' MD&A). Now an answer made
of several companies' filings is refused, asking which company; a company named, or one filer indexed, is
answered. The filings are typeset here. (Which one company's sentence an unnamed question over several filers
gets is still retrieval's choice: asking back on every unnamed question over several filers is a change of its
own to measure -- ConvFinQA's and FinanceBench's questions often name no company.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ask_once, ingested_typeset, stated, typed_evidence

from agent.config import Settings
from agent.ingest.pipeline import open_ingestor
from agent.query.names import question_names

FILING = """# {name}, Inc.

Annual Report on Form 10-K for the fiscal year ended December 31, 2024

## Item 7. Management's Discussion and Analysis

### Selling, general and administrative expenses

Selling, general and administrative expenses decreased as a percent of net sales in fiscal 2024, driven by
{driver}.

## Item 8. Financial Statements

### Consolidated Statements of Operations

| (in millions) | 2024 | 2023 |
|---|---|---|
| Net sales | {sales} | 6,980 |
| Net income | 371 | 352 |
"""
QUESTION = "What drove the reduction in SG&A expense as a percent of net sales in fiscal 2024?"


@pytest.fixture(scope="module")
def two_filers(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    folder = tmp_path_factory.mktemp("two-filers")
    settings = ingested_typeset(folder, "LITWARE_2024_10K.md", FILING.format(
        name="Litware", driver="lower marketing expenses and leverage of incentive compensation", sales="7,420"))
    other = folder / "PROSEWARE_2024_10K.md"
    other.write_text(FILING.format(name="Proseware", driver="lower occupancy costs and store closures",
                                   sales="5,110"), encoding="utf-8")
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(other).status == "ingested"
    return settings


def test_an_unnamed_question_is_never_answered_from_two_companies_filings(two_filers: Settings) -> None:
    out = ask_once(two_filers, QUESTION)
    answer = stated(out)
    quoted = {name for name in ("LITWARE", "PROSEWARE") if f"[{name}_2024_10K" in answer}
    assert len(quoted) <= 1 and ("which company is asked" in answer or quoted), out


def test_the_company_check_asks_which_company_when_the_citations_are_several_companies() -> None:
    from agent.answer.companies import check_company
    from agent.answer.reading import EvidenceReader
    from agent.answer.records import SubAnswer
    from agent.schemas import Citation

    evidence = [typed_evidence(chunk_id=f"{k}:1", doc_name=f"{name}_2024_10K", text="SG&A decreased.", company=name)
                for k, name in (("a", "LITWARE"), ("b", "PROSEWARE"))]
    cites = [Citation(doc=e.doc_name, page=1, chunk_id=e.chunk_id) for e in evidence]
    answer = SubAnswer(sub_query_id="q", question=QUESTION, status="text", answer="...", citations=cites)
    check = check_company(answer, EvidenceReader(evidence), ["LITWARE", "PROSEWARE"], question_names(QUESTION))
    assert not check.passed and "which company is asked" in check.detail
    one = answer.model_copy(update={"citations": cites[:1]})
    assert check_company(one, EvidenceReader(evidence), ["LITWARE", "PROSEWARE"], question_names(QUESTION)).passed


def test_the_company_named_is_answered_from_its_own_filing(two_filers: Settings) -> None:
    answer = stated(ask_once(two_filers, QUESTION.replace("SG&A expense", "Proseware's SG&A expense")))
    assert "occupancy" in answer and "marketing" not in answer


def test_one_filer_answers_without_its_name(tmp_path: Path) -> None:
    settings = ingested_typeset(tmp_path, "LITWARE_2024_10K.md", FILING.format(
        name="Litware", driver="lower marketing expenses and leverage of incentive compensation", sales="7,420"))
    assert "marketing" in stated(ask_once(settings, QUESTION))
