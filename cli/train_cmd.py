"""``finrag train``: rebuild the learned parts from the benchmark data, reproducibly."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from agent.config import Settings
from agent.query.operations import LabelledQuestion
from cli.common import data_dir_of, print_usage


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "train",
        help="rebuild a learned model from FINRAG_DATA_DIR (operations, answer-kinds)",
        description="Train a learned part of finrag on the benchmark data in the findata layout and write it where "
        "finrag reads it. The same data gives the same file, so the shipped model can be checked and rebuilt.",
        epilog="example: FINRAG_DATA_DIR=../shared/findata finrag train operations",
    )
    p.set_defaults(func=lambda args, settings: print_usage(p))
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
    _data_and_out(ops, "operations.json")
    ops.set_defaults(func=run_operations)
    kinds = actions.add_parser(
        "answer-kinds",
        help="whether a question asks for an amount or for words (a description, names)",
        description="Label every ConvFinQA turn as asking for a figure, and every TAT-QA and FinanceBench question by "
        "its gold answer (an amount, or one computed, counted or picked from figures: a figure; else words); fit the answer-kind "
        "model (the operation model's features and fit); write it as JSON. A question it reads as asking for words "
        "is answered from sentences, never with a figure. Check it with `finrag eval cv --model answer-kinds`.",
        epilog="example: finrag train answer-kinds --data ../shared/findata   (writes agent/query/answer_kinds.json)",
    )
    _data_and_out(kinds, "answer_kinds.json")
    kinds.set_defaults(func=run_answer_kinds)


def _data_and_out(parser: argparse.ArgumentParser, packaged: str) -> None:
    """The options every model's training takes: where the data is, where the model goes."""
    parser.add_argument("--data", type=Path, default=None, help="data in the findata layout (default: FINRAG_DATA_DIR)")
    parser.add_argument("--out", type=Path, default=None,
                        help=f"where to write the model (default: the packaged agent/query/{packaged})")


def run_operations(args: argparse.Namespace, settings: Settings) -> int:
    from agent.query.operations import PACKAGED_MODEL
    from evals.operation_labels import labelled_questions

    return _train(labelled_questions(data_dir_of(args, settings)), args.out or PACKAGED_MODEL)


def run_answer_kinds(args: argparse.Namespace, settings: Settings) -> int:
    from agent.query.operations import PACKAGED_KIND_MODEL
    from evals.operation_labels import answer_kind_questions

    return _train(answer_kind_questions(data_dir_of(args, settings)), args.out or PACKAGED_KIND_MODEL)


def _train(examples: list[LabelledQuestion], out: Path) -> int:
    """Fit a model on labelled questions and write it to ``out``."""
    from agent.query.operations import train

    started = time.perf_counter()
    groups = len({e.group for e in examples})
    model = train(examples, trained_on=f"{len(examples)} questions of {groups} companies and filings")
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    print(f"trained on {len(examples)} questions ({groups} companies and filings) in "
          f"{time.perf_counter() - started:.1f} s: {len(model.weights)} features -> {out}")
    return 0
