"""Retrieval benchmark: BM25, dense, hybrid and deep retrieval (with ablations) side by side, FinCARDS style.

``finrag eval retrieval --data DIR`` scores any split in the findata layout:

* **FinanceBench** (intra-document): each question is asked of its own filing; gold evidence is page-level.
  The filings are ingested once into a bench index cached under ``<home>/bench/financebench-<data-dir hash>``.
* **ConvFinQA** (corpus-wide): the last turn of each conversation, with the earlier questions as context, is
  asked over the whole page corpus (every report page is ingested as one small document).

Per system it reports page- and chunk-level nDCG@k, MAP@k, MRR@k, Recall@k and FinSage's normalised recall
(``evals.metrics.retrieval``), per-question latency (p50/p95, and on long filings), per-stage latency and
candidate-set sizes of the deep pipeline, as JSON and a Markdown table. Chunk-level qrels: a chunk is relevant
when it lies on a gold page and shares at least half the words of the shorter of it and the gold snippet.
"""

from __future__ import annotations

import hashlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field

from agent.config import Settings
from agent.errors import FinragError
from agent.index.tokenize import tokenize
from agent.ingest.pipeline import PIPELINE_VERSION, MetadataOverrides, open_ingestor
from agent.retrieval.options import ALL_PATHS, RetrievalOptions
from agent.retrieval.pipeline import DeepRetriever
from agent.schemas import SearchHit
from evals.datasets import doc_file_stem, load_convfinqa, load_financebench, write_if_changed
from evals.metrics.retrieval import QueryScores, evaluate_run, page_key, rank_pages_from_hits

DATASETS = ("financebench", "convfinqa")
SYSTEMS = ("bm25", "dense", "hybrid", "full", "full-no-cards", "full-no-bootstrap", "full-no-ce")
BASELINE_DEPTH = 100  # chunks a baseline ranks: enough distinct pages to fill any k <= 20
CHUNK_SNIPPET_OVERLAP = 0.5  # a gold-page chunk is relevant when half the words of the shorter of the two are shared
LONG_FILING_PAGES = 250  # "a 300-page filing": latency is also reported on filings at least this long
STAGES = ("candidates", "bundling", "screening", "bootstrap", "rerank", "select")
PROGRESS_EVERY = 10  # questions between progress lines

ABLATIONS: dict[str, RetrievalOptions] = {
    "full": RetrievalOptions(),
    "full-no-cards": RetrievalOptions(use_cards=False, paths=[p for p in ALL_PATHS if p != "cards"]),
    "full-no-bootstrap": RetrievalOptions(use_bootstrap=False),
    "full-no-ce": RetrievalOptions(use_cross_encoder=False),
}


# ---------------------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------------------
class BenchQuery(BaseModel):
    """One benchmark question: what is asked, over which documents, and its gold evidence."""

    qid: str
    question: str
    doc: str | None = Field(default=None, description="the one document searched (intra-document), else the corpus")
    page_qrels: dict[str, float]
    snippets: list[tuple[str, int, str]] = Field(default_factory=list, description="(doc, 0-based page, text)")
    n_pages: int = 0


class Latency(BaseModel):
    """Latency distribution in milliseconds."""

    n: int = 0
    p50_ms: float = 0.0
    p95_ms: float = 0.0
    mean_ms: float = 0.0


class SystemReport(BaseModel):
    """One system's scores, latency and (deep pipeline) stage profile."""

    system: str
    page: QueryScores
    chunk: QueryScores
    latency: Latency
    latency_long: Latency = Field(default_factory=Latency, description=f"filings >= {LONG_FILING_PAGES} pages")
    stage_latency: dict[str, Latency] = Field(default_factory=dict)
    candidate_sizes: dict[str, float] = Field(default_factory=dict, description="mean candidates out per stage")
    per_query_page: dict[str, QueryScores] = Field(default_factory=dict)


class BenchReport(BaseModel):
    """A whole benchmark run."""

    dataset: str
    data_dir: str
    k: int
    n_queries: int
    systems: list[SystemReport]
    index_dir: str
    created: str
    query_encoding: Latency = Field(default_factory=Latency, description="question embedding, excluded above")
    notes: list[str] = Field(default_factory=list)
    settings: dict[str, str] = Field(default_factory=dict)


# ---------------------------------------------------------------------------------------------------------
# Index preparation (cached per data directory)
# ---------------------------------------------------------------------------------------------------------
def bench_home(settings: Settings, data_dir: Path, dataset: str) -> Path:
    """Where the bench index of one dataset of one data directory lives (stable across runs)."""
    key = hashlib.sha256(str(Path(data_dir).expanduser().resolve()).encode()).hexdigest()[:12]
    return settings.home / "bench" / f"{dataset}-{key}"


def current_documents(settings: Settings) -> set[str]:
    """Names of the bench index's documents stored by this ingestion pipeline version (others are stale:
    a bench must re-ingest them, or it would measure an older parser)."""
    from agent.index.store import Store

    with Store.open(settings) as store:
        return {d.name for d in store.list_documents() if d.pipeline_version == PIPELINE_VERSION}


def _ingest(settings: Settings, files: list[tuple[Path, MetadataOverrides]], log: Callable[[str], None]) -> list[str]:
    """Ingest the files not yet (or not currently) in the bench index; returns failure notes."""
    present = current_documents(settings)
    todo = [(p, o) for p, o in files if p.stem not in present]
    notes: list[str] = []
    if not todo:
        return notes
    log(f"ingesting {len(todo)} documents into {settings.index_dir} (cached for later runs)")
    with open_ingestor(settings) as ingestor:
        for i, (path, overrides) in enumerate(todo, 1):
            report = ingestor.ingest_file(path, overrides)
            if report.status == "failed":
                notes.append(f"ingest failed: {path.name}: {report.error}")
            log(f"  [{i}/{len(todo)}] {report.status} {report.name} ({report.pages} pages, {report.seconds:.0f} s)")
    return notes


def financebench_queries(data_dir: Path, limit: int | None = None) -> tuple[list[BenchQuery], list[Path]]:
    """Answerable FinanceBench questions as bench queries, and the PDFs they need."""
    fb = load_financebench(data_dir)
    queries: list[BenchQuery] = []
    for q in fb.answerable():
        gold = [e for e in q.evidence if e.page is not None]
        queries.append(BenchQuery(
            qid=q.id, question=q.question, doc=q.doc_name,
            page_qrels={page_key(e.doc, e.page): 1.0 for e in gold if e.page is not None},
            snippets=[(e.doc, e.page, e.text or e.full_page_text) for e in gold if e.page is not None],
            n_pages=fb.documents[q.doc_name].n_pages,
        ))
    queries = queries[:limit] if limit else queries
    needed = dict.fromkeys(d for q in queries for d in [q.doc, *(s[0] for s in q.snippets)] if d)
    return queries, [fb.pdf(d) for d in needed if d in fb.documents and fb.documents[d].available]


def convfinqa_queries(data_dir: Path, source_dir: Path, limit: int | None = None
                      ) -> tuple[list[BenchQuery], list[tuple[Path, MetadataOverrides]]]:
    """ConvFinQA last turns (with the conversation) as corpus-wide queries; every page written as Markdown."""
    cv = load_convfinqa(data_dir)
    source_dir.mkdir(parents=True, exist_ok=True)
    files: list[tuple[Path, MetadataOverrides]] = []
    for page in cv.pages.values():
        path = source_dir / f"{doc_file_stem(page.doc_id)}.md"
        write_if_changed(path, page.markdown())
        files.append((path, MetadataOverrides(company=page.company, period=page.fiscal_period)))
    queries = []
    for conv in cv.conversations:
        gold = [e for e in conv.evidence if e.doc in cv.pages]
        if not gold:
            continue
        question = "\n".join([*conv.history(), conv.question])
        queries.append(BenchQuery(
            qid=conv.id, question=question, doc=None,
            page_qrels={page_key(doc_file_stem(e.doc), 0): 1.0 for e in gold},
            snippets=[(doc_file_stem(e.doc), 0, e.text) for e in gold],
            n_pages=1,
        ))
    return (queries[:limit] if limit else queries), files


# ---------------------------------------------------------------------------------------------------------
# Scoring helpers
# ---------------------------------------------------------------------------------------------------------
def chunk_qrels(query: BenchQuery, chunks_of: Callable[[str], list], ) -> dict[str, float]:
    """Chunks on a gold page most of whose words occur in the gold snippet."""
    out: dict[str, float] = {}
    for doc, page, text in query.snippets:
        snippet = set(tokenize(text))
        for chunk in chunks_of(doc):
            if not chunk.page <= page <= max(chunk.page, chunk.page_end):
                continue
            words = set(tokenize(chunk.text))
            # Relative to the smaller side: a short snippet inside a chunk, or a chunk inside a full-page snippet.
            if words and snippet and len(words & snippet) / min(len(words), len(snippet)) >= CHUNK_SNIPPET_OVERLAP:
                out[chunk.chunk_id] = 1.0
    return out


def latency(values: Iterable[float]) -> Latency:
    """p50/p95/mean of durations given in seconds."""
    xs = sorted(v * 1000 for v in values)
    if not xs:
        return Latency()
    p95 = xs[min(len(xs) - 1, max(0, round(0.95 * len(xs)) - 1))]
    return Latency(n=len(xs), p50_ms=round(statistics.median(xs), 1), p95_ms=round(p95, 1),
                   mean_ms=round(statistics.fmean(xs), 1))


# ---------------------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------------------
def run_benchmark(
    settings: Settings,
    data_dir: Path,
    dataset: str = "financebench",
    systems: Iterable[str] = SYSTEMS,
    k: int = 10,
    limit: int | None = None,
    ingest: bool = True,
    log: Callable[[str], None] | None = None,
) -> BenchReport:
    """Prepare (or reuse) the bench index, run every system on every question, score and summarise."""
    log = log or (lambda line: print(line, file=sys.stderr))
    systems = list(systems)
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        raise FinragError(f"Unknown system(s): {', '.join(unknown)}; choose from {', '.join(SYSTEMS)}.")
    if dataset not in DATASETS:
        raise FinragError(f"Unknown dataset '{dataset}'; choose from {', '.join(DATASETS)}.")
    if k < 1:
        raise FinragError("--k must be at least 1.")
    bench = settings.replace(home=bench_home(settings, data_dir, dataset))
    notes: list[str] = []
    if dataset == "financebench":
        queries, pdfs = financebench_queries(data_dir, limit)
        files = [(p, MetadataOverrides()) for p in pdfs]
    else:
        queries, files = convfinqa_queries(data_dir, bench.home / "sources", limit)
    if ingest:
        notes += _ingest(bench, files, log)

    from agent.index.store import Store

    with Store.open(bench) as store:
        retriever = DeepRetriever(bench, store, chat_model=None)
        names = {name: doc_id for doc_id, name in store.document_names().items()}
        usable = [q for q in queries if q.doc is None or q.doc in names]
        if len(usable) < len(queries):
            notes.append(f"{len(queries) - len(usable)} questions skipped: their filing is not in the index")
        if not usable:
            raise FinragError("No question has its filing in the bench index (ingest failed or --no-ingest).")
        usable.sort(key=lambda q: (q.doc or "", q.qid))  # per document, so caches stay warm
        chunk_cache: dict[str, list] = {}

        def chunks_of(doc: str) -> list:
            if doc not in chunk_cache:
                chunk_cache[doc] = store.chunks([names[doc]]) if doc in names else []
            return chunk_cache[doc]

        corpus = list(names.values())
        retriever.warm(corpus if any(q.doc is None for q in usable) else [])
        runs: dict[str, dict[str, list[SearchHit]]] = {s: {} for s in systems}
        seconds: dict[str, dict[str, float]] = {s: {} for s in systems}
        stage_seconds: dict[str, dict[str, list[float]]] = {s: {st: [] for st in STAGES} for s in systems}
        sizes: dict[str, dict[str, list[int]]] = {s: {st: [] for st in STAGES} for s in systems}
        warmed: set[str] = set()
        encoding: list[float] = []
        started = time.perf_counter()
        for i, q in enumerate(usable, 1):
            doc_ids = [names[q.doc]] if q.doc else None
            if q.doc and q.doc not in warmed:
                retriever.warm(doc_ids or [])
                warmed.add(q.doc)
            # Embedding the question is shared by every dense-using system: timed once, apart from them.
            t0 = time.perf_counter()
            retriever.searcher.encode_query(q.question)
            encoding.append(time.perf_counter() - t0)
            for system in systems:
                t0 = time.perf_counter()
                if system in ABLATIONS:
                    result = retriever.retrieve(q.question, docs=[q.doc] if q.doc else [], options=ABLATIONS[system])
                    hits = result.ranked
                    for st in result.trace.stages:
                        if st.stage in stage_seconds[system]:
                            stage_seconds[system][st.stage].append(st.seconds)
                            sizes[system][st.stage].append(st.n_out)
                else:
                    searcher = retriever.searcher
                    hits = getattr(searcher, system)(q.question, doc_ids=doc_ids, k=BASELINE_DEPTH)
                seconds[system][q.qid] = time.perf_counter() - t0
                runs[system][q.qid] = hits
            if i % PROGRESS_EVERY == 0 or i == len(usable):
                log(f"  {i}/{len(usable)} questions ({time.perf_counter() - started:.0f} s)")
        page_qrels = {q.qid: q.page_qrels for q in usable}
        c_qrels = {q.qid: chunk_qrels(q, chunks_of) for q in usable}
        no_chunk_gold = sum(1 for v in c_qrels.values() if not v)
        if no_chunk_gold:
            notes.append(f"{no_chunk_gold} questions have no chunk-level gold (no gold-page chunk overlaps the "
                         f"snippet by {CHUNK_SNIPPET_OVERLAP:.0%}); chunk-level means leave them out")
        long_ids = {q.qid for q in usable if q.n_pages >= LONG_FILING_PAGES}
        reports = []
        for system in systems:
            page_run = {qid: rank_pages_from_hits(hits) for qid, hits in runs[system].items()}
            chunk_run = {qid: [h.chunk.chunk_id for h in hits] for qid, hits in runs[system].items()}
            page_scores = evaluate_run(page_run, page_qrels, k)
            chunk_scores = evaluate_run(chunk_run, c_qrels, k)
            reports.append(SystemReport(
                system=system, page=page_scores.mean, chunk=chunk_scores.mean,
                latency=latency(seconds[system].values()),
                latency_long=latency(v for qid, v in seconds[system].items() if qid in long_ids),
                stage_latency={st: latency(v) for st, v in stage_seconds[system].items() if v},
                candidate_sizes={st: round(statistics.fmean(v), 1) for st, v in sizes[system].items() if v},
                per_query_page=page_scores.per_query,
            ))
        if any(s in ABLATIONS for s in systems) and not settings.cross_encoder_model:
            notes.append("no cross-encoder configured: 'full' and 'full-no-ce' run the same stages")
        return BenchReport(
            dataset=dataset, data_dir=str(data_dir), k=k, n_queries=len(usable), systems=reports,
            query_encoding=latency(encoding),
            index_dir=str(bench.index_dir), created=datetime.now(UTC).isoformat(timespec="seconds"), notes=notes,
            settings={"embedding_model": bench.embedding_model or "packaged all-MiniLM-L6-v2",
                      "cross_encoder_model": bench.cross_encoder_model or "-", "device": bench.resolved_device(),
                      "seed": str(bench.seed)},
        )


# ---------------------------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------------------------
def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def render_markdown(report: BenchReport) -> str:
    """The report as Markdown tables (scores x100, as FinCARDS reports them)."""
    k = report.k
    lines = [f"# Retrieval benchmark: {report.dataset} ({report.n_queries} questions, k={k})", "",
             f"Data: `{report.data_dir}` · index: `{report.index_dir}` · {report.created}", ""]
    for level in ("page", "chunk"):
        lines += [f"## {level.capitalize()} level", "",
                  f"| System | nDCG@{k} | MAP@{k} | MRR@{k} | Recall@{k} | NormRecall@{k} | p50 ms | p95 ms |",
                  "|---|---|---|---|---|---|---|---|"]
        for s in report.systems:
            m: QueryScores = getattr(s, level)
            lines.append(f"| {s.system} | {_pct(m.ndcg)} | {_pct(m.map)} | {_pct(m.mrr)} | {_pct(m.recall)} | "
                         f"{_pct(m.normalized_recall)} | {s.latency.p50_ms:.0f} | {s.latency.p95_ms:.0f} |")
        lines.append("")
    deep = [s for s in report.systems if s.stage_latency]
    if deep:
        lines += ["## Deep pipeline stages (latency p50 / p95 ms, mean candidates out)", "",
                  "| System | " + " | ".join(STAGES) + f" | total p50 (>= {LONG_FILING_PAGES} pages) |",
                  "|---|" + "---|" * (len(STAGES) + 1)]
        for s in deep:
            cells = []
            for st in STAGES:
                lat = s.stage_latency.get(st)
                size = s.candidate_sizes.get(st)
                cells.append("-" if lat is None else f"{lat.p50_ms:.0f} / {lat.p95_ms:.0f} ({size:g})")
            long = f"{s.latency_long.p50_ms:.0f} (n={s.latency_long.n})" if s.latency_long.n else "-"
            lines.append(f"| {s.system} | " + " | ".join(cells) + f" | {long} |")
        lines.append("")
    enc = report.query_encoding
    lines += [f"Latencies exclude embedding the question (shared by the dense paths): p50 {enc.p50_ms:.0f} ms, "
              f"p95 {enc.p95_ms:.0f} ms.", ""]
    if report.notes:
        lines += ["## Notes", ""] + [f"- {n}" for n in report.notes] + [""]
    lines += ["Settings: " + ", ".join(f"{k_}={v}" for k_, v in report.settings.items()), ""]
    return "\n".join(lines)


def write_report(report: BenchReport, out_dir: Path) -> tuple[Path, Path]:
    """Write ``retrieval-<dataset>.json`` and ``.md`` into ``out_dir`` (atomically); returns both paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = (out_dir / f"retrieval-{report.dataset}.json", out_dir / f"retrieval-{report.dataset}.md")
    for path, text in zip(paths, (report.model_dump_json(indent=2), render_markdown(report)), strict=True):
        with tempfile.NamedTemporaryFile("w", dir=out_dir, delete=False, suffix=".tmp", encoding="utf-8") as fh:
            fh.write(text)
        Path(fh.name).replace(path)
    return paths
