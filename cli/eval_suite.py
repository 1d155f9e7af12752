"""``finrag eval run | report | export-langsmith | calibrate | ems``: LangSmith runs and datasets, reports with
charts and regression gates, scorer calibration against human labels, EMS long-answer scoring."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agent.config import Settings
from agent.errors import FinragError
from cli.common import data_dir_of, print_json
from cli.eval_answers import add_run_arguments, load_prices, resolve_data_dir

EXPORT_DATASETS = ("financebench", "convfinqa", "tatqa")
POINT_CHARS = 70  # characters of a saliency point shown per alignment row


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "run",
        help="run the graph on a dataset through langsmith.evaluate (offline, or uploaded with a key)",
        description="The graph as the target of langsmith.evaluate with finrag's scorers as evaluators. Without "
        "LANGSMITH_API_KEY it runs offline (upload_results=False, local tracing, no network); with one, the "
        "dataset and the experiment are uploaded. Writes the same run directory as `finrag eval answers`.",
        epilog="example: finrag eval run --data ../shared/findata --dataset financebench",
    )
    add_run_arguments(p)
    p.add_argument("--experiment-prefix", default="", help="LangSmith experiment name prefix")
    upload = p.add_mutually_exclusive_group()
    upload.add_argument("--upload", dest="upload", action="store_true", default=None,
                        help="upload dataset and experiment (needs LANGSMITH_API_KEY; default when it is set)")
    upload.add_argument("--no-upload", dest="upload", action="store_false", help="stay offline even with a key")
    p.set_defaults(func=run_handler)

    p = actions.add_parser(
        "report",
        help="Markdown report with charts from run directories; --fail-under/--fail-over gates",
        description="Render report.md with PNG charts (metrics by system, accuracy by question type, latency "
        "distribution, run-to-run comparison against the first run). Gates check the last run given and "
        "exit 1 when one fails.",
        epilog="example: finrag eval report runs/base runs/new --fail-under accuracy=0.5 --fail-over "
        "latency_p50_s=1.5",
    )
    p.add_argument("run_dirs", nargs="+", type=Path, metavar="RUN_DIR", help="run directories, baseline first")
    p.add_argument("--out", type=Path, default=None, help="report folder (default: <last RUN_DIR>/report)")
    p.add_argument("--fail-under", action="append", default=[], metavar="METRIC=VALUE",
                   help="fail when the metric is below VALUE (e.g. accuracy=0.5, accuracy:metrics-generated=0.5)")
    p.add_argument("--fail-over", action="append", default=[], metavar="METRIC=VALUE",
                   help="fail when the metric is above VALUE (e.g. latency_p50_s=1.5)")
    p.set_defaults(func=report_handler)

    p = actions.add_parser(
        "export-langsmith",
        help="write datasets as LangSmith example JSONL (inputs, outputs, metadata, split); upload with a key",
        description="Export FinanceBench, ConvFinQA (one example per turn) and TAT-QA, and optionally a user "
        "questions file, as <out>/<dataset>.jsonl. With LANGSMITH_API_KEY set the examples are also uploaded to "
        "datasets named finrag-<dataset> (existing examples are not duplicated).",
    )
    p.add_argument("--data", type=Path, default=None, help="data in the findata layout (default: FINRAG_DATA_DIR)")
    p.add_argument("--datasets", default=",".join(EXPORT_DATASETS),
                   help=f"comma-separated, from: {', '.join(EXPORT_DATASETS)} (empty with --questions only)")
    p.add_argument("--questions", type=Path, default=None, help="also export this questions JSONL as 'questions'")
    p.add_argument("--limit", type=int, default=None, help="only the first N questions of each dataset")
    p.add_argument("--out", type=Path, default=None, help="output folder (default: <home>/langsmith)")
    p.add_argument("--no-upload", action="store_true", help="write files only, even with LANGSMITH_API_KEY")
    p.set_defaults(func=export_handler)

    p = actions.add_parser(
        "calibrate",
        help="agreement (accuracy, Cohen's kappa) of every answer scorer with FinanceBench's human labels",
        description="Score the human-labelled answers in financebench/judge_labels.jsonl with every available "
        "scorer and report agreement overall, by gold kind and by question type.",
        epilog="example: finrag eval calibrate --data ../shared/findata --limit 200 --out runs/calibration",
    )
    p.add_argument("--data", type=Path, default=None, help="data in the findata layout (default: FINRAG_DATA_DIR)")
    p.add_argument("--limit", type=int, default=None, help="only the first N labels")
    p.add_argument("--embed", action="store_true", help="offline EMS matches with the embedding model")
    p.add_argument("--judge-runs", type=int, default=1, help="LLM judge runs per answer (with a configured model)")
    p.add_argument("--out", type=Path, default=None, help="write calibration.json and calibration.md here")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=calibrate_handler)

    p = actions.add_parser(
        "ems",
        help="EMS long-answer score of an answer against a reference, with the per-point alignment",
        description="Extract saliency points, match each reference point to an answer point, score the pairs "
        "and print EMS-Recall, EMS-Precision and EMS-F1. Text is given inline or as @FILE.",
        epilog='example: finrag eval ems --answer @answer.md --reference @reference.md --scorer rouge',
    )
    p.add_argument("--answer", required=True, help="the long answer (text or @FILE)")
    p.add_argument("--reference", required=True, help="the reference answer (text or @FILE)")
    p.add_argument("--scorer", choices=("rouge", "embedding", "model"), default="rouge", help="pair scorer")
    p.add_argument("--embed", action="store_true", help="match points with the embedding model (else lexical)")
    p.add_argument("--offline", action="store_true", help="never use a configured language model")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=ems_handler)


# ---------------------------------------------------------------------------------------------------------
def run_handler(args: argparse.Namespace, settings: Settings) -> int:
    from evals.langsmith_io import run_experiment
    from evals.runner import default_run_dir, load_eval_set, render_summary, write_run

    if args.judge_runs < 0:
        raise FinragError("--judge-runs must be 0 or more.")
    prices = load_prices(args.prices)
    eval_set = load_eval_set(settings, resolve_data_dir(args, settings), args.dataset, args.limit, args.questions)
    record = run_experiment(settings, eval_set, scope=args.scope, name=args.name, limit=args.limit,
                            ingest=not args.no_ingest, judge_runs=args.judge_runs, prices=prices,
                            experiment_prefix=args.experiment_prefix, upload=args.upload)
    out = args.out or default_run_dir(settings, args.dataset, kind="run")
    summary = write_run(record, out, prices)
    print(render_summary(record, summary))
    print(f"written: {out} (run.json, results.jsonl, summary.json, summary.md)")
    return 0


def report_handler(args: argparse.Namespace, settings: Settings) -> int:
    from evals.report import build_report, parse_gate

    gates = [parse_gate(g, "under") for g in args.fail_under] + [parse_gate(g, "over") for g in args.fail_over]
    out = args.out or Path(args.run_dirs[-1]) / "report"
    report = build_report(args.run_dirs, out, gates)
    print(f"report: {report.markdown}")
    print("charts: " + ", ".join(str(c) for c in report.charts))
    for g in report.gates:
        op = ">=" if g.gate.direction == "under" else "<="
        print(f"gate {g.gate.metric} {op} {g.gate.threshold:g}: {g.value:.4g} {'pass' if g.passed else 'FAIL'}")
    return 0 if report.passed else 1


def export_handler(args: argparse.Namespace, settings: Settings) -> int:
    from evals.langsmith_io import (
        dataset_name,
        export_examples,
        langsmith_client,
        upload_examples,
        write_examples,
    )
    from evals.runner import load_eval_set

    names = [d.strip() for d in args.datasets.split(",") if d.strip()]
    unknown = [d for d in names if d not in EXPORT_DATASETS]
    if unknown:
        raise FinragError(f"unknown dataset(s) {', '.join(unknown)}; choose from {', '.join(EXPORT_DATASETS)}")
    if not names and args.questions is None:
        raise FinragError("nothing to export: name --datasets or give --questions")
    data_dir = args.data or settings.data_dir
    if names and data_dir is None:
        raise FinragError("No data directory: pass --data DIR or set FINRAG_DATA_DIR.")
    out = args.out or settings.home / "langsmith"
    upload = bool(settings.langsmith_api_key) and not args.no_upload
    client = langsmith_client(settings) if upload else None
    jobs = [(d, None) for d in names] + ([("questions", args.questions)] if args.questions else [])
    for dataset, questions in jobs:
        eval_set = load_eval_set(settings, Path(data_dir) if data_dir else None, dataset, args.limit, questions,
                                 write_sources=False)
        examples = export_examples(eval_set)
        path = write_examples(examples, out / f"{dataset}.jsonl")
        line = f"{dataset}: {len(examples)} examples -> {path}"
        if client is not None:
            done = upload_examples(client, dataset_name(dataset), examples,
                                   description=f"finrag evaluation set: {dataset}")
            line += (f"; LangSmith dataset {done.dataset} ({'created' if done.created else 'existing'}): "
                     f"{done.uploaded} uploaded, {done.already_there} already there")
        print(line)
    if not upload:
        print("not uploaded (" + ("--no-upload" if settings.langsmith_api_key else "no LANGSMITH_API_KEY") + ")")
    return 0


def calibrate_handler(args: argparse.Namespace, settings: Settings) -> int:
    from evals.calibration import calibrate, default_scorers

    data_dir = data_dir_of(args, settings)
    if args.limit is not None and args.limit < 1:
        raise FinragError("--limit must be at least 1.")
    embed = None
    if args.embed:
        from agent.index.embeddings import get_embedder

        embed = get_embedder(settings).encode
    model = None
    if settings.llm_enabled and args.judge_runs > 0:
        from agent.llm.models import get_chat_model

        model = get_chat_model(settings)
    report = calibrate(Path(data_dir), default_scorers(embed=embed, model=model, judge_runs=args.judge_runs),
                       args.limit)
    markdown = report.to_markdown()
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "calibration.json").write_text(report.model_dump_json(indent=2), encoding="utf-8")
        (args.out / "calibration.md").write_text(markdown, encoding="utf-8")
    if args.json:
        print_json(report)
    else:
        print(markdown)
    return 0


def read_text_arg(value: str) -> str:
    """Inline text, or the contents of FILE for ``@FILE`` (``-`` / ``@-``: standard input)."""
    if value in ("-", "@-"):
        return sys.stdin.read()
    if value.startswith("@"):
        path = Path(value[1:]).expanduser()
        try:
            return path.read_text(encoding="utf-8")
        except OSError as exc:
            raise FinragError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return value


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= POINT_CHARS else flat[: POINT_CHARS - 1] + "…"


def ems_handler(args: argparse.Namespace, settings: Settings) -> int:
    from evals.metrics.ems import evaluate_ems

    answer, reference = read_text_arg(args.answer), read_text_arg(args.reference)
    if not answer.strip() or not reference.strip():
        raise FinragError("both --answer and --reference need text")
    model = None
    if settings.llm_enabled and not args.offline:
        from agent.llm.models import get_chat_model

        model = get_chat_model(settings)
    if args.scorer == "model" and model is None:
        raise FinragError("--scorer model needs a configured language model (OPENAI_API_KEY); use rouge or embedding")
    embed = None
    if args.embed or args.scorer == "embedding":
        from agent.index.embeddings import get_embedder

        embed = get_embedder(settings).encode
    result = evaluate_ems(answer, reference, scorer=args.scorer, embed=embed, model=model)
    if args.json:
        print_json(result)
        return 0
    print(f"EMS-Recall {result.recall:.3f} · EMS-Precision {result.precision:.3f} · EMS-F1 {result.f1:.3f}")
    print(f"extractor {result.extractor} · matcher {result.matcher} · scorer {result.scorer} · "
          f"A = {result.matches}")
    print()
    print("| i | reference point | a_i | answer point | similarity | numbers agree | score |")
    print("|---:|---|---:|---|---:|---|---:|")
    for p in result.alignment:
        sim = "-" if p.similarity is None else f"{p.similarity:.2f}"
        agree = "-" if p.numbers_agree is None else ("yes" if p.numbers_agree else "no")
        print(f"| {p.ref_index} | {_clip(p.ref_point)} | {p.answer_index} | {_clip(p.answer_point) or '-'} | {sim} | "
              f"{agree} | {p.score:.2f} |")
    unmatched = [i for i, s in enumerate(result.answer_scores, 1) if s == 0.0]
    if unmatched:
        print(f"\nanswer points no reference point maps to (count against precision): {unmatched}")
    for note in result.notes:
        print(f"note: {note}")
    return 0
