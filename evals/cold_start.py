"""What a cold command costs: ``finrag ask``, ``search`` and ``retrieve`` each in a fresh process, as a user
runs them, over the sample filing. CPU is the child's user + system time; wall is from spawn to exit."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

from agent.config import Settings
from agent.ingest.pipeline import open_ingestor

SAMPLE = Path(__file__).resolve().parent.parent / "agent" / "samples" / "NORTHWIND_2024_10K.md"
QUESTION = "What were Northwind's capital expenditures in 2024?"
COMMANDS: dict[str, list[str]] = {
    "ask": ["ask", QUESTION],
    "search": ["search", "capital expenditures 2024", "-k", "5"],
    "retrieve": ["retrieve", QUESTION],
}


class ColdRun(BaseModel):
    """One command's fresh-process runs: median and worst CPU and wall seconds, and whether every run
    printed the same thing."""

    command: str
    runs: int
    cpu_median_s: float
    cpu_max_s: float
    wall_median_s: float
    wall_max_s: float
    same_output: bool


def _one(argv: list[str], home: Path) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cli.main", "--home", str(home), *argv], capture_output=True,
                          text=True, check=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc.stdout


def run_cold_bench(runs: int = 5, commands: list[str] | None = None) -> list[ColdRun]:
    """Ingest the sample into a throwaway home, then time each command ``runs`` times in fresh processes
    (after one unmeasured run that warms the operating system's file cache)."""
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        with open_ingestor(Settings.from_env(home=home)) as ingestor:
            ingestor.ingest_file(SAMPLE)
        for name in commands or list(COMMANDS):
            argv = COMMANDS[name]
            _one(argv, home)
            measured = [_one(argv, home) for _ in range(runs)]
            cpu, wall = [m[0] for m in measured], [m[1] for m in measured]
            outputs = {m[2].replace(m[2].split("thread ")[-1], "") if "thread " in m[2] else m[2] for m in measured}
            results.append(ColdRun(
                command=name, runs=runs, cpu_median_s=round(statistics.median(cpu), 3), cpu_max_s=round(max(cpu), 3),
                wall_median_s=round(statistics.median(wall), 3), wall_max_s=round(max(wall), 3),
                same_output=len(outputs) == 1,
            ))
    return results


def render(results: list[ColdRun]) -> str:
    """A Markdown table of the runs."""
    lines = ["| command | runs | CPU median (s) | CPU max (s) | wall median (s) | wall max (s) | same output |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {r.command} | {r.runs} | {r.cpu_median_s:.2f} | {r.cpu_max_s:.2f} | {r.wall_median_s:.2f} | "
              f"{r.wall_max_s:.2f} | {'yes' if r.same_output else 'NO'} |" for r in results]
    return "\n".join(lines)
