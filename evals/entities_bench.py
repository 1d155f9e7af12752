"""Entity-resolution benchmark: do a set of real filings attach to one company entity per company?

Each filing is parsed and its identity detected as ``finrag ingest`` does (no company given on the command line),
then attached to an in-memory registry in order. Against the dataset's own company labels it reports how many
entities were made, how many hold filings of more than one company (merged wrongly: the worse error, figures of
one company would answer for another) and how many companies are split over several entities.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path

from pydantic import BaseModel, Field

from agent.config import Settings
from agent.entities import EntityRegistry
from agent.errors import FinragError


class EntityBenchRow(BaseModel):
    """One filing: the company the dataset says, and the entity finrag attached it to."""

    doc: str
    gold_company: str = ""
    entity_id: str = ""
    entity: str = ""
    printed_name: str = ""
    source: str = ""
    cik: str = ""
    file_number: str = ""
    ticker: str = ""
    error: str = ""


class EntityBenchReport(BaseModel):
    """The registry a set of filings produced, scored against the dataset's companies."""

    filings: int
    entities: int
    gold_companies: int
    merged_wrongly: list[str] = Field(default_factory=list, description="entities holding several gold companies")
    split: list[str] = Field(default_factory=list, description="gold companies spread over several entities")
    seconds: float = 0.0
    rows: list[EntityBenchRow] = Field(default_factory=list)
    registry: list[dict[str, object]] = Field(default_factory=list)


def financebench_filings(data_dir: Path) -> list[tuple[Path, str]]:
    """(PDF path, company label) of every FinanceBench filing present under ``data_dir``."""
    root = data_dir / "financebench"
    listing = root / "documents.jsonl"
    if not listing.is_file():
        raise FinragError(f"no FinanceBench documents list at {listing}")
    out = []
    for line in listing.read_text(encoding="utf-8").splitlines():
        if line.strip():
            doc = json.loads(line)
            path = root / doc.get("pdf_path", f"docs/pdf/{doc['doc_name']}.pdf")
            if path.is_file():
                out.append((path, str(doc.get("company") or "")))
    return out


def bench_entities(filings: list[tuple[Path, str]], settings: Settings) -> EntityBenchReport:
    """Detect each filing's identity, attach it to one registry, and score the result."""
    from agent.ingest.parsing import load_pages
    from agent.ingest.pipeline import MetadataOverrides, build_meta

    started = time.perf_counter()
    registry = EntityRegistry()
    rows: list[EntityBenchRow] = []
    for path, gold in filings:
        row = EntityBenchRow(doc=path.stem, gold_company=gold)
        try:
            parsed = load_pages(path, settings)
        except FinragError as exc:
            row.error = str(exc)
            rows.append(row)
            continue
        meta = build_meta(path, "", parsed.pages, parsed.source_format, MetadataOverrides())
        entity, old_id = registry.attach(meta)
        for earlier in rows:  # a CIK or file number learned later re-keys the entity
            if old_id and earlier.entity_id == old_id:
                earlier.entity_id = entity.entity_id
        row.entity_id, row.printed_name, row.source = entity.entity_id, meta.printed_name, meta.company_source
        row.cik, row.file_number, row.ticker = meta.cik, meta.file_number, meta.ticker
        rows.append(row)
    for row in rows:
        found = registry.get(row.entity_id)
        row.entity = found.name if found else ""
    companies_of: dict[str, set[str]] = defaultdict(set)
    entities_of: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        if row.entity_id and row.gold_company:
            companies_of[row.entity_id].add(row.gold_company)
            entities_of[row.gold_company].add(row.entity_id)
    return EntityBenchReport(
        filings=len(rows),
        entities=len(registry),
        gold_companies=len(entities_of),
        merged_wrongly=sorted(f"{registry.get(e).name if registry.get(e) else e}: {', '.join(sorted(c))}"
                              for e, c in companies_of.items() if len(c) > 1),
        split=sorted(f"{c}: {', '.join(sorted(registry.get(e).name for e in es if registry.get(e)))}"
                     for c, es in entities_of.items() if len(es) > 1),
        seconds=round(time.perf_counter() - started, 1),
        rows=rows,
        registry=[{**e.model_dump(), "filings": sorted(r.doc for r in rows if r.entity_id == e.entity_id)}
                  for e in registry.entities],
    )


def to_markdown(report: EntityBenchReport) -> str:
    """The registry as a table, with the score on top."""
    lines = [
        f"{report.filings} filings -> {report.entities} entities for {report.gold_companies} companies "
        f"({report.seconds} s); merged wrongly: {len(report.merged_wrongly)}; split: {len(report.split)}",
        *(f"- merged wrongly: {m}" for m in report.merged_wrongly),
        *(f"- split: {s}" for s in report.split),
        "",
        "| entity | id | tickers | also known as | filings |",
        "|---|---|---|---|---|",
    ]
    for e in report.registry:
        also = "; ".join([*e["former_names"], *e["aliases"]]) or "-"  # type: ignore[misc]
        lines.append(f"| {e['name']} | {e['entity_id']} | {', '.join(e['tickers']) or '-'} | {also} | "  # type: ignore[arg-type]
                     f"{', '.join(e['filings'])} |")  # type: ignore[arg-type]
    return "\n".join(lines)
