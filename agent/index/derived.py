"""The search files derived from the index's SQLite rows: a FAISS ``IndexIDMap2(IndexFlatIP)`` over every chunk
vector and one tokenised BM25 corpus per document, with the manifest that says which generation they reflect.

:class:`DerivedFiles` is the part of :class:`agent.index.store.Store` that reads, verifies, repairs and rebuilds
them; the store provides the SQLite connection, the write lock and the generation. A file that is missing,
behind SQLite or fails its checksum is rebuilt from SQLite; a disk that cannot take the rebuilt files keeps them
in memory for the process.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ValidationError

from agent.errors import NotFoundError, StoreError
from agent.index.files import _atomic_write, _faiss, _sha256
from agent.index.rows import SCHEMA_VERSION, _batches
from agent.index.tokenize import TOKENIZER_VERSION, tokenize
from agent.schemas import Chunk

log = logging.getLogger(__name__)

FAISS_FILE = "chunks.faiss"


BM25_DIR = "bm25"  # one tokenised corpus file per document


MANIFEST_FILE = "manifest.json"


REBUILD_ATTEMPTS = 3  # a writer in another thread may commit between a rebuild and the read that follows it


class Manifest(BaseModel):
    """What the derived files reflect; written last, so a crash leaves it behind SQLite."""

    generation: int
    schema_version: int = SCHEMA_VERSION
    tokenizer: str = TOKENIZER_VERSION
    embedding_model: str | None = None
    dim: int | None = None
    faiss_sha256: str | None = None
    faiss_size: int = 0
    faiss_count: int = 0
    bm25: dict[str, str] = {}  # doc_id -> sha256 of its tokenised corpus file


def _token_corpus(rows: Sequence[tuple[str, str]]) -> bytes:
    """One document's BM25 corpus: a line per chunk, its id, a tab and its tokens."""
    return "".join(f"{chunk_id}\t{' '.join(tokenize(text))}\n" for chunk_id, text in rows).encode("utf-8")


@dataclass
class _InMemory:
    """BM25 corpora rebuilt but not writable to disk, kept for this process."""

    generation: int
    corpora: dict[str, bytes]


@dataclass
class _Vectors:
    """The FAISS index in memory, with the generation it reflects."""

    index: Any  # faiss.IndexIDMap2, or None when the store holds no vectors
    generation: int


class DerivedFiles:
    """FAISS and BM25 files kept in step with SQLite (mixed into :class:`agent.index.store.Store`)."""

    dir: Path
    _vectors: _Vectors | None
    _load_lock: threading.Lock
    _in_memory: _InMemory | None
    _rows_only: bool

    def doc_tokens(self, doc_id: str) -> tuple[list[str], list[list[str]]]:
        """A document's chunk ids (reading order) and their BM25 tokens, from the derived corpus file."""
        data = self._read_tokens(doc_id)
        for _ in range(REBUILD_ATTEMPTS):
            if data is not None:
                break
            if not self.has_document(doc_id):
                raise NotFoundError(f"No document with id '{doc_id}'.")
            log.warning("BM25 corpus for %s is missing, stale or damaged; rebuilding the index files", doc_id[:12])
            self._repair()
            data = self._read_tokens(doc_id)
        if data is None:
            raise StoreError(f"Could not rebuild the BM25 corpus of {doc_id[:12]} under {self.dir}.")
        ids: list[str] = []
        tokens: list[list[str]] = []
        for line in data.decode("utf-8").splitlines():
            chunk_id, _, joined = line.partition("\t")
            ids.append(chunk_id)
            tokens.append(joined.split(" ") if joined else [])
        return ids, tokens

    def _read_tokens(self, doc_id: str) -> bytes | None:
        """One document's corpus file when it is current and intact, else None."""
        volatile = self._in_memory
        if volatile is not None and volatile.generation == self.generation and doc_id in volatile.corpora:
            return volatile.corpora[doc_id]
        with self._file_lock(exclusive=False):
            manifest = self._read_manifest()
            if manifest is None or manifest.generation != self.generation or doc_id not in manifest.bm25:
                return None
            try:
                data = (self.dir / BM25_DIR / f"{doc_id}.tok").read_bytes()
            except OSError:
                return None
        return data if _sha256(data) == manifest.bm25[doc_id] else None

    def dense_search(self, query: np.ndarray, k: int) -> list[tuple[str, float]]:
        """The ``k`` chunks (over every document) most similar to a unit query vector: ``(chunk_id, cosine)``."""
        vectors = self._load_vectors()
        if vectors.index is None or vectors.index.ntotal == 0 or k <= 0:
            return []
        q = np.ascontiguousarray(np.asarray(query, dtype=np.float32).reshape(1, -1))
        if q.shape[1] != vectors.index.d:
            raise StoreError(f"Query vector has dimension {q.shape[1]}, the index {vectors.index.d}.")
        scores, ids = vectors.index.search(q, min(k, vectors.index.ntotal))
        pairs = [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]
        id_to_chunk: dict[int, str] = {}
        for batch in _batches([i for i, _ in pairs]):
            marks = ",".join("?" * len(batch))
            id_to_chunk.update(self._conn().execute(f"SELECT id, chunk_id FROM chunks WHERE id IN ({marks})", batch))
        return [(id_to_chunk[i], s) for i, s in pairs if i in id_to_chunk]

    def _load_vectors(self) -> _Vectors:
        """The FAISS index for the current generation: cached, else read and verified, else rebuilt."""
        generation = self.generation
        cached = self._vectors
        if cached is not None and cached.generation == generation:
            return cached
        with self._load_lock:
            cached = self._vectors
            if cached is not None and cached.generation == generation:
                return cached
            vectors = self._read_vectors(generation)
        for _ in range(REBUILD_ATTEMPTS):
            if vectors is not None:
                break
            log.warning("FAISS index is missing, stale or damaged; rebuilding the index files")
            self._repair()
            rebuilt = self._vectors  # set by the rebuild, also when it could only keep the index in memory
            vectors = rebuilt if rebuilt is not None and rebuilt.generation == self.generation else None
            vectors = vectors or self._read_vectors(self.generation)
        if vectors is None:
            raise StoreError(f"Could not rebuild the vector index under {self.dir}.")
        self._vectors = vectors
        return vectors

    def _read_vectors(self, generation: int) -> _Vectors | None:
        faiss = _faiss()

        with self._file_lock(exclusive=False):
            manifest = self._read_manifest()
            if manifest is None or manifest.generation != generation:
                return None
            if manifest.faiss_sha256 is None:
                return _Vectors(index=None, generation=generation)
            try:
                data = (self.dir / FAISS_FILE).read_bytes()
            except OSError:
                return None
        if _sha256(data) != manifest.faiss_sha256:
            return None
        try:
            index = faiss.deserialize_index(np.frombuffer(data, dtype=np.uint8))
        except RuntimeError:
            return None
        return _Vectors(index=index, generation=generation)

    def _read_manifest(self) -> Manifest | None:
        try:
            manifest = Manifest.model_validate_json((self.dir / MANIFEST_FILE).read_bytes())
        except (OSError, ValidationError, ValueError):
            return None
        if manifest.schema_version != SCHEMA_VERSION or manifest.tokenizer != TOKENIZER_VERSION:
            return None
        return manifest

    def _derived_current(self) -> bool:
        """Cheap check (no checksums): the manifest matches SQLite and every file it names exists at its size."""
        manifest = self._read_manifest()
        if manifest is None or manifest.generation != self.generation:
            return False
        doc_ids = {row[0] for row in self._conn().execute("SELECT doc_id FROM documents")}
        if set(manifest.bm25) != doc_ids:
            return False
        if not all((self.dir / BM25_DIR / f"{d}.tok").is_file() for d in doc_ids):
            return False
        if manifest.faiss_sha256 is None:
            return manifest.faiss_count == 0
        path = self.dir / FAISS_FILE
        return path.is_file() and path.stat().st_size == manifest.faiss_size

    def _ensure_derived(self) -> None:
        # The cheap check only: each derived file's checksum is verified when it is read (a damaged one is
        # rebuilt then), so an open does not hash the whole index (3 GB and 4 s at a million chunks, measured).
        if self._derived_current():
            return
        manifest = self._read_manifest()
        if not (self.dir / MANIFEST_FILE).exists():  # a new home, or a new replica of a shared store
            log.info("building the search files under %s from the store", self.dir)
        elif manifest is not None and manifest.generation < self.generation:  # another process stored filings
            log.info("search files under %s are behind the store; bringing them level", self.dir)
        else:
            log.warning("index files under %s are missing, stale or damaged; rebuilding them from the store", self.dir)
        self._repair()

    def _repair(self) -> None:
        """Rebuild the derived files under the writer lock (unless another writer just did)."""
        if self._rows_only:
            raise StoreError("this store was opened to copy rows, without its search files; it cannot search")
        with self._writing(checked=False):  # derived files only: reads of a damaged database fail anyway
            volatile = self._in_memory
            if volatile is not None and volatile.generation == self.generation:
                return
            if (not self._derived_current() or not self._derived_verified()) and not self._catch_up():
                self._rebuild_derived(in_memory_ok=True)

    def _catch_up(self) -> bool:
        """Bring intact files of an older generation level with the store by changing only what changed since --
        what a replica of a shared store, or an ingest worker beside another, sees after someone else's commit.
        The FAISS index's ids are compared with the store's chunk ids: ids the store no longer holds leave it
        (a filing removed or replaced), chunks it lacks are added with their stored vectors, and the BM25 corpus
        of every filing added, re-added or removed is written or dropped. False, changing nothing, when the files
        are not intact or the store moved while it was read (a rebuild then)."""
        manifest = self._read_manifest()
        if manifest is None or self._in_memory is not None:
            return False
        generation = self.generation
        if manifest.generation >= generation:
            return False  # current, or damaged at the current generation: not a catch-up
        previous = self._read_vectors(manifest.generation)
        if previous is None:
            return False
        conn = self._conn()
        stored = dict(conn.execute("SELECT id, doc_id FROM chunks").fetchall())
        documents = {row[0] for row in conn.execute("SELECT doc_id FROM documents")}
        if self.generation != generation:
            return False
        faiss = _faiss()
        index = previous.index
        held = set(faiss.vector_to_array(index.id_map).tolist()) if index is not None else set()
        gone = held - stored.keys()
        new = sorted(set(stored) - held) if self.embedding_dim else []
        if index is not None and gone:
            index.remove_ids(np.asarray(sorted(gone), dtype=np.int64))
        for batch in _batches(new):
            marks = ",".join("?" * len(batch))
            rows = conn.execute(f"SELECT chunk_rowid, vector FROM embeddings WHERE chunk_rowid IN ({marks})", batch)
            rows = rows.fetchall()
            if rows:
                matrix = np.frombuffer(b"".join(bytes(r[1]) for r in rows), dtype=np.float32).reshape(len(rows), -1)
                if index is None:
                    index = faiss.IndexIDMap2(faiss.IndexFlatIP(matrix.shape[1]))
                index.add_with_ids(matrix, np.asarray([r[0] for r in rows], dtype=np.int64))
        changed = ({stored[i] for i in new} | (documents - set(manifest.bm25))) & documents
        bm25 = {doc_id: digest for doc_id, digest in manifest.bm25.items() if doc_id in documents}
        for doc_id in sorted(changed):
            rows = conn.execute("SELECT chunk_id, text FROM chunks WHERE doc_id = ? ORDER BY ordinal", (doc_id,))
            bm25[doc_id] = self._write_tokens(doc_id, _token_corpus(rows.fetchall()))
        if index is not None and index.ntotal == 0:
            index = None
        self._finish_derived(generation, index, bm25)
        self._remove_orphan_token_files(set(bm25))  # the removed filings' corpora, and a killed writer's leftovers
        log.info("search files under %s brought level: %d chunk(s) added, %d removed; generation %d", self.dir,
                 len(new), len(gone), generation)
        return True

    def _derived_verified(self) -> bool:
        """Full check: every derived file matches its checksum."""
        manifest = self._read_manifest()
        if manifest is None:
            return False
        try:
            for doc_id, digest in manifest.bm25.items():
                if _sha256((self.dir / BM25_DIR / f"{doc_id}.tok").read_bytes()) != digest:
                    return False
            if manifest.faiss_sha256 is not None:
                return _sha256((self.dir / FAISS_FILE).read_bytes()) == manifest.faiss_sha256
        except OSError:
            return False
        return True

    def _rebuild_derived(self, in_memory_ok: bool = False) -> None:
        """Rewrite every derived file from SQLite (caller holds the writer lock).

        When the files cannot be written (a full disk, a read-only folder) and ``in_memory_ok`` (a reader
        repairing), the rebuilt index is kept in memory for this process, so reading commands still answer;
        the files are written on a later open. A writer gets the OSError.
        """
        faiss = _faiss()

        conn = self._conn()
        conn.execute("BEGIN")  # one read snapshot for a consistent rebuild
        try:
            generation = self.generation
            doc_ids = [row[0] for row in conn.execute("SELECT doc_id FROM documents ORDER BY doc_id")]
            corpora: dict[str, bytes] = {}
            for doc_id in doc_ids:
                rows = conn.execute(
                    "SELECT chunk_id, text FROM chunks WHERE doc_id = ? ORDER BY ordinal", (doc_id,)
                ).fetchall()
                corpora[doc_id] = _token_corpus(rows)
            dim = self.embedding_dim
            index = None
            if dim:
                rows = conn.execute("SELECT chunk_rowid, vector FROM embeddings ORDER BY chunk_rowid").fetchall()
                index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
                if rows:
                    ids = np.asarray([r[0] for r in rows], dtype=np.int64)
                    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), dim)
                    index.add_with_ids(matrix, ids)
        finally:
            conn.execute("COMMIT")
        try:
            bm25 = {doc_id: self._write_tokens(doc_id, data) for doc_id, data in corpora.items()}
            self._finish_derived(generation, index, bm25)
        except OSError as exc:
            if not in_memory_ok:
                raise
            log.warning(
                "cannot write the index files under %s (%s); searching from memory in this process", self.dir, exc
            )
            self._in_memory = _InMemory(generation=generation, corpora=corpora)
            self._vectors = _Vectors(index=index if index is not None and index.ntotal else None, generation=generation)
            return
        self._in_memory = None
        self._remove_orphan_token_files(set(doc_ids))
        log.info("rebuilt index files at generation %d (%d documents)", generation, len(doc_ids))

    def _apply_delta(
        self,
        generation: int,
        removed_doc: str | None = None,
        removed_rowids: np.ndarray | None = None,
        added_doc: str | None = None,
        added_chunks: Sequence[Chunk] = (),
        added_rowids: np.ndarray | None = None,
        added_vectors: np.ndarray | None = None,
    ) -> None:
        """Update derived files for one change, starting from the (current) files of the previous generation."""
        faiss = _faiss()

        manifest = self._read_manifest()
        cached = self._vectors
        if manifest is not None and cached is not None and cached.generation == manifest.generation:
            # Searches may be using the cached index in other threads: change a copy.
            previous: _Vectors | None = _Vectors(
                index=None if cached.index is None else faiss.clone_index(cached.index), generation=cached.generation
            )
        else:
            previous = self._read_vectors(manifest.generation) if manifest else None
        if manifest is None or previous is None:
            self._rebuild_derived()
            return
        bm25 = dict(manifest.bm25)
        index = previous.index
        if removed_doc is not None:
            bm25.pop(removed_doc, None)
            if index is not None and removed_rowids is not None and len(removed_rowids):
                index.remove_ids(removed_rowids)
        if added_doc is not None:
            bm25[added_doc] = self._write_tokens(added_doc, _token_corpus([(c.chunk_id, c.text) for c in added_chunks]))
            if added_vectors is not None and len(added_vectors):
                if index is None:
                    index = faiss.IndexIDMap2(faiss.IndexFlatIP(int(added_vectors.shape[1])))
                index.add_with_ids(added_vectors, added_rowids)
        if index is not None and index.ntotal == 0:
            index = None  # the last vectors left: the next document may bring another dimension
        self._finish_derived(generation, index, bm25)
        if removed_doc is not None and removed_doc != added_doc:
            with contextlib.suppress(FileNotFoundError):
                (self.dir / BM25_DIR / f"{removed_doc}.tok").unlink()

    def _write_tokens(self, doc_id: str, data: bytes) -> str:
        """Write one document's tokenised corpus file; return its sha256."""
        _atomic_write(self.dir / BM25_DIR / f"{doc_id}.tok", data)
        return _sha256(data)

    def _finish_derived(self, generation: int, index: Any, bm25: dict[str, str]) -> None:
        """Write the FAISS file, then the manifest (last, so a crash before it leaves the files marked stale)."""
        faiss = _faiss()

        manifest = Manifest(generation=generation, bm25=bm25)
        if index is not None and index.ntotal > 0:
            data = faiss.serialize_index(index).tobytes()
            _atomic_write(self.dir / FAISS_FILE, data)
            manifest.embedding_model = self.embedding_model
            manifest.dim = int(index.d)
            manifest.faiss_sha256 = _sha256(data)
            manifest.faiss_size = len(data)
            manifest.faiss_count = int(index.ntotal)
        else:
            index = None
            with contextlib.suppress(FileNotFoundError):
                (self.dir / FAISS_FILE).unlink()
        _atomic_write(self.dir / MANIFEST_FILE, manifest.model_dump_json(indent=1).encode("utf-8"))
        self._vectors = _Vectors(index=index, generation=generation)

    def _remove_orphan_token_files(self, keep: set[str]) -> None:
        """Delete corpus files of removed documents and temp files a crashed writer left (we hold the lock)."""
        leftovers = list(self.dir.glob(".*.tmp"))
        leftovers += [p for p in (self.dir / BM25_DIR).glob("*") if not (p.suffix == ".tok" and p.stem in keep)]
        for path in leftovers:
            with contextlib.suppress(OSError):
                path.unlink()
