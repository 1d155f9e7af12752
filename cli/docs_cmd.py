"""``finrag docs``: list, show, edit and remove ingested documents."""

from __future__ import annotations

import argparse

from agent.config import Settings
from agent.schemas import DocumentMeta
from cli.common import print_json, shorten, table

EDITABLE = ("company", "ticker", "form", "fiscal_year", "fiscal_period", "period_end", "filing_date")
EDIT_HELP = {
    "company": "the company the filing belongs to: an indexed company's name, former name, ticker or id, or a new "
               "company's name",
    "ticker": "the company's ticker, e.g. MMM or BRK.B",
    "form": "10-K, 10-Q, 8-K, EARNINGS, ...",
    "fiscal_year": "the fiscal year the filing reports, e.g. 2024",
    "fiscal_period": "FY2024, FY2024Q2 (a quarter), FY2024H1 (a half) or FY2024M9 (nine months)",
    "period_end": "the last day of the period reported, YYYY-MM-DD",
    "filing_date": "the day the filing was filed, YYYY-MM-DD",
}


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "docs",
        help="list, show, edit or remove ingested documents",
        description="Without an action, lists every ingested document with its metadata.",
        epilog="examples: finrag docs --json | finrag docs show 3M_2018_10K | finrag docs edit 3M_2018_10K --ticker MMM",
    )
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=list_docs)
    actions = p.add_subparsers(dest="action", metavar="ACTION")

    show = actions.add_parser("show", help="one document: metadata, sections and chunk counts",
                               epilog="example: finrag docs show NORTHWIND_2024_10K --json")
    show.add_argument("name", help="document name (file stem) or content hash")
    show.add_argument("--json", action="store_true", help="JSON output")
    show.set_defaults(func=show_doc)

    edit = actions.add_parser("edit", help="correct a document's metadata",
                               epilog="example: finrag docs edit NORTHWIND_2024_10K --ticker NWND --fiscal-period FY2024")
    edit.add_argument("name", help="document name or content hash")
    for field in EDITABLE:
        helptext = EDIT_HELP.get(field, f"new {field.replace('_', ' ')}")
        edit.add_argument(f"--{field.replace('_', '-')}", dest=field, default=None, help=helptext)
    edit.add_argument("--json", action="store_true", help="JSON output")
    edit.set_defaults(func=edit_doc)

    remove = actions.add_parser("remove", help="remove a document everywhere (rows, vectors, BM25)",
                                 epilog="example: finrag docs remove NORTHWIND_2024_10K")
    remove.add_argument("name", help="document name or content hash")
    remove.set_defaults(func=remove_doc)


def _row(d: DocumentMeta) -> list[str]:
    flagged = " (from file name)" if d.company_source == "file name" else ""
    return [d.name, d.company + flagged, d.ticker, d.form, d.fiscal_period, d.filing_date, str(d.n_pages),
            str(d.n_chunks), d.path]


def list_docs(args: argparse.Namespace, settings: Settings) -> int:
    from agent.index.store import Store

    with Store.open(settings) as store:
        docs = store.list_documents()
    if args.json:
        print_json(docs)
    elif not docs:
        print(f"no documents in {settings.index_dir} yet; add some with: finrag ingest PATH")
    else:
        # Grouped by company: one company, one block, whatever names its filings printed.
        ordered = sorted(docs, key=lambda d: (d.company.lower(), d.entity_id, d.fiscal_period, d.name))
        print(table((_row(d) for d in ordered),
                    ["name", "company", "ticker", "form", "period", "filed", "pages", "chunks", "path"]))
        companies = {d.entity_id for d in docs}
        guessed = sum(d.company_source == "file name" for d in docs)
        note = f"; {guessed} named from the file name only (check with: finrag companies)" if guessed else ""
        print(f"{len(docs)} documents of {len(companies)} companies{note}")
    return 0


def show_doc(args: argparse.Namespace, settings: Settings) -> int:
    from agent.index.store import Store

    with Store.open(settings) as store:
        doc = store.get_document(args.name)
        sections = store.sections(doc.doc_id)
        chunks = store.chunks([doc.doc_id])
    if args.json:
        print_json({"document": doc, "sections": sections, "n_chunks": len(chunks)})
        return 0
    for key, value in doc.model_dump().items():
        print(f"{key:>14}: {value}")
    per_section: dict[int, int] = {}
    for c in chunks:
        per_section[c.section_id] = per_section.get(c.section_id, 0) + 1
    print()
    print(table(
        ([f"{s.page_start + 1}-{s.page_end + 1}", " > ".join(s.path) or s.title, str(per_section.get(s.section_id, 0)),
          shorten(s.summary, 70)] for s in sections),
        ["pages", "section", "chunks", "summary"],
    ))
    return 0


def edit_doc(args: argparse.Namespace, settings: Settings) -> int:
    from agent.index.store import Store

    changes = {f: getattr(args, f) for f in EDITABLE if getattr(args, f) is not None}
    if not changes:
        print("finrag: nothing to change; pass e.g. --company or --fiscal-period")
        return 2
    with Store.open(settings) as store:
        doc = store.update_metadata(args.name, **changes)
    if args.json:
        print_json(doc)
    else:
        print(f"updated {doc.name}: " + ", ".join(f"{k}={getattr(doc, k)}" for k in changes))
        if not doc.pipeline_version:
            print(f"  its tables and sentences were read in the old period: run `finrag ingest {doc.path}` to read "
                  "them in this one")
    return 0


def remove_doc(args: argparse.Namespace, settings: Settings) -> int:
    from agent.index.store import Store

    with Store.open(settings) as store:
        doc = store.remove_document(args.name)
    print(f"removed {doc.name} ({doc.n_chunks} chunks)")
    return 0
