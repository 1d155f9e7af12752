"""``finrag eval retrieval``: the retrieval benchmark (BM25, dense, hybrid, deep retrieval and its ablations)."""

from __future__ import annotations

import argparse
from pathlib import Path

from agent.config import Settings
from cli.common import data_dir_of


def register(actions: argparse._SubParsersAction) -> None:
    from evals.retrieval_bench import DATASETS, SYSTEMS

    p = actions.add_parser(
        "retrieval",
        help="retrieval benchmark: page/chunk nDCG, MAP, MRR, recall, latency per stage",
        description="Ingest the filings the questions need (cached per data directory under the data home), "
        "run every system on every question and report page- and chunk-level scores, latency and candidate "
        "sizes as JSON and Markdown.",
        epilog="example: finrag eval retrieval --data ../shared/findata --systems bm25,dense,full --limit 20",
    )
    p.add_argument("--data", type=Path, default=None, help="data in the findata layout (default: FINRAG_DATA_DIR)")
    p.add_argument("--dataset", choices=DATASETS, default="financebench", help="which benchmark")
    p.add_argument("--systems", default=",".join(SYSTEMS), help=f"comma-separated, from: {', '.join(SYSTEMS)}")
    p.add_argument("--k", type=int, default=10, help="cut-off for every metric (default 10)")
    p.add_argument("--out", type=Path, default=None, help="report folder (default: <home>/reports)")
    p.add_argument("--limit", type=int, default=None, help="only the first N questions")
    p.add_argument("--no-ingest", action="store_true", help="score only questions whose filings are indexed")
    p.add_argument("--cross-encoder", default=None, help="CrossEncoder id or path for the rerank stage")
    p.set_defaults(func=handler)


def handler(args: argparse.Namespace, settings: Settings) -> int:
    from agent.errors import FinragError
    from evals.retrieval_bench import render_markdown, run_benchmark, write_report

    if args.cross_encoder:
        settings = settings.replace(cross_encoder_model=args.cross_encoder)
    data_dir = data_dir_of(args, settings)
    if args.limit is not None and args.limit < 1:
        raise FinragError("--limit must be at least 1.")
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    report = run_benchmark(settings, Path(data_dir), args.dataset, systems, args.k, args.limit,
                           ingest=not args.no_ingest)
    json_path, md_path = write_report(report, args.out or settings.home / "reports")
    print(render_markdown(report))
    print(f"written: {json_path} and {md_path}")
    return 0
