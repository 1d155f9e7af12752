"""The memory bank (VeritasFi 3.2, 4.4, appendix C): expert-verified answers to recurring questions.

Each entry is one canonical question for one company and fiscal period, with its answer, the citations
behind it, who verified it and when. A query is matched by three matchers run side by side, each against its
own threshold (VeritasFi eq. 6: a match when any of them passes):

- subsequence: ``difflib.SequenceMatcher`` ratio over normalised text (word order and exact terminology),
- BM25: Okapi BM25 (as ``rank_bm25.BM25Okapi``) over the entries' questions (keyword overlap despite rephrasing),
- semantic: cosine of injected sentence embeddings (same meaning, different words),

and, on top of the paper, the query's company and fiscal period must agree with the entry's, because the
same question about another year or another company has another answer. Only verified entries answer;
pipeline answers are stored as unverified candidates until a person verifies them, and an entry goes stale
when a newer filing for its company and period is ingested.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from agent.config import Settings
from agent.db import Connection, Database, copy_table, migrate, open_database
from agent.entities.names import core_tokens, name_key, same_name
from agent.errors import FinragError, NotFoundError, StoreError
from agent.memory.matching import (
    content_tokens,
    match_text,
    normalize_period,
    qualifiers_conflict,
    question_key,
    subsequence_ratio,
)
from agent.schemas import Citation, DocumentMeta

log = logging.getLogger(__name__)

MEMORY_FILE_NAME = "memory.sqlite"
# Characters of sha1 in an entry id: short enough to type, far from colliding in a bank of thousands.
ENTRY_ID_CHARS = 12
# Shortest id prefix accepted on the command line, so a typo cannot hit an arbitrary entry.
MIN_ID_PREFIX = 4

Embed = Callable[[list[str]], np.ndarray]


class MemoryStatus(StrEnum):
    VERIFIED = "verified"
    UNVERIFIED = "unverified"
    STALE = "stale"


class MemorySource(StrEnum):
    MANUAL = "manual"
    PIPELINE = "pipeline"


# ---------------------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------------------
_CITATION_LABEL_RE = re.compile(
    r"^\s*\[\s*(?P<doc>[^,\]]+?)\s*,\s*p(?:age|\.)?\s*(?P<page>\d+)\s*\]\s*(?P<quote>.*)$", re.S
)
_CITATION_COLON_RE = re.compile(
    r"^\s*(?P<doc>[^:]+?)\s*:\s*(?:p\.?\s*)?(?P<page>\d+)\s*(?::\s*(?P<quote>.*))?$", re.S
)


def parse_citation(text: str) -> Citation:
    """'[3M_2018_10K, p. 60] "quote"' or '3M_2018_10K:60:quote' -> Citation (page 1-based)."""
    m = _CITATION_LABEL_RE.match(text) or _CITATION_COLON_RE.match(text)
    if not m:
        raise ValueError(f"not a citation: {text!r} (use '[DOC, p. N] quote' or 'DOC:N:quote')")
    quote = (m.group("quote") or "").strip().strip('"\u201c\u201d').strip()
    return Citation(doc=m.group("doc").strip(), page=int(m.group("page")), quote=quote)


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(moment: datetime) -> datetime:
    """A time with its zone; an imported time without one is taken as UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _parse_time(text: str) -> datetime:
    """An ISO time as stored in document metadata; a missing or unreadable one is 'long ago' (no entry is
    made stale by a filing whose ingest time is unknown)."""
    try:
        moment = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return datetime.min.replace(tzinfo=UTC)
    return _aware(moment)


def entry_id(question: str, company: str, period: str) -> str:
    """The stable id of (question, company, period): the same triple always maps to the same entry."""
    key = f"{question_key(question)}|{' '.join(core_tokens(company))}|{normalize_period(period)}"
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:ENTRY_ID_CHARS]


class MemoryEntry(BaseModel):
    """One canonical question x fiscal period with its verified (or candidate) answer and provenance."""

    id: str = Field(default="", description="derived from question, company and period; set automatically")
    question: str = Field(min_length=1)
    answer: str = Field(min_length=1)
    citations: list[Citation] = Field(
        default_factory=list, description="[doc, p. N] + quote behind the answer"
    )
    company: str = ""
    period: str = Field(default="", description="normalised fiscal period, e.g. FY2018, FY2023Q2")
    verifier: str = ""
    verified_at: datetime | None = None
    status: MemoryStatus = MemoryStatus.UNVERIFIED
    created_at: datetime = Field(default_factory=_now)
    updated_at: datetime = Field(default_factory=_now)
    source: MemorySource = MemorySource.MANUAL
    stale_reason: str = Field(default="", description="why the entry went stale (the newer filing)")

    @field_validator("citations", mode="before")
    @classmethod
    def _parse_citations(cls, value: Any) -> Any:
        if isinstance(value, str | dict | Citation):
            value = [value]
        return [parse_citation(v) if isinstance(v, str) else v for v in value or []]

    @field_validator("question", "answer", "company", "verifier")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()

    @model_validator(mode="after")
    def _derive(self) -> MemoryEntry:
        self.period = normalize_period(self.period)
        self.id = entry_id(self.question, self.company, self.period)
        if self.status == MemoryStatus.VERIFIED and not self.verifier:
            raise ValueError("a verified entry needs a verifier")
        return self

    @property
    def cited_docs(self) -> set[str]:
        return {c.doc for c in self.citations}


class MatcherScores(BaseModel):
    """Each matcher's score for one entry; cosine is None when no embedding function was given."""

    subsequence: float = 0.0
    bm25: float = 0.0
    cosine: float | None = None


class MemoryMatch(BaseModel):
    """A memory-bank hit: the entry, which matchers fired, and every matcher's score."""

    entry: MemoryEntry
    fired: list[str] = Field(description="matchers over their threshold: subsequence | bm25 | semantic")
    scores: MatcherScores
    query_text: str = Field(default="", description="the query as the matchers saw it")

    def provenance(self) -> str:
        """One line saying where the answer comes from, for the answer and the trace."""
        e = self.entry
        when = f"{e.verified_at:%Y-%m-%d}" if e.verified_at else "unknown date"
        cites = " ".join(c.label() for c in e.citations) or "no citation recorded"
        return f"memory bank entry {e.id}, verified by {e.verifier} on {when}; sources {cites}; matched by {', '.join(self.fired)}"


class MemoryImportReport(BaseModel):
    """What an import did."""

    path: str
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    demoted: list[str] = Field(default_factory=list, description="'LINE: why' for verified entries kept unverified")
    kept: list[str] = Field(default_factory=list, description="'LINE: why' for lines that left a verified entry as is")


# Checks an imported entry against the index: why its citations do not support it, or '' when they do.
EntryCheck = Callable[["MemoryEntry"], str]
MAX_IMPORT_ANSWER_CHARS = 4000  # a verified answer is a figure and a sentence or two, not a document
MAX_IMPORT_QUESTION_CHARS = 1000


# ---------------------------------------------------------------------------------------------------------
# The bank
# ---------------------------------------------------------------------------------------------------------
_SCHEMA = """
CREATE TABLE IF NOT EXISTS memory_entries (
    id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    company_key TEXT NOT NULL,
    period TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS memory_entries_status ON memory_entries (status);
CREATE INDEX IF NOT EXISTS memory_entries_period ON memory_entries (period);
CREATE INDEX IF NOT EXISTS memory_entries_lookup ON memory_entries (status, period);
CREATE TABLE IF NOT EXISTS memory_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS memory_terms (term TEXT PRIMARY KEY, df INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS memory_vectors (
    text TEXT NOT NULL,
    model TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (text, model)
);
"""
# Bumped by every write, so any process can tell whether the bank changed.
_BUMP_GENERATION = (
    "INSERT INTO memory_meta (key, value) VALUES ('generation', 1) "
    "ON CONFLICT(key) DO UPDATE SET value = memory_meta.value + 1"
)
_ADD_META = (
    "INSERT INTO memory_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = memory_meta.value + excluded.value"
)
_SET_META = "INSERT INTO memory_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
# Version of the term statistics kept in memory_terms; a bank without it has them rebuilt once on open.
TERMS_VERSION = 1
# BM25Okapi's parameters (rank_bm25 defaults, which the reference thresholds were set with).
BM25_K1, BM25_B, BM25_EPSILON = 1.5, 0.75, 0.25
_SQL_BATCH = 500  # ids per IN (...) query, under SQLite's variable limit


def _entry_terms(entry: MemoryEntry) -> list[str]:
    """The BM25 words of an entry: its match text's content words."""
    return content_tokens(match_text(entry.question, entry.company, entry.period))


class _TermStats(BaseModel):
    """Corpus statistics BM25 needs, read from the bank: entries, their mean length, and word idfs."""

    n_entries: int
    avgdl: float
    idf: dict[str, float]  # only the query's words


class MemoryBank:
    """Expert-verified answers in one SQLite file (``settings.home / memory.sqlite``), or in the PostgreSQL
    store every replica shares (``FINRAG_STORE_URL``)."""

    def __init__(self, settings: Settings, embed: Embed | None = None, path: Path | None = None) -> None:
        self.settings = settings
        self.embed = embed
        self.path = Path(path) if path is not None else Path(settings.home) / MEMORY_FILE_NAME
        # An explicit path is a bank file of its own (an evaluation's scratch bank), never the shared store.
        self._db: Database | None = None
        self._url = "" if path is not None else settings.store_url
        self._vectors: dict[str, np.ndarray] = {}  # match text -> unit vector, so texts are embedded once
        self._ready = False

    # --- storage -----------------------------------------------------------------------------------------
    @property
    def where(self) -> str:
        """The bank's place, for messages."""
        return self._db.where if self._db is not None else str(self.path)

    def _database(self) -> Database:
        """The bank's database, its tables made (and term statistics built) on first use."""
        if self._db is None:
            db = open_database(self._url, self.path, persistent=False)
            try:
                migrate(db, "memory", (_SCHEMA,))
                with db.session() as conn:
                    current = self._meta(conn, "terms_version") == TERMS_VERSION
                if not current:
                    with db.transaction() as conn:
                        self._upgrade_terms(conn)
            except (*db.errors, OSError) as exc:
                raise StoreError(f"memory bank at {self.where} cannot be opened: {exc}") from exc
            self._db = db
        return self._db

    @contextlib.contextmanager
    def _using(self, write: bool = False) -> Iterator[Connection]:
        """A connection to read the bank, or a write transaction; a driver's error is one StoreError."""
        db = self._database()
        try:
            with db.transaction() if write else db.session() as conn:
                yield conn
        except db.errors as exc:
            doing = "could not be written" if write else "is unreadable"
            raise StoreError(f"memory bank at {self.where} {doing}: {exc}") from exc

    @staticmethod
    def _meta(conn: Connection, key: str) -> int:
        row = conn.execute("SELECT value FROM memory_meta WHERE key = ?", (key,)).fetchone()
        return int(row[0]) if row else 0

    def _upgrade_terms(self, conn: Connection) -> None:
        """Build the term statistics once for a bank written before they were kept (inside a transaction)."""
        if self._meta(conn, "terms_version") == TERMS_VERSION:
            return
        entries = [MemoryEntry.model_validate_json(r[0]) for r in conn.execute("SELECT data FROM memory_entries")]
        conn.execute("DELETE FROM memory_terms")
        for key in ("n_entries", "n_tokens"):
            conn.execute(_SET_META, (key, 0))
        self._count_terms(conn, entries, sign=1)
        conn.execute(_SET_META, ("terms_version", TERMS_VERSION))

    @staticmethod
    def _count_terms(conn: Connection, entries: Iterable[MemoryEntry], sign: int) -> None:
        """Add (sign 1) or remove (sign -1) entries' words from the document frequencies and counts."""
        df: Counter[str] = Counter()
        n_entries = n_tokens = 0
        for entry in entries:
            terms = _entry_terms(entry)
            df.update(set(terms))
            n_entries += 1
            n_tokens += len(terms)
        if not n_entries:
            return
        conn.executemany(
            "INSERT INTO memory_terms (term, df) VALUES (?, ?) ON CONFLICT(term) DO UPDATE SET df = memory_terms.df + excluded.df",
            [(term, sign * count) for term, count in df.items()],
        )
        conn.execute("DELETE FROM memory_terms WHERE df <= 0")
        conn.execute(_ADD_META, ("n_entries", sign * n_entries))
        conn.execute(_ADD_META, ("n_tokens", sign * n_tokens))

    def _rows(self, where: str = "", params: Sequence[Any] = ()) -> list[MemoryEntry]:
        with self._using() as conn:
            rows = conn.execute(f"SELECT data FROM memory_entries {where}", tuple(params)).fetchall()
        return [MemoryEntry.model_validate_json(r[0]) for r in rows]

    def _write(self, entries: Iterable[MemoryEntry], delete_ids: Iterable[str] = (), reconciled: int | None = None) -> None:
        """Upsert and delete in one transaction, term statistics included: all of it lands or none of it does.
        ``reconciled`` records the index generation whose documents the stale marks reflect."""
        entries = list({e.id: e for e in entries}.values())
        touched = [e.id for e in entries] + [i for i in delete_ids]
        with self._using(write=True) as conn:
            conn.execute(_BUMP_GENERATION)
            old: list[MemoryEntry] = []
            for start in range(0, len(touched), _SQL_BATCH):
                batch = touched[start : start + _SQL_BATCH]
                marks = ",".join("?" * len(batch))
                old += [
                    MemoryEntry.model_validate_json(r[0])
                    for r in conn.execute(f"SELECT data FROM memory_entries WHERE id IN ({marks})", batch)
                ]
            self._count_terms(conn, old, sign=-1)
            conn.executemany("DELETE FROM memory_entries WHERE id = ?", [(i,) for i in touched])
            conn.executemany(
                "INSERT INTO memory_entries (id, status, company_key, period, data) VALUES (?, ?, ?, ?, ?)",
                [
                    (e.id, e.status.value, " ".join(core_tokens(e.company)), e.period, e.model_dump_json())
                    for e in entries
                ],
            )
            self._count_terms(conn, entries, sign=1)
            if reconciled is not None:
                conn.execute(_SET_META, ("reconciled_generation", reconciled))

    def copy_from(self, source: MemoryBank) -> int:
        """Upsert every entry of ``source`` as it is (status, verifier, times) and its kept vectors; returns the
        entries copied. Idempotent, so a stopped copy is simply run again."""
        entries = source.list()
        self._write(entries)
        copy_table(source._database(), self._database(), "memory_vectors", ("text", "model"))
        return len(entries)

    def get(self, entry_id_or_prefix: str) -> MemoryEntry:
        """One entry by id or by an unambiguous id prefix (at least MIN_ID_PREFIX characters)."""
        ident = entry_id_or_prefix.strip().lower()
        found = self._rows("WHERE id = ?", (ident,))
        if not found and len(ident) >= MIN_ID_PREFIX and re.fullmatch(r"[0-9a-f]+", ident):
            found = self._rows("WHERE id LIKE ?", (ident + "%",))
        if not found:
            raise NotFoundError(f"no memory entry with id {entry_id_or_prefix!r}")
        if len(found) > 1:
            raise FinragError(
                f"id prefix {entry_id_or_prefix!r} matches {len(found)} entries; give more characters"
            )
        return found[0]

    # --- editing -----------------------------------------------------------------------------------------
    def add(self, entry: MemoryEntry) -> MemoryEntry:
        """Insert, or update the entry with the same question, company and period (keeping its created_at)."""
        stored = self._upserted(entry, self._existing([entry.id]).get(entry.id))
        self._write([stored])
        return stored

    def _existing(self, ids: Sequence[str]) -> dict[str, MemoryEntry]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        return {e.id: e for e in self._rows(f"WHERE id IN ({marks})", list(ids))}

    @staticmethod
    def _upserted(entry: MemoryEntry, old: MemoryEntry | None, touch: bool = True) -> MemoryEntry:
        """The entry to store over ``old``: creation time kept from the older; ``touch`` stamps updated_at now
        (an import keeps the file's times so export -> import round-trips exactly)."""
        changes: dict[str, Any] = {"updated_at": _now()} if touch else {}
        if old is not None:
            changes["created_at"] = min(old.created_at, entry.created_at)
        if entry.status == MemoryStatus.VERIFIED and entry.verified_at is None:
            changes["verified_at"] = _now()
        return entry.model_copy(update=changes)

    def list(self, status: MemoryStatus | str | None = None, company: str = "") -> list[MemoryEntry]:
        """Entries, optionally only one status and/or one company, ordered by company, period, question."""
        entries = self._rows("WHERE status = ?", (MemoryStatus(status).value,)) if status else self._rows()
        if company:
            entries = [e for e in entries if same_name(company, e.company)]
        return sorted(entries, key=lambda e: (name_key(e.company), e.period, e.question.lower()))

    def verify(self, entry_id_or_prefix: str, verifier: str) -> MemoryEntry:
        """Mark an entry verified by ``verifier`` now (also re-verifies a stale entry after review)."""
        if not verifier.strip():
            raise FinragError("verify needs the name of the person verifying")
        entry = self.get(entry_id_or_prefix)
        now = _now()
        verified = entry.model_copy(
            update={
                "status": MemoryStatus.VERIFIED,
                "verifier": verifier.strip(),
                "verified_at": now,
                "updated_at": now,
                "stale_reason": "",
            }
        )
        self._write([verified])
        return verified

    def remove(self, entry_id_or_prefix: str) -> MemoryEntry:
        """Delete an entry; returns what was removed."""
        entry = self.get(entry_id_or_prefix)
        self._write([], delete_ids=[entry.id])
        return entry

    def seed(
        self,
        question: str,
        answer: str,
        citations: Sequence[Citation | str] = (),
        company: str = "",
        period: str = "",
    ) -> MemoryEntry:
        """Store a pipeline answer as an unverified candidate. An entry a person already verified is kept as
        is (a candidate never overwrites it); an unverified or stale one is replaced by the new candidate."""
        candidate = MemoryEntry(
            question=question,
            answer=answer,
            citations=list(citations),
            company=company,
            period=period,
            status=MemoryStatus.UNVERIFIED,
            source=MemorySource.PIPELINE,
        )
        old = self._existing([candidate.id]).get(candidate.id)
        if old is not None and old.status == MemoryStatus.VERIFIED:
            return old
        stored = self._upserted(candidate, old)
        self._write([stored])
        return stored

    def mark_stale(
        self, company: str, period: str, newer_doc_name: str, ingested_at: datetime | None = None
    ) -> list[MemoryEntry]:
        """A newer filing for (company, period) arrived: its verified entries go stale until re-verified.
        Entries that already cite that very document are left alone (they were answered from it), and so are
        entries verified after the filing was ingested (a person checked them against it)."""
        stale = self._stale_for(company, period, newer_doc_name, ingested_at or _now())
        if stale:
            self._write(stale)
            log.info("memory bank: %d entries for %s %s are stale after %s", len(stale), company, period, newer_doc_name)
        return stale

    def _stale_for(self, company: str, period: str, doc_name: str, ingested_at: datetime) -> list[MemoryEntry]:
        now = _now()
        return [
            e.model_copy(
                update={
                    "status": MemoryStatus.STALE,
                    "stale_reason": f"newer filing {doc_name} ingested {ingested_at:%Y-%m-%d}",
                    "updated_at": now,
                }
            )
            for e in self._rows("WHERE period = ? AND status != ?", (normalize_period(period), MemoryStatus.STALE.value))
            if same_name(company, e.company)
            and doc_name not in e.cited_docs
            and _aware(e.verified_at or e.updated_at) < ingested_at
        ]

    def reconcile(self, documents: Sequence[DocumentMeta], generation: int) -> list[MemoryEntry]:
        """Mark stale every entry an indexed filing supersedes, unless the bank already reflects index
        ``generation``. Run when the index is opened: a crash between committing a filing and marking its
        entries (two database files, so no single transaction spans both) is repaired on the next open."""
        with self._using() as conn:
            done = self._meta(conn, "reconciled_generation")
        if done == generation:
            return []
        stale: dict[str, MemoryEntry] = {}
        for doc in documents:
            if doc.company and doc.fiscal_period:
                when = _parse_time(doc.ingested_at)
                for e in self._stale_for(doc.company, doc.fiscal_period, doc.name, when):
                    stale.setdefault(e.id, e)
        self._write(stale.values(), reconciled=generation)
        if stale:
            log.warning("memory bank: %d entries marked stale on open (newer filings in the index)", len(stale))
        return list(stale.values())

    # --- import / export ---------------------------------------------------------------------------------
    def import_jsonl(self, path: Path, check: EntryCheck | None = None) -> MemoryImportReport:
        """Add or update entries from a JSON-lines file, all or nothing. Importing the same file twice changes
        nothing: an entry with the same question, company and period is updated in place.

        With ``check`` (the index's word on an entry), a file's 'verified' counts only when its citations hold:
        an entry they do not support is imported unverified, and a verified entry the index still supports is
        never overwritten by an import."""
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise FinragError(f"{path}: cannot read ({exc.strerror or exc})") from exc
        lines = _utf8_lines(path, data)
        entries: dict[str, MemoryEntry] = {}
        lines_of: dict[str, int] = {}
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                entry = MemoryEntry.model_validate_json(line)
            except ValidationError as exc:
                raise FinragError(f"{path}:{number}: {_first_error(exc)}") from exc
            if len(entry.answer) > MAX_IMPORT_ANSWER_CHARS or len(entry.question) > MAX_IMPORT_QUESTION_CHARS:
                raise FinragError(f"{path}:{number}: the entry is too long (answer at most {MAX_IMPORT_ANSWER_CHARS}, "
                                  f"question at most {MAX_IMPORT_QUESTION_CHARS} characters)")
            entries[entry.id] = entry  # a later line for the same triple wins, as it would one at a time
            lines_of[entry.id] = number
        existing = self._existing(list(entries))
        demoted: list[str] = []
        kept: list[str] = []
        for entry_id, entry in list(entries.items()):
            if check is None:
                break
            old = existing.get(entry_id)
            if old is not None and self._upserted(entry, old, touch=False) == old:
                continue  # the bank holds this entry already: an export imported back changes nothing
            if old is not None and old.status == MemoryStatus.VERIFIED and not check(old):
                kept.append(f"{lines_of[entry_id]}: a verified entry the index supports is kept as it is")
                del entries[entry_id]
                continue
            why = check(entry) if entry.status == MemoryStatus.VERIFIED else ""
            if why:
                demoted.append(f"{lines_of[entry_id]}: imported unverified: {why}")
                entries[entry_id] = entry.model_copy(update={"status": MemoryStatus.UNVERIFIED, "verifier": "",
                                                             "verified_at": None})
        stored = {i: self._upserted(e, existing.get(i), touch=False) for i, e in entries.items()}
        changed = [e for i, e in stored.items() if i not in existing or existing[i] != e]
        self._write(changed)
        self.embed_entries(changed)
        updated = sum(1 for e in changed if e.id in existing)
        return MemoryImportReport(
            path=str(path),
            added=len(changed) - updated,
            updated=updated,
            unchanged=len(entries) - len(changed),
            demoted=demoted,
            kept=kept,
        )

    def export_jsonl(self, path: Path) -> int:
        """Write every entry as JSON lines (atomically: a temporary file renamed into place); returns the count."""
        path = Path(path)
        entries = self.list()
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                for e in entries:
                    handle.write(e.model_dump_json() + "\n")
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return len(entries)

    # --- matching ----------------------------------------------------------------------------------------
    def lookup(
        self, question: str, company: str = "", period: str = "", also_named: Sequence[str] = ()
    ) -> MemoryMatch | None:
        """The best verified entry matching the question for this company and period, or None. ``also_named``
        are the company's other names in the registry (a former name, an alias): an entry stored under one of
        them is the same company's.

        Only verified entries of the asked period are read (an index on status and period), and of those the
        ones whose company agrees and whose metric qualifiers do not contradict the query are candidates; the
        matchers run over the candidates only, so a lookup stays fast however large the bank grows. BM25 still
        uses the whole bank's word statistics (kept up to date by every write). A candidate matches when any
        matcher passes its threshold; among several, the one with the most matchers firing wins, then the
        highest mean score-to-threshold ratio."""
        query = match_text(question, company, period)
        if not query:
            return None
        rows = self._rows("WHERE status = ? AND period = ?", (MemoryStatus.VERIFIED.value, normalize_period(period)))
        candidates = [
            (e, text)
            for e in rows
            if any(same_name(name, e.company) for name in (company, *also_named))
            and not qualifiers_conflict(query, text := match_text(e.question, e.company, e.period))
        ]
        if not candidates:
            return None
        query_tokens = content_tokens(query)
        bm25 = self._bm25_scores(query_tokens, [content_tokens(text) for _, text in candidates])
        cosines = self._cosines(query, [text for _, text in candidates])
        s = self.settings
        best: tuple[tuple[int, float], MemoryMatch] | None = None
        for i, (e, text) in enumerate(candidates):
            scores = MatcherScores(
                subsequence=subsequence_ratio(query, text),
                bm25=float(bm25[i]),
                cosine=None if cosines is None else float(cosines[i]),
            )
            ratios = {
                "subsequence": scores.subsequence / s.memory_subsequence_min,
                "bm25": scores.bm25 / s.memory_bm25_min,
            }
            if scores.cosine is not None:
                ratios["semantic"] = scores.cosine / s.memory_cosine_min
            fired = [name for name, ratio in ratios.items() if ratio >= 1.0]
            if not fired:
                continue
            rank = (len(fired), sum(ratios.values()) / len(ratios))
            if best is None or rank > best[0]:
                best = (rank, MemoryMatch(entry=e, fired=fired, scores=scores, query_text=query))
        return best[1] if best else None

    def _term_stats(self, words: Sequence[str]) -> _TermStats:
        """Bank-wide BM25 statistics for ``words``, computed as rank_bm25's BM25Okapi would over every entry:
        a word in more than half the entries gets epsilon times the mean idf instead of a negative idf."""
        with self._using() as conn:
            n_entries, n_tokens = self._meta(conn, "n_entries"), self._meta(conn, "n_tokens")
            all_df = np.fromiter((r[0] for r in conn.execute("SELECT df FROM memory_terms")), dtype=np.float64)
            marks = ",".join("?" * len(set(words)))
            df = dict(conn.execute(f"SELECT term, df FROM memory_terms WHERE term IN ({marks})", sorted(set(words))))
        if not n_entries or not len(all_df):
            return _TermStats(n_entries=n_entries, avgdl=0.0, idf={})
        raw = np.log(n_entries - all_df + 0.5) - np.log(all_df + 0.5)
        floor = BM25_EPSILON * float(raw.mean())
        idf = {}
        for word, count in df.items():
            value = math.log(n_entries - count + 0.5) - math.log(count + 0.5)
            idf[word] = floor if value < 0 else value
        return _TermStats(n_entries=n_entries, avgdl=n_tokens / n_entries, idf=idf)

    def _bm25_scores(self, query: list[str], documents: list[list[str]]) -> np.ndarray:
        """BM25Okapi scores of the query against each candidate's words, with the bank's statistics."""
        scores = np.zeros(len(documents))
        if not query or not documents:
            return scores
        stats = self._term_stats(query)
        if not stats.avgdl:
            return scores
        lengths = np.array([len(d) for d in documents], dtype=np.float64)
        counts = [Counter(d) for d in documents]
        norm = BM25_K1 * (1 - BM25_B + BM25_B * lengths / stats.avgdl)
        for word in query:  # repeated query words count again, as in rank_bm25
            tf = np.array([c.get(word, 0) for c in counts], dtype=np.float64)
            scores += stats.idf.get(word, 0.0) * (tf * (BM25_K1 + 1) / (tf + norm))
        return scores

    def _cosines(self, query: str, texts: list[str]) -> np.ndarray | None:
        """Cosine of the query with each text, or None without an embedding function (or when it fails:
        the other two matchers still answer). Entry vectors are kept in the bank, so each entry is embedded
        once, not once per process."""
        if self.embed is None:
            return None
        model = self.settings.embedding_model or "default"
        try:
            wanted = [t for t in dict.fromkeys(texts) if t not in self._vectors]
            self._vectors.update(self._stored_vectors(wanted, model))
            missing = [t for t in dict.fromkeys([query, *texts]) if t not in self._vectors]
            if missing:
                vectors = np.asarray(self.embed(missing), dtype=np.float32)
                if vectors.ndim != 2 or vectors.shape[0] != len(missing):
                    raise ValueError(f"embedder returned shape {vectors.shape} for {len(missing)} texts")
                norms = np.linalg.norm(vectors, axis=1, keepdims=True)
                vectors = vectors / np.where(norms == 0, 1.0, norms)
                self._vectors.update(zip(missing, vectors, strict=True))
                entry_texts = set(texts)  # queries are unbounded; only entries' vectors are kept
                self._store_vectors({t: v for t, v in zip(missing, vectors, strict=True) if t in entry_texts}, model)
        except Exception as exc:  # a broken embedder must not take the memory bank down
            log.warning("memory bank: semantic matcher skipped (%s)", exc)
            return None
        q = self._vectors[query]
        return np.array([float(self._vectors[t] @ q) for t in texts], dtype=np.float32)

    def embed_entries(self, entries: Sequence[MemoryEntry]) -> None:
        """Embed and keep the vectors of ``entries`` now (after a bulk import), so no later look-up pays for
        them; nothing without an embedding function."""
        texts = [match_text(e.question, e.company, e.period) for e in entries if e.status == MemoryStatus.VERIFIED]
        if self.embed is not None and texts:
            self._cosines(texts[0], texts)

    def _stored_vectors(self, texts: list[str], model: str) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        if not texts:
            return out
        with self._using() as conn:
            for start in range(0, len(texts), _SQL_BATCH):
                batch = texts[start : start + _SQL_BATCH]
                marks = ",".join("?" * len(batch))
                for text, blob in conn.execute(
                    f"SELECT text, vector FROM memory_vectors WHERE model = ? AND text IN ({marks})", [model, *batch]
                ):
                    out[text] = np.frombuffer(blob, dtype=np.float32)
        return out

    def _store_vectors(self, vectors: dict[str, np.ndarray], model: str) -> None:
        """Keep entry vectors for later processes; best effort (a read-only bank still answers)."""
        if not vectors:
            return
        try:
            with self._using(write=True) as conn:
                conn.executemany(
                    "INSERT INTO memory_vectors (text, model, vector) VALUES (?, ?, ?) ON CONFLICT(text, model) "
                    "DO UPDATE SET vector = excluded.vector",
                    [(t, model, np.asarray(v, dtype=np.float32).tobytes()) for t, v in vectors.items()],
                )
        except StoreError as exc:
            log.warning("memory bank: entry vectors not saved (%s)", exc)


def _utf8_lines(path: Path, data: bytes) -> list[str]:
    """The file's lines as text; a byte that is not UTF-8 is an error naming its line and column."""
    try:
        return data.decode("utf-8-sig").splitlines()
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise FinragError(
            f"{path}:{line}: byte 0x{data[exc.start]:02x} at column {column} is not UTF-8 text; "
            "save the file as UTF-8 and import it again"
        ) from exc


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ())) or "entry"
    return f"{where}: {err.get('msg', 'invalid')}"


class SeedAnswer(BaseModel):
    """A pipeline answer offered as a memory-bank candidate."""

    question: str = Field(min_length=1)
    answer: str = Field(min_length=1)
    citations: list[Citation] = Field(default_factory=list)
    company: str = ""
    period: str = ""

    @field_validator("citations", mode="before")
    @classmethod
    def _parse_citations(cls, value: Any) -> Any:
        return MemoryEntry._parse_citations(value)


def load_seed_answers(path: Path) -> list[SeedAnswer]:
    """Read pipeline answers to seed from: a JSON array (or JSON lines) of objects with question, answer,
    citations, company and period. Any invalid item fails the whole file, naming the item."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise FinragError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    try:
        data = (
            json.loads(text)
            if text.lstrip().startswith("[")
            else [json.loads(x) for x in text.splitlines() if x.strip()]
        )
    except json.JSONDecodeError as exc:
        raise FinragError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from exc
    if not isinstance(data, list):
        raise FinragError(
            f"{path}: expected a list of objects with question, answer, citations, company, period"
        )
    answers: list[SeedAnswer] = []
    for number, item in enumerate(data, start=1):
        try:
            answers.append(SeedAnswer.model_validate(item))
        except ValidationError as exc:
            raise FinragError(f"{path}: item {number}: {_first_error(exc)}") from exc
    return answers
