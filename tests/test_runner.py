"""The evaluation runner on a tiny hand-written findata folder built from the sample filing.

FinanceBench asks three questions of the sample 10-K (stored as Markdown where the PDF would be); ConvFinQA has
one three-turn conversation over one page; TAT-QA has two questions over one table. Everything is ingested once
per module into a temporary home; no network, no model.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage
from scripted import ScriptedChatModel

from agent.config import Settings
from agent.errors import FinragError
from evals.datasets import doc_file_stem
from evals.metrics.answers import numeric_match
from evals.runner import (
    AnswerScores,
    EvalItem,
    GoldPage,
    Prediction,
    RunRecord,
    SourceDoc,
    failure_mode,
    load_eval_set,
    load_run,
    questions_set,
    run_answers,
    score_prediction,
    summarise,
    tatqa_gold,
    tatqa_markdown,
    write_run,
)
from graphs.service import CitationRef

SAMPLE = Path(__file__).resolve().parent.parent / "agent" / "samples" / "NORTHWIND_2024_10K.md"
DOC = "NORTHWIND_2024_10K"
PAGE_ID = "NWIN/2024/page_5.pdf"


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def write_findata(root: Path) -> Path:
    """A findata folder: FinanceBench over the sample filing, one ConvFinQA conversation, one TAT-QA table."""
    fb = root / "financebench"
    (fb / "docs" / "pdf").mkdir(parents=True, exist_ok=True)
    shutil.copy(SAMPLE, fb / "docs" / "pdf" / f"{DOC}.md")
    _jsonl(fb / "documents.jsonl", [{"doc_name": DOC, "company": "Northwind Instruments", "doc_type": "10k",
                                     "fiscal_period": "2024", "n_pages": 8, "available": True,
                                     "pdf_path": f"docs/pdf/{DOC}.md"}])

    def ev(page: int, text: str) -> list[dict]:
        return [{"doc": DOC, "page": page, "text": text}]

    _jsonl(fb / "questions.jsonl", [
        {"id": "fb-capex", "question": "What were Northwind Instruments' capital expenditures in FY2024 (in USD "
         "millions)?", "answer": "$437", "evidence": ev(6, "Purchases of property, plant and equipment (437)"),
         "doc_name": DOC, "company": "Northwind Instruments", "fiscal_period": 2024,
         "question_type": "metrics-generated", "doc_available": True},
        {"id": "fb-net-income", "question": "What was Northwind Instruments' net income in FY2023?",
         "answer": "$442 million", "evidence": ev(4, "Net income $570 $442 $333"), "doc_name": DOC,
         "company": "Northwind Instruments", "fiscal_period": 2023, "question_type": "metrics-generated",
         "doc_available": True},
        {"id": "fb-missing", "question": "What was Contoso's FY2020 revenue?", "answer": "$1 billion",
         "evidence": [], "doc_name": "CONTOSO_2020_10K", "question_type": "metrics-generated", "doc_available": False},
    ])
    _jsonl(root / "convfinqa" / "pages.jsonl", [{
        "doc_id": PAGE_ID, "company": "NWIN", "fiscal_period": "2024", "page": 5,
        "pre_text": "northwind instruments , inc . consolidated statements of operations ( in millions ) .",
        "table_markdown": "| | 2024 | 2023 | 2022 |\n|---|---|---|---|\n| revenue | 4812 | 4305 | 3978 |\n"
                          "| operating income | 758 | 622 | 506 |\n| net income | 570 | 442 | 333 |",
        "post_text": "revenue increased on higher volumes in industrial sensors ."}])
    turns = [{"turn": 0, "question": "what was the net income in 2024?", "answer": "570", "program": "570"},
             {"turn": 1, "question": "and in 2023?", "answer": "442", "program": "442"},
             {"turn": 2, "question": "what was the change?", "answer": "128", "program": "subtract(570, 442)"}]
    _jsonl(root / "convfinqa" / "conversations.jsonl", [{
        "id": "conv-1", "question": turns[-1]["question"], "answer": "128",
        "evidence": [{"doc": PAGE_ID, "page": 5, "text": "net income 570 442"}], "doc_name": PAGE_ID,
        "company": "NWIN", "fiscal_period": "2024", "question_type": "type1_single_finqa_question", "turns": turns,
        "split": "dev"}])
    _jsonl(root / "tatqa" / "contexts.jsonl", [{
        "doc_id": "ctx-1", "table": [],
        "table_markdown": "| (in millions) | 2024 | 2023 |\n|---|---|---|\n| Revenue | $4,812 | $4,305 |\n"
                          "| Operating income | 758 | 622 |",
        "paragraphs": [{"order": 2, "text": "Operating income grew on pricing actions."},
                       {"order": 1, "text": "Northwind Instruments reports results in millions of dollars."}]}])
    _jsonl(root / "tatqa" / "questions.jsonl", [
        {"id": "tq-1", "question": "What was the revenue in 2023?", "answer": ["$4,305"], "answer_type": "span",
         "answer_from": "table", "scale": "million", "derivation": "", "doc_name": "ctx-1",
         "question_type": "span/table"},
        {"id": "tq-2", "question": "What was the change in operating income from 2023 to 2024?", "answer": 136,
         "answer_type": "arithmetic", "answer_from": "table", "scale": "million", "derivation": "758-622",
         "doc_name": "ctx-1", "question_type": "arithmetic/table"}])
    return root


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, Path]:
    root = tmp_path_factory.mktemp("evals_runner")
    return Settings.from_env(home=root / "home"), write_findata(root / "findata")


@pytest.fixture(scope="module")
def runs(mini: tuple[Settings, Path]) -> dict[str, RunRecord]:
    """Each dataset run once through the graph (ingesting on first use)."""
    settings, data = mini
    return {ds: run_answers(settings, load_eval_set(settings, data, ds), progress=False)
            for ds in ("financebench", "convfinqa", "tatqa")}


# ---------------------------------------------------------------------------------------------------------
# Items
# ---------------------------------------------------------------------------------------------------------
def test_financebench_items_keep_available_filings_and_gold_pages(mini: tuple[Settings, Path]) -> None:
    settings, data = mini
    es = load_eval_set(settings, data, "financebench")
    assert [i.id for i in es.items] == ["fb-capex", "fb-net-income"]  # the missing filing is left out
    capex = es.items[0]
    assert capex.gold_pages == [GoldPage(doc=DOC, page=7)]  # 0-based 6 in the file, 1-based for citations
    assert capex.question_type == "metrics-generated" and capex.docs == [DOC]
    assert es.sources[DOC].path.name == f"{DOC}.md"
    assert [i.id for i in load_eval_set(settings, data, "financebench", limit=1).items] == ["fb-capex"]


def test_convfinqa_items_are_turns_of_one_conversation_over_a_markdown_page(mini: tuple[Settings, Path]) -> None:
    settings, data = mini
    es = load_eval_set(settings, data, "convfinqa")
    assert [(i.id, i.turn, i.gold) for i in es.items] == [("conv-1#t0", 0, "570"), ("conv-1#t1", 1, "442"),
                                                        ("conv-1#t2", 2, "128")]
    assert {i.conversation for i in es.items} == {"conv-1"}
    assert [i.question_type for i in es.items] == ["lookup", "lookup", "subtract"]
    source = es.sources[doc_file_stem(PAGE_ID)]
    text = source.path.read_text(encoding="utf-8")
    assert source.name == "NWIN_2024_page_5" and source.company == "NWIN" and source.period == "2024"
    assert text.index("consolidated statements") < text.index("| net income | 570") < text.index("higher volumes")


def test_tatqa_gold_and_context_markdown() -> None:
    assert tatqa_gold(["$4,305"], "million") == "$4,305 million"
    assert tatqa_gold(12.5, "percent") == "12.5%"
    assert tatqa_gold(["a", "b"], "") == "a, b"
    assert tatqa_gold(["2019", "2018"], "million") == "2019, 2018"  # multi-span: no scale glued to a list
    md = tatqa_markdown("| a | b |", [{"order": 2, "text": "second"}, {"order": 1, "text": "first"}])
    assert md == "| a | b |\n\nfirst\n\nsecond\n"


def test_questions_file_and_bad_input(tmp_path: Path, settings: Settings) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"question": "Capex 2024?", "answer": 437.0, "conversation": "c"}\n'
                    '{"question": "and 2023?", "conversation": "c"}\n', encoding="utf-8")
    es = questions_set(path)
    assert [(i.id, i.gold, i.turn) for i in es.items] == [("q1", "437", 0), ("q2", "", 1)]
    path.write_text('{"answer": "x"}\n', encoding="utf-8")
    with pytest.raises(FinragError, match=r"q.jsonl:1"):
        questions_set(path)
    with pytest.raises(FinragError, match="--questions"):
        load_eval_set(settings, None, "questions")
    with pytest.raises(FinragError, match="--limit"):
        load_eval_set(settings, tmp_path, "financebench", limit=0)
    with pytest.raises(FinragError, match="no 'financebench' folder"):
        load_eval_set(settings, tmp_path, "financebench")


# ---------------------------------------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------------------------------------
def test_scores_come_from_the_metrics_library() -> None:
    s = score_prediction("Capex in USD millions?", "Capex was $1.577 billion [X, p. 3].", "$1,577.00")
    assert s.correct and s.match_kind == "numeric" and not s.refusal and s.scored
    s = score_prediction("Q?", "Not found in the filings: nothing addresses capex.", "$437")
    assert not s.correct and s.refusal and s.token_f1 == 0.0
    s = score_prediction("Q?", "anything", "")
    assert not s.scored and s.match_reason == "no gold answer"


def _verdict(verdict: str) -> AIMessage:
    call = {"name": "CorrectnessVerdict", "args": {"verdict": verdict, "reason": "scripted"}, "id": "c1"}
    return AIMessage(content="", tool_calls=[call])


def test_llm_judge_runs_k_times_with_its_spread() -> None:
    judge = ScriptedChatModel(rules=[(("about 437",), [_verdict(v) for v in ("CORRECT", "CORRECT", "INCORRECT")])])
    s = score_prediction("Capex 2024?", "Capex was about 437.", "$437 million", judge_model=judge, judge_runs=3)
    assert s.judge_correct is True and s.judge_agreement == pytest.approx(2 / 3)
    assert judge.used == {0: 3}  # the one rule fired three times
    assert score_prediction("Capex 2024?", "437", "$437", judge_model=judge, judge_runs=0).judge_correct is None


def test_failure_modes_read_the_match_and_the_citations() -> None:
    item = EvalItem(id="x", dataset="d", question="q", gold="$437", gold_pages=[GoldPage(doc="A", page=7)])
    cited = Prediction(id="x", answer="$400 [A, p. 7]", citations=[CitationRef(doc="A", page=7)],
                       routes=["deep_retrieval"])
    wrong = AnswerScores(correct=False, match_kind="numeric", match_reason="gold '$437' not found")
    assert failure_mode(item, wrong, cited, True, True) == "wrong figure from the gold page"
    assert failure_mode(item, wrong, cited, True, False) == "wrong figure (gold page not cited)"
    assert failure_mode(item, wrong, cited, False, False) == "wrong document cited"
    market = Prediction(id="x", answer="Market data unavailable", routes=["market_tools"])
    assert failure_mode(item, wrong, market, False, False) == "routed to market_tools instead of the filings"
    refused = AnswerScores(correct=False, refusal=True, match_kind="refusal")
    assert failure_mode(item, refused, cited, True, True) == "answered 'not found'"
    assert failure_mode(item, AnswerScores(correct=True), cited, True, True) == ""
    assert failure_mode(item, wrong, Prediction(id="x", error="boom"), None, None) == "error"


# ---------------------------------------------------------------------------------------------------------
# Running the graph
# ---------------------------------------------------------------------------------------------------------
def test_financebench_run_scores_every_answer_and_records_cost(runs: dict[str, RunRecord]) -> None:
    record = runs["financebench"]
    assert [r.id for r in record.results] == ["fb-capex", "fb-net-income"]
    for r in record.results:
        # the stored score is the metrics library's verdict on the stored prediction
        assert r.scores.correct == numeric_match(r.prediction, r.gold, r.question).matched
        assert r.latency_s > 0 and r.timings["total"] == r.latency_s
        assert {"preprocess", "route", "answer"} <= set(r.timings)
        assert r.cost.wall_s == r.latency_s and r.cost.calls == 0 and r.cost.cost == 0.0
        assert "preprocess" in r.cost.nodes
    capex = record.results[0]
    assert capex.scores.correct and "437" in capex.prediction
    assert capex.cited_gold_doc is True and capex.citations[0].doc == DOC
    assert record.info.scope == "corpus" and record.info.model == "offline"
    assert record.info.name == "financebench-corpus-offline" and record.info.ingest_s > 0


def test_convfinqa_runs_turn_by_turn_on_one_thread(runs: dict[str, RunRecord]) -> None:
    record = runs["convfinqa"]
    assert record.info.scope == "document"
    assert len({r.thread_id for r in record.results}) == 1  # follow-ups see the conversation
    assert [r.turn for r in record.results] == [0, 1, 2]
    assert record.results[1].scores.correct  # "and in 2023?" resolved against turn 0
    assert record.results[1].rewritten and "2023" in record.results[1].rewritten
    assert all(r.cited_gold_doc for r in record.results if r.scores.correct)


def test_tatqa_run_in_document_scope(runs: dict[str, RunRecord]) -> None:
    record = runs["tatqa"]
    assert [r.gold for r in record.results] == ["$4,305 million", "136 million"]
    assert all(r.scores.correct for r in record.results)
    assert record.results[0].thread_id != record.results[1].thread_id  # lone questions: a thread each


def test_summary_and_run_directory_round_trip(runs: dict[str, RunRecord], tmp_path: Path) -> None:
    record = runs["convfinqa"]
    summary = write_run(record, tmp_path / "run")
    correct = sum(r.scores.correct for r in record.results)
    assert summary.overall.correct == correct and summary.overall.accuracy == pytest.approx(correct / 3)
    assert sum(g.scored for g in summary.by_question_type.values()) == 3
    assert summary.latency.n == 3 and summary.latency.p50 <= summary.latency.p95 <= summary.latency.max
    assert sum(summary.failure_modes.values()) == 3 - correct
    assert summary.metrics()["accuracy:lookup"] == summary.by_question_type["lookup"].accuracy
    loaded = load_run(tmp_path / "run")
    assert loaded == record
    assert summarise(loaded) == summary
    md = (tmp_path / "run" / "summary.md").read_text(encoding="utf-8")
    assert "| **all** | 3 |" in md and "## Latency" in md and "| preprocess |" in md
    with pytest.raises(FinragError, match="not a run directory"):
        load_run(tmp_path)


def test_a_bench_reingests_documents_of_another_pipeline_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from support import SAMPLE, ingested_sample

    from evals import retrieval_bench
    from evals.runner import ingest_missing

    settings = ingested_sample(tmp_path / "home")
    assert retrieval_bench.current_documents(settings) == {SAMPLE.stem}
    source = SourceDoc(name=SAMPLE.stem, path=SAMPLE)
    logged: list[str] = []
    assert ingest_missing(settings, [source], logged.append) == [] and not logged  # current: nothing to do
    monkeypatch.setattr(retrieval_bench, "PIPELINE_VERSION", "next")
    assert retrieval_bench.current_documents(settings) == set()  # stale: an older parser stored it
