"""``finrag eval answers``: the graph over a dataset, every answer scored (accuracy by question type, latency,
tokens, failure modes) as JSON and Markdown in a run directory."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from agent.config import Settings
from agent.errors import FinragError

if TYPE_CHECKING:
    from evals.cost import PriceTable


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """The options ``answers`` and ``run`` share."""
    from evals.runner import DATASETS

    p.add_argument("--data", type=Path, default=None, help="data in the findata layout (default: FINRAG_DATA_DIR)")
    p.add_argument("--dataset", choices=DATASETS, default="financebench",
                   help="which questions; 'questions' asks a --questions file over the filings in FINRAG_HOME; "
                   "'analyst' and 'fresh' ask the packaged sets of their own typeset filings (no data directory needed); "
                   "'analyst_printed' and 'fresh_printed' ask them over their filings printed to PDF by Chromium")
    p.add_argument("--questions", type=Path, default=None,
                   help="JSON lines of {question, answer?, id?, question_type?, conversation?, docs?}")
    p.add_argument("--limit", type=int, default=None, help="only the first N questions (ConvFinQA: conversations)")
    p.add_argument("--scope", choices=("corpus", "document"), default=None,
                   help="one index for the dataset, or one per document (default: FinanceBench corpus, "
                   "ConvFinQA and TAT-QA document)")
    p.add_argument("--out", type=Path, default=None, help="run directory (default: <home>/reports/<kind>-<dataset>-<time>)")
    p.add_argument("--name", default="", help="system label in reports (default: <dataset>-<scope>-<model>)")
    p.add_argument("--no-ingest", action="store_true", help="use only documents already in the bench index")
    p.add_argument("--judge-runs", type=int, default=0,
                   help="also ask the LLM judge this many times per answer (needs a configured model)")
    p.add_argument("--prices", type=Path, default=None, help="JSON price table (USD per million tokens per model)")


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "answers",
        help="answer accuracy by question type, latency p50/p95 and tokens of the graph on a dataset",
        description="Run the graph on every question (ConvFinQA turn by turn on one thread per conversation), "
        "score each answer with the numeric-tolerant matcher and token F1, and write run.json, results.jsonl, "
        "summary.json and summary.md to the run directory. Filings are ingested once and cached under the "
        "data home.",
        epilog="example: finrag eval answers --data ../shared/findata --dataset convfinqa --limit 20",
    )
    add_run_arguments(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=handler)


def load_prices(path: Path | None) -> PriceTable:
    """The price table from ``--prices``, else the defaults (imported lazily: `finrag --help` stays fast)."""
    from evals.cost import PriceTable

    return PriceTable.from_json(path) if path else PriceTable()


def resolve_data_dir(args: argparse.Namespace, settings: Settings) -> Path | None:
    """``--data`` or the configured data directory (None for a questions file and the packaged analyst set)."""
    data_dir = args.data or settings.data_dir
    if data_dir is None and args.dataset not in {"questions", "analyst", "fresh", "analyst_printed", "fresh_printed"}:
        raise FinragError("No data directory: pass --data DIR or set FINRAG_DATA_DIR.")
    return Path(data_dir) if data_dir is not None else None


def handler(args: argparse.Namespace, settings: Settings) -> int:
    from evals.runner import default_run_dir, load_eval_set, render_summary, run_answers, write_run

    if args.judge_runs < 0:
        raise FinragError("--judge-runs must be 0 or more.")
    prices = load_prices(args.prices)
    eval_set = load_eval_set(settings, resolve_data_dir(args, settings), args.dataset, args.limit, args.questions)
    record = run_answers(settings, eval_set, scope=args.scope, name=args.name, limit=args.limit,
                         ingest=not args.no_ingest, judge_runs=args.judge_runs, prices=prices, progress=not args.quiet)
    out = args.out or default_run_dir(settings, args.dataset)
    summary = write_run(record, out, prices)
    print(render_summary(record, summary))
    print(f"written: {out} (run.json, results.jsonl, summary.json, summary.md)")
    return 0
