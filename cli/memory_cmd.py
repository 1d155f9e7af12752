"""``finrag memory``: the bank of expert-verified answers (add, list, verify, remove, import, export, seed)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import numpy as np
from pydantic import ValidationError

from agent.config import Settings
from agent.errors import FinragError
from agent.memory import (
    MemoryBank,
    MemoryEntry,
    MemorySource,
    MemoryStatus,
    load_seed_answers,
    parse_citation,
)
from cli.common import err, print_json, shorten, table

# Characters of the answer shown per row in `memory list` (the full text is in --json / export).
LIST_ANSWER_CHARS = 60
LIST_QUESTION_CHARS = 70


def lazy_embedder(settings: Settings) -> Callable[[list[str]], np.ndarray]:
    """An embedding function that loads the model on first use, so commands that never match never load it."""
    loaded: list[Callable[[list[str]], np.ndarray]] = []

    def embed(texts: list[str]) -> np.ndarray:
        if not loaded:
            from agent.index.embeddings import get_embedder

            loaded.append(get_embedder(settings).encode)
        return loaded[0](texts)

    return embed


def open_bank(settings: Settings, with_embeddings: bool = False) -> MemoryBank:
    """The memory bank under the settings' home; embeddings only where matching needs them."""
    return MemoryBank(settings, embed=lazy_embedder(settings) if with_embeddings else None)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "memory",
        help="expert-verified answers: add, list, verify, remove, import, export, seed, lookup",
        description="The memory bank holds canonical questions x fiscal periods with verified answers and their "
        "sources. Verified entries answer matching questions instantly; pipeline answers are seeded as unverified "
        "candidates until a person verifies them; a newer filing for the same company and period makes entries stale.",
        epilog="example: finrag memory list --status verified",
    )
    sub = p.add_subparsers(dest="memory_command", metavar="ACTION", required=True)

    a = sub.add_parser(
        "add",
        help="add or update an entry",
        epilog='example: finrag memory add --question "What was 3M\'s FY2018 capital expenditure?" '
        '--answer "$1,577 million" --company 3M --period FY2018 '
        '--citation "[3M_2018_10K, p. 60] Purchases of property, plant and equipment (PP&E) (1,577)" --verifier "J. Doe"',
    )
    a.add_argument("--question", required=True, help="the canonical question")
    a.add_argument("--answer", required=True, help="the answer, with unit, scale and period")
    a.add_argument("--company", default="", help="company the answer is about")
    a.add_argument("--period", default="", help="fiscal period, e.g. FY2018, 2023Q2")
    a.add_argument(
        "--citation",
        action="append",
        default=[],
        metavar="CITE",
        help="'[DOC, p. N] quote' or 'DOC:N:quote' (repeatable)",
    )
    a.add_argument(
        "--verifier", default="", help="who verified it; without it the entry is stored unverified"
    )
    a.add_argument("--json", action="store_true", help="print the stored entry as JSON")
    a.set_defaults(func=run_add)

    ls = sub.add_parser("list", help="list entries", epilog="example: finrag memory list --company 3M --json")
    ls.add_argument("--status", choices=[s.value for s in MemoryStatus], help="only entries with this status")
    ls.add_argument("--company", default="", help="only entries about this company")
    ls.add_argument("--json", action="store_true", help="print the entries as JSON")
    ls.set_defaults(func=run_list)

    v = sub.add_parser("verify", help="mark an entry verified",
                       epilog="example: finrag memory verify 3 --verifier 'Jane Analyst'")
    v.add_argument("id", metavar="ID", help="entry id (or an unambiguous prefix)")
    v.add_argument("--verifier", required=True, help="who verified it")
    v.set_defaults(func=run_verify)

    r = sub.add_parser("remove", help="delete an entry", epilog="example: finrag memory remove 3")
    r.add_argument("id", metavar="ID", help="entry id (or an unambiguous prefix)")
    r.set_defaults(func=run_remove)

    i = sub.add_parser("import", help="add or update entries from a JSON-lines file (idempotent)",
                       epilog="example: finrag memory import verified_answers.jsonl")
    i.add_argument("path", type=Path, metavar="FILE")
    i.set_defaults(func=run_import)

    e = sub.add_parser("export", help="write every entry to a JSON-lines file",
                       epilog="example: finrag memory export bank.jsonl")
    e.add_argument("path", type=Path, metavar="FILE")
    e.set_defaults(func=run_export)

    s = sub.add_parser("seed", help="store pipeline answers as unverified candidates",
                       epilog="example: finrag ask \"What was 3M's 2018 capex?\" --json > a.json; finrag memory seed --from-json a.json")
    s.add_argument(
        "--from-json",
        dest="from_json",
        type=Path,
        required=True,
        metavar="FILE",
        help="JSON array (or JSON lines) of {question, answer, citations, company, period}",
    )
    s.set_defaults(func=run_seed)

    lk = sub.add_parser("lookup", help="match a question against the verified entries",
                        epilog="example: finrag memory lookup \"What was 3M's FY2018 capex?\" --company 3M --period FY2018")
    lk.add_argument("question", metavar="QUESTION")
    lk.add_argument("--company", default="", help="company the question is about")
    lk.add_argument("--period", default="", help="fiscal period the question is about")
    lk.add_argument("--no-embed", action="store_true", help="skip the semantic matcher (no model load)")
    lk.add_argument("--json", action="store_true", help="print the match as JSON")
    lk.set_defaults(func=run_lookup)


def _describe(entry: MemoryEntry) -> str:
    where = " ".join(x for x in (entry.company, entry.period) if x) or "no company/period"
    return f"{entry.id} [{entry.status.value}] {where}: {shorten(entry.question, LIST_QUESTION_CHARS)}"


def run_add(args: argparse.Namespace, settings: Settings) -> int:
    try:
        citations = [parse_citation(c) for c in args.citation]
        entry = MemoryEntry(
            question=args.question,
            answer=args.answer,
            citations=citations,
            company=args.company,
            period=args.period,
            verifier=args.verifier,
            status=MemoryStatus.VERIFIED if args.verifier.strip() else MemoryStatus.UNVERIFIED,
            source=MemorySource.MANUAL,
        )
    except (ValueError, ValidationError) as exc:
        err(_one_line(exc))
        return 1
    try:
        stored = open_bank(settings).add(entry)
    except FinragError as exc:
        err(str(exc))
        return 1
    if args.json:
        print_json(stored)
    else:
        print(f"stored {_describe(stored)}")
    return 0


def run_list(args: argparse.Namespace, settings: Settings) -> int:
    try:
        entries = open_bank(settings).list(status=args.status, company=args.company)
    except FinragError as exc:
        err(str(exc))
        return 1
    if args.json:
        print_json(entries)
        return 0
    if not entries:
        print("no memory entries" + (f" with status {args.status}" if args.status else ""))
        return 0
    rows = [
        (
            e.id,
            e.status.value,
            e.company,
            e.period,
            shorten(e.question, LIST_QUESTION_CHARS),
            shorten(e.answer, LIST_ANSWER_CHARS),
            e.verifier,
        )
        for e in entries
    ]
    print(table(rows, ["id", "status", "company", "period", "question", "answer", "verifier"]))
    return 0


def run_verify(args: argparse.Namespace, settings: Settings) -> int:
    try:
        entry = open_bank(settings).verify(args.id, args.verifier)
    except FinragError as exc:
        err(str(exc))
        return 1
    print(f"verified {_describe(entry)} by {entry.verifier}")
    return 0


def run_remove(args: argparse.Namespace, settings: Settings) -> int:
    try:
        entry = open_bank(settings).remove(args.id)
    except FinragError as exc:
        err(str(exc))
        return 1
    print(f"removed {_describe(entry)}")
    return 0


def run_import(args: argparse.Namespace, settings: Settings) -> int:
    from agent.answer.verify import memory_entry_check
    from agent.index.store import Store

    try:
        with Store.open(settings) as store:  # a 'verified' entry counts only when the index supports it
            bank = open_bank(settings, with_embeddings=True)  # vectors made once, here
            report = bank.import_jsonl(args.path, check=memory_entry_check(store))
    except FinragError as exc:
        err(str(exc))
        return 1
    for line in [*report.demoted, *report.kept]:
        err(f"{args.path}:{line}")
    print(
        f"imported {args.path}: {report.added} added, {report.updated} updated, {report.unchanged} unchanged"
        + (f", {len(report.demoted)} kept unverified" if report.demoted else "")
        + (f", {len(report.kept)} verified entries left as they were" if report.kept else "")
    )
    return 0


def run_export(args: argparse.Namespace, settings: Settings) -> int:
    try:
        count = open_bank(settings).export_jsonl(args.path)
    except (FinragError, OSError) as exc:
        err(str(exc))
        return 1
    print(f"exported {count} entries to {args.path}")
    return 0


def run_seed(args: argparse.Namespace, settings: Settings) -> int:
    try:
        answers = load_seed_answers(args.from_json)
        bank = open_bank(settings)
        stored = [bank.seed(a.question, a.answer, a.citations, a.company, a.period) for a in answers]
    except (FinragError, ValidationError) as exc:
        err(_one_line(exc))
        return 1
    kept = sum(1 for e in stored if e.status == MemoryStatus.VERIFIED)
    print(
        f"seeded {len(stored) - kept} unverified candidates; kept {kept} already verified entries unchanged"
    )
    return 0


def run_lookup(args: argparse.Namespace, settings: Settings) -> int:
    try:
        match = open_bank(settings, with_embeddings=not args.no_embed).lookup(
            args.question, args.company, args.period
        )
    except FinragError as exc:
        err(str(exc))
        return 1
    if match is None:
        if args.json:
            print_json(None)
        else:
            print("no verified memory entry matches")
        return 0
    if args.json:
        print_json(match)
        return 0
    print(match.entry.answer)
    print(f"({match.provenance()})")
    return 0


def _one_line(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "entry"
        return f"invalid {where}: {first.get('msg', 'invalid value')}"
    return " ".join(str(exc).split())
