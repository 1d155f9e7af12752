"""The persistent index: a database as the source of truth, FAISS and BM25 files derived from it.

One SQLite file under ``settings.index_dir`` (or the PostgreSQL database ``FINRAG_STORE_URL`` names, shared by
every replica) holds documents, pages, sections, chunks, Chunk Cards, embeddings, facts and companies. Two derived artefacts make search fast: a FAISS ``IndexIDMap2(IndexFlatIP)`` over every chunk
vector (ids are chunk rowids) and a tokenised BM25 corpus (one file per document). Each write bumps a
generation number in SQLite; the derived files are written atomically (temp file, fsync, ``os.replace``)
and a manifest, written last, records the generation they reflect plus a checksum per file. Whenever the
manifest is missing, behind SQLite, or a file is absent (checked on open) or fails its checksum (checked
when the file is read) — a crash between the SQLite commit and the file write, a deleted or damaged file —
the derived files are rebuilt from SQLite.

:class:`agent.index.protocol.IndexStore` is the interface the rest of finrag relies on; chunk search can run
elsewhere (:mod:`agent.index.milvus` mirrors this store into Milvus).
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from agent.config import Settings
from agent.db import Connection, Database, migrate, open_database
from agent.entities import EntityRegistry
from agent.errors import NotFoundError, StoreError, damaged_message, first_line, storage_error_message
from agent.index import entities
from agent.index.derived import BM25_DIR, FAISS_FILE, MANIFEST_FILE, DerivedFiles, _InMemory, _Vectors
from agent.index.edits import checked_edits
from agent.index.embeddings import embedding_model_name
from agent.index.rows import (
    _CHUNK_COLUMNS,
    _COUNT_COLUMNS,
    _FACT_COLUMNS,
    _PAGE_COLUMNS,
    _SECTION_COLUMNS,
    SCHEMA_STEPS,
    _batches,
    _join,
    _split,
)
from agent.schemas import (
    PAGE_SEPARATOR,
    Chunk,
    ChunkCard,
    CountFact,
    DocumentMeta,
    Entity,
    Page,
    Section,
    XbrlFact,
)

try:  # POSIX advisory locks serialise writers across processes (the CLI ingesting while a server searches)
    import fcntl
except ImportError:  # pragma: no cover - Windows: the in-process lock still serialises threads
    fcntl = None  # type: ignore[assignment]


log = logging.getLogger(__name__)


DB_FILE = "finrag.sqlite"


LOCK_FILE = ".lock"


MIN_ID_PREFIX = 6  # shortest doc_id prefix accepted as a reference (like abbreviated git hashes)


_HELD_LOCKS = threading.local()  # per thread: index directory -> "shared" | "exclusive" lock held



# the metadata a filing's figures are typed in at ingest (the fiscal calendar of its columns and sentences)
RETYPED_BY = ("fiscal_year", "fiscal_period", "period_end")

class Store(DerivedFiles):
    """A database (SQLite under ``settings.index_dir``, or PostgreSQL) + FAISS + BM25 files under
    ``settings.index_dir``. Open with :meth:`Store.open`."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.dir = settings.index_dir
        self.db_path = self.dir / DB_FILE
        self.db: Database = open_database(settings.store_url, self.db_path)
        self._write_lock = threading.RLock()  # one writer per process; fcntl handles other processes
        self._vectors: _Vectors | None = None  # replaced whole (atomic assignment), never mutated in place
        self._load_lock = threading.Lock()  # one thread deserialises the FAISS file, the others wait for it
        self._in_memory: _InMemory | None = None  # derived data that could not be written (full disk)
        self._bulk = False  # inside bulk(): derived files are rebuilt once at the end
        self._rows_only = False  # opened to copy rows: no derived files at all
        self._closed = False
        self._sound = False  # quick_check passed (once per store, before its first write)

    # -----------------------------------------------------------------------------------------------------
    # opening, connections, locking
    # -----------------------------------------------------------------------------------------------------
    @classmethod
    def open(cls, settings: Settings, search_files: bool = True) -> Store:
        """Open (creating if needed) the index under ``settings.index_dir``; repair derived files if stale.
        ``search_files=False`` opens the rows only (a copy between two stores): no FAISS or BM25 file is read
        or written, and searching it is an error."""
        store = cls(settings)
        try:
            store.dir.mkdir(parents=True, exist_ok=True)
            (store.dir / BM25_DIR).mkdir(exist_ok=True)
        except OSError as exc:
            raise StoreError(f"Cannot create the index directory {store.dir}: {exc}") from exc
        store._init_schema()
        if not search_files:
            store._rows_only = True
        elif settings.search_backend != "milvus":  # Milvus searches; the files are made only if something reads them
            store._ensure_derived()
        return store

    def _conn(self) -> Connection:
        """This thread's connection."""
        if self._closed:
            raise StoreError("The store is closed.")
        try:
            return self.db.conn()
        except self.db.errors as exc:
            raise StoreError(f"Cannot open the index database {self.db.where}: {exc}") from exc

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Connection]:
        """A write transaction; a database still locked after the busy timeout, or read-only, is a StoreError."""
        if self._closed:
            raise StoreError("The store is closed.")
        try:
            with self.db.transaction() as conn:
                yield conn
        except self.db.integrity_errors:
            raise
        except self.db.errors as exc:
            raise StoreError(f"Cannot write the index database {self.db.where}: {first_line(exc)}") from exc

    @contextlib.contextmanager
    def _file_lock(self, exclusive: bool) -> Iterator[None]:
        """Advisory lock on the index directory: exclusive for writers, shared for readers of derived files.

        Re-entrant per thread and directory (even across Store objects): flock locks taken through two file
        handles conflict even inside one process, so a nested request must reuse the held lock.
        """
        held: dict[Path, str] = _HELD_LOCKS.__dict__.setdefault("by_dir", {})
        key = self.dir.resolve()
        if key in held:
            if exclusive and held[key] != "exclusive":
                raise RuntimeError("cannot upgrade a shared index lock to an exclusive one")
            yield
            return
        try:
            handle = open(self.dir / LOCK_FILE, "a+b")  # noqa: SIM115 - closed in the finally below
        except OSError as exc:
            raise StoreError(f"Cannot lock the index directory {self.dir}: {exc}") from exc
        try:
            if fcntl is not None:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            held[key] = "exclusive" if exclusive else "shared"
            try:
                yield
            finally:
                del held[key]
                if fcntl is not None:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        finally:
            handle.close()

    @contextlib.contextmanager
    def _writing(self, checked: bool = True) -> Iterator[None]:
        """Hold the writer locks; the first write of this store first checks the database is sound, so a
        damaged file refuses writes with the readers' message instead of taking more data into it."""
        with self._write_lock, self._file_lock(exclusive=True):
            if checked and not self._sound:
                self._check_sound()
            yield

    def _check_sound(self) -> None:
        try:
            damage = self.db.damage()
        except self.db.errors as exc:
            raise StoreError(storage_error_message(exc, self.dir) or str(exc)) from exc
        if damage is not None:
            raise StoreError(damaged_message(self.dir, f"database disk image is malformed: {damage}"))
        self._sound = True

    def _init_schema(self) -> None:
        with self._writing(checked=False):
            # An empty file is a truncated database, not a fresh home: creating tables in it would hide the loss.
            # Checked under the writer lock: another process creating the index holds it until the tables exist.
            if self.db.dialect == "sqlite" and self.db_path.is_file() and self.db_path.stat().st_size == 0:
                raise StoreError(
                    f"the index database {self.db_path} is empty (0 bytes): it was truncated; restore it from a "
                    "backup, or remove it to start a new index"
                )
            try:
                # An index made before versions were kept in schema_versions says its version in meta.
                found = self._meta_get("schema_version") if "key" in self.db.columns("meta") else None
                version = migrate(self.db, "index", SCHEMA_STEPS, found=int(found) if found else None)
                if found != str(version) or self._meta_get("generation") is None:
                    with self._transaction() as conn:
                        self._meta_set(conn, "schema_version", str(version))  # what a finrag before migrations reads
                        if self._meta_get("generation") is None:
                            self._meta_set(conn, "generation", "0")
                pending = self._conn().execute(
                    "SELECT 1 FROM documents WHERE coalesce(json_extract(data, '$.entity_id'), '') = '' LIMIT 1"
                ).fetchone()
                if pending:  # an index made before the company registry: its filings are attached now
                    with self._transaction() as tx:
                        log.info("attached %d filings to company entities", entities.migrate(tx))
            except self.db.errors as exc:
                raise StoreError(storage_error_message(exc, self.db_path) or f"{self.db.where}: {exc}") from exc

    def close(self) -> None:
        """Close every connection this store opened."""
        self.db.close()
        self._closed = True
        self._vectors = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -----------------------------------------------------------------------------------------------------
    # meta values
    # -----------------------------------------------------------------------------------------------------
    def _meta_get(self, key: str) -> str | None:
        row = self._conn().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    @staticmethod
    def _meta_set(conn: Connection, key: str, value: str) -> None:
        conn.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                     (key, value))

    @property
    def generation(self) -> int:
        """Counts committed changes to chunks/vectors; the derived files must reflect the same number."""
        return int(self._meta_get("generation") or 0)

    @property
    def embedding_model(self) -> str | None:
        """Model that produced the stored vectors (None while the store is empty of vectors)."""
        return self._meta_get("embedding_model")

    @property
    def embedding_dim(self) -> int | None:
        """Dimension of the stored vectors (None while the store is empty of vectors)."""
        value = self._meta_get("embedding_dim")
        return None if value is None else int(value)

    # -----------------------------------------------------------------------------------------------------
    # documents
    # -----------------------------------------------------------------------------------------------------
    def has_document(self, doc_id: str) -> bool:
        """Whether a document with exactly this content hash is stored."""
        return self._conn().execute("SELECT 1 FROM documents WHERE doc_id = ?", (doc_id,)).fetchone() is not None

    def _resolve(self, name_or_id: str) -> str:
        """A doc_id from an exact id, exact name, case-insensitive name or unique id prefix."""
        conn = self._conn()
        ref = name_or_id.strip()
        for sql in (
            "SELECT doc_id FROM documents WHERE doc_id = ?",
            "SELECT doc_id FROM documents WHERE name = ?",
            "SELECT doc_id FROM documents WHERE lower(name) = lower(?)",
        ):
            rows = conn.execute(sql, (ref,)).fetchall()
            if len(rows) == 1:
                return rows[0][0]
        if len(ref) >= MIN_ID_PREFIX:
            rows = conn.execute("SELECT doc_id FROM documents WHERE substr(doc_id, 1, ?) = ?", (len(ref), ref)).fetchall()
            if len(rows) == 1:
                return rows[0][0]
            if len(rows) > 1:
                raise NotFoundError(f"'{name_or_id}' matches {len(rows)} documents; give more of the id or the name.")
        raise NotFoundError(f"No document named or with id '{name_or_id}'.")

    def _doc_at_path(self, conn: Connection, path: str) -> str | None:
        row = conn.execute("SELECT doc_id FROM documents WHERE json_extract(data, '$.path') = ?", (path,)).fetchone()
        return None if row is None else row[0]

    def name_for(self, path: str, stem: str) -> str:
        """The name a file at ``path`` is stored under: the name of the document already ingested from that
        path (a changed file replaces it), else ``stem`` while no other file holds it, else the stem prefixed
        with as many parent folders as make it unique (``2018/10K.pdf`` and ``2019/10K.pdf`` stay two
        documents: ``10K`` and ``2019_10K``)."""
        conn = self._conn()
        at_path = self._doc_at_path(conn, path)
        if at_path is not None:
            return conn.execute("SELECT name FROM documents WHERE doc_id = ?", (at_path,)).fetchone()[0]
        taken = {row[0].lower() for row in conn.execute("SELECT name FROM documents")}
        candidate = stem
        for parent in Path(path).parents:
            if candidate.lower() not in taken:
                return candidate
            if not parent.name:
                break
            candidate = f"{parent.name}_{candidate}"
        number = 2
        while f"{stem}_{number}".lower() in taken:
            number += 1
        return f"{stem}_{number}"

    def list_documents(self) -> list[DocumentMeta]:
        """Every stored document, by name."""
        rows = self._conn().execute("SELECT data FROM documents ORDER BY name").fetchall()
        return [DocumentMeta.model_validate_json(row[0]) for row in rows]

    def document_names(self) -> dict[str, str]:
        """doc_id -> name for every document (cheap; for labelling search hits)."""
        return dict(self._conn().execute("SELECT doc_id, name FROM documents").fetchall())

    # -----------------------------------------------------------------------------------------------------
    # companies (agent.entities): one entity per filer
    # -----------------------------------------------------------------------------------------------------
    def entities(self) -> EntityRegistry:
        """The companies that have a stored filing: how questions, the gate and search filters name them."""
        return entities.with_filings(self._conn())

    def entities_all(self) -> EntityRegistry:
        """Every stored company entity (a copy to another store takes them all)."""
        return entities.load(self._conn())

    def adopt_records(self, documents: Sequence[DocumentMeta], companies: Sequence[Entity]) -> None:
        """Make the records of these stored documents and the company registry exactly the given ones, in one
        transaction: a store copied from another keeps its hand-made merges, renames and aliases."""
        with self._writing(), self._transaction() as conn:
            for meta in documents:
                conn.execute("UPDATE documents SET name = ?, data = ? WHERE doc_id = ?",
                             (meta.name, meta.model_dump_json(), meta.doc_id))
            conn.execute("DELETE FROM entities")
            conn.executemany("INSERT INTO entities(entity_id, name, data) VALUES (?, ?, ?)",
                             [(e.entity_id, e.name, e.model_dump_json()) for e in companies])

    def entity_filings(self) -> dict[str, list[str]]:
        """entity_id -> names of its filings."""
        out: dict[str, list[str]] = {}
        for meta in self.list_documents():
            out.setdefault(meta.entity_id, []).append(meta.name)
        return out

    def _entity_write(self, action: str, *args: str | bool) -> Entity:
        with self._writing(), self._transaction() as conn:
            try:
                return getattr(entities, action)(conn, *args)
            except KeyError as exc:
                raise NotFoundError(f"No company named '{exc.args[0]}' is indexed (see `finrag companies`).") from exc

    def merge_entities(self, keep: str, gone: str, force: bool = False) -> Entity:
        """Fold company ``gone`` (any of its names, a ticker or an id) into ``keep``, with its filings; two
        registrants with different CIKs only with ``force``."""
        return self._entity_write("merge", keep, gone, force)

    def rename_entity(self, company: str, name: str) -> Entity:
        """Name a company by hand; its old name stays a former name."""
        return self._entity_write("rename", company, name)

    def add_alias(self, company: str, alias: str) -> Entity:
        """Add a short form people use for a company."""
        return self._entity_write("add_alias", company, alias)

    def get_document(self, name_or_id: str) -> DocumentMeta:
        """One document's metadata, by name or id; NotFoundError when unknown."""
        doc_id = self._resolve(name_or_id)
        row = self._conn().execute("SELECT data FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
        return DocumentMeta.model_validate_json(row[0])

    def same_filing(self, meta: DocumentMeta) -> list[DocumentMeta]:
        """The other stored documents that are the filing ``meta`` is: the same text in other bytes, or the same
        company, form and fiscal period (a second copy under another name, an amended re-typeset). Looked up in
        SQL, so an ingest into a large index reads only the matches."""
        by_text = meta.text_sha256 or None  # NULL matches nothing: a document stored before the text hash
        typed = bool(meta.entity_id and meta.form and meta.fiscal_period)
        rows = self._conn().execute(
            "SELECT data FROM documents WHERE doc_id != ? AND (json_extract(data, '$.text_sha256') = ? OR (? AND "
            "json_extract(data, '$.entity_id') = ? AND json_extract(data, '$.form') = ? AND "
            "json_extract(data, '$.fiscal_period') = ?)) ORDER BY name",
            (meta.doc_id, by_text, typed, meta.entity_id, meta.form, meta.fiscal_period),
        ).fetchall()
        return [DocumentMeta.model_validate_json(row[0]) for row in rows]

    def update_metadata(self, name_or_id: str, **fields: Any) -> DocumentMeta:
        """Edit metadata fields (company, ticker, form, fiscal_year, name, ...) and return the new record. A new
        period (``RETYPED_BY``) makes the document stale: the next ingest of its file re-reads it in that period."""
        unknown = sorted(set(fields) - set(DocumentMeta.model_fields))
        if unknown:
            raise StoreError(f"Unknown document field(s): {', '.join(unknown)}.")
        if "doc_id" in fields:
            raise StoreError("doc_id is the content hash and cannot be edited.")
        fields = checked_edits(fields)
        with self._writing(), self._transaction() as conn:
            doc_id = self._resolve(name_or_id)
            row = conn.execute("SELECT data FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
            current = json.loads(row[0])
            try:
                updated = DocumentMeta.model_validate({**current, **fields})
            except ValidationError as exc:
                raise StoreError(f"Invalid metadata for {current['name']}: {exc.errors()[0]['msg']}") from exc
            if not updated.name.strip():
                raise StoreError("A document name cannot be empty.")
            if "company" in fields and fields["company"] != current.get("company"):
                try:
                    updated = entities.reattach(conn, updated, str(fields["company"]))
                except ValueError as exc:
                    raise StoreError(str(exc)) from exc
            if fields.get("ticker"):
                entities.add_ticker(conn, updated.entity_id, str(fields["ticker"]))
            if any(getattr(updated, f) != current.get(f) for f in RETYPED_BY if f in fields):
                # its tables' columns and its sentences' figures were typed in the calendar it had: the next ingest
                # of its file types them again in this one (until then it is listed as stale)
                updated.pipeline_version = ""
            clash = conn.execute(
                "SELECT 1 FROM documents WHERE name = ? AND doc_id != ?", (updated.name, doc_id)
            ).fetchone()
            if clash:
                raise StoreError(f"Another document is already named '{updated.name}'.")
            conn.execute(
                "UPDATE documents SET name = ?, data = ? WHERE doc_id = ?", (updated.name, updated.model_dump_json(), doc_id)
            )
        return updated

    def add_document(
        self,
        meta: DocumentMeta,
        pages: list[Page],
        sections: list[Section],
        chunks: list[Chunk],
        cards: list[ChunkCard],
        embeddings: np.ndarray,
        facts: Sequence[XbrlFact] = (),
        counts: Sequence[CountFact] = (),
    ) -> bool:
        """Store a document and everything derived from it in one transaction, then update the index files.
        True when stored; False when the ``doc_id`` was already there (another ingest of the same bytes got
        there first).

        Idempotent: a ``doc_id`` already stored is a no-op. A stored document from the same path but with
        another ``doc_id`` (the file changed) is replaced; a name held by a file at another path is an error
        (:meth:`name_for` picks a free one). ``embeddings`` holds one row per chunk, in chunk order; ``facts``
        are the filing's inline-XBRL facts, ``counts`` the counts its sentences state.
        """
        vectors = self._check_document(meta, chunks, cards, embeddings)
        model = embedding_model_name(self.settings)
        meta = meta.model_copy(
            update={
                "n_pages": len(pages),
                "n_chunks": len(chunks),
                "ingested_at": meta.ingested_at or datetime.now(UTC).isoformat(),
            }
        )
        with self._writing():
            with self._transaction() as conn:
                # Inside the transaction, which holds the writers' lock: another process (a second ingest worker
                # on a shared store) may have committed this filing, or another, since this one was parsed.
                if self.has_document(meta.doc_id):
                    return False
                derived_current = self._derived_current()
                self._check_embedding_space(model, vectors.shape[1] if len(vectors) else None)
                # The same file changed on disk replaces its older version; another file never does.
                old_id = self._doc_at_path(conn, meta.path) if meta.path else None
                if old_id is None:
                    row = conn.execute("SELECT doc_id, data FROM documents WHERE name = ?", (meta.name,)).fetchone()
                    if row is not None and (not meta.path or not json.loads(row[1]).get("path")):
                        old_id = row[0]  # no path to tell them apart (documents stored without one)
                    elif row is not None:
                        raise StoreError(
                            f"Another file is already stored as '{meta.name}' ({json.loads(row[1])['path']})."
                        )
                removed_rowids = self._delete_rows(conn, old_id) if old_id else np.zeros(0, dtype=np.int64)
                meta = entities.attach(conn, meta)
                rowids = self._insert_rows(conn, meta, pages, sections, chunks, cards, vectors, model)
                conn.executemany(
                    "INSERT INTO facts(doc_id, fact_id, concept, period, extra) VALUES (?, ?, ?, ?, ?)",
                    [(meta.doc_id, *_split(f, _FACT_COLUMNS)) for f in facts],
                )
                conn.executemany(
                    "INSERT INTO counts(doc_id, key, extra) VALUES (?, ?, ?)",
                    [(meta.doc_id, *_split(c, _COUNT_COLUMNS)) for c in counts],
                )
                entities.drop_orphans(conn)
                generation = self._bump_generation(conn)
            if old_id:
                log.info("replaced %s (%s) by %s", meta.name, old_id[:12], meta.doc_id[:12])
            self.db.checkpoint()
            if self._bulk or self._rows_only:
                return True
            try:
                if derived_current:
                    self._apply_delta(
                        generation,
                        removed_doc=old_id,
                        removed_rowids=removed_rowids,
                        added_doc=meta.doc_id,
                        added_chunks=chunks,
                        added_rowids=rowids,
                        added_vectors=vectors,
                    )
                elif not self._catch_up():  # another process committed since these files were written
                    self._rebuild_derived()
            except (OSError, RuntimeError) as exc:
                raise StoreError(
                    f"{meta.name} was saved, but the search index files could not be written ({exc}); "
                    "they are rebuilt automatically the next time the index is opened."
                ) from exc
        return True

    @contextlib.contextmanager
    def bulk(self) -> Iterator[None]:
        """Add many documents, then rebuild the derived files (FAISS, BM25 corpora) once: outside, each
        document rewrites the whole FAISS file (1.5 GB at a million chunks). Rows commit per document as
        usual; a crash inside leaves the files stale, and the next open rebuilds them."""
        self._bulk = True
        try:
            yield
        finally:
            self._bulk = False
            with self._writing():
                self._rebuild_derived()

    def remove_document(self, name_or_id: str) -> DocumentMeta:
        """Delete a document everywhere (rows, vectors, BM25 corpus) and return what was removed."""
        with self._writing():
            with self._transaction() as conn:
                meta = self.get_document(name_or_id)
                derived_current = self._derived_current()
                removed_rowids = self._delete_rows(conn, meta.doc_id)
                entities.drop_orphans(conn)
                generation = self._bump_generation(conn)
            self.db.checkpoint()
            if self._rows_only:
                return meta
            try:
                if derived_current:
                    self._apply_delta(generation, removed_doc=meta.doc_id, removed_rowids=removed_rowids)
                elif not self._catch_up():  # another process committed since these files were written
                    self._rebuild_derived()
            except (OSError, RuntimeError) as exc:
                raise StoreError(
                    f"{meta.name} was removed, but the search index files could not be rewritten ({exc}); "
                    "they are rebuilt automatically the next time the index is opened."
                ) from exc
        return meta

    def _check_document(
        self, meta: DocumentMeta, chunks: list[Chunk], cards: list[ChunkCard], embeddings: np.ndarray
    ) -> np.ndarray:
        """Validate the pieces agree with each other; return the vectors as contiguous float32."""
        if not meta.doc_id or not meta.name.strip():
            raise StoreError("A document needs a doc_id and a name.")
        vectors = np.asarray(embeddings, dtype=np.float32)
        if not chunks and vectors.size == 0:
            return np.zeros((0, 0), dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(chunks):
            raise StoreError(
                f"{meta.name}: {len(chunks)} chunks but embeddings of shape {tuple(vectors.shape)}; need one row per chunk."
            )
        if len(chunks) and not np.isfinite(vectors).all():
            raise StoreError(f"{meta.name}: embeddings contain NaN or infinite values.")
        ids = [c.chunk_id for c in chunks]
        if len(set(ids)) != len(ids):
            raise StoreError(f"{meta.name}: duplicate chunk ids.")
        foreign = [c.chunk_id for c in chunks if c.doc_id != meta.doc_id]
        if foreign:
            raise StoreError(f"{meta.name}: chunk {foreign[0]} belongs to another document.")
        orphan = sorted({card.chunk_id for card in cards} - set(ids))
        if orphan:
            raise StoreError(f"{meta.name}: card for unknown chunk {orphan[0]}.")
        return np.ascontiguousarray(vectors)

    def _check_embedding_space(self, model: str, dim: int | None) -> None:
        """Refuse vectors from another model: cosine between different spaces means nothing."""
        stored_model, stored_dim = self.embedding_model, self.embedding_dim
        if dim is None or stored_model is None:
            return
        if stored_model != model or stored_dim != dim:
            raise StoreError(
                f"The index holds {stored_dim}-d vectors from '{stored_model}', but the configured embedding model "
                f"is '{model}' ({dim}-d). Set FINRAG_EMBEDDING_MODEL back, or use a new FINRAG_HOME to re-index."
            )

    def _insert_rows(
        self,
        conn: Connection,
        meta: DocumentMeta,
        pages: list[Page],
        sections: list[Section],
        chunks: list[Chunk],
        cards: list[ChunkCard],
        vectors: np.ndarray,
        model: str,
    ) -> np.ndarray:
        """Insert one document's rows; return the new chunk rowids in chunk order."""
        try:
            conn.execute(
                "INSERT INTO documents(doc_id, name, data) VALUES (?, ?, ?)", (meta.doc_id, meta.name, meta.model_dump_json())
            )
            conn.executemany(
                "INSERT INTO pages(doc_id, page, char_start, text, extra) VALUES (?, ?, ?, ?, ?)",
                [(meta.doc_id, *_split(p, _PAGE_COLUMNS)) for p in pages],
            )
            conn.executemany(
                "INSERT INTO sections(doc_id, section_id, title, kind, page_start, page_end, char_start, char_end, extra)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(meta.doc_id, *_split(s, _SECTION_COLUMNS)) for s in sections],
            )
            rowids = [
                conn.execute(
                    "INSERT INTO chunks(chunk_id, doc_id, ordinal, section_id, page, page_end, char_start, char_end,"
                    " is_table, text, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    _split(chunk, _CHUNK_COLUMNS),
                ).fetchone()[0]
                for chunk in chunks
            ]
            conn.executemany(
                "INSERT INTO cards(chunk_id, doc_id, data) VALUES (?, ?, ?)",
                [(card.chunk_id, meta.doc_id, card.model_dump_json()) for card in cards],
            )
            dim = int(vectors.shape[1]) if len(vectors) else 0
            conn.executemany(
                "INSERT INTO embeddings(chunk_rowid, doc_id, model, dim, vector) VALUES (?, ?, ?, ?, ?)",
                [(rowid, meta.doc_id, model, dim, vectors[i].tobytes()) for i, rowid in enumerate(rowids)],
            )
            if len(vectors) and self._meta_get("embedding_model") is None:
                self._meta_set(conn, "embedding_model", model)
                self._meta_set(conn, "embedding_dim", str(dim))
        except self.db.integrity_errors as exc:
            raise StoreError(f"{meta.name}: conflicting rows ({exc}); is a chunk id used by another document?") from exc
        return np.asarray(rowids, dtype=np.int64)

    @staticmethod
    def _delete_rows(conn: Connection, doc_id: str) -> np.ndarray:
        """Delete a document's rows (children first); return the chunk rowids it had."""
        rowids = np.asarray(
            [r[0] for r in conn.execute("SELECT id FROM chunks WHERE doc_id = ?", (doc_id,))], dtype=np.int64
        )
        for table in ("counts", "facts", "embeddings", "cards", "chunks", "sections", "pages", "documents"):
            conn.execute(f"DELETE FROM {table} WHERE doc_id = ?", (doc_id,))
        if conn.execute("SELECT 1 FROM embeddings LIMIT 1").fetchone() is None:
            # No vectors left: the next document may use any model.
            conn.execute("DELETE FROM meta WHERE key IN ('embedding_model', 'embedding_dim')")
        return rowids

    def _bump_generation(self, conn: Connection) -> int:
        row = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        generation = int(row[0] if row else 0) + 1
        self._meta_set(conn, "generation", str(generation))
        return generation

    # -----------------------------------------------------------------------------------------------------
    # reads
    # -----------------------------------------------------------------------------------------------------
    def chunks(self, doc_ids: list[str] | None = None) -> list[Chunk]:
        """Chunks of the given documents (all when None), in document then reading order."""
        sql = f"SELECT {', '.join(_CHUNK_COLUMNS)}, extra FROM chunks"
        if doc_ids is None:
            rows = self._conn().execute(sql + " ORDER BY doc_id, ordinal").fetchall()
        else:
            rows = []
            for doc_id in dict.fromkeys(doc_ids):
                rows += self._conn().execute(sql + " WHERE doc_id = ? ORDER BY ordinal", (doc_id,)).fetchall()
        return [_join(Chunk, _CHUNK_COLUMNS, row) for row in rows]

    def chunk(self, chunk_id: str) -> Chunk:
        """One chunk by id; NotFoundError when unknown."""
        row = self._conn().execute(
            f"SELECT {', '.join(_CHUNK_COLUMNS)}, extra FROM chunks WHERE chunk_id = ?", (chunk_id,)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"No chunk '{chunk_id}'.")
        return _join(Chunk, _CHUNK_COLUMNS, row)

    def chunks_by_id(self, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        """Chunks by id (one query per 900 ids); unknown ids are left out."""
        out: dict[str, Chunk] = {}
        conn = self._conn()
        for batch in _batches(list(dict.fromkeys(chunk_ids))):
            marks = ",".join("?" * len(batch))
            for row in conn.execute(
                f"SELECT {', '.join(_CHUNK_COLUMNS)}, extra FROM chunks WHERE chunk_id IN ({marks})", batch
            ):
                chunk = _join(Chunk, _CHUNK_COLUMNS, row)
                out[chunk.chunk_id] = chunk
        return out

    def cards(self, chunk_ids: Sequence[str]) -> dict[str, ChunkCard]:
        """Chunk Cards by chunk id; chunks without a card are left out."""
        out: dict[str, ChunkCard] = {}
        conn = self._conn()
        for batch in _batches(list(dict.fromkeys(chunk_ids))):
            marks = ",".join("?" * len(batch))
            for chunk_id, data in conn.execute(f"SELECT chunk_id, data FROM cards WHERE chunk_id IN ({marks})", batch):
                out[chunk_id] = ChunkCard.model_validate_json(data)
        return out

    def sections(self, doc_id: str) -> list[Section]:
        """A document's sections in order."""
        doc_id = self._resolve(doc_id)
        rows = self._conn().execute(
            f"SELECT {', '.join(_SECTION_COLUMNS)}, extra FROM sections WHERE doc_id = ? ORDER BY section_id", (doc_id,)
        ).fetchall()
        return [_join(Section, _SECTION_COLUMNS, row) for row in rows]

    def pages(self, doc_id: str) -> list[Page]:
        """A document's pages in order (0-based page numbers)."""
        doc_id = self._resolve(doc_id)
        rows = self._conn().execute(
            f"SELECT {', '.join(_PAGE_COLUMNS)}, extra FROM pages WHERE doc_id = ? ORDER BY page", (doc_id,)
        ).fetchall()
        return [_join(Page, _PAGE_COLUMNS, row) for row in rows]

    def page(self, doc_id: str, page: int) -> Page:
        """One page of a document (0-based), read alone: a citation opens one page, not the whole filing."""
        doc_id = self._resolve(doc_id)
        row = self._conn().execute(
            f"SELECT {', '.join(_PAGE_COLUMNS)}, extra FROM pages WHERE doc_id = ? AND page = ?", (doc_id, page)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"No page {page + 1} in document '{doc_id[:12]}'.")
        return _join(Page, _PAGE_COLUMNS, row)

    def facts(self, doc_ids: Sequence[str], concepts: Sequence[str] = ()) -> list[XbrlFact]:
        """The inline-XBRL facts of these documents, of ``concepts`` only when given, in document order."""
        out: list[XbrlFact] = []
        for doc_id in doc_ids:
            sql = "SELECT fact_id, concept, period, extra FROM facts WHERE doc_id = ?"
            args: list[str] = [doc_id]
            if concepts:
                sql += f" AND concept IN ({', '.join('?' * len(concepts))})"
                args += list(concepts)
            out += [_join(XbrlFact, _FACT_COLUMNS, row) for row in self._conn().execute(sql + " ORDER BY rowid", args)]
        return out

    def counts(self, doc_ids: Sequence[str]) -> list[CountFact]:
        """The counts the sentences of these documents state, in document order."""
        out: list[CountFact] = []
        for doc_id in doc_ids:
            rows = self._conn().execute("SELECT key, extra FROM counts WHERE doc_id = ? ORDER BY rowid", (doc_id,))
            out += [_join(CountFact, _COUNT_COLUMNS, row) for row in rows]
        return out

    def document_text(self, doc_id: str) -> str:
        """The document text that chunk offsets point into: pages joined with PAGE_SEPARATOR."""
        return PAGE_SEPARATOR.join(page.text for page in self.pages(doc_id))

    def embeddings_for(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """Stored vectors for these chunks as an ``(n, dim)`` float32 array, in the order asked."""
        wanted = list(chunk_ids)
        found: dict[str, bytes] = {}
        conn = self._conn()
        for batch in _batches(list(dict.fromkeys(wanted))):
            marks = ",".join("?" * len(batch))
            found.update(
                conn.execute(
                    f"SELECT c.chunk_id, e.vector FROM chunks c JOIN embeddings e ON e.chunk_rowid = c.id "
                    f"WHERE c.chunk_id IN ({marks})",
                    batch,
                ).fetchall()
            )
        missing = [cid for cid in wanted if cid not in found]
        if missing:
            raise NotFoundError(f"No stored embedding for chunk '{missing[0]}'.")
        dim = self.embedding_dim or 0
        if not wanted:
            return np.zeros((0, dim), dtype=np.float32)
        return np.stack([np.frombuffer(found[cid], dtype=np.float32) for cid in wanted])

    def doc_embeddings(self, doc_id: str) -> tuple[list[str], np.ndarray]:
        """A document's chunk ids (reading order) and their vectors as one ``(n, dim)`` float32 matrix."""
        rows = self._conn().execute(
            "SELECT c.chunk_id, e.vector FROM chunks c JOIN embeddings e ON e.chunk_rowid = c.id "
            "WHERE c.doc_id = ? ORDER BY c.ordinal",
            (doc_id,),
        ).fetchall()
        if not rows:
            return [], np.zeros((0, self.embedding_dim or 0), dtype=np.float32)
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        return [r[0] for r in rows], matrix

    # -----------------------------------------------------------------------------------------------------
    # size on disk
    # -----------------------------------------------------------------------------------------------------
    def disk_usage(self) -> dict[str, int]:
        """Bytes per artefact: database (the SQLite file with its WAL, or the PostgreSQL tables), faiss, bm25,
        total."""

        def size(path: Path) -> int:
            return path.stat().st_size if path.is_file() else 0

        database_bytes = self.db.size_bytes()
        bm25_bytes = sum(size(p) for p in (self.dir / BM25_DIR).glob("*.tok"))
        faiss_bytes = size(self.dir / FAISS_FILE)
        return {
            "database": database_bytes,
            "faiss": faiss_bytes,
            "bm25": bm25_bytes,
            "total": database_bytes + faiss_bytes + bm25_bytes + size(self.dir / MANIFEST_FILE),
        }
