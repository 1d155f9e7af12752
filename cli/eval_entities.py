"""``finrag eval entities``: do real filings attach to one company entity per company?"""

from __future__ import annotations

import argparse
from pathlib import Path

from agent.config import Settings
from cli.common import data_dir_of, report


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "entities",
        help="benchmark company resolution: filings -> entities, scored against the dataset's companies",
        description="Parse every FinanceBench filing, detect its company as `finrag ingest` does (no --company), "
        "attach it to one registry and report entities made, entities holding several companies (merged "
        "wrongly) and companies split over several entities. Exit status 1 when any entity is merged wrongly.",
        epilog="example: finrag eval entities --data ../shared/findata --out reports/entities",
    )
    p.add_argument("--data", type=Path, default=None, help="findata folder (default: $FINRAG_DATA_DIR)")
    p.add_argument("--limit", type=int, default=0, help="only the first N filings")
    p.add_argument("--out", type=Path, default=None, help="write entities.json and entities.md here")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from evals.entities_bench import bench_entities, financebench_filings, to_markdown

    data_dir = data_dir_of(args, settings)
    filings = financebench_filings(data_dir)
    if args.limit:
        filings = filings[: args.limit]
    result = bench_entities(filings, settings)
    report([result], lambda reports: to_markdown(reports[0]), args.out, "entities", args.json)
    return 1 if result.merged_wrongly else 0
