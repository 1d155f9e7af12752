"""How memory-bank look-ups scale: a bank of many verified entries, with many for one company and period.

Each measured look-up runs in a fresh process (as every ``finrag ask`` does), with the packaged embedder for
the semantic matcher. The bank is written as ``finrag memory import`` writes it, entry vectors included, so a
look-up embeds only its question.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

from agent.config import Settings
from agent.memory import MemoryBank, MemoryEntry, MemoryStatus

METRICS = ("revenue", "net income", "capital expenditures", "operating margin", "free cash flow", "gross margin",
           "diluted EPS", "total assets", "long-term debt", "inventory turnover")  # fmt: skip


class MemoryBenchResult(BaseModel):
    """One configuration: bank size, same-period entries, and each fresh-process look-up's cost."""

    entries: int
    same_period: int
    write_seconds: float
    lookups: list[dict[str, float]]  # per run: seconds (look-up only), process seconds, peak RSS MB


def build_bank(home: Path, entries: int, same_period: int) -> float:
    """Write ``entries`` verified entries (``same_period`` of them for Contoso FY2024) as ``finrag memory
    import`` does, vectors included; return seconds."""
    from agent.index.embeddings import get_embedder

    started = time.perf_counter()
    settings = Settings.from_env(home=home)
    bank = MemoryBank(settings, embed=get_embedder(settings).encode)
    rows = []
    for i in range(entries):
        crowded = i < same_period
        rows.append(MemoryEntry(
            question=f"What was the {METRICS[i % len(METRICS)]} of segment {i}?",
            answer=f"${i} million",
            company="Contoso" if crowded else f"Company {i % 997}",
            period="FY2024" if crowded else f"FY{2000 + i % 24}",
            status=MemoryStatus.VERIFIED,
            verifier="bench",
        ))
    bank._write(rows)
    bank.embed_entries(rows)
    return time.perf_counter() - started


_CHILD = """
import json, resource, sys, time
from pathlib import Path
started = time.perf_counter()
from agent.config import Settings
from agent.index.embeddings import get_embedder
from agent.memory import MemoryBank
settings = Settings.from_env(home=Path(sys.argv[1]))
bank = MemoryBank(settings, embed=get_embedder(settings).encode)
t = time.perf_counter()
match = bank.lookup("What was Contoso's revenue of segment 7 in FY2024?", "Contoso", "FY2024")
lookup = time.perf_counter() - t
# VmHWM is this process's own peak; ru_maxrss would carry over the parent's peak across exec on Linux.
status = open("/proc/self/status").read() if sys.platform == "linux" else ""
hwm = [line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")]
peak = int(hwm[0]) / 1024 if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"lookup_s": lookup, "process_s": time.perf_counter() - started, "peak_rss_mb": peak,
                  "matched": float(match is not None)}))
"""


def run_memory_bench(entries: int, same_period: int, runs: int = 2) -> MemoryBenchResult:
    """Build a bank and time ``runs`` look-ups, each in a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        write = build_bank(home, entries, same_period)
        lookups = []
        for _ in range(runs):
            proc = subprocess.run([sys.executable, "-c", _CHILD, str(home)], capture_output=True, text=True, check=True)
            lookups.append({k: round(v, 3) for k, v in json.loads(proc.stdout.strip().splitlines()[-1]).items()})
    return MemoryBenchResult(entries=entries, same_period=same_period, write_seconds=round(write, 2), lookups=lookups)


def render(results: list[MemoryBenchResult]) -> str:
    """A Markdown table: one row per look-up run."""
    lines = ["| entries | same company+period | write (s) | run | look-up (s) | process (s) | peak RSS (MB) |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        for i, run in enumerate(r.lookups, 1):
            lines.append(f"| {r.entries:,} | {r.same_period:,} | {r.write_seconds:.1f} | {i} | {run['lookup_s']:.3f} | "
                         f"{run['process_s']:.1f} | {run['peak_rss_mb']:.0f} |")
    return "\n".join(lines)
