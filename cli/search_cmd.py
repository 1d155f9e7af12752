"""``finrag search``: hybrid BM25 + dense search with reciprocal rank fusion, filtered by document metadata."""

from __future__ import annotations

import argparse

from agent.config import Settings
from cli.common import err, print_json, shorten

MAX_HITS = 1000  # more than anyone reads; keeps a typo like -k 1000000 from printing the whole index


def hit_count(text: str) -> int:
    """argparse type for -k: a whole number from 1 to MAX_HITS."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if not 1 <= value <= MAX_HITS:
        raise argparse.ArgumentTypeError(f"must be from 1 to {MAX_HITS} (got {value})")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "search",
        help="hybrid search over ingested chunks (BM25 + dense, fused by RRF)",
        description="Search chunks of the ingested filings. Filters select documents by metadata before chunk search.",
        epilog='example: finrag search "purchases of property, plant and equipment" --doc 3M_2018_10K -k 5',
    )
    p.add_argument("query", help="what to look for")
    p.add_argument("--doc", default=None, help="only this document (name or content hash)")
    p.add_argument("--company", default=None, help="only documents of this company")
    p.add_argument("--form", default=None, help="only this form type (10-K, 10-Q, 8-K, ...)")
    p.add_argument("--year", type=int, default=None, help="only this fiscal year")
    p.add_argument("-k", type=hit_count, default=10, help=f"number of hits, 1 to {MAX_HITS} (default 10)")
    p.add_argument("--mode", choices=("hybrid", "bm25", "dense"), default="hybrid", help="retrieval path")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from agent.index.embeddings import get_embedder
    from agent.index.search import HybridSearcher
    from agent.index.store import Store
    from agent.index.tokenize import tokenize

    if not tokenize(args.query):
        err("the query has no words to search for; e.g. finrag search \"capital expenditures 2018\"")
        return 2
    with Store.open(settings) as store:
        if not store.document_names():
            err(f"no documents indexed yet in {settings.index_dir}; add some with: finrag ingest PATH")
            return 1
        searcher = HybridSearcher(store, lambda: get_embedder(settings))
        filters = {"name": args.doc, "company": args.company, "form": args.form, "fiscal_year": args.year}
        doc_ids = searcher.filter_documents(**filters) if any(v is not None for v in filters.values()) else None
        if doc_ids is not None and not doc_ids:
            err("no document matches those filters (see: finrag docs)")
            return 1
        hits = getattr(searcher, args.mode)(args.query, doc_ids=doc_ids, k=args.k)
    if args.json:
        print_json(hits)
        return 0
    if not hits:
        print("no hits")
        return 0
    for rank, hit in enumerate(hits, 1):
        section = " > ".join(hit.chunk.section_path) or "-"
        kind = " [table]" if hit.chunk.is_table else ""
        print(f"{rank:>2}. [{hit.doc_name}, p. {hit.page_label}] {section}{kind}  score={hit.score:.4f}")
        print(f"    {shorten(hit.chunk.text, 300)}")
    return 0
