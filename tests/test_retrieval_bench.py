"""The retrieval benchmark on a two-question split built around the sample filing; loaders on the real data."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent.config import Settings
from agent.errors import FinragError
from agent.ingest.parsing import load_pages
from evals.datasets import load_convfinqa, load_financebench, load_tatqa
from evals.metrics.retrieval import page_key
from evals.retrieval_bench import (
    bench_home,
    chunk_qrels,
    convfinqa_queries,
    financebench_queries,
    latency,
    render_markdown,
    run_benchmark,
    write_report,
)

DOC = "NORTHWIND_2024_10K"
QUESTIONS = [
    ("q-capex", "What were Northwind's purchases of property, plant and equipment in FY2024 (USD millions)? "
                "Use the cash flow statement.", "Purchases of property, plant and equipment"),
    ("q-tax", "What was Northwind's effective tax rate in 2024?", "The effective tax rate was 19.9%"),
]


@pytest.fixture(scope="module")
def split(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A findata-layout folder: two questions over the sample filing, gold pages found in its parsed pages."""
    root = tmp_path_factory.mktemp("findata")
    fb = root / "financebench"
    (fb / "docs" / "pdf").mkdir(parents=True)
    sample = Path(__file__).resolve().parent.parent / "agent" / "samples" / f"{DOC}.md"
    shutil.copy(sample, fb / "docs" / "pdf" / f"{DOC}.md")
    pages = load_pages(sample, Settings.from_env(env={})).pages
    lines = []
    for qid, question, phrase in QUESTIONS:
        page = next(p.page for p in pages if phrase in p.text)
        lines.append(json.dumps({"id": qid, "question": question, "answer": "", "doc_name": DOC, "company": "Northwind",
                                 "evidence": [{"doc": DOC, "page": str(page), "text": phrase}],
                                 "justification": None, "doc_available": True}))
    (fb / "questions.jsonl").write_text("\n".join(lines) + "\n")
    (fb / "documents.jsonl").write_text(json.dumps({"doc_name": DOC, "company": "Northwind", "n_pages": len(pages),
                                                    "pdf_path": f"docs/pdf/{DOC}.md", "available": True}) + "\n")
    return root


def test_bench_on_sample_split(split: Path, tmp_path: Path) -> None:
    settings = Settings.from_env(env={}, home=tmp_path / "home")
    lines: list[str] = []
    report = run_benchmark(settings, split, "financebench", ["bm25", "dense", "hybrid", "full", "full-no-cards"], k=5,
                           log=lines.append)
    assert report.n_queries == 2 and report.k == 5
    assert any("ingesting 1 documents" in line for line in lines)
    by = {s.system: s for s in report.systems}
    assert set(by) == {"bm25", "dense", "hybrid", "full", "full-no-cards"}
    for s in report.systems:
        for value in (*s.page.model_dump().values(), *s.chunk.model_dump().values()):
            assert 0.0 <= value <= 1.0
    assert by["full"].page.recall == 1.0 and by["full"].page.mrr >= 0.5
    assert by["full"].per_query_page["q-capex"].mrr == 1.0  # the cash flow statement page comes first
    assert set(by["full"].stage_latency) == {"candidates", "bundling", "screening", "bootstrap", "rerank", "select"}
    assert by["full"].candidate_sizes["candidates"] > 0 and not by["bm25"].stage_latency
    md = render_markdown(report)
    assert "| full |" in md and "## Page level" in md and "## Chunk level" in md and "## Deep pipeline stages" in md
    json_path, md_path = write_report(report, tmp_path / "out")
    assert json.loads(json_path.read_text())["dataset"] == "financebench" and md_path.read_text() == md
    # the index is cached per data directory: a second run ingests nothing
    again: list[str] = []
    run_benchmark(settings, split, "financebench", ["bm25"], k=5, log=again.append)
    assert not any("ingesting" in line for line in again)
    assert (bench_home(settings, split, "financebench") / "index").is_dir()


def test_bench_rejects_bad_arguments(split: Path, tmp_path: Path) -> None:
    settings = Settings.from_env(env={}, home=tmp_path / "home")
    with pytest.raises(FinragError, match="Unknown system"):
        run_benchmark(settings, split, "financebench", ["bm25", "magic"], log=lambda _: None)
    with pytest.raises(FinragError, match="Unknown dataset"):
        run_benchmark(settings, split, "nope", ["bm25"], log=lambda _: None)
    with pytest.raises(FinragError, match="no 'convfinqa' folder"):
        run_benchmark(settings, split, "convfinqa", ["bm25"], log=lambda _: None)


def test_latency_summary_and_chunk_qrels() -> None:
    lat = latency([0.1, 0.2, 0.3, 0.4])
    assert (lat.n, lat.p50_ms, lat.p95_ms, lat.mean_ms) == (4, 250.0, 400.0, 250.0)
    from agent.schemas import Chunk
    from evals.retrieval_bench import BenchQuery

    def chunk(cid: str, page: int, text: str) -> Chunk:
        return Chunk(chunk_id=cid, doc_id="d", ordinal=0, section_id=0, page=page, page_end=page, char_start=0,
                     char_end=1, text=text)

    q = BenchQuery(qid="q", question="?", doc="D", page_qrels={page_key("D", 3): 1.0},
                   snippets=[("D", 3, "Net sales were $1,577 million in 2018 and rose")])
    chunks = [chunk("a", 3, "net sales 1,577 2018"), chunk("b", 3, "unrelated words here entirely"),
              chunk("c", 4, "net sales 1,577 2018")]
    assert chunk_qrels(q, lambda doc: chunks) == {"a": 1.0}


def test_loaders_and_queries_on_real_data(findata: Path, tmp_path: Path) -> None:
    fb = load_financebench(findata)
    assert len(fb.questions) >= 50 and all(q.question for q in fb.questions)
    queries, pdfs = financebench_queries(findata, limit=2)
    assert len(queries) == 2 and all(q.page_qrels for q in queries) and pdfs and all(p.exists() for p in pdfs)
    assert all(isinstance(s[1], int) for q in queries for s in q.snippets)
    cv = load_convfinqa(findata)
    assert cv.conversations and cv.pages
    conv_queries, files = convfinqa_queries(findata, tmp_path / "src", limit=3)
    assert len(conv_queries) == 3 and len(files) == len(cv.pages)
    first = cv.conversations[0]
    assert conv_queries[0].question.endswith(first.question) and "\n" in conv_queries[0].question
    assert all(f.is_file() and f.suffix == ".md" for f, _ in files)
    tq = load_tatqa(findata)
    assert tq.questions and tq.contexts
