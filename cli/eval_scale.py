"""``finrag eval scale``: the embedded index against Milvus Lite at 100k-1M chunks."""

from __future__ import annotations

import argparse
import json
import textwrap
from pathlib import Path

from agent.config import Settings
from cli.common import err, report


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "scale",
        help="benchmark at corpus scale (100k-1M chunks): search backends (embedded vs Milvus Lite) and stores "
        "(SQLite vs PostgreSQL shared by replicas)",
        description=textwrap.fill("Copies the filings of an existing index (FinanceBench's, by default this FINRAG_HOME) into "
        "a synthetic corpus of the given sizes (each copy's digits permuted, vectors perturbed), fills each "
        "backend, and times hybrid search over every document and over one company's filings with "
        "FinanceBench's questions. With --stores, the same corpus goes into each store (SQLite, and PostgreSQL on a "
        "local throwaway server), timed for ingest, a new replica's first open, a replica behind one filing, the "
        "store reads per question and a burst of asks on two replica processes. Needs disk: about 10 GB per million "
        "chunks per backend.", width=100),
        epilog="examples:\n  finrag eval scale --source-home ~/.local/share/finrag --sizes 100000,1000000 --work /tmp/scale\n"
               "  finrag eval scale --backends '' --stores sqlite,postgresql --sizes 100000 --work /tmp/scale",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--source-home", type=Path, default=None, help="the index to copy (default: FINRAG_HOME)")
    p.add_argument("--work", type=Path, required=True, help="folder for the synthetic indexes (large)")
    p.add_argument("--sizes", default="100000", help="comma-separated corpus sizes in chunks")
    p.add_argument("--backends", default="embedded,milvus", help="comma-separated search backends: embedded, "
                   "milvus (empty: none)")
    p.add_argument("--stores", default="", help="comma-separated stores to compare on the same corpus: sqlite, "
                   "postgresql (a local throwaway server: Debian's postgresql) -- ingest rate, a new replica's "
                   "first open, store reads per question and a burst of asks on two replicas")
    p.add_argument("--data", type=Path, default=None, help="findata folder for the questions (default FINRAG_DATA_DIR)")
    p.add_argument("--out", type=Path, default=None, help="write scale.json and scale.md here")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from evals.postgres_local import unavailable_reason
    from evals.scale_bench import render, run_scale_bench
    from evals.store_bench import STORES, run_store_bench
    from evals.store_bench import render as render_stores

    data = args.data or settings.data_dir
    questions_file = None if data is None else Path(data) / "financebench" / "questions.jsonl"
    if questions_file is None or not questions_file.is_file():
        err("FinanceBench questions not found: pass --data FOLDER (the findata layout) or set FINRAG_DATA_DIR")
        return 2
    questions = [json.loads(line)["question"] for line in questions_file.read_text().splitlines() if line.strip()]
    backends = [b for b in args.backends.split(",") if b]
    unknown = sorted(set(backends) - {"embedded", "milvus"})
    if unknown:
        err(f"unknown backend(s): {', '.join(unknown)}; use embedded and/or milvus")
        return 2
    source = args.source_home or settings.home
    if not (source / "index").is_dir():
        err(f"no index at {source}; ingest filings there first (finrag --home {source} ingest FOLDER)")
        return 2
    stores = [s for s in args.stores.split(",") if s]
    unknown = sorted(set(stores) - set(STORES))
    if unknown:
        err(f"unknown store(s): {', '.join(unknown)}; use sqlite and/or postgresql")
        return 2
    if "postgresql" in stores and unavailable_reason():
        err(f"cannot start a local PostgreSQL server: {unavailable_reason()}")
        return 2
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if backends:
        rows = run_scale_bench(source, args.work, sizes, backends, questions)
        report(rows, render, args.out, "scale", args.json)
    if stores:
        store_rows = run_store_bench(source, args.work / "stores", sizes, stores, questions)
        report(store_rows, render_stores, args.out, "scale_stores", args.json)
    return 0
