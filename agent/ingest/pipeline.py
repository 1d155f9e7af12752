"""Ingestion pipeline: files -> pages -> sections -> chunks -> Chunk Cards -> embeddings -> store.

Incremental and idempotent: a document is keyed by the sha256 of its bytes, so re-ingesting the same file is a
no-op. Each document is written in one store transaction; a bad file gets one clear error and the others go on.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from agent.config import Settings
from agent.errors import FinragError, IngestError, StoreError
from agent.finance.numbers import overlong_figures
from agent.index.embeddings import Embedder
from agent.index.protocol import SearchBackend
from agent.index.search import open_backend
from agent.index.store import Store
from agent.ingest.cards import build_card
from agent.ingest.chunking import chunk_document
from agent.ingest.counts import read_counts
from agent.ingest.files import display_path, document_name
from agent.ingest.metadata import detect_metadata
from agent.ingest.parsing import SUPPORTED_EXTENSIONS, ParsedDocument, load_pages
from agent.ingest.parts import printed_names, sentence_parts
from agent.ingest.statements import cover_from_facts, statements_elsewhere
from agent.ingest.structure import detect_sections
from agent.ingest.terms import defined_terms
from agent.ingest.xbrl import READ_SHARE_WARNED, FilingFacts, count_numeric_tags, read_facts
from agent.schemas import PAGE_SEPARATOR, Chunk, DocumentMeta, IngestReport

# Bump when parsing, sectioning, tables, chunking, cards or embedding text change what is stored: a document
# ingested by another version is ingested again on the next run instead of being reported unchanged.
PIPELINE_VERSION = "115"
DISAGREEMENTS_SHOWN = 3  # tags named in the ingest warning; the count says how many more
# Embedding batches between two progress reports: often enough to see movement on a 500-page filing.
EMBED_BATCHES_PER_REPORT = 2
# What an ingest reports as it goes: (stage, done, total), stage "read" (pages) or "embed" (chunk texts),
# "mirror" (copying the filing into a search backend that mirrors the store).
Progress = Callable[[str, int, int], None]
# Metadata a person may have corrected with `finrag docs edit`; a re-ingest keeps it.
_KEPT_ON_REINGEST = ("company", "ticker", "form", "fiscal_year", "fiscal_period", "period_end", "filing_date")


@contextmanager
def _timed(into: dict[str, float], stage: str) -> Iterator[None]:
    started = time.perf_counter()
    try:
        yield
    finally:
        into[stage] = round(time.perf_counter() - started, 3)

log = logging.getLogger(__name__)


class MetadataOverrides(BaseModel):
    """Document metadata given on the command line; wins over what detection found."""

    company: str = ""
    ticker: str = ""
    form: str = ""
    period: str = ""
    filing_date: str = ""


def file_sha256(path: Path) -> str:
    """Content hash that keys a document."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def embedding_text(chunk: Chunk) -> str:
    """What the dense index sees: the nearest section title anchors a chunk that never names its topic."""
    title = chunk.section_path[-1] if chunk.section_path else ""
    return f"{title}\n{chunk.text}" if title else chunk.text


def build_meta(
    path: Path, doc_id: str, pages: list, source_format: str, overrides: MetadataOverrides, name: str = "",
    filing_facts: FilingFacts | None = None,
) -> DocumentMeta:
    """Detected metadata with command-line overrides applied; ``name`` defaults to the file stem. A filing's
    inline-XBRL cover facts (``dei``) outrank what the text detection found."""
    from agent.finance.periods import normalise_period

    guess = detect_metadata(path, pages)
    if filing_facts is not None:
        guess = cover_from_facts(guess, filing_facts, pages)
    meta = DocumentMeta(
        doc_id=doc_id,
        name=name or document_name(path),
        path=display_path(path.resolve()),
        source_format=source_format,
        company=guess.company,
        printed_name=guess.company,
        company_source=guess.company_source,
        cik=guess.cik,
        file_number=guess.file_number,
        former_names=guess.former_names,
        ticker=guess.ticker,
        form=guess.form,
        fiscal_year=guess.fiscal_year,
        fiscal_period=guess.fiscal_period,
        period_end=guess.period_end,
        fy_end_month=guess.fy_end_month,
        filing_date=guess.filing_date,
        n_pages=len(pages),
        ingested_at=datetime.now(UTC).isoformat(),
        n_facts=len(filing_facts.facts) if filing_facts is not None else 0,
        text_sha256=hashlib.sha256(PAGE_SEPARATOR.join(p.text for p in pages).encode("utf-8")).hexdigest(),
        statements_elsewhere=statements_elsewhere(pages, filing_facts),
    )
    for field in ("company", "ticker", "form", "filing_date"):
        value = getattr(overrides, field)
        if value:
            setattr(meta, field, value)
    if overrides.company:  # the user's word outranks the cover: the filing attaches to the company named
        meta.printed_name, meta.company_source = overrides.company, "edited"
    if overrides.period:
        meta.fiscal_period = normalise_period(overrides.period) or overrides.period
        year = "".join(ch for ch in meta.fiscal_period if ch.isdigit())[:4]
        meta.fiscal_year = int(year) if len(year) == 4 else meta.fiscal_year
    return meta


class Ingestor:
    """Ingests files into one store, sharing the embedding model across files."""

    def __init__(self, settings: Settings, store: Store, embedder: Embedder,
                 on_ingested: Callable[[DocumentMeta], None] | None = None,
                 on_progress: Progress | None = None) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.on_ingested = on_ingested
        self.on_progress = on_progress

    def _progress(self, stage: str, done: int, total: int) -> None:
        if self.on_progress is not None:
            self.on_progress(stage, done, total)

    def ingest_file(self, path: Path, overrides: MetadataOverrides | None = None) -> IngestReport:
        """Ingest one file; never raises for bad input (the report says what went wrong)."""
        started = time.perf_counter()
        overrides = overrides or MetadataOverrides()
        report = IngestReport(path=display_path(path), name=document_name(path), status="failed")
        try:
            report = self._ingest(path, overrides, report)
        except FinragError as exc:
            report.error = str(exc.reason if isinstance(exc, IngestError) else exc)
        except MemoryError:
            report.error = "ran out of memory while processing this file (is it a real filing?)"
        except RecursionError:
            report.error = "structure nested too deeply to read (thousands of levels; not a real filing)"
        except OSError as exc:  # unreadable file, full disk: the reason, not a traceback
            report.error = f"cannot read or store this file: {exc.strerror or exc}"
        except Exception as exc:  # one broken file must not stop the batch; say what happened
            report.error = f"unexpected {type(exc).__name__}: {exc}"
        report.seconds = round(time.perf_counter() - started, 3)
        report.finished_at = datetime.now(UTC)
        return report

    def _embed(self, chunks: list[Chunk], previous: DocumentMeta | None) -> np.ndarray:
        """Chunk vectors; a re-ingest after a pipeline upgrade reuses the stored vector of every chunk whose
        embedding text did not change (embedding is most of ingest time)."""
        texts = [embedding_text(c) for c in chunks]
        reuse = _reusable_vectors(self.store, previous.doc_id, self.embedder.model_name) if previous else {}
        # Longest first, so each batch holds texts of similar length (little padding), in slices that report
        # progress; the encoder sees the same texts either way.
        todo = sorted((t for t in dict.fromkeys(texts) if t not in reuse), key=len, reverse=True)
        step = max(self.settings.embedding_batch_size * EMBED_BATCHES_PER_REPORT, 1)
        self._progress("embed", 0, len(todo))
        for start in range(0, len(todo), step):
            part = todo[start : start + step]
            reuse.update(zip(part, self.embedder.encode(part), strict=True))
            self._progress("embed", start + len(part), len(todo))
        return np.vstack([reuse[t] for t in texts]).astype(np.float32)

    def _ingest(self, path: Path, overrides: MetadataOverrides, report: IngestReport) -> IngestReport:
        if not path.exists():
            raise IngestError(str(path), "no such file")
        if path.suffix.lower() not in SUPPORTED_EXTENSIONS:
            raise IngestError(
                str(path), f"unsupported format '{path.suffix or '(none)'}'; supported: {', '.join(SUPPORTED_EXTENSIONS)}"
            )
        try:
            doc_id = file_sha256(path)
        except OSError as exc:
            raise IngestError(display_path(path), f"cannot read the file: {exc.strerror or exc}") from exc
        report.doc_id = doc_id
        previous: DocumentMeta | None = None
        if self.store.has_document(doc_id):
            existing = self.store.get_document(doc_id)
            if existing.pipeline_version == PIPELINE_VERSION:
                return _unchanged(report, existing)
            previous = existing  # stored by another pipeline version: rebuild its chunks and cards

        stages = report.stage_seconds
        with _timed(stages, "parse"):
            parsed = load_pages(path, self.settings, lambda done, total: self._progress("read", done, total))
            self._progress("read", len(parsed.pages), len(parsed.pages))
        filing_facts = self._facts(path, parsed, report) if parsed.inline_xbrl else None
        report.warnings += [f"p. {page.page + 1}: a figure of {digits} digits is more than a number can hold; kept as "
                            "text, never read as a figure" for page in parsed.pages
                            for _, digits in overlong_figures(page.text)]
        with _timed(stages, "sections"):
            sections = detect_sections(parsed.pages)
        # The same bytes again (a newer pipeline, a moved data directory) keep the name they are cited by.
        name = previous.name if previous is not None else self.store.name_for(
            display_path(path.resolve()), document_name(path))
        meta = build_meta(path, doc_id, parsed.pages, parsed.source_format, overrides, name=name,
                          filing_facts=filing_facts)
        if previous is not None:  # the same bytes again: not a newer filing, so its ingest time stays too
            for field in (*_KEPT_ON_REINGEST, "ingested_at"):
                if getattr(previous, field):  # a value a newer pipeline now detects fills an empty one
                    setattr(meta, field, getattr(previous, field))
        with _timed(stages, "chunks"):
            # Table columns are typed in the filer's fiscal calendar, so the cover is read first.
            chunks = chunk_document(doc_id, parsed.pages, sections, self.settings, meta.fy_end_month,
                                    meta.fiscal_period)
        if not chunks:
            raise IngestError(str(path), "no text could be extracted into chunks")
        chunks = sentence_parts(chunks)
        meta.n_chunks = len(chunks)
        meta.pipeline_version = PIPELINE_VERSION
        meta.parts = printed_names([c.table for c in chunks if c.table is not None])
        meta.terms = defined_terms(parsed.text, [r.label for c in chunks if c.table is not None for r in c.table.rows])
        with _timed(stages, "cards"):
            cards = [build_card(chunk, meta) for chunk in chunks]
        with _timed(stages, "counts"):
            counts = read_counts(parsed.text, parsed.pages, chunks, meta.fy_end_month, meta.period_end)
        with _timed(stages, "embed"):
            vectors = self._embed(chunks, previous)
        with _timed(stages, "store"):
            if previous is not None:
                self.store.remove_document(doc_id)
            facts = filing_facts.facts if filing_facts is not None else []
            stored = self.store.add_document(meta, parsed.pages, sections, chunks, cards, vectors, facts, counts)
        if not stored:  # another ingest of the same bytes committed while this one was reading them
            return _unchanged(report, self.store.get_document(doc_id))
        if self.on_ingested is not None:
            self.on_ingested(meta)

        report.status = "ingested"
        report.name = meta.name
        stored_meta = self.store.get_document(doc_id)
        report.company, report.form, report.period = stored_meta.company, stored_meta.form, stored_meta.fiscal_period
        report.same_as = [d.name for d in self.store.same_filing(stored_meta)]
        report.pages = len(parsed.pages)
        report.sections = len(sections)
        report.chunks = len(chunks)
        report.tables = sum(1 for c in chunks if c.is_table)
        report.facts = meta.n_facts
        return report

    def _facts(self, path: Path, parsed: ParsedDocument, report: IngestReport) -> FilingFacts | None:
        """The filing's inline-XBRL facts; a file whose tags cannot be read is still ingested as text."""
        with _timed(report.stage_seconds, "xbrl"):
            try:
                data = path.read_bytes()
                tagged = count_numeric_tags(data)
                if tagged > self.settings.max_facts:  # counted before the tag reader builds a tree of them all
                    report.warnings.append(f"inline XBRL: {tagged:,} tagged figures is more than max_facts="
                                           f"{self.settings.max_facts:,} (a 10-K tags about 2,000); none read, the "
                                           "filing is answered from its printed text")
                    return None
                facts = read_facts(display_path(path), data, parsed.fact_spans, pages=[p.text for p in parsed.pages])
            except (IngestError, OSError) as exc:
                report.warnings.append(f"inline XBRL not read ({exc}); the filing is ingested as text")
                log.warning("%s: inline XBRL not read: %s", display_path(path), exc)
                return None
        if facts.disagreements:
            shown = "; ".join(facts.disagreements[:DISAGREEMENTS_SHOWN])
            more = len(facts.disagreements) - DISAGREEMENTS_SHOWN
            report.warnings.append(f"inline XBRL: {len(facts.disagreements)} tags say other than the page prints, "
                                   f"left out (the page's figures stand): {shown}{f'; {more} more' if more > 0 else ''}")
        if facts.tagged and len(facts.facts) + len(facts.disagreements) < READ_SHARE_WARNED * facts.tagged:
            note = (f"inline XBRL: {len(facts.facts)} of {facts.tagged} tagged figures read (the markup breaks the tag "
                    "reader, e.g. a comment left open); answers come from the printed text"
                    + ("" if facts.fy_end_month else ", and the fiscal year end from the cover's words"))
            report.warnings.append(note)
            log.warning("%s: %s", display_path(path), note)
        return facts


def _unchanged(report: IngestReport, existing: DocumentMeta) -> IngestReport:
    """``report`` for a file whose bytes the index already holds."""
    report.status, report.name = "unchanged", existing.name
    report.pages, report.chunks = existing.n_pages, existing.n_chunks
    return report


def _reusable_vectors(store: Store, doc_id: str, model: str) -> dict[str, np.ndarray]:
    """The stored vectors of a document's chunks by embedding text, when they were made by ``model``."""
    if store.embedding_model != model:
        return {}
    ids, matrix = store.doc_embeddings(doc_id)
    row = {chunk_id: i for i, chunk_id in enumerate(ids)}
    return {embedding_text(c): matrix[row[c.chunk_id]] for c in store.chunks([doc_id]) if c.chunk_id in row}


@contextmanager
def open_ingestor(settings: Settings, on_progress: Progress | None = None) -> Iterator[Ingestor]:
    """An ingestor over the configured store and embedding model; closes the store afterwards.

    Ingesting a filing marks memory-bank entries of the same company and period stale, so a verified answer
    never outlives the filing that superseded it (reconciled again on every open, see MemoryBank.reconcile).
    """
    from agent.index.embeddings import get_embedder

    store = Store.open(settings)
    mirror = open_backend(store) if settings.search_backend != "embedded" else None
    # The whole index once (repairs what a crash between a filing's commit and its stale marks left undone),
    # then only each new filing: the index before it is already reconciled.
    bank = _usable_bank(settings, lambda b: b.reconcile(store.list_documents(), store.generation))

    def ingested(meta: DocumentMeta) -> None:
        if bank is not None:
            bank.reconcile([meta], store.generation)
        if mirror is not None:
            _mirror(mirror, meta, on_progress)

    try:
        yield Ingestor(settings, store, get_embedder(settings), on_ingested=ingested, on_progress=on_progress)
    finally:
        if mirror is not None:
            mirror.close()
        store.close()


def _usable_bank(settings: Settings, first_use: Callable[[Any], object]) -> Any:
    """The memory bank, or None when its database is damaged: the damaged file is set aside (renamed, never
    deleted) with one warning, so a broken bank never blocks an ingest; the next use starts an empty bank."""
    from agent.memory import MEMORY_FILE_NAME, MemoryBank

    try:
        bank = MemoryBank(settings)
        first_use(bank)
        return bank
    except (StoreError, sqlite3.DatabaseError) as exc:
        if settings.store_url:  # a shared bank on a server is nobody's file to set aside
            log.warning("the memory bank is unavailable (%s); this ingest goes on without marking stale answers",
                        exc)
            return None
        path = Path(settings.home) / MEMORY_FILE_NAME
        aside = path.with_name(f"{path.name}.damaged-{datetime.now(UTC):%Y%m%d%H%M%S}")
        with contextlib.suppress(OSError):
            path.rename(aside)
        log.warning("the memory bank %s is damaged (%s); it was set aside as %s and this ingest goes on without "
                    "marking stale answers", path, exc, aside.name)
        return None


def _mirror(backend: SearchBackend, meta: DocumentMeta, on_progress: Progress | None) -> None:
    """Bring a search backend that mirrors the store (Milvus) level after a filing was stored. The filing is
    safe in the store either way: when the backend is unreachable the next search or ``finrag index migrate``
    writes it, so this warns instead of failing the ingest."""
    if on_progress is not None:
        on_progress("mirror", 0, 1)
    try:
        backend.sync()
    except StoreError as exc:
        log.warning("%s is stored; its %s copy will be written on the next search: %s", meta.name, backend.name, exc)
    if on_progress is not None:
        on_progress("mirror", 1, 1)
