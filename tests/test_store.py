"""The persistent index: round trip, idempotence, replace, remove, metadata edits and self-repair, on each engine:
the embedded SQLite file and a real PostgreSQL server (skipped with the reason where none is installed)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import agent.index.derived as derived_module
from agent.config import Settings
from agent.errors import NotFoundError, StoreError
from agent.index.search import HybridSearcher
from agent.index.store import BM25_DIR, FAISS_FILE, MANIFEST_FILE, Store
from agent.schemas import PAGE_SEPARATOR, Chunk, ChunkCard, DocumentMeta, NumericValue, Page, Section

try:
    from pg_server import pg_server, pg_url  # noqa: F401
except ImportError:  # pragma: no cover
    from tests.pg_server import pg_server, pg_url  # noqa: F401

DIM = 8
REPO = Path(__file__).resolve().parent.parent


def make_doc(name: str, page_texts: list[str], seed: int = 0, company: str = "Acme Corp") -> dict:
    """A small but complete document: pages, one section per page, one chunk per sentence, cards, vectors."""
    doc_id = hashlib.sha256(("|".join(page_texts) + name).encode()).hexdigest()
    pages, offset = [], 0
    for i, text in enumerate(page_texts):
        pages.append(Page(page=i, text=text, char_start=offset))
        offset += len(text) + len(PAGE_SEPARATOR)
    sections, chunks = [], []
    for page in pages:
        sections.append(
            Section(
                section_id=page.page,
                title=f"Part {page.page}",
                path=["Item 7", f"Part {page.page}"],
                kind="mdna",
                page_start=page.page,
                page_end=page.page,
                char_start=page.char_start,
                char_end=page.char_start + len(page.text),
                summary=f"summary {page.page}",
            )
        )
        start = 0
        for sentence in page.text.split(". "):
            begin = page.text.index(sentence, start)
            start = begin + len(sentence)
            chunks.append(
                Chunk(
                    chunk_id=f"{doc_id[:12]}:{len(chunks)}",
                    doc_id=doc_id,
                    ordinal=len(chunks),
                    section_id=page.page,
                    section_path=["Item 7", f"Part {page.page}"],
                    page=page.page,
                    page_end=page.page,
                    char_start=page.char_start + begin,
                    char_end=page.char_start + start,
                    text=sentence,
                    is_table="|" in sentence,
                    section_summary=f"summary {page.page}",
                )
            )
    cards = [
        ChunkCard(
            chunk_id=c.chunk_id,
            metrics=["revenue"],
            numbers=[NumericValue(text="(1,577)", value=-1577.0, scale=1e6, unit="USD", period="FY2018")],
            periods=["FY2018"],
        )
        for c in chunks
    ]
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(len(chunks), DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    meta = DocumentMeta(doc_id=doc_id, name=name, company=company, ticker="ACME", form="10-K", fiscal_year=2018)
    return {"meta": meta, "pages": pages, "sections": sections, "chunks": chunks, "cards": cards, "embeddings": vectors}


ACME = ["Revenue was $1,577 million in 2018. Purchases of PP&E were $1.2 billion", "Risk factors may affect us. Weather is a risk"]
ACME_V2 = ["Revenue was $1,600 million in 2018. Purchases of PP&E were $1.3 billion"]
BETA = ["Beta sells widgets. Widget demand grew strongly in 2019"]


@pytest.fixture(params=["sqlite", "postgresql"])
def settings(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Settings for a new store on each engine; the environment says the same to processes a test starts."""
    url = request.getfixturevalue("pg_url") if request.param == "postgresql" else ""
    monkeypatch.setenv("FINRAG_STORE_URL", url)
    return Settings.from_env(home=tmp_path)


@pytest.fixture
def store(settings: Settings):
    s = Store.open(settings)
    yield s
    s.close()


def table_counts(store: Store) -> dict[str, int]:
    conn = store.db.conn()
    return {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
            for t in ("documents", "pages", "sections", "chunks", "cards", "embeddings")}


def faiss_count(store: Store) -> int:
    manifest = json.loads((store.dir / MANIFEST_FILE).read_text())
    return manifest["faiss_count"]


def test_round_trip(store: Store) -> None:
    doc = make_doc("ACME_2018_10K", ACME)
    store.add_document(**doc)
    assert store.db_path.exists() == (store.db.dialect == "sqlite")  # a PostgreSQL store writes no SQLite file
    meta = store.get_document("ACME_2018_10K")
    assert meta.doc_id == doc["meta"].doc_id and meta.company == "Acme Corp" and meta.fiscal_year == 2018
    assert meta.n_pages == 2 and meta.n_chunks == len(doc["chunks"]) and meta.ingested_at
    assert store.list_documents() == [meta]
    assert store.has_document(meta.doc_id)
    assert store.pages(meta.doc_id) == doc["pages"]
    assert store.page(meta.doc_id, 1) == doc["pages"][1] and store.page("ACME_2018_10K", 0) == doc["pages"][0]
    with pytest.raises(NotFoundError, match="No page 3"):
        store.page(meta.doc_id, 2)
    assert store.sections(meta.doc_id) == doc["sections"]
    assert store.chunks([meta.doc_id]) == doc["chunks"]
    assert store.chunks() == doc["chunks"]
    assert store.chunk(doc["chunks"][1].chunk_id) == doc["chunks"][1]
    ids = [c.chunk_id for c in doc["chunks"]]
    assert store.cards(ids) == {card.chunk_id: card for card in doc["cards"]}
    assert store.cards(ids)[ids[0]].numbers[0].value == -1577.0
    np.testing.assert_array_equal(store.embeddings_for(ids[::-1]), doc["embeddings"][::-1])
    text = store.document_text(meta.doc_id)
    assert text == PAGE_SEPARATOR.join(ACME)
    for chunk in store.chunks([meta.doc_id]):
        assert text[chunk.char_start : chunk.char_end] == chunk.text
    assert store.embedding_model == "sentence-transformers/all-MiniLM-L6-v2" and store.embedding_dim == DIM
    with pytest.raises(NotFoundError):
        store.chunk("nope:1")
    with pytest.raises(NotFoundError):
        store.embeddings_for(["nope:1"])


def test_reopen_keeps_everything(settings: Settings) -> None:
    doc = make_doc("ACME_2018_10K", ACME)
    with Store.open(settings) as first:
        first.add_document(**doc)
        generation = first.generation
    with Store.open(settings) as second:
        assert second.generation == generation
        assert second.chunks() == doc["chunks"]
        hits = HybridSearcher(second).bm25("PP&E purchases")
        assert hits[0].chunk.text.startswith("Purchases of PP&E")


def test_resolve_names_and_id_prefixes(store: Store) -> None:
    doc = make_doc("ACME_2018_10K", ACME)
    store.add_document(**doc)
    doc_id = doc["meta"].doc_id
    for ref in (doc_id, "ACME_2018_10K", "acme_2018_10k", doc_id[:8]):
        assert store.get_document(ref).doc_id == doc_id
    for ref in ("unknown", doc_id[:3]):
        with pytest.raises(NotFoundError):
            store.get_document(ref)


def test_re_adding_the_same_document_is_a_no_op(store: Store) -> None:
    doc = make_doc("ACME_2018_10K", ACME)
    store.add_document(**doc)
    generation, counts = store.generation, table_counts(store)
    manifest = (store.dir / MANIFEST_FILE).read_bytes()
    store.add_document(**doc)
    assert store.generation == generation
    assert table_counts(store) == counts
    assert (store.dir / MANIFEST_FILE).read_bytes() == manifest


def test_same_name_new_content_replaces(store: Store) -> None:
    old, new = make_doc("ACME_2018_10K", ACME), make_doc("ACME_2018_10K", ACME_V2, seed=1)
    store.add_document(**old)
    store.add_document(**make_doc("BETA_2019_10K", BETA, seed=2))
    store.add_document(**new)
    assert not store.has_document(old["meta"].doc_id)
    assert store.get_document("ACME_2018_10K").doc_id == new["meta"].doc_id
    assert [c.chunk_id for c in store.chunks([old["meta"].doc_id])] == []
    counts = table_counts(store)
    assert counts["documents"] == 2 and counts["chunks"] == counts["embeddings"] == counts["cards"] == 2 + 2
    assert faiss_count(store) == 4
    assert not (store.dir / BM25_DIR / f"{old['meta'].doc_id}.tok").exists()
    texts = [h.chunk.text for h in HybridSearcher(store).bm25("revenue")]
    assert texts == ["Revenue was $1,600 million in 2018"]


def test_remove_everywhere(store: Store) -> None:
    acme, beta = make_doc("ACME_2018_10K", ACME), make_doc("BETA_2019_10K", BETA, seed=2)
    store.add_document(**acme)
    store.add_document(**beta)
    searcher = HybridSearcher(store)
    assert searcher.bm25("revenue")  # warm the caches, which must forget the document below
    removed = store.remove_document("acme_2018_10k")
    assert removed.doc_id == acme["meta"].doc_id
    counts = table_counts(store)
    assert counts == {"documents": 1, "pages": 1, "sections": 1, "chunks": 2, "cards": 2, "embeddings": 2}
    assert faiss_count(store) == 2
    assert not (store.dir / BM25_DIR / f"{acme['meta'].doc_id}.tok").exists()
    assert searcher.bm25("revenue") == []
    dense = store.dense_search(acme["embeddings"][0], k=10)
    assert {cid for cid, _ in dense} == {c.chunk_id for c in beta["chunks"]}
    with pytest.raises(NotFoundError):
        store.remove_document("ACME_2018_10K")
    store.remove_document(beta["meta"].doc_id)
    assert store.list_documents() == [] and store.embedding_model is None
    assert not (store.dir / FAISS_FILE).exists()
    assert store.dense_search(acme["embeddings"][0], k=3) == []


def test_update_metadata(settings: Settings, store: Store) -> None:
    store.add_document(**make_doc("ACME_2018_10K", ACME))
    store.add_document(**make_doc("BETA_2019_10K", BETA, seed=2))
    generation = store.generation
    updated = store.update_metadata("ACME_2018_10K", ticker="ACM", fiscal_period="FY2018", name="Acme_FY2018")
    assert updated.ticker == "ACM" and updated.fiscal_period == "FY2018" and updated.name == "Acme_FY2018"
    assert store.generation == generation  # metadata does not touch the search files
    with Store.open(settings) as reopened:
        assert reopened.get_document("Acme_FY2018").ticker == "ACM"
    with pytest.raises(StoreError, match="already named"):
        store.update_metadata("Acme_FY2018", name="BETA_2019_10K")
    with pytest.raises(StoreError, match="Unknown document field"):
        store.update_metadata("Acme_FY2018", sector="Industrials")
    with pytest.raises(StoreError, match="cannot be edited"):
        store.update_metadata("Acme_FY2018", doc_id="x")
    with pytest.raises(StoreError, match="fiscal_year: .next year. is no year"):
        store.update_metadata("Acme_FY2018", fiscal_year="next year")
    with pytest.raises(NotFoundError):
        store.update_metadata("missing", ticker="X")
    assert store.get_document("Acme_FY2018").ticker == "ACM"


def test_bad_input_is_refused_with_store_errors(store: Store) -> None:
    doc = make_doc("ACME_2018_10K", ACME)
    with pytest.raises(StoreError, match="one row per chunk"):
        store.add_document(**{**doc, "embeddings": doc["embeddings"][:1]})
    with pytest.raises(StoreError, match="unknown chunk"):
        store.add_document(**{**doc, "cards": [ChunkCard(chunk_id="elsewhere:0")]})
    assert store.list_documents() == []
    store.add_document(**doc)
    other = make_doc("BETA_2019_10K", BETA)
    wider = np.ones((len(other["chunks"]), DIM * 2), dtype=np.float32)
    with pytest.raises(StoreError, match="configured embedding model"):
        store.add_document(**{**other, "embeddings": wider})
    assert [m.name for m in store.list_documents()] == ["ACME_2018_10K"]


@pytest.mark.parametrize("damage", ["delete_faiss", "corrupt_faiss", "delete_tokens", "corrupt_tokens",
                                    "delete_manifest", "garbage_manifest", "stale_manifest"])
def test_damaged_derived_files_are_rebuilt_before_use(settings: Settings, damage: str) -> None:
    acme, beta = make_doc("ACME_2018_10K", ACME), make_doc("BETA_2019_10K", BETA, seed=2)
    with Store.open(settings) as store:
        store.add_document(**acme)
        store.add_document(**beta)
        generation = store.generation
    index_dir = settings.index_dir
    tokens = index_dir / BM25_DIR / f"{acme['meta'].doc_id}.tok"
    faiss_path, manifest = index_dir / FAISS_FILE, index_dir / MANIFEST_FILE
    if damage == "delete_faiss":
        faiss_path.unlink()
    elif damage == "corrupt_faiss":  # same size, different bytes: only the checksum can tell
        data = bytearray(faiss_path.read_bytes())
        data[-20:] = bytes(20)
        faiss_path.write_bytes(bytes(data))
    elif damage == "delete_tokens":
        tokens.unlink()
    elif damage == "corrupt_tokens":
        tokens.write_bytes(tokens.read_bytes().replace(b"revenue", b"xxxxxxx"))
    elif damage == "delete_manifest":
        manifest.unlink()
    elif damage == "garbage_manifest":
        manifest.write_text("{not json")
    elif damage == "stale_manifest":
        manifest.write_text(manifest.read_text().replace(f'"generation": {generation}', '"generation": 1'))
    with Store.open(settings) as store:
        assert faiss_count(store) == len(acme["chunks"]) + len(beta["chunks"])
        searcher = HybridSearcher(store)
        assert searcher.bm25("revenue 1,577")[0].chunk.doc_id == acme["meta"].doc_id
        top = store.dense_search(acme["embeddings"][1], k=1)
        assert top[0][0] == acme["chunks"][1].chunk_id and top[0][1] == pytest.approx(1.0, abs=1e-5)


def test_damage_after_open_is_repaired_on_read(store: Store) -> None:
    doc = make_doc("ACME_2018_10K", ACME)
    store.add_document(**doc)
    tokens = store.dir / BM25_DIR / f"{doc['meta'].doc_id}.tok"
    tokens.unlink()
    assert HybridSearcher(store).bm25("PP&E")[0].chunk.chunk_id == doc["chunks"][1].chunk_id
    assert tokens.is_file()
    store._vectors = None  # drop the in-memory copy, as a fresh reader process would have none
    (store.dir / FAISS_FILE).write_bytes(b"broken")
    assert store.dense_search(doc["embeddings"][0], k=1)[0][0] == doc["chunks"][0].chunk_id
    assert (store.dir / FAISS_FILE).stat().st_size > len(b"broken")


def test_crash_after_commit_leaves_a_repairable_index(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    acme, beta = make_doc("ACME_2018_10K", ACME), make_doc("BETA_2019_10K", BETA, seed=2)
    with Store.open(settings) as store:
        store.add_document(**acme)
        real_write = derived_module._atomic_write

        def failing_write(path: Path, data: bytes) -> None:
            if path.name == FAISS_FILE:
                raise OSError("disk full")
            real_write(path, data)

        monkeypatch.setattr(derived_module, "_atomic_write", failing_write)
        with pytest.raises(StoreError, match="rebuilt automatically"):
            store.add_document(**beta)
        monkeypatch.undo()
        assert store.has_document(beta["meta"].doc_id)  # the SQLite commit stands
    with Store.open(settings) as store:
        assert faiss_count(store) == len(acme["chunks"]) + len(beta["chunks"])
        hits = HybridSearcher(store).hybrid("widget demand", query_vector=beta["embeddings"][1], k=3)
        assert hits[0].chunk.chunk_id == beta["chunks"][1].chunk_id
        assert hits[0].path_ranks == {"bm25": 1, "dense": 1}


def test_killed_writer_leaves_a_repairable_index(settings: Settings, tmp_path: Path) -> None:
    """A real process killed (SIGKILL) between the SQLite commit and the index-file rename."""
    acme, beta = make_doc("ACME_2018_10K", ACME), make_doc("BETA_2019_10K", BETA, seed=2)
    with Store.open(settings) as store:
        store.add_document(**acme)
    payload = tmp_path / "beta.json"
    payload.write_text(json.dumps({k: (v.tolist() if isinstance(v, np.ndarray) else
                                       [x.model_dump(mode="json") for x in v] if isinstance(v, list) else
                                       v.model_dump(mode="json")) for k, v in beta.items()}))
    script = textwrap.dedent(
        f"""
        import json, os, sys, time
        import numpy as np
        import agent.index.files as files
        import agent.index.store as sm
        from agent.config import Settings
        from agent.schemas import Chunk, ChunkCard, DocumentMeta, Page, Section

        real_replace = os.replace
        def slow_replace(src, dst):
            if str(dst).endswith({FAISS_FILE!r}):
                print("COMMITTED", flush=True)
                time.sleep(60)
            real_replace(src, dst)
        files.os.replace = slow_replace
        raw = json.loads(open({str(payload)!r}).read())
        store = sm.Store.open(Settings.from_env(home={str(settings.home)!r}))
        store.add_document(
            meta=DocumentMeta(**raw["meta"]), pages=[Page(**p) for p in raw["pages"]],
            sections=[Section(**s) for s in raw["sections"]], chunks=[Chunk(**c) for c in raw["chunks"]],
            cards=[ChunkCard(**c) for c in raw["cards"]], embeddings=np.asarray(raw["embeddings"], dtype=np.float32))
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.strip() == "COMMITTED"
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert list(settings.index_dir.glob(".*.tmp"))  # the half-written file is there
    with Store.open(settings) as store:
        assert store.has_document(beta["meta"].doc_id)
        assert not list(settings.index_dir.glob(".*.tmp"))
        assert faiss_count(store) == len(acme["chunks"]) + len(beta["chunks"])
        assert HybridSearcher(store).bm25("widget")[0].chunk.doc_id == beta["meta"].doc_id


def test_reads_from_many_threads_while_writing(store: Store) -> None:
    docs = [make_doc(f"DOC_{i}", [f"Company {i} revenue grew. Segment {i} margin fell"], seed=i) for i in range(6)]
    store.add_document(**docs[0])
    searcher = HybridSearcher(store)
    errors: list[BaseException] = []
    done = threading.Event()

    def read(i: int) -> None:
        try:
            while not done.is_set():
                assert store.list_documents()
                assert searcher.bm25("revenue")
                assert store.dense_search(docs[0]["embeddings"][0], k=3)
                store.chunks()
        except BaseException as exc:  # collected and re-raised in the main thread
            errors.append(exc)

    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(read, i) for i in range(4)]
        for doc in docs[1:]:
            store.add_document(**doc)
        store.remove_document("DOC_3")
        done.set()
        for future in futures:
            future.result()
    assert not errors
    assert len(store.list_documents()) == 5 and faiss_count(store) == 10


def test_sqlite_operations_do_not_load_models(settings: Settings) -> None:
    """Listing, reading and editing never import torch or sentence-transformers."""
    script = textwrap.dedent(
        f"""
        import sys
        import numpy as np
        from agent.config import Settings
        from agent.index.store import Store
        from agent.index.search import HybridSearcher
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_store import make_doc, ACME
        store = Store.open(Settings.from_env(home={str(settings.home)!r}))
        store.add_document(**make_doc("ACME_2018_10K", ACME))
        store.update_metadata("ACME_2018_10K", ticker="ACM")
        assert store.list_documents() and store.chunks() and store.document_text("ACME_2018_10K")
        assert HybridSearcher(store).bm25("revenue")
        store.remove_document("ACME_2018_10K")
        heavy = sorted(m for m in ("torch", "sentence_transformers", "transformers") if m in sys.modules)
        print("HEAVY", heavy)
        """
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "HEAVY []" in result.stdout


def _derived_files(index_dir: Path) -> dict[Path, bytes]:
    paths = [index_dir / MANIFEST_FILE, index_dir / FAISS_FILE, *(index_dir / BM25_DIR).glob("*.tok")]
    return {p.relative_to(index_dir): p.read_bytes() for p in paths if p.is_file()}


def _put_back(index_dir: Path, files: dict[Path, bytes]) -> None:
    for path in (index_dir / BM25_DIR).glob("*.tok"):
        path.unlink()
    for relative, data in files.items():
        (index_dir / relative).write_bytes(data)


def _faiss_ids(store: Store) -> set[int]:
    import faiss

    index = store._load_vectors().index
    return set(faiss.vector_to_array(index.id_map).tolist()) if index is not None else set()


def _chunk_ids(store: Store) -> set[int]:
    return {row[0] for row in store.db.conn().execute("SELECT id FROM chunks")}


def test_files_behind_the_store_change_only_what_changed(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """A replica whose files predate other processes' commits brings them level without a rebuild: a filing
    added, one removed, and one removed and stored again (the same content under new chunk ids)."""
    acme, beta = make_doc("ACME_2018_10K", ACME), make_doc("BETA_2019_10K", BETA, seed=2)
    gamma = make_doc("GAMMA_2020_10K", ["Gamma makes gears. Gear sales rose in 2020"], seed=3)
    with Store.open(settings) as store:
        store.add_document(**acme)
        store.add_document(**gamma)
    older = _derived_files(settings.index_dir)  # what a replica that wrote none of what follows holds
    with Store.open(settings) as store:
        store.add_document(**beta)
        store.remove_document("ACME_2018_10K")
        store.remove_document("GAMMA_2020_10K")
        store.add_document(**gamma)
    _put_back(settings.index_dir, older)

    def rebuild(*args: object, **kwargs: object) -> None:
        raise AssertionError("the whole index was rebuilt")

    monkeypatch.setattr(Store, "_rebuild_derived", rebuild)
    with Store.open(settings) as store:
        assert _faiss_ids(store) == _chunk_ids(store)
        assert faiss_count(store) == len(beta["chunks"]) + len(gamma["chunks"])
        assert HybridSearcher(store).bm25("widget demand")[0].chunk.doc_id == beta["meta"].doc_id
        assert all(hit.chunk.doc_id != acme["meta"].doc_id for hit in HybridSearcher(store).bm25("revenue PP&E"))
        assert store.dense_search(beta["embeddings"][1], k=1)[0][0] == beta["chunks"][1].chunk_id
        assert store.dense_search(gamma["embeddings"][1], k=1)[0][0] == gamma["chunks"][1].chunk_id
        assert not (settings.index_dir / BM25_DIR / f"{acme['meta'].doc_id}.tok").exists()


def test_a_store_newer_than_this_finrag_is_refused(settings: Settings) -> None:
    with Store.open(settings) as store:
        store.add_document(**make_doc("ACME_2018_10K", ACME))
        with store.db.transaction() as conn:
            conn.execute("UPDATE schema_versions SET version = 99 WHERE component = 'index'")
    with pytest.raises(StoreError, match="schema version 99; this finrag knows up to"):
        Store.open(settings)
