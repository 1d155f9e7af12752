"""Search at corpus scale: the embedded default against Milvus Lite, at 100k and 1M chunks.

The corpus is made from real filings: every document of a source index (FinanceBench's 47 filings, ~20k
chunks) is copied as often as the size needs, each copy with its own permutation of the digits 1-9 applied
to its whole text (pages and chunks alike, so offsets hold; numbers, tokens and content hashes differ) and
its company renamed ``<company> #<copy>``. Chunk vectors are the source vectors plus small Gaussian noise,
renormalised (embedding a million chunks with MiniLM would take hours on 2 cores; search cost does not
depend on the values).

Measured, each in a fresh process (peak memory is that process's VmHWM):

* ingest: the embedded store written in bulk (SQLite rows, then FAISS and BM25 files once); Milvus Lite
  filled from it by ``MilvusBackend.mirror`` (what ``finrag index migrate`` runs) through its gRPC server,
  whose own peak memory is read from /proc;
* queries: FinanceBench's questions, embedded once beforehand (query encoding is not part of the latency),
  as hybrid search over every document and over one company's filings; the first query of each kind is
  reported apart (it loads or builds what later queries reuse).
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from agent.config import Settings
from evals.milvus_lite import start_milvus_lite, stop_milvus_lite

VECTOR_NOISE = 0.02  # per-dimension noise on unit vectors: copies stay near (cosine ~0.9) but not identical
BENCH_QUERIES = 50  # FinanceBench questions timed per kind and backend
TOP_K = 10
DIGITS = "123456789"


class ScaleRow(BaseModel):
    """One backend at one corpus size."""

    backend: str
    chunks: int
    documents: int
    ingest_s: float
    ingest_chunks_per_s: int
    ingest_peak_mb: float
    server_peak_mb: float = 0.0  # Milvus Lite's server process
    disk_mb: float
    first_query_s: float
    all_p50_ms: float
    all_p95_ms: float
    company_first_s: float
    company_p50_ms: float
    company_p95_ms: float
    query_peak_mb: float


def _peak_mb() -> float:
    """This process's peak resident memory (VmHWM), MB."""
    return _process_peak_mb("self")


def _process_peak_mb(pid: int | str) -> float:
    """A process's peak resident memory (VmHWM, Linux), MB; 0 when it cannot be read."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    hwm = [line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")]
    return int(hwm[0]) / 1024 if hwm else 0.0


def _dir_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20 if path.exists() else 0.0


# ---------------------------------------------------------------------------------------------------------
# building the synthetic corpus
# ---------------------------------------------------------------------------------------------------------
def build_embedded(source_home: Path, home: Path, n_chunks: int, seed: int = 7, store_url: str = "") -> dict[str, float]:
    """Write ``n_chunks`` chunks of perturbed copies of the source index into a new store at ``home`` (its rows
    in the PostgreSQL database ``store_url`` when given)."""
    import hashlib

    from agent.index.store import Store
    from agent.schemas import ChunkCard, chunk_id_for

    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    shuffle = random.Random(seed)
    source = Store.open(Settings.from_env(home=source_home, store_url=""))
    target = Store.open(Settings.from_env(home=home, store_url=store_url))
    metas = sorted(source.list_documents(), key=lambda m: m.name)
    written = copy = 0
    with target.bulk():
        while written < n_chunks:
            copy += 1
            digits = list(DIGITS)
            shuffle.shuffle(digits)
            table = str.maketrans(DIGITS, "".join(digits))
            for meta in metas:
                if written >= n_chunks:
                    break
                pages = [p.model_copy(update={"text": p.text.translate(table)}) for p in source.pages(meta.doc_id)]
                doc_id = hashlib.sha256(f"{meta.doc_id}:{copy}".encode()).hexdigest()
                chunks = source.chunks([meta.doc_id])[: n_chunks - written]
                ids, vectors = source.doc_embeddings(meta.doc_id)
                vectors = vectors[: len(chunks)] + rng.normal(0, VECTOR_NOISE, (len(chunks), vectors.shape[1]))
                vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
                chunks = [c.model_copy(update={"doc_id": doc_id, "chunk_id": chunk_id_for(doc_id, c.ordinal),
                                               "text": c.text.translate(table)}) for c in chunks]
                new_meta = meta.model_copy(update={"doc_id": doc_id, "name": f"{meta.name}_{copy}", "path": "",
                                                   "company": f"{meta.company} #{copy}", "n_chunks": len(chunks)})
                target.add_document(new_meta, pages, source.sections(meta.doc_id), chunks,
                                    [ChunkCard(chunk_id=c.chunk_id) for c in chunks], vectors)
                written += len(chunks)
                print(f"  built {written}/{n_chunks} chunks", file=sys.stderr, flush=True)
    documents = len(target.document_names())
    source.close()
    target.close()
    return {"seconds": time.perf_counter() - started, "documents": documents, "peak_mb": _peak_mb()}


def mirror_to_milvus(home: Path, uri: str) -> dict[str, float]:
    """Fill Milvus from the store (``finrag index migrate``) and time it."""
    from agent.index.milvus import MilvusBackend
    from agent.index.store import Store

    store = Store.open(Settings.from_env(home=home))
    backend = MilvusBackend(store, uri=uri)
    started = time.perf_counter()
    backend.mirror(progress=lambda name, done, total: print(f"  mirrored {done}/{total}", file=sys.stderr,
                                                              flush=True))
    seconds = time.perf_counter() - started
    backend.close()
    store.close()
    return {"seconds": seconds, "peak_mb": _peak_mb()}


# ---------------------------------------------------------------------------------------------------------
# queries
# ---------------------------------------------------------------------------------------------------------
def query_vectors(source_home: Path, questions: list[str]) -> np.ndarray:
    """The questions embedded once with the configured model (not part of any latency)."""
    from agent.index.embeddings import get_embedder

    return get_embedder(Settings.from_env(home=source_home)).encode(questions)


def time_queries(home: Path, backend: str, uri: str, questions: list[str], vectors_path: Path) -> dict[str, float]:
    """Hybrid search over every document and over one company's filings; latencies in ms."""
    from agent.index.search import HybridSearcher
    from agent.index.store import Store

    vectors = np.load(vectors_path)
    settings = Settings.from_env(home=home, search_backend=backend, milvus_uri=uri)
    store = Store.open(settings)
    searcher = HybridSearcher(store, lambda: None)
    metas = store.list_documents()
    company = sorted(metas, key=lambda m: (-m.n_chunks, m.name))[0].company  # the largest filing's company
    doc_ids = [m.doc_id for m in metas if m.company == company]
    out: dict[str, float] = {}
    for kind, scope in (("all", None), ("company", doc_ids)):
        timings = []
        for question, vector in zip(questions, vectors, strict=True):
            started = time.perf_counter()
            hits = searcher.hybrid(question, scope, k=TOP_K, query_vector=vector)
            timings.append(time.perf_counter() - started)
            assert hits, f"no hits for {question!r}"
        out[f"{kind}_first_s"] = timings[0]
        rest = sorted(timings[1:])
        out[f"{kind}_p50_ms"] = statistics.median(rest) * 1000
        out[f"{kind}_p95_ms"] = rest[min(len(rest) - 1, int(0.95 * len(rest)))] * 1000
    out["peak_mb"] = _peak_mb()
    searcher.backend.close()
    store.close()
    return out


# ---------------------------------------------------------------------------------------------------------
# the run
# ---------------------------------------------------------------------------------------------------------
def _child(function: str, *args: str) -> dict[str, float]:
    """Run one step of this module in a fresh Python process; its JSON result."""
    code = (f"import json, sys; from pathlib import Path; from evals import scale_bench as b; "
            f"print(json.dumps(b._entry({function!r}, sys.argv[1:])))")
    done = subprocess.run([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _entry(function: str, args: list[str]) -> dict[str, float]:
    if function == "build":
        return build_embedded(Path(args[0]), Path(args[1]), int(args[2]))
    if function == "mirror":
        return mirror_to_milvus(Path(args[0]), args[1])
    if function == "query":
        return time_queries(Path(args[0]), args[1], args[2], json.loads(Path(args[3]).read_text()), Path(args[4]))
    raise ValueError(function)


def run_scale_bench(source_home: Path, work: Path, sizes: list[int], backends: list[str],
                    questions: list[str]) -> list[ScaleRow]:
    """Build each size once, fill each backend, time the queries; one row per backend and size."""
    work.mkdir(parents=True, exist_ok=True)
    questions = questions[:BENCH_QUERIES]
    (work / "questions.json").write_text(json.dumps(questions))
    np.save(work / "vectors.npy", query_vectors(source_home, questions))
    rows: list[ScaleRow] = []
    for size in sizes:
        home = work / f"embedded-{size}"
        build = _child("build", str(source_home), str(home), str(size))
        print(f"built {size} chunks in {build['seconds']:.0f} s", file=sys.stderr, flush=True)
        for backend in backends:
            server = None
            uri = ""
            ingest, server_peak = build, 0.0
            disk = _dir_mb(home / "index")
            if backend == "milvus":
                server, uri = start_milvus_lite(work / f"milvus-{size}")
                ingest = _child("mirror", str(home), uri)
                server_peak = _process_peak_mb(server.pid)
                disk = _dir_mb(work / f"milvus-{size}")
            try:
                timing = _child("query", str(home), backend, uri, str(work / "questions.json"),
                                str(work / "vectors.npy"))
                if server is not None:
                    server_peak = max(server_peak, _process_peak_mb(server.pid))
            finally:
                if server is not None:
                    stop_milvus_lite(server)
            rows.append(ScaleRow(
                backend=backend, chunks=size, documents=int(build["documents"]), ingest_s=round(ingest["seconds"], 1),
                ingest_chunks_per_s=round(size / ingest["seconds"]), ingest_peak_mb=round(ingest["peak_mb"]),
                server_peak_mb=round(server_peak), disk_mb=round(disk),
                first_query_s=round(timing["all_first_s"], 2), all_p50_ms=round(timing["all_p50_ms"], 1),
                all_p95_ms=round(timing["all_p95_ms"], 1), company_first_s=round(timing["company_first_s"], 2),
                company_p50_ms=round(timing["company_p50_ms"], 1), company_p95_ms=round(timing["company_p95_ms"], 1),
                query_peak_mb=round(timing["peak_mb"]),
            ))
            print(rows[-1].model_dump_json(), file=sys.stderr, flush=True)
    return rows


def render(rows: list[ScaleRow]) -> str:
    """A Markdown table, then how each backend grows from the smallest size to the largest."""
    lines = [
        "| backend | chunks | ingest (chunks/s) | ingest peak MB | server peak MB | disk MB | first query s | "
        "all p50 / p95 ms | company first s | company p50 / p95 ms | query peak MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.backend} | {r.chunks:,} | {r.ingest_s:,.0f} s ({r.ingest_chunks_per_s:,}/s) | {r.ingest_peak_mb:,.0f} | "
            f"{r.server_peak_mb:,.0f} | {r.disk_mb:,.0f} | {r.first_query_s} | {r.all_p50_ms} / {r.all_p95_ms} | "
            f"{r.company_first_s} | {r.company_p50_ms} / {r.company_p95_ms} | {r.query_peak_mb:,.0f} |"
        )
    for backend in dict.fromkeys(r.backend for r in rows):
        mine = sorted((r for r in rows if r.backend == backend), key=lambda r: r.chunks)
        if len(mine) >= 2:
            a, b = mine[0], mine[-1]
            lines.append(
                f"\n{backend}, {a.chunks:,} -> {b.chunks:,} chunks (x{b.chunks / a.chunks:.0f}): corpus-wide p50 "
                f"x{b.all_p50_ms / max(a.all_p50_ms, 1e-9):.1f}, company p50 x{b.company_p50_ms / max(a.company_p50_ms, 1e-9):.1f}, "
                f"query memory x{b.query_peak_mb / max(a.query_peak_mb, 1):.1f}, ingest rate x{b.ingest_chunks_per_s / max(a.ingest_chunks_per_s, 1):.2f}"
            )
    return "\n".join(lines) + "\n"
