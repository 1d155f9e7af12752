"""Evaluation reports: one or more run directories -> Markdown with PNG charts, and regression gates.

``finrag eval report RUN_DIR...`` reads the run directories ``finrag eval answers`` / ``finrag eval run``
write, and renders ``report.md`` with four charts (matplotlib, Agg backend, no display needed):

* ``metric_by_system.png``: accuracy, token F1 and refusal rate of every run side by side;
* ``accuracy_by_type.png``: accuracy per question type per run;
* ``latency.png``: the distribution of end-to-end seconds per question per run (box plot, p50/p95 marked);
* ``comparison.png``: run to run against the first run (the baseline): accuracy and p50 latency, and the
  questions each later run fixed or broke.

Gates: ``--fail-under accuracy=0.5`` (or ``accuracy:metrics-generated=0.5``, ``token_f1=...``) fails when the
metric of the last run given is below the value; ``--fail-over latency_p50_s=1.5`` when above. Metric names
are those of :meth:`evals.runner.RunSummary.metrics`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Literal

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, PercentFormatter
from pydantic import BaseModel, Field

from agent.errors import FinragError
from evals.runner import RunRecord, RunSummary, load_run, summarise

REPORT_FILE = "report.md"
CHARTS = ("metric_by_system.png", "accuracy_by_type.png", "latency.png", "comparison.png")
HEADLINE_METRICS = ("accuracy", "token_f1", "refusal_rate")
CHART_DPI = 110  # sharp on a laptop screen, small enough to commit next to a report
BAR_GROUP_WIDTH = 0.8  # share of a group's slot filled by its bars
MAX_LISTED_FLIPS = 10  # question ids listed per run-to-run change; the full lists are in results.jsonl
FIGURE_SIZE = (8.0, 4.5)
BAR_INCHES = 0.22  # horizontal room per bar in grouped bar charts
MAX_LABELLED_BARS = 24  # above this many bars, value labels overlap; the Markdown tables carry the numbers


class LoadedRun(BaseModel):
    """A run directory with its summary and a unique label."""

    label: str
    path: str
    record: RunRecord
    summary: RunSummary


class Gate(BaseModel):
    """A regression gate on one metric of the last run."""

    metric: str
    threshold: float
    direction: Literal["under", "over"] = Field(description="fail when the value is under / over the threshold")


class GateResult(BaseModel):
    """A gate checked against a run."""

    gate: Gate
    value: float
    passed: bool


class Flips(BaseModel):
    """Per-question changes of a run against the baseline, over the questions both ran."""

    label: str
    shared: int
    fixed: list[str] = Field(default_factory=list, description="wrong in the baseline, right here")
    broken: list[str] = Field(default_factory=list, description="right in the baseline, wrong here")


class Report(BaseModel):
    """What :func:`build_report` wrote."""

    markdown: Path
    charts: list[Path]
    gates: list[GateResult] = Field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(g.passed for g in self.gates)


# ---------------------------------------------------------------------------------------------------------
# Loading and gates
# ---------------------------------------------------------------------------------------------------------
def load_runs(run_dirs: Sequence[Path]) -> list[LoadedRun]:
    """The runs, each labelled by its name (made unique with the directory name when two runs share one)."""
    if not run_dirs:
        raise FinragError("give at least one run directory")
    records = [(Path(d), load_run(Path(d))) for d in run_dirs]
    names = [r.info.name for _, r in records]
    runs = []
    for path, record in records:
        label = record.info.name if names.count(record.info.name) == 1 else f"{record.info.name} ({path.name})"
        runs.append(LoadedRun(label=label, path=str(path), record=record, summary=summarise(record)))
    return runs


def parse_gate(text: str, direction: Literal["under", "over"]) -> Gate:
    """``metric=value`` as a gate (FinragError for anything else)."""
    metric, sep, value = text.partition("=")
    try:
        threshold = float(value)
    except ValueError:
        threshold = None
    if not sep or not metric.strip() or threshold is None:
        raise FinragError(f"--fail-{direction} expects METRIC=VALUE (e.g. accuracy=0.5), got {text!r}")
    return Gate(metric=metric.strip(), threshold=threshold, direction=direction)


def check_gates(summary: RunSummary, gates: Sequence[Gate]) -> list[GateResult]:
    """Each gate against a run's metrics; FinragError naming the known metrics for an unknown one."""
    metrics = summary.metrics()
    out = []
    for gate in gates:
        if gate.metric not in metrics:
            raise FinragError(f"unknown metric {gate.metric!r}; known: {', '.join(sorted(metrics))}")
        value = metrics[gate.metric]
        passed = value >= gate.threshold if gate.direction == "under" else value <= gate.threshold
        out.append(GateResult(gate=gate, value=value, passed=passed))
    return out


def flips(baseline: RunRecord, run: RunRecord, label: str) -> Flips:
    """Questions a run fixed or broke relative to the baseline (scored questions both ran)."""
    base = {r.id: r.scores.correct for r in baseline.results if r.scores.scored}
    now = {r.id: r.scores.correct for r in run.results if r.scores.scored}
    shared = [q for q in base if q in now]
    return Flips(label=label, shared=len(shared), fixed=[q for q in shared if now[q] and not base[q]],
                 broken=[q for q in shared if base[q] and not now[q]])


# ---------------------------------------------------------------------------------------------------------
# Charts
# ---------------------------------------------------------------------------------------------------------
def _pyplot() -> ModuleType:
    """pyplot on the Agg backend: files only, so reports render on servers and in CI without a display."""
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _grouped_bars(ax: Axes, groups: Sequence[str], series: dict[str, list[float | None]]) -> None:
    """Bars per group, one per series; None (a run without that group) draws nothing rather than a 0%."""
    width = BAR_GROUP_WIDTH / max(len(series), 1)
    n_bars = sum(v is not None for values in series.values() for v in values)
    for i, (name, values) in enumerate(series.items()):
        shown = [(g + (i - (len(series) - 1) / 2) * width, v) for g, v in enumerate(values) if v is not None]
        bars = ax.bar([x for x, _ in shown], [v for _, v in shown], width=width, label=name)
        if n_bars <= MAX_LABELLED_BARS:
            ax.bar_label(bars, labels=[f"{v:.0%}" for _, v in shown], fontsize=7, padding=1)
    crowded = len(groups) > 4
    ax.set_xticks(range(len(groups)), groups, rotation=35 if crowded else 0, ha="right" if crowded else "center",
                  fontsize=8)
    ax.set_ylim(0, 1.1)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.legend(fontsize=8)


def _bar_figure_size(n_groups: int, n_series: int) -> tuple[float, float]:
    """Wide enough that every bar stays readable."""
    return max(FIGURE_SIZE[0], BAR_INCHES * n_groups * n_series), FIGURE_SIZE[1]


def _save(fig: Figure, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=CHART_DPI)
    _pyplot().close(fig)
    return path


def chart_metrics(runs: Sequence[LoadedRun], path: Path) -> Path:
    """Headline metrics by system (run)."""
    fig, ax = _pyplot().subplots(figsize=_bar_figure_size(len(HEADLINE_METRICS), len(runs)))
    metrics: dict[str, list[float | None]] = {
        run.label: [run.summary.metrics()[m] for m in HEADLINE_METRICS] for run in runs}
    _grouped_bars(ax, list(HEADLINE_METRICS), metrics)
    ax.set_title("Metrics by system")
    return _save(fig, path)


def chart_types(runs: Sequence[LoadedRun], path: Path) -> Path:
    """Accuracy by question type, one bar per run."""
    types = sorted({t for run in runs for t in run.summary.by_question_type})
    fig, ax = _pyplot().subplots(figsize=_bar_figure_size(len(types), len(runs)))
    series: dict[str, list[float | None]] = {
        run.label: [run.summary.by_question_type[t].accuracy if t in run.summary.by_question_type else None
                    for t in types] for run in runs}
    _grouped_bars(ax, types, series)
    ax.set_title("Accuracy by question type")
    return _save(fig, path)


def chart_latency(runs: Sequence[LoadedRun], path: Path) -> Path:
    """End-to-end seconds per question: a box per run, p50 and p95 marked."""
    fig, ax = _pyplot().subplots(figsize=FIGURE_SIZE)
    data = [[r.latency_s for r in run.record.results] or [0.0] for run in runs]
    ax.boxplot(data, whis=(5, 95), showfliers=True)
    ax.set_xticks(range(1, len(runs) + 1), [run.label for run in runs], fontsize=8)
    for i, run in enumerate(runs, 1):
        lat = run.summary.latency
        ax.scatter([i], [lat.p95], marker="v", color="tab:red", zorder=3, label="p95" if i == 1 else None)
        ax.annotate(f"p50 {lat.p50:.2f}s\np95 {lat.p95:.2f}s", (i, lat.p95), textcoords="offset points",
                    xytext=(12, 0), fontsize=7)
    ax.set_ylabel("seconds per question")
    ax.set_title("Latency distribution (whiskers: 5th-95th percentile)")
    ax.legend(fontsize=8)
    return _save(fig, path)


def chart_comparison(runs: Sequence[LoadedRun], changes: Sequence[Flips], path: Path) -> Path:
    """Run to run: accuracy and p50 latency in order, and questions fixed/broken against the first run."""
    fig, (left, right) = _pyplot().subplots(1, 2, figsize=(FIGURE_SIZE[0] * 1.4, FIGURE_SIZE[1]))
    labels = [run.label for run in runs]
    xs = range(len(runs))
    left.plot(xs, [run.summary.overall.accuracy for run in runs], marker="o", color="tab:blue", label="accuracy")
    left.set_ylim(0, 1.05)
    left.yaxis.set_major_formatter(PercentFormatter(1.0))
    left.set_xticks(list(xs), labels, rotation=20, ha="right", fontsize=8)
    twin = left.twinx()
    twin.plot(xs, [run.summary.latency.p50 for run in runs], marker="s", color="tab:orange", label="p50 latency (s)")
    twin.set_ylabel("p50 seconds")
    left.set_title("Accuracy and p50 latency by run")
    handles = left.get_legend_handles_labels()[0] + twin.get_legend_handles_labels()[0]
    left.legend(handles, [h.get_label() for h in handles], fontsize=8, loc="lower left")
    names = [c.label for c in changes] or ["(one run)"]
    width = BAR_GROUP_WIDTH / 2
    right.bar(range(len(names)), [len(c.fixed) for c in changes] or [0], width=width, color="tab:green", label="fixed")
    right.bar(range(len(names)), [-len(c.broken) for c in changes] or [0], width=width, color="tab:red",
              label="broken")
    right.yaxis.set_major_locator(MaxNLocator(integer=True))
    right.set_xlim(-1, len(names))
    right.axhline(0, color="black", linewidth=0.8)
    right.set_xticks(range(len(names)), names, rotation=20, ha="right", fontsize=8)
    right.set_title(f"Questions fixed / broken vs {runs[0].label}")
    right.legend(fontsize=8)
    return _save(fig, path)


# ---------------------------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------------------------
def render_markdown(runs: Sequence[LoadedRun], changes: Sequence[Flips], gates: Sequence[GateResult]) -> str:
    """The report text; charts are referenced by file name (they sit beside it)."""
    lines = ["# finrag evaluation report", "", "| run | dataset | scope | model | runner | questions | created | "
             "run time s |", "|---|---|---|---|---|---:|---|---:|"]
    for run in runs:
        i = run.record.info
        lines.append(f"| {run.label} | {i.dataset} | {i.scope} | {i.model} | {i.runner}"
                     f"{' (' + i.experiment + ')' if i.experiment else ''} | {run.summary.n} | {i.created} | "
                     f"{i.wall_s:.1f} |")
    lines += ["", "## Metrics by system", "", "| run | accuracy | token F1 | refusals | errors | p50 s | p95 s | "
              "tokens/q | cost/q |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for run in runs:
        s = run.summary
        lines.append(f"| {run.label} | {s.overall.accuracy:.1%} ({s.overall.correct}/{s.overall.scored}) | "
                     f"{s.overall.token_f1:.3f} | {s.overall.refusal_rate:.1%} | {s.errors} | {s.latency.p50:.3f} | "
                     f"{s.latency.p95:.3f} | {s.cost.tokens.mean:.0f} | {s.cost.cost_per_question.mean:.5f} |")
    lines += ["", f"![metrics by system]({CHARTS[0]})", "", "## Accuracy by question type", ""]
    types = sorted({t for run in runs for t in run.summary.by_question_type})
    lines += ["| question type | " + " | ".join(run.label for run in runs) + " |", "|---|" + "---:|" * len(runs)]
    for t in types:
        cells = []
        for run in runs:
            g = run.summary.by_question_type.get(t)
            cells.append(f"{g.accuracy:.1%} ({g.correct}/{g.scored})" if g else "-")
        lines.append(f"| {t} | " + " | ".join(cells) + " |")
    lines += ["", f"![accuracy by question type]({CHARTS[1]})", "", "## Latency", "",
              "| run | p50 s | p95 s | mean s | max s |", "|---|---:|---:|---:|---:|"]
    for run in runs:
        lat = run.summary.latency
        lines.append(f"| {run.label} | {lat.p50:.3f} | {lat.p95:.3f} | {lat.mean:.3f} | {lat.max:.3f} |")
    lines += ["", f"![latency]({CHARTS[2]})", "", "## Run-to-run comparison", ""]
    if changes:
        base = runs[0]
        lines += [f"Baseline: {base.label}.", "", "| run | shared questions | accuracy Δ | fixed | broken | p50 Δ s |",
                  "|---|---:|---:|---:|---:|---:|"]
        for run, change in zip(runs[1:], changes, strict=True):
            d_acc = run.summary.overall.accuracy - base.summary.overall.accuracy
            d_p50 = run.summary.latency.p50 - base.summary.latency.p50
            lines.append(f"| {run.label} | {change.shared} | {d_acc:+.1%} | {len(change.fixed)} | {len(change.broken)} "
                         f"| {d_p50:+.3f} |")
        for change in changes:
            if change.broken:
                shown = ", ".join(f"`{q}`" for q in change.broken[:MAX_LISTED_FLIPS])
                more = f" and {len(change.broken) - MAX_LISTED_FLIPS} more" if len(change.broken) > MAX_LISTED_FLIPS else ""
                lines.append(f"\nBroken in {change.label}: {shown}{more}")
    else:
        lines.append("One run: give two or more run directories to compare them.")
    lines += ["", f"![comparison]({CHARTS[3]})", "", "## Failure modes", ""]
    for run in runs:
        top = list(run.summary.failure_modes.items())[:3]
        text = "; ".join(f"{mode} ({count})" for mode, count in top) or "none"
        lines.append(f"- **{run.label}**: {text}")
    if gates:
        lines += ["", f"## Gates (run {runs[-1].label})", "", "| metric | condition | value | result |",
                  "|---|---|---:|---|"]
        for g in gates:
            cond = f"{'>=' if g.gate.direction == 'under' else '<='} {g.gate.threshold:g}"
            lines.append(f"| {g.gate.metric} | {cond} | {g.value:.4g} | {'pass' if g.passed else '**FAIL**'} |")
    return "\n".join(lines) + "\n"


def build_report(run_dirs: Sequence[Path], out_dir: Path, gates: Sequence[Gate] = ()) -> Report:
    """Load the runs, check the gates on the last one, write ``report.md`` and the charts into ``out_dir``."""
    runs = load_runs(run_dirs)
    results = check_gates(runs[-1].summary, gates)
    changes = [flips(runs[0].record, run.record, run.label) for run in runs[1:]]
    out_dir.mkdir(parents=True, exist_ok=True)
    charts = [
        chart_metrics(runs, out_dir / CHARTS[0]),
        chart_types(runs, out_dir / CHARTS[1]),
        chart_latency(runs, out_dir / CHARTS[2]),
        chart_comparison(runs, changes, out_dir / CHARTS[3]),
    ]
    markdown = out_dir / REPORT_FILE
    markdown.write_text(render_markdown(runs, changes, results), encoding="utf-8")
    return Report(markdown=markdown, charts=charts, gates=results)
