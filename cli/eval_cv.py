"""``finrag eval cv``: the operation model on companies it was not trained on (company-disjoint folds)."""

from __future__ import annotations

import argparse
from pathlib import Path

from agent.config import Settings
from cli.common import data_dir_of


def register(actions: argparse._SubParsersAction) -> None:
    from evals.operation_cv import DEFAULT_FOLDS

    p = actions.add_parser(
        "cv",
        help="cross-validate the operation model on company-disjoint folds (mean and spread)",
        description="Split the labelled ConvFinQA turns and TAT-QA questions into K folds by company (a company's "
        "questions never straddle two folds), train on K-1, read the held-out fold, and report each fold's "
        "accuracy, the mean and the spread. With --answers, also answer each held-out fold's ConvFinQA "
        "conversations with the model that never saw them and report right / wrong / refused per fold.",
        epilog="example: finrag eval cv --data ../shared/findata --folds 5 --answers",
    )
    p.add_argument("--data", type=Path, default=None, help="data in the findata layout (default: FINRAG_DATA_DIR)")
    p.add_argument("--folds", type=int, default=DEFAULT_FOLDS, help=f"number of folds (default {DEFAULT_FOLDS})")
    p.add_argument("--answers", action="store_true",
                   help="also answer each fold's ConvFinQA conversations end to end (minutes)")
    p.add_argument("--out", type=Path, default=None, help="write cv.json and cv.md here")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from cli.common import report
    from evals.operation_cv import cross_validate, render
    from evals.operation_labels import labelled_questions

    data_dir = data_dir_of(args, settings)
    examples = labelled_questions(data_dir)
    cv = cross_validate(examples, args.folds)
    if args.answers:
        from evals.operation_cv import answer_folds

        cv = answer_folds(cv, examples, data_dir, settings, args.folds)
    report([cv], lambda rows: render(rows[0]), args.out, "cv", args.json)
    return 0
