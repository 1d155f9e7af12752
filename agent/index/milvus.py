"""The Milvus search backend: chunk vectors and BM25 full text in Milvus, searched there with filters.

The SQLite store stays the source of truth for documents, pages, cards, metadata and the vectors
themselves; Milvus holds a search mirror of every chunk (id, document, company, ticker, form, fiscal year,
page, BM25 terms, dense vector). :meth:`MilvusBackend.sync` brings the mirror level with the store: a
document is written chunks first, then its row in the ``<prefix>_documents`` collection, which therefore
marks it complete (with a signature of the version written); a removal deletes the chunks, then the mark. A
crash or a Milvus outage mid-write leaves a document unmarked (or marked with an older signature, or marked
though removed from the store), and the next sync (any search after the store changed, ``finrag ingest``,
``finrag index migrate``) finishes the job: chunk ids are primary keys, so rewriting is idempotent.

BM25 runs on Milvus's built-in BM25 function over finrag's own tokens (:func:`milvus_terms` spells each
token in word characters, so Milvus's standard analyzer keeps it whole), with the same k1 and b: over the
whole collection its scores are finrag's. Two differences, both measured by ``finrag index check``: inside
chosen documents Milvus keeps collection-wide idf where the embedded backend computes idf over the documents
searched; and Milvus Lite 3.2 keeps BM25 statistics per segment (a TODO in its source; a segment holds up to
100k rows), so across several segments its scores drift from the collection-wide ones. Hybrid search is
Milvus's own (RRF on the server).

The same client talks to Milvus Lite (a local folder, a ``*.db`` URI, for one machine and the tests) and to
a Milvus cluster (``http://host:19530``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from agent.errors import NotFoundError, StoreError
from agent.index.bm25 import BM25_B, BM25_K1
from agent.index.fusion import PATH_DEPTH_MIN
from agent.index.protocol import IndexStore, Ranked
from agent.schemas import Chunk, DocumentMeta, chunk_id_for

log = logging.getLogger(__name__)

WRITE_BATCH_ROWS = 256  # rows per insert: a batch of 384-d vectors and 250-word texts stays far below gRPC's 64 MB cap
QUERY_LIMIT = 16_384  # the most rows Milvus returns for one query; longer listings are split by key
HNSW_M = 16  # graph degree: Milvus's documented default, a good recall/memory balance for 384-d vectors
HNSW_EF_CONSTRUCTION = 200  # build-time breadth: recall@10 near 0.99 on MiniLM vectors
HNSW_EF_SEARCH = 128  # query-time breadth; raised to k when more hits are asked
VARCHAR_MAX = 65_535  # the longest VARCHAR Milvus stores, in bytes
MAX_TERMS_CHARS = 60_000  # under VARCHAR_MAX with room; a chunk's terms are far shorter (~250 words)
MARKER_DIM = 2  # Milvus requires a vector field in every collection; the documents collection's is a placeholder
DOC_ID_CHARS = 64  # a document id is a SHA-256 in hex
CHUNK_ID_CHARS = 96  # '<doc_id[:12]>:<ordinal>', with room
TEXT_FIELD_CHARS = 512  # company, ticker and form values are short; longer ones are cut to this
SYNC_INLINE_MAX_DOCS = 20  # documents a search copies itself (the few a fresh ingest adds); more is a migration
HIT_FIELDS = ["doc_id"]  # what a search brings back besides id and score (Milvus Lite would send every field)
FILTER_IDS_MAX = 1000  # doc ids per filter expression: a routed question names a handful, a check a sample

# Characters finrag's tokenizer keeps inside a token, spelled in word characters for Milvus's analyzer.
_TERM_SPELLING = {"&": "_amp_", "-": "_dash_", ".": "_dot_"}


def milvus_terms(tokens: Sequence[str]) -> str:
    """finrag's BM25 tokens as one text that Milvus's standard analyzer splits back into the same tokens:
    ``pp&e`` -> ``pp_amp_e``, ``10-k`` -> ``10_dash_k``, ``4.2`` -> ``4_dot_2`` (finrag's tokens never hold
    ``_``, so the spelling is unambiguous). Cut at ``MAX_TERMS_CHARS``, a whole token at a time."""
    out: list[str] = []
    size = 0
    for token in tokens:
        for char, spelled in _TERM_SPELLING.items():
            if char in token:
                token = token.replace(char, spelled)
        size += len(token) + 1
        if size > MAX_TERMS_CHARS:
            break
        out.append(token)
    return " ".join(out)


def _quoted(values: Sequence[str]) -> str:
    """A Milvus list literal of strings (ids are hex and digits; quotes and backslashes escaped anyway)."""
    return "[" + ", ".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "]"


def doc_filter(doc_ids: Sequence[str] | None) -> str:
    """The filter expression for chunks of these documents ('' for every document)."""
    if doc_ids is None:
        return ""
    return f"doc_id in {_quoted(list(dict.fromkeys(doc_ids)))}"


class MilvusBackend:
    """Search in Milvus (Milvus Lite or a cluster), mirrored from an :class:`IndexStore`."""

    name = "milvus"

    def __init__(self, store: IndexStore, uri: str | None = None) -> None:
        self.store = store
        settings = store.settings
        self.uri = uri or settings.milvus_uri or str(settings.home / "milvus.db")
        self.chunks_collection = f"{settings.milvus_collection}_chunks"
        self.documents_collection = f"{settings.milvus_collection}_documents"
        self._client: Any = None
        self._generation = -1  # store generation the mirror was last levelled with
        self._loaded = False
        self._lock = threading.Lock()

    # --- connection ----------------------------------------------------------------------------------------
    @property
    def client(self) -> Any:
        """The pymilvus client, connected on first use."""
        if self._client is None:
            try:
                from pymilvus import MilvusClient
            except ImportError as exc:
                raise StoreError(
                    "the Milvus backend needs pymilvus: pip install 'finrag[milvus]' "
                    "(or set FINRAG_SEARCH_BACKEND=embedded)"
                ) from exc
            # pymilvus logs every failed call with a traceback; finrag reports each as one StoreError instead.
            # A local *.db URI runs Milvus Lite's gRPC server in this process, whose log shows a traceback for
            # each timestamp request pymilvus makes and Milvus Lite does not implement (pymilvus falls back).
            for name in ("pymilvus", "grpc._server"):
                logging.getLogger(name).setLevel(logging.CRITICAL)
            try:
                settings = self.store.settings
                self._client = MilvusClient(uri=self.uri, token=settings.milvus_token, timeout=settings.milvus_timeout_s)
            except Exception as exc:  # pymilvus raises MilvusException, grpc errors or OSError on connect
                raise StoreError(self._unreachable(exc)) from exc
        return self._client

    def _unreachable(self, exc: BaseException) -> str:
        return (
            f"cannot reach Milvus at {self.uri}: {_reason(exc)}. Start it, fix FINRAG_MILVUS_URI, or search the "
            "local index with FINRAG_SEARCH_BACKEND=embedded"
        )

    def _call(self, what: Callable[[], Any]) -> Any:
        """Run one client call; a network or server failure becomes one clear StoreError."""
        from pymilvus.exceptions import MilvusException, MilvusUnavailableException

        try:
            return what()
        except StoreError:
            raise
        except MilvusUnavailableException as exc:
            raise StoreError(self._unreachable(exc)) from exc
        except MilvusException as exc:
            raise StoreError(f"Milvus at {self.uri} refused the request: {_reason(exc)}") from exc

    def close(self) -> None:
        """Close the connection (Milvus keeps the data)."""
        if self._client is not None:
            try:
                self._client.close()
            finally:
                self._client = None

    # --- collections ---------------------------------------------------------------------------------------
    def _ready(self) -> bool:
        """Whether the collections exist (they are created with the first document, when the dimension is
        known); loaded into memory once per process, as Milvus needs before a search."""
        if self._loaded:
            return True
        if not self._call(lambda: self.client.has_collection(self.chunks_collection)):
            return False
        for name in (self.chunks_collection, self.documents_collection):
            self._call(lambda name=name: self.client.load_collection(name))
        self._loaded = True
        return True

    def _create(self, dim: int) -> None:
        from pymilvus import DataType, Function, FunctionType

        client = self.client
        if not client.has_collection(self.chunks_collection):
            schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
            schema.add_field("chunk_id", DataType.VARCHAR, is_primary=True, max_length=CHUNK_ID_CHARS)
            schema.add_field("doc_id", DataType.VARCHAR, max_length=DOC_ID_CHARS)
            schema.add_field("company", DataType.VARCHAR, max_length=TEXT_FIELD_CHARS)
            schema.add_field("ticker", DataType.VARCHAR, max_length=TEXT_FIELD_CHARS)
            schema.add_field("form", DataType.VARCHAR, max_length=TEXT_FIELD_CHARS)
            schema.add_field("fiscal_year", DataType.INT64)
            schema.add_field("ordinal", DataType.INT64)
            schema.add_field("page", DataType.INT64)
            schema.add_field("terms", DataType.VARCHAR, max_length=VARCHAR_MAX, enable_analyzer=True,
                             analyzer_params={"tokenizer": "standard"})
            schema.add_field("dense", DataType.FLOAT_VECTOR, dim=dim)
            schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
            schema.add_function(Function(name="bm25", function_type=FunctionType.BM25,
                                         input_field_names=["terms"], output_field_names=["sparse"]))
            index = client.prepare_index_params()
            kind = self.store.settings.milvus_dense_index.upper()
            params = {"M": HNSW_M, "efConstruction": HNSW_EF_CONSTRUCTION} if kind == "HNSW" else {}
            index.add_index(field_name="dense", index_type=kind, metric_type="IP", params=params)
            index.add_index(field_name="sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25",
                            params={"bm25_k1": BM25_K1, "bm25_b": BM25_B})
            index.add_index(field_name="doc_id", index_type="INVERTED")
            client.create_collection(self.chunks_collection, schema=schema, index_params=index)
        if not client.has_collection(self.documents_collection):
            schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
            schema.add_field("doc_id", DataType.VARCHAR, is_primary=True, max_length=DOC_ID_CHARS)
            schema.add_field("n_chunks", DataType.INT64)
            schema.add_field("signature", DataType.VARCHAR, max_length=TEXT_FIELD_CHARS)
            schema.add_field("marker", DataType.FLOAT_VECTOR, dim=MARKER_DIM)
            index = client.prepare_index_params()
            index.add_index(field_name="marker", index_type="FLAT", metric_type="L2")
            client.create_collection(self.documents_collection, schema=schema, index_params=index)
        self._loaded = False

    # --- the mirror ----------------------------------------------------------------------------------------
    def mirrored(self) -> dict[str, Mark]:
        """Documents complete in Milvus: doc_id -> what was written (chunk count, version signature)."""
        if not self._ready():
            return {}
        return {row["doc_id"]: Mark(int(row["n_chunks"]), row["signature"]) for row in self._documents("")}

    def _documents(self, prefix: str) -> list[dict[str, Any]]:
        """Marker rows whose doc_id starts with ``prefix``; a full page is split by the next hex digit."""
        rows = self._call(lambda: self.client.query(
            self.documents_collection, filter=f'doc_id like "{prefix}%"',
            output_fields=["doc_id", "n_chunks", "signature"], limit=QUERY_LIMIT))
        if len(rows) < QUERY_LIMIT:
            return list(rows)
        return [row for digit in "0123456789abcdef" for row in self._documents(prefix + digit)]

    def chunk_ids(self, doc_id: str, upto: int = 0) -> set[str]:
        """The chunk ids Milvus holds for one document (read in windows of ordinals, past ``upto`` until an
        empty window, so stray extra chunks are seen too)."""
        if not self._ready():
            return set()
        found: set[str] = set()
        start = 0
        while True:
            expr = f"{doc_filter([doc_id])} and ordinal >= {start} and ordinal < {start + QUERY_LIMIT}"
            rows = self._call(lambda expr=expr: self.client.query(
                self.chunks_collection, filter=expr, output_fields=["chunk_id"], limit=QUERY_LIMIT))
            found.update(row["chunk_id"] for row in rows)
            start += QUERY_LIMIT
            if not rows and start > upto:
                return found

    def sync(self) -> None:
        """Level the mirror with the store when the store changed since the last sync (a search's own step:
        more than ``SYNC_INLINE_MAX_DOCS`` documents to copy is a migration, asked for explicitly)."""
        self.mirror(limit=SYNC_INLINE_MAX_DOCS)

    def mirror(
        self, progress: Callable[[str, int, int], None] | None = None, limit: int | None = None
    ) -> tuple[int, int]:
        """Level the mirror with the store: write documents Milvus lacks, delete those the store no longer has.
        Returns ``(written, removed)``; a no-op while the store's generation is unchanged. ``progress`` is told
        ``(document name, done, total)`` after each document; more than ``limit`` to write raises StoreError."""
        generation = self.store.generation
        if generation == self._generation:
            return 0, 0
        with self._lock:
            if generation == self._generation:
                return 0, 0
            metas = {m.doc_id: m for m in self.store.list_documents()}
            present = {doc_id: m.name for doc_id, m in metas.items()}
            mirrored = self.mirrored()
            gone = [d for d in mirrored if d not in present]
            # A document re-ingested by a newer pipeline keeps its id (its bytes) but not its chunks: rewritten.
            missing = [d for d in present if d not in mirrored or mirrored[d].signature != signature(metas[d])]
            if limit is not None and len(missing) > limit:
                raise StoreError(
                    f"Milvus at {self.uri} lacks {len(missing)} of the {len(present)} indexed documents; copy them "
                    "first with: finrag index migrate --to milvus"
                )
            for doc_id in gone:
                self.remove_document(doc_id, mirrored[doc_id])
            for done, doc_id in enumerate(sorted(missing, key=present.__getitem__), start=1):
                self.add_document(doc_id, mirrored.get(doc_id))
                if progress is not None:
                    progress(present[doc_id], done, len(missing))
            if gone or missing:
                self._flush()
            self._generation = generation
            return len(missing), len(gone)

    def add_document(self, doc_id: str, previous: Mark | None = None) -> int:
        """Write one stored document's chunks, then mark it complete. Rows are written by primary key (an
        upsert replaces a partial copy of the same version); chunks an earlier version (``previous``) had
        beyond this version's count are deleted by key too. Milvus Lite deletes by filter with a scan of the
        whole collection (measured: a 1M-chunk migration slowed to 17 documents a minute), by key at once."""
        meta = self.store.get_document(doc_id)
        chunks = self.store.chunks([doc_id])
        ids, vectors = self.store.doc_embeddings(doc_id)
        token_ids, tokens = self.store.doc_tokens(doc_id)
        if not chunks:
            return 0
        if not self._ready():
            self._create(int(vectors.shape[1]))
        terms = dict(zip(token_ids, tokens, strict=True))
        row_of = {cid: i for i, cid in enumerate(ids)}
        client = self.client
        written = {c.chunk_id for c in chunks}
        stale = [cid for cid in _chunk_ids(doc_id, previous.n_chunks if previous else 0) if cid not in written]
        if stale:
            self._call(lambda: client.delete(self.chunks_collection, ids=stale))
        for start in range(0, len(chunks), WRITE_BATCH_ROWS):
            batch = [_row(meta, c, terms.get(c.chunk_id, []), vectors[row_of[c.chunk_id]])
                     for c in chunks[start : start + WRITE_BATCH_ROWS]]
            self._call(lambda batch=batch: client.upsert(self.chunks_collection, batch))
        marker = {"doc_id": doc_id, "n_chunks": len(chunks), "signature": signature(meta), "marker": [0.0] * MARKER_DIM}
        self._call(lambda: client.upsert(self.documents_collection, [marker]))
        return len(chunks)

    def _flush(self) -> None:
        """Seal written rows into indexed segments: searches over unsealed rows run brute force (measured 100x
        slower at 20k rows). Once per sync, not per document, so a migration makes few, large segments."""
        for name in (self.chunks_collection, self.documents_collection):
            self._call(lambda name=name: self.client.flush(name))

    def remove_document(self, doc_id: str, mark: Mark) -> None:
        """Delete a document's chunks by key, then its mark (an interrupted removal leaves the mark, so the
        next sync finishes it)."""
        if not self._ready():
            return
        client = self.client
        self._call(lambda: client.delete(self.chunks_collection, ids=_chunk_ids(doc_id, mark.n_chunks)))
        self._call(lambda: client.delete(self.documents_collection, ids=[doc_id]))

    def drop(self) -> None:
        """Delete finrag's collections (``finrag index migrate --fresh``)."""
        for name in (self.chunks_collection, self.documents_collection):
            self._call(lambda name=name: self.client.drop_collection(name))
        self._generation = -1
        self._loaded = False

    # --- searches ------------------------------------------------------------------------------------------
    def bm25(self, terms: list[str], doc_ids: Sequence[str] | None, k: int) -> list[tuple[Chunk, float]]:
        """Top ``k`` chunks by Milvus's BM25 over finrag's tokens."""
        text = milvus_terms(terms)
        if not text or k <= 0 or not self._searchable(doc_ids):
            return []
        found = self._call(lambda: self.client.search(
            self.chunks_collection, data=[text], anns_field="sparse", limit=k, filter=doc_filter(doc_ids),
            search_params={"metric_type": "BM25"}, output_fields=HIT_FIELDS))
        # Milvus Lite reports BM25 as a negative distance, a cluster as a positive score: the size is the score.
        return self._resolve([(hit.id, abs(float(hit.distance))) for hit in found[0]])

    def dense(self, vector: np.ndarray, doc_ids: Sequence[str] | None, k: int) -> list[tuple[Chunk, float]]:
        """Top ``k`` chunks by inner product (cosine on unit vectors)."""
        if k <= 0 or not self._searchable(doc_ids):
            return []
        found = self._call(lambda: self.client.search(
            self.chunks_collection, data=[np.asarray(vector, dtype=np.float32).tolist()], anns_field="dense",
            limit=k, filter=doc_filter(doc_ids), search_params=self._dense_params(k), output_fields=HIT_FIELDS))
        return self._resolve([(hit.id, float(hit.distance)) for hit in found[0]])

    def hybrid(self, terms: list[str], vector: np.ndarray, doc_ids: Sequence[str] | None, k: int) -> list[Ranked]:
        """Milvus's hybrid search: BM25 and dense requests fused by RRF on the server (only the fused score
        comes back, so ``path_scores`` holds ``rrf`` alone)."""
        from pymilvus import AnnSearchRequest, RRFRanker

        if k <= 0 or not self._searchable(doc_ids):
            return []
        depth = max(k, PATH_DEPTH_MIN)
        expr = doc_filter(doc_ids)
        requests = [AnnSearchRequest(data=[np.asarray(vector, dtype=np.float32).tolist()], anns_field="dense",
                                     param=self._dense_params(depth), limit=depth, expr=expr or None)]
        text = milvus_terms(terms)
        if text:
            requests.insert(0, AnnSearchRequest(data=[text], anns_field="sparse", param={"metric_type": "BM25"},
                                                limit=depth, expr=expr or None))
        found = self._call(lambda: self.client.hybrid_search(
            self.chunks_collection, requests, RRFRanker(self.store.settings.rrf_k), limit=k, output_fields=HIT_FIELDS))
        return [Ranked(chunk, score, {"rrf": score}, {})
                for chunk, score in self._resolve([(h.id, float(h.distance)) for h in found[0]])]

    def _dense_params(self, k: int) -> dict[str, Any]:
        if self.store.settings.milvus_dense_index.upper() == "HNSW":
            return {"metric_type": "IP", "params": {"ef": max(HNSW_EF_SEARCH, k)}}
        return {"metric_type": "IP"}

    def _searchable(self, doc_ids: Sequence[str] | None) -> bool:
        """Whether there is anything to search; unknown documents raise as in the embedded backend."""
        if doc_ids is not None:
            if not doc_ids:
                return False
            if len(set(doc_ids)) > FILTER_IDS_MAX:
                raise StoreError(f"a search may name at most {FILTER_IDS_MAX} documents (got {len(set(doc_ids))})")
            names = self.store.document_names()
            unknown = [d for d in doc_ids if d not in names]
            if unknown:
                raise NotFoundError(f"No document with id '{unknown[0]}'.")
        return self._ready()

    def _resolve(self, pairs: list[tuple[str, float]]) -> list[tuple[Chunk, float]]:
        """Chunks from the store (the source of truth) for Milvus's ids; ids the store no longer has (removed
        since the last sync) are dropped."""
        chunks = self.store.chunks_by_id([cid for cid, _ in pairs])
        return [(chunks[cid], score) for cid, score in pairs if cid in chunks]


class Mark(NamedTuple):
    """A document's completion mark in Milvus."""

    n_chunks: int
    signature: str


def _chunk_ids(doc_id: str, n_chunks: int) -> list[str]:
    """A document's chunk ids, by the contract of :class:`agent.schemas.Chunk`."""
    return [chunk_id_for(doc_id, ordinal) for ordinal in range(n_chunks)]


def signature(meta: DocumentMeta) -> str:
    """What identifies a stored version of a document's chunks: the pipeline that cut them and their count."""
    return f"{meta.pipeline_version}:{meta.n_chunks}"


def _reason(exc: BaseException) -> str:
    """The server's message without pymilvus's wrapper ('<MilvusException: (code=.., message=..)>')."""
    message = getattr(exc, "message", "") or str(exc)
    return message.strip() or type(exc).__name__


def _row(meta: DocumentMeta, chunk: Chunk, tokens: list[str], vector: np.ndarray) -> dict[str, Any]:
    return {
        "chunk_id": chunk.chunk_id,
        "doc_id": chunk.doc_id,
        "company": meta.company[:TEXT_FIELD_CHARS],
        "ticker": meta.ticker[:TEXT_FIELD_CHARS],
        "form": meta.form[:TEXT_FIELD_CHARS],
        "fiscal_year": int(meta.fiscal_year or 0),
        "ordinal": int(chunk.ordinal),
        "page": int(chunk.page),
        "terms": milvus_terms(tokens),
        "dense": np.asarray(vector, dtype=np.float32).tolist(),
    }
