"""``finrag retrieve``: deep retrieval for one question, with its evidence and (optionally) its audit trace."""

from __future__ import annotations

import argparse

from agent.config import Settings
from cli.common import print_json, shorten


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "retrieve",
        help="deep retrieval: multi-path candidates, card screening, bootstrap ranking, evidence selection",
        description="Find the evidence for one question in the ingested filings. Documents are routed by the "
        "question's company, form and period unless --doc or --company say which; --trace shows every stage.",
        epilog='example: finrag retrieve "What was 3M\'s FY2018 capital expenditure?" --doc 3M_2018_10K --trace',
    )
    p.add_argument("question", help="the question (one company, metric and period works best)")
    p.add_argument("--doc", action="append", default=None, metavar="DOC",
                   help="search only this document (name or content hash); repeat for several")
    p.add_argument("--company", default=None, help="search only this company's filings")
    p.add_argument("-k", "--k", type=int, default=None, help="evidence chunks at most (default: settings)")
    p.add_argument("--json", action="store_true", help="JSON: intent, selected evidence and the audit trace")
    p.add_argument("--trace", action="store_true", help="print the audit trace, stage by stage")
    p.set_defaults(func=handler)


def handler(args: argparse.Namespace, settings: Settings) -> int:
    from agent.errors import FinragError
    from agent.retrieval.pipeline import DeepRetriever
    from graphs.deep_retrieval import build_deep_retrieval_graph

    if not args.question.strip():
        raise FinragError("The question is empty.")
    if args.k is not None and args.k < 1:
        raise FinragError("-k must be at least 1.")
    with DeepRetriever.open(settings) as retriever:
        graph = build_deep_retrieval_graph(retriever)
        out = graph.invoke({"question": args.question, "docs": args.doc or [], "company": args.company, "k": args.k},
                           context=settings)
    trace = out["trace"]
    if args.json:
        print_json({"question": args.question, "intent": out["intent"], "selected": out["selected"],
                    "trace": trace})
        return 0
    if args.trace:
        print(trace.render_text())
        print()
    selected = out["selected"]
    if not selected:
        print("no evidence found")
        return 0
    print(f"Evidence for: {args.question}")
    for hit in selected:
        section = " > ".join(hit.chunk.section_path) or "-"
        kind = " [table]" if hit.chunk.is_table else ""
        print(f"[{hit.doc_name}, p. {hit.page_label}] {section}{kind}")
        print(f"    {shorten(hit.chunk.text, 300)}")
    return 0
