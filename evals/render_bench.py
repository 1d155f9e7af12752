"""How fast the citation viewer shows a page: rendering a PDF page to PNG and locating a cited span on it,
for pages spread through a long filing (the first render opens the PDF; each measured one does too, as a
request of ``finrag serve`` does)."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

from agent.config import Settings
from agent.index.render import DEFAULT_RENDER_SCALE, render_png, view_page
from agent.index.store import Store
from agent.ingest.pipeline import open_ingestor


class RenderBenchResult(BaseModel):
    """Per-page milliseconds for one filing."""

    filing: str
    pages: int
    measured_pages: int
    scale: float
    render_ms_median: float
    render_ms_max: float
    locate_ms_median: float
    png_kb_median: float


def run_render_bench(pdf: Path, samples: int = 20, scale: float = DEFAULT_RENDER_SCALE) -> RenderBenchResult:
    """Ingest ``pdf`` into a throwaway home, then render and locate a quote on ``samples`` spread pages."""
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.from_env(home=Path(tmp))
        with open_ingestor(settings) as ingestor:
            report = ingestor.ingest_file(pdf)
        with Store.open(settings) as store:
            meta = store.get_document(report.name)
            pages = store.pages(meta.doc_id)
            chosen = sorted({1 + i * (meta.n_pages - 1) // max(samples - 1, 1) for i in range(samples)})
            render, locate, sizes = [], [], []
            for number in chosen:
                started = time.perf_counter()
                png = render_png(store, meta.name, number, scale)
                render.append((time.perf_counter() - started) * 1000)
                sizes.append(len(png) / 1024)
                words = " ".join(pages[number - 1].text.split()[:12])
                started = time.perf_counter()
                view_page(store, meta.name, number, words)
                locate.append((time.perf_counter() - started) * 1000)
    return RenderBenchResult(
        filing=pdf.stem, pages=meta.n_pages, measured_pages=len(chosen), scale=scale,
        render_ms_median=round(statistics.median(render), 1), render_ms_max=round(max(render), 1),
        locate_ms_median=round(statistics.median(locate), 1), png_kb_median=round(statistics.median(sizes), 1),
    )


def render(results: list[RenderBenchResult]) -> str:
    """A Markdown table of the results."""
    lines = ["| filing | pages | measured | scale | render median (ms) | render max (ms) | locate median (ms) | PNG (KB) |",
             "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r.filing} | {r.pages} | {r.measured_pages} | {r.scale:g} | {r.render_ms_median:.0f} | "
              f"{r.render_ms_max:.0f} | {r.locate_ms_median:.0f} | {r.png_kb_median:.0f} |" for r in results]
    return "\n".join(lines)
