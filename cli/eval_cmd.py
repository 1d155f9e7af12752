"""``finrag eval``: benchmarks and evaluations. Each evaluation area registers its own action."""

from __future__ import annotations

import argparse
import importlib

from cli.common import print_usage

# Action modules under `finrag eval`, each exposing register(actions).
EVAL_MODULES = (
    "cli.eval_ingest",
    "cli.eval_hostile",
    "cli.eval_entities",
    "cli.eval_memory",
    "cli.eval_cold",
    "cli.eval_render",
    "cli.eval_xbrl",
    "cli.eval_structure",
    "cli.eval_serve",
    "cli.eval_bm25",
    "cli.eval_names",
    "cli.eval_rules",
    "cli.eval_invariance",
    "cli.eval_scale",
    "cli.eval_retrieval",
    "cli.eval_answers",
    "cli.eval_rescore",
    "cli.eval_cv",
    "cli.eval_suite",
)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "eval",
        help="benchmarks: retrieval, answers, LangSmith runs, calibration, reports",
        description="Evaluate finrag on data in the findata layout (FinanceBench, ConvFinQA, TAT-QA). "
        "Everything runs offline; results go to --out as JSON and Markdown.",
    )
    p.set_defaults(func=lambda args, settings: print_usage(p))
    actions = p.add_subparsers(dest="eval_action", metavar="ACTION")
    for name in EVAL_MODULES:
        importlib.import_module(name).register(actions)
