"""``finrag eval invariance``: the same figure asked in other words (request wrappers, tickers, analyst
abbreviations, shorthand, reordered clauses, date formats) must get the same plan and the same answer."""

from __future__ import annotations

import argparse
from pathlib import Path

from agent.config import Settings


def register(actions: argparse._SubParsersAction) -> None:
    from evals.invariance import CLASSES

    p = actions.add_parser(
        "invariance",
        help="rate at which a right answer stays right when the question is reworded, per perturbation class",
        description="Asks every single-turn question of a dataset; each one answered right is asked again in every "
        f"perturbation class that applies to it ({', '.join(CLASSES)}). Reports, per class, the share of "
        "rewordings whose plan (company, metric, period, operation, figure or words) equals the original's, and "
        "right / wrong / refused of their answers. Writes invariance.json and invariance.md to --out.",
        epilog="example: finrag eval invariance --dataset analyst --out runs/invariance\n"
        "         finrag eval invariance --data ../shared/findata --dataset financebench --class ticker casual",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--data", type=Path, default=None, help="data in the findata layout (default: FINRAG_DATA_DIR)")
    p.add_argument("--dataset", choices=("analyst", "financebench", "tatqa"), default="analyst",
                   help="whose questions to reword (default: the packaged analyst set, no data directory needed)")
    p.add_argument("--class", dest="classes", nargs="+", choices=CLASSES, default=list(CLASSES),
                   help="perturbation classes to run (default: all)")
    p.add_argument("--limit", type=int, default=None, help="only the first N questions")
    p.add_argument("--out", type=Path, default=None, help="write invariance.json and invariance.md here")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=handler)


def handler(args: argparse.Namespace, settings: Settings) -> int:
    from cli.eval_answers import resolve_data_dir
    from evals.invariance import render, run_invariance, write_report
    from evals.runner import load_eval_set

    eval_set = load_eval_set(settings, resolve_data_dir(args, settings), args.dataset, args.limit)
    report = run_invariance(settings, eval_set, classes=args.classes, progress=not args.quiet)
    if args.out is not None:
        write_report(report, args.out)
    print(render(report))
    return 0
