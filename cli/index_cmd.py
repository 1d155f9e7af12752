"""``finrag index``: copy the embedded index into Milvus and check that the two agree."""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from agent.config import Settings
from cli.common import err, print_json, print_usage, progress_lines, table

if TYPE_CHECKING:
    from agent.index.milvus import MilvusBackend
    from agent.index.store import Store

BACKENDS = ("milvus",)  # backends that mirror the store; the embedded one is the store itself


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "index",
        help="copy the index into Milvus (migrate) and compare the two (check)",
        description=(
            "The embedded index (SQLite + FAISS + BM25 under FINRAG_HOME) is the source of truth.\n"
            "  migrate  copies every document's chunks, vectors and BM25 terms into Milvus (Milvus Lite or a\n"
            "           cluster); documents already there are skipped, so an interrupted run resumes.\n"
            "  check    compares Milvus with the embedded index: the same chunk ids for every document and the\n"
            "           same top-10 for a sample of queries (exit 1 when they differ).\n"
            "Then search there with FINRAG_SEARCH_BACKEND=milvus; `finrag ingest` keeps it up to date."
        ),
        epilog=(
            "examples:\n"
            "  finrag index migrate --to milvus                          Milvus Lite under FINRAG_HOME/milvus.db\n"
            "  finrag index migrate --to milvus --uri http://milvus:19530\n"
            "  finrag index check --uri http://milvus:19530 --queries 200\n"
            "  export FINRAG_SEARCH_BACKEND=milvus FINRAG_MILVUS_URI=http://milvus:19530"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(func=lambda args, settings: print_usage(p))
    actions = p.add_subparsers(dest="action", metavar="ACTION")

    migrate = actions.add_parser("migrate", help="copy the embedded index into Milvus (resumable, idempotent)",
                                 description="Copy every ingested document into Milvus. Documents already "
                                             "copied are skipped, so an interrupted run resumes where it stopped.",
                                 epilog="example: finrag index migrate --to milvus --uri http://localhost:19530")
    migrate.add_argument("--to", choices=BACKENDS, required=True, help="the backend to copy into")
    _milvus_options(migrate)
    migrate.add_argument("--fresh", action="store_true", help="drop finrag's Milvus collections first")
    migrate.add_argument("--json", action="store_true", help="JSON output")
    migrate.set_defaults(func=run_migrate)

    check = actions.add_parser("check", help="compare Milvus with the embedded index (ids and top-10)",
                               description="Exit 0 when every document has the same chunk ids in both and each "
                                           "search path's mean top-10 overlap reaches the tolerance, else 1.",
                               epilog="example: finrag index check --uri http://localhost:19530 --queries 50")
    _milvus_options(check)
    check.add_argument("--queries", type=int, default=None, help="sampled queries (default 50)")
    check.add_argument("--tolerance", type=float, default=None, help="mean top-10 overlap required (default 0.9)")
    check.add_argument("--json", action="store_true", help="JSON output")
    check.set_defaults(func=run_check)



def _milvus_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--uri", default=None,
                        help="Milvus server (http://host:19530) or Milvus Lite folder (*.db); default "
                             "$FINRAG_MILVUS_URI or FINRAG_HOME/milvus.db")
    parser.add_argument("--collection", default=None, help="collection prefix (default $FINRAG_MILVUS_COLLECTION or finrag)")


def _settings(args: argparse.Namespace, settings: Settings) -> Settings:
    changes = {"milvus_uri": args.uri, "milvus_collection": args.collection}
    return settings.replace(**{k: v for k, v in changes.items() if v})



@contextmanager
def _store_and_milvus(settings: Settings) -> Iterator[tuple[Store, MilvusBackend] | None]:
    """The embedded index and its Milvus mirror, both closed afterwards; None (said) when nothing is indexed."""
    from agent.index.milvus import MilvusBackend
    from agent.index.store import Store

    with Store.open(settings) as store:
        if not store.document_names():
            err(f"no documents indexed yet in {settings.index_dir}; add some with: finrag ingest PATH")
            yield None
            return
        backend = MilvusBackend(store)
        try:
            yield store, backend
        finally:
            backend.close()


def run_migrate(args: argparse.Namespace, settings: Settings) -> int:
    with _store_and_milvus(_settings(args, settings)) as opened:
        if opened is None:
            return 1
        _, backend = opened
        if args.fresh:
            backend.drop()
        started = time.perf_counter()
        written, removed = backend.mirror(progress=None if args.json else progress_lines("copied"))
        seconds = time.perf_counter() - started
        held = backend.mirrored()
    chunks = sum(mark.n_chunks for mark in held.values())
    result = {"uri": backend.uri, "documents_written": written, "documents_removed": removed,
              "documents": len(held), "chunks": chunks, "seconds": round(seconds, 1)}
    if args.json:
        print_json(result)
        return 0
    print(f"Milvus at {backend.uri}: {written} document(s) copied, {removed} removed in {seconds:.1f} s; "
          f"it now holds {len(held)} document(s), {chunks} chunks.")
    print(f"Search there with: export FINRAG_SEARCH_BACKEND=milvus FINRAG_MILVUS_URI={backend.uri}")
    print("Compare it with the embedded index: finrag index check")
    return 0


def run_check(args: argparse.Namespace, settings: Settings) -> int:
    from agent.index.compare import CHECK_QUERIES, CHECK_TOLERANCE, compare_backends
    from agent.index.embedded import EmbeddedBackend

    queries = CHECK_QUERIES if args.queries is None else args.queries
    tolerance = CHECK_TOLERANCE if args.tolerance is None else args.tolerance
    if queries < 1 or not 0.0 <= tolerance <= 1.0:
        err("--queries must be at least 1 and --tolerance between 0 and 1")
        return 2
    with _store_and_milvus(_settings(args, settings)) as opened:
        if opened is None:
            return 1
        store, milvus = opened
        if not milvus.mirrored():
            err(f"Milvus at {milvus.uri} holds no finrag documents; copy them first: finrag index migrate --to milvus")
            return 1
        report = compare_backends(store, EmbeddedBackend(store), milvus, queries=queries, tolerance=tolerance,
                                  progress=None if args.json else progress_lines("checked"))
    if args.json:
        print_json({**report.model_dump(), "ok": report.ok})
        return 0 if report.ok else 1
    print(f"{report.documents} documents, {report.chunks} chunks in the embedded index; Milvus at {milvus.uri}")
    if report.unmirrored:
        print(f"not copied to Milvus: {', '.join(report.unmirrored[:10])}"
              + (f" and {len(report.unmirrored) - 10} more" if len(report.unmirrored) > 10 else ""))
    for diff in report.differences[:20]:
        print(f"chunk ids differ in {diff.name}: {diff.missing} missing from Milvus, {diff.extra} only in Milvus")
    if not report.differences:
        print("chunk ids: identical for every document")
    print(table(([p.path, str(p.queries), f"{p.mean_overlap:.3f}", f"{p.min_overlap:.2f}", str(p.identical)]
                 for p in report.paths), ["path", "queries", "mean top-10 overlap", "min", "identical order"]))
    verdict = "agree" if report.ok else "DIFFER"
    print(f"the two backends {verdict} (tolerance: mean top-10 overlap >= {report.tolerance})")
    if not report.ok:
        print("to rewrite Milvus from the embedded index: finrag index migrate --to milvus --fresh")
    return 0 if report.ok else 1
