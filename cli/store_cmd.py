"""``finrag store``: copy the embedded SQLite stores into PostgreSQL, and check that the two agree."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from agent.config import Settings
from agent.db import is_postgres_url, redacted
from cli.common import err, print_json, print_usage, progress_lines

TARGETS = ("postgresql",)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "store",
        help="copy the SQLite stores into PostgreSQL (migrate) and compare the two (check)",
        description=(
            "By default documents, pages, chunks, Chunk Cards, vectors, facts and companies live in SQLite under\n"
            "FINRAG_HOME (with the memory bank, the thread list and the conversations). Replicas that share one\n"
            "store keep all of it in PostgreSQL instead (FINRAG_STORE_URL).\n"
            "  migrate  copies everything from FINRAG_HOME into the PostgreSQL database; documents already there\n"
            "           are skipped and the rest is upserted, so an interrupted run resumes.\n"
            "  check    compares the two, document by document (exit 1 when they differ).\n"
            "Then point every replica and ingest worker at it: export FINRAG_STORE_URL=postgresql://..."
        ),
        epilog=(
            "examples:\n"
            "  finrag store migrate --to postgresql --url postgresql://finrag:secret@db:5432/finrag\n"
            "  finrag store check --url postgresql://finrag:secret@db:5432/finrag\n"
            "  export FINRAG_STORE_URL=postgresql://finrag:secret@db:5432/finrag"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(func=lambda args, settings: print_usage(p))
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    migrate = actions.add_parser("migrate", help="copy the SQLite stores under FINRAG_HOME into PostgreSQL (resumable)",
                                 description="Copy every document, company, memory entry, thread and conversation "
                                             "into PostgreSQL. Run it again after an interruption: it resumes.",
                                 epilog="example: finrag store migrate --to postgresql --url postgresql://db/finrag")
    migrate.add_argument("--to", choices=TARGETS, required=True, help="the engine to copy into")
    _url_option(migrate)
    migrate.add_argument("--json", action="store_true", help="JSON output")
    migrate.set_defaults(func=run_migrate)
    check = actions.add_parser("check", help="compare PostgreSQL with the SQLite stores under FINRAG_HOME",
                               description="Exit 0 when both hold the same documents with the same pages, chunks, "
                                           "cards, vectors, facts and records, the same companies and the same "
                                           "memory entries; else 1, naming what differs.",
                               epilog="example: finrag store check --url postgresql://db/finrag")
    _url_option(check)
    check.add_argument("--json", action="store_true", help="JSON output")
    check.set_defaults(func=run_check)



def _url_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", default=None, help="the PostgreSQL database (default $FINRAG_STORE_URL)")


def _pair(args: argparse.Namespace, settings: Settings) -> tuple[Settings, Settings] | None:
    """Settings for the SQLite source (FINRAG_HOME) and the PostgreSQL target; None (said) when no URL."""
    url = (args.url or settings.store_url).strip()
    if not is_postgres_url(url):
        err("name the PostgreSQL database: --url postgresql://USER:PASSWORD@HOST:5432/DB (or set FINRAG_STORE_URL)")
        return None
    return settings.replace(store_url=""), settings.replace(store_url=url)



def run_migrate(args: argparse.Namespace, settings: Settings) -> int:
    from agent.index.store import Store
    from agent.index.transfer import copy_index
    from agent.memory import MemoryBank
    from graphs.threads import ThreadIndex

    pair = _pair(args, settings)
    if pair is None:
        return 2
    source_settings, target_settings = pair
    if not (source_settings.index_dir / "finrag.sqlite").is_file():
        err(f"no SQLite index under {source_settings.home} to copy; ingest there first, or set FINRAG_HOME")
        return 1
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="finrag-migrate-") as scratch:
        # The target's rows only: each replica builds its own search files from them on first open.
        target_settings = target_settings.replace(home=Path(scratch))
        with Store.open(source_settings) as source:
            target_settings = target_settings.replace(embedding_model=source.embedding_model or settings.embedding_model)
            with Store.open(target_settings, search_files=False) as target:
                report = copy_index(source, target, progress=None if args.json else progress_lines("copied"))
        entries = MemoryBank(target_settings).copy_from(MemoryBank(source_settings))
        threads = ThreadIndex(target_settings.home, target_settings.store_url).copy_from(ThreadIndex(settings.home))
        conversations = _copy_conversations(source_settings, target_settings)
    seconds = time.perf_counter() - started
    result = {"url": redacted(target_settings.store_url), "documents_copied": len(report.copied),
              "documents_skipped": report.skipped, "chunks": report.chunks, "memory_entries": entries,
              "threads": threads, "checkpoints": conversations, "seconds": round(seconds, 1)}
    if args.json:
        print_json(result)
        return 0
    print(f"PostgreSQL at {result['url']}: {len(report.copied)} document(s) copied ({report.chunks} chunks), "
          f"{report.skipped} already there; {entries} memory entries, {threads} threads, {conversations} "
          f"checkpoints in {seconds:.1f} s.")
    print("Compare the two: finrag store check --url URL")
    print("Then use it from every replica and worker: export FINRAG_STORE_URL=URL")
    return 0


def _copy_conversations(source: Settings, target: Settings) -> int:
    """The conversations' checkpoints, from the SQLite checkpointer under home into the store's database
    (where replicas keep them unless FINRAG_CHECKPOINT_URL says otherwise)."""
    from graphs.checkpoint import (
        checkpoint_path,
        close_checkpointer,
        copy_checkpoints,
        open_checkpointer,
        serde_allowlist,
    )
    from graphs.state import BranchInput, DeepRetrievalState, MainState

    if not checkpoint_path(source).is_file():
        return 0
    allow = serde_allowlist(MainState, BranchInput, DeepRetrievalState)
    reader = open_checkpointer(source.replace(checkpoint_url=""))
    writer = open_checkpointer(target.replace(checkpoint_url=target.checkpoint_url or target.store_url))
    try:
        return copy_checkpoints(reader.with_allowlist(allow), writer.with_allowlist(allow))
    finally:
        close_checkpointer(reader)
        close_checkpointer(writer)


def run_check(args: argparse.Namespace, settings: Settings) -> int:
    from agent.index.store import Store
    from agent.index.transfer import compare_indexes
    from agent.memory import MemoryBank

    pair = _pair(args, settings)
    if pair is None:
        return 2
    source_settings, target_settings = pair
    with tempfile.TemporaryDirectory(prefix="finrag-check-") as scratch:
        target_settings = target_settings.replace(home=Path(scratch))
        with Store.open(source_settings, search_files=False) as source, \
                Store.open(target_settings, search_files=False) as target:
            report = compare_indexes(source, target, progress=None if args.json else progress_lines("checked"))
        ours = {e.id: e.model_dump_json() for e in MemoryBank(source_settings).list()}
        theirs = {e.id: e.model_dump_json() for e in MemoryBank(target_settings).list()}
    memory_differs = sorted(i for i in set(ours) | set(theirs) if ours.get(i) != theirs.get(i))
    ok = report.ok and not memory_differs
    if args.json:
        print_json({**report.model_dump(), "memory_entries": len(ours), "memory_differing": memory_differs, "ok": ok})
        return 0 if ok else 1
    print(f"{report.documents} documents in SQLite under {settings.home}; PostgreSQL at "
          f"{redacted(target_settings.store_url)}")
    for label, names in (("only in SQLite", report.only_in_source), ("only in PostgreSQL", report.only_in_target)):
        if names:
            print(f"{label}: {', '.join(names[:10])}" + (f" and {len(names) - 10} more" if len(names) > 10 else ""))
    for diff in report.differing[:20]:
        print(f"{diff.name} differs: {', '.join(diff.parts)}")
    if not report.companies_equal:
        print("the company registries differ (names, aliases, tickers or identifiers)")
    if memory_differs:
        print(f"memory entries differ: {', '.join(memory_differs[:10])}")
    print(f"the two stores {'agree' if ok else 'DIFFER'}" + ("" if ok else "; copy again: finrag store migrate "
                                                             "--to postgresql --url URL"))
    return 0 if ok else 1
