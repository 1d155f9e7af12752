"""``finrag train``: rebuild the learned parts from the benchmark data, reproducibly."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from agent.config import Settings
from cli.common import data_dir_of


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "train",
        help="rebuild a learned model from FINRAG_DATA_DIR (the operation model)",
        description="Train a learned part of finrag on the benchmark data in the findata layout and write it where "
        "finrag reads it. The same data gives the same file, so the shipped model can be checked and rebuilt.",
    )
    p.set_defaults(func=lambda args, settings: (p.print_help(), 2)[1])
    actions = p.add_subparsers(dest="train_action", metavar="MODEL")
    ops = actions.add_parser(
        "operations",
        help="which arithmetic a question asks for (change, percent change, share, ratio, sum, average, ...)",
        description="Label every ConvFinQA turn by what its gold program adds to the turn before, and every TAT-QA "
        "question by its derivation; fit the operation model (logistic regression over words, word pairs, the "
        "lexicon's word classes and the conversation's state); write it as JSON. Check it on companies it has "
        "not seen with `finrag eval cv`.",
        epilog="example: finrag train operations --data ../shared/findata   (writes agent/query/operations.json)",
    )
    ops.add_argument("--data", type=Path, default=None, help="data in the findata layout (default: FINRAG_DATA_DIR)")
    ops.add_argument("--out", type=Path, default=None,
                     help="where to write the model (default: the packaged agent/query/operations.json)")
    ops.set_defaults(func=run_operations)


def run_operations(args: argparse.Namespace, settings: Settings) -> int:
    from agent.query.operations import PACKAGED_MODEL, train
    from evals.operation_labels import labelled_questions

    started = time.perf_counter()
    examples = labelled_questions(data_dir_of(args, settings))
    groups = len({e.group for e in examples})
    model = train(examples, trained_on=f"{len(examples)} questions of {groups} companies and filings")
    out = args.out or PACKAGED_MODEL
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    print(f"trained on {len(examples)} questions ({groups} companies and filings) in "
          f"{time.perf_counter() - started:.1f} s: {len(model.weights)} features -> {out}")
    return 0
