"""The store at scale on each engine: the embedded SQLite file against a PostgreSQL server, same corpus, same run.

For each engine the synthetic corpus of :mod:`evals.scale_bench` (real filings copied with their digits
permuted) is written through the store's ingest path, then measured, each step in a fresh process:

* ingest: documents committed per second, with the peak memory of the writer and the database's size;
* a new replica: the first open of the store from an empty FINRAG_HOME (its FAISS and BM25 files are built from
  the store's rows); and a replica behind: another process removes the largest filing and stores it again (new
  chunk ids), and the replica's next open brings its files level by changing only that;
* reads per question: for FinanceBench's questions, the hybrid search's top 10, then what an answer and its
  citations read from the store -- the hits' chunks and Chunk Cards, their documents' records and each cited
  page as the viewer opens it -- timed apart from the search;
* a burst: two replica processes (their own homes, one store) each answering the same questions at once on
  several threads through the whole assistant (search, reading, gate, memory bank, thread list), wall time,
  answers per second and latency percentiles; errors are counted, never hidden.

PostgreSQL is a throwaway local server (:mod:`evals.postgres_local`); its own memory is not counted.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from agent.config import Settings
from agent.index.store import DB_FILE
from evals.scale_bench import BENCH_QUERIES, TOP_K, _dir_mb, build_embedded, query_vectors

STORES = ("sqlite", "postgresql")
BURST_REPLICAS = 2
BURST_THREADS = 4  # concurrent asks per replica
BURST_ASKS = 12  # asks per replica
READY_TIMEOUT_S = 1800  # a replica's first open builds its search files from the store


class StoreRow(BaseModel):
    """One engine at one corpus size."""

    store: str
    chunks: int
    documents: int
    ingest_s: float
    ingest_docs_per_s: float
    ingest_chunks_per_s: int
    ingest_peak_mb: float
    database_mb: float
    replica_open_s: float
    replica_level_s: float  # a replica behind one filing removed and stored again
    reads_p50_ms: float
    reads_p95_ms: float
    search_p50_ms: float
    burst_asks: int
    burst_errors: int
    burst_wall_s: float
    burst_asks_per_s: float
    burst_p50_s: float
    burst_p95_s: float


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def _settings(home: Path, url: str) -> Settings:
    return Settings.from_env(home=home, store_url=url, checkpoint_url="")


def time_reads(home: Path, url: str, questions: list[str], vectors_path: Path) -> dict[str, float]:
    """A new replica's first open, then per question the search and (apart) the store reads an answer makes."""
    from agent.index.search import HybridSearcher
    from agent.index.store import Store

    vectors = np.load(vectors_path)
    started = time.perf_counter()
    store = Store.open(_settings(home, url))
    searcher = HybridSearcher(store, lambda: None)
    searcher.hybrid(questions[0], None, k=TOP_K, query_vector=vectors[0])  # loads what later questions reuse
    opened = time.perf_counter() - started
    searches, reads = [], []
    for question, vector in zip(questions, vectors, strict=True):
        began = time.perf_counter()
        hits = searcher.hybrid(question, None, k=TOP_K, query_vector=vector)
        searched = time.perf_counter()
        ids = [hit.chunk.chunk_id for hit in hits]
        chunks = store.chunks_by_id(ids)
        store.cards(ids)
        for doc_id in dict.fromkeys(c.doc_id for c in chunks.values()):
            store.get_document(doc_id)
            for page in sorted({c.page for c in chunks.values() if c.doc_id == doc_id}):  # as a citation opens it
                store.page(doc_id, page)
        reads.append(time.perf_counter() - searched)
        searches.append(searched - began)
    store.close()
    return {"open_s": opened, "reads_p50_ms": statistics.median(reads) * 1000,
            "reads_p95_ms": _percentile(reads, 0.95) * 1000, "search_p50_ms": statistics.median(searches) * 1000}


def time_level(writer: Path, reader: Path, url: str) -> dict[str, float]:
    """Another process removes a filing and stores it again (new chunk ids), then a replica that held the files
    of before opens the store and searches: the time to bring its search files level."""
    from agent.index.store import DB_FILE as DATABASE
    from agent.index.store import Store

    with Store.open(_settings(writer, url), search_files=False) as store:
        meta = max(store.list_documents(), key=lambda m: m.n_chunks)
        chunks = store.chunks([meta.doc_id])
        cards = store.cards([c.chunk_id for c in chunks])
        _, vectors = store.doc_embeddings(meta.doc_id)
        parts = (store.pages(meta.doc_id), store.sections(meta.doc_id), chunks,
                 [cards[c.chunk_id] for c in chunks if c.chunk_id in cards], vectors,
                 store.facts([meta.doc_id]), store.counts([meta.doc_id]))
        store.remove_document(meta.doc_id)
        store.add_document(meta, *parts)
    if not url:  # SQLite replicas hold copies of the file: the changed one is copied over, as after an ingest
        shutil.copy2(writer / "index" / DATABASE, reader / "index" / DATABASE)
    started = time.perf_counter()
    with Store.open(_settings(reader, url)) as store:
        store.dense_search(vectors[0], k=1)
        seconds = time.perf_counter() - started
    return {"seconds": seconds, "chunks": len(chunks)}


def burst(home: Path, url: str, questions: list[str], ready: Path, go: Path) -> dict[str, float]:
    """One replica: open the assistant, say ready, wait for the start, answer the questions on threads."""
    from graphs.service import Assistant

    with Assistant(_settings(home, url)) as assistant:
        assistant.ask(questions[0], assistant.new_thread())  # warm: models loaded, search files built
        ready.write_text("ready")
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not go.exists():
            if time.monotonic() > deadline:
                raise TimeoutError("the burst never started")
            time.sleep(0.05)

        def ask(question: str) -> float | None:
            began = time.perf_counter()
            try:
                assistant.ask(question, assistant.new_thread())
            except Exception as exc:  # counted, and said, never hidden
                print(f"  ask failed: {exc}", file=sys.stderr, flush=True)
                return None
            return time.perf_counter() - began

        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=BURST_THREADS) as pool:
            latencies = list(pool.map(ask, questions))
        wall = time.perf_counter() - started
    done = [t for t in latencies if t is not None]
    return {"wall_s": wall, "asks": len(done), "errors": len(latencies) - len(done), "latencies": done}


def _child(function: str, *args: str) -> dict:
    code = (f"import json, sys; from evals import store_bench as b; "
            f"print(json.dumps(b._entry({function!r}, sys.argv[1:])))")
    done = subprocess.run([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _entry(function: str, args: list[str]) -> dict:
    if function == "build":
        return build_embedded(Path(args[0]), Path(args[1]), int(args[2]), store_url=args[3])
    if function == "reads":
        return time_reads(Path(args[0]), args[1], json.loads(Path(args[2]).read_text()), Path(args[3]))
    if function == "level":
        return time_level(Path(args[0]), Path(args[1]), args[2])
    if function == "burst":
        return burst(Path(args[0]), args[1], json.loads(Path(args[2]).read_text()), Path(args[3]), Path(args[4]))
    raise ValueError(function)


def _run_burst(work: Path, url: str, questions_file: Path) -> dict[str, float]:
    """Two replica processes answering at once; their latencies pooled."""
    go = work / "go"
    go.unlink(missing_ok=True)
    code = ("import json, sys; from evals import store_bench as b; "
            "print(json.dumps(b._entry('burst', sys.argv[1:])))")
    procs, readies = [], []
    for replica in range(BURST_REPLICAS):
        ready = work / f"ready-{replica}"
        ready.unlink(missing_ok=True)
        readies.append(ready)
        procs.append(subprocess.Popen([sys.executable, "-c", code, str(work / f"replica-{replica}"), url,
                                       str(questions_file), str(ready), str(go)], stdout=subprocess.PIPE, text=True))
    deadline = time.monotonic() + READY_TIMEOUT_S
    while not all(r.exists() for r in readies):
        if time.monotonic() > deadline or any(p.poll() not in (None, 0) for p in procs):
            for p in procs:
                p.kill()
            raise RuntimeError("a burst replica did not get ready")
        time.sleep(0.1)
    started = time.perf_counter()
    go.write_text("go")
    results = []
    for p in procs:
        out, _ = p.communicate()
        if p.returncode != 0:
            raise RuntimeError(f"a burst replica failed (exit {p.returncode})")
        results.append(json.loads(out.strip().splitlines()[-1]))
    wall = time.perf_counter() - started
    latencies = [t for r in results for t in r["latencies"]]
    asks = sum(r["asks"] for r in results)
    return {"wall_s": wall, "asks": asks, "errors": sum(r["errors"] for r in results),
            "asks_per_s": asks / wall if wall else 0.0, "p50_s": statistics.median(latencies) if latencies else 0.0,
            "p95_s": _percentile(latencies, 0.95)}


def run_store_bench(source_home: Path, work: Path, sizes: list[int], stores: list[str],
                    questions: list[str]) -> list[StoreRow]:
    """Each engine at each size, from the same source and questions; one row each."""
    from evals.postgres_local import start_local_postgres

    work.mkdir(parents=True, exist_ok=True)
    asked = questions[:BENCH_QUERIES]
    (work / "questions.json").write_text(json.dumps(asked))
    (work / "burst.json").write_text(json.dumps(questions[:BURST_ASKS]))
    np.save(work / "vectors.npy", query_vectors(source_home, asked))
    server = start_local_postgres() if "postgresql" in stores else None
    rows: list[StoreRow] = []
    try:
        for size in sizes:
            for engine in stores:
                url = server.new_database(f"scale{size}") if engine == "postgresql" and server else ""
                base = work / f"{engine}-{size}"
                build = _child("build", str(source_home), str(base / "writer"), str(size), url)
                database_mb = (_dir_mb(base / "writer" / "index") if not url else _database_mb(url))
                print(f"{engine}: built {size} chunks in {build['seconds']:.0f} s", file=sys.stderr, flush=True)
                reader_home = base / "replica"
                if not url:  # a new SQLite replica: the writer's file copied over, search files built on open
                    (reader_home / "index").mkdir(parents=True, exist_ok=True)
                    shutil.copy2(base / "writer" / "index" / DB_FILE, reader_home / "index" / DB_FILE)
                reads = _child("reads", str(reader_home), url, str(work / "questions.json"), str(work / "vectors.npy"))
                level = _child("level", str(base / "writer"), str(reader_home), url)
                shot = _run_burst(base, url, work / "burst.json") if url else _sqlite_burst(base, work / "burst.json")
                rows.append(StoreRow(
                    store=engine, chunks=size, documents=int(build["documents"]), ingest_s=round(build["seconds"], 1),
                    ingest_docs_per_s=round(build["documents"] / build["seconds"], 2),
                    ingest_chunks_per_s=round(size / build["seconds"]), ingest_peak_mb=round(build["peak_mb"]),
                    database_mb=round(database_mb), replica_open_s=round(reads["open_s"], 2),
                    replica_level_s=round(level["seconds"], 2),
                    reads_p50_ms=round(reads["reads_p50_ms"], 2), reads_p95_ms=round(reads["reads_p95_ms"], 2),
                    search_p50_ms=round(reads["search_p50_ms"], 1), burst_asks=int(shot["asks"]),
                    burst_errors=int(shot["errors"]), burst_wall_s=round(shot["wall_s"], 1),
                    burst_asks_per_s=round(shot["asks_per_s"], 2), burst_p50_s=round(shot["p50_s"], 2),
                    burst_p95_s=round(shot["p95_s"], 2),
                ))
                print(rows[-1].model_dump_json(), file=sys.stderr, flush=True)
    finally:
        if server is not None:
            server.stop()
    return rows


def _sqlite_burst(base: Path, questions_file: Path) -> dict[str, float]:
    """The SQLite engine's two replicas: each a copy of the writer's home (file and search files), as a team
    without a shared store copies them to each machine."""
    for replica in range(BURST_REPLICAS):  # each its own home whose index is the writer's, as files copied over
        home = base / f"replica-{replica}"
        if not home.exists():
            shutil.copytree(base / "writer", home)
    return _run_burst(base, "", questions_file)


def _database_mb(url: str) -> float:
    from agent.db import open_database

    return open_database(url, Path("unused")).size_bytes() / 2**20


def render(rows: list[StoreRow]) -> str:
    """A Markdown table, engines side by side per size."""
    lines = [
        "| store | chunks | docs | ingest (docs/s, chunks/s) | ingest peak MB | database MB | new replica open s | "
        "replica behind one filing s | reads per question p50 / p95 ms | search p50 ms | burst: asks (errors) | "
        "wall s | asks/s | p50 / p95 s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.store} | {r.chunks:,} | {r.documents} | {r.ingest_s:,.0f} s ({r.ingest_docs_per_s}, "
            f"{r.ingest_chunks_per_s:,}) | {r.ingest_peak_mb:,.0f} | {r.database_mb:,.0f} | {r.replica_open_s} | "
            f"{r.replica_level_s} | "
            f"{r.reads_p50_ms} / {r.reads_p95_ms} | {r.search_p50_ms} | {r.burst_asks} ({r.burst_errors}) | "
            f"{r.burst_wall_s} | {r.burst_asks_per_s} | {r.burst_p50_s} / {r.burst_p95_s} |"
        )
    return "\n".join(lines) + "\n"
