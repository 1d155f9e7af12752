"""``finrag eval cv``: a learned reader (operations, answer kinds) on companies it was not trained on (company-disjoint
folds)."""

from __future__ import annotations

import argparse
from pathlib import Path

from agent.config import Settings
from cli.common import data_dir_of


def register(actions: argparse._SubParsersAction) -> None:
    from evals.operation_cv import DEFAULT_FOLDS

    p = actions.add_parser(
        "cv",
        help="cross-validate a learned model on company-disjoint folds (mean and spread)",
        description="Split the labelled ConvFinQA turns and TAT-QA questions into K folds by company (a company's "
        "questions never straddle two folds), train on K-1, read the held-out fold, and report each fold's "
        "accuracy, the mean and the spread. With --answers, also answer each held-out fold's ConvFinQA "
        "conversations with the model that never saw them and report right / wrong / refused per fold. --model "
        "answer-kinds does the same for the model that tells amount questions from words ones (its --answers: "
        "TAT-QA's questions, each fold's filings answered by a model trained without them).",
        epilog="example: finrag eval cv --data ../shared/findata --folds 5 --answers",
    )
    p.add_argument("--data", type=Path, default=None, help="data in the findata layout (default: FINRAG_DATA_DIR)")
    p.add_argument("--folds", type=int, default=DEFAULT_FOLDS, help=f"number of folds (default {DEFAULT_FOLDS})")
    p.add_argument("--model", choices=("operations", "answer-kinds"), default="operations",
                   help="which learned model (default: operations)")
    p.add_argument("--answers", action="store_true",
                   help="also answer each fold's questions end to end with the model that never saw them: ConvFinQA's "
                   "conversations for the operation model, TAT-QA's questions for the answer-kind model (minutes)")
    p.add_argument("--out", type=Path, default=None, help="write cv.json and cv.md here")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from cli.common import report
    from evals.operation_cv import cross_validate, render
    from evals.operation_labels import answer_kind_questions, labelled_questions

    data_dir = data_dir_of(args, settings)
    kinds = args.model == "answer-kinds"
    examples = answer_kind_questions(data_dir) if kinds else labelled_questions(data_dir)
    cv = cross_validate(examples, args.folds)
    if args.answers:
        from evals.operation_cv import answer_folds

        cv = answer_folds(cv, examples, data_dir, settings, args.folds, kinds=kinds)
    title = "Answer-kind model" if kinds else "Operation model"
    report([cv], lambda rows: render(rows[0], title), args.out, "cv", args.json)
    return 0
