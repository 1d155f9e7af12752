"""The Milvus backend against a real Milvus Lite server: BM25 scores equal finrag's, the mirror follows the
store through adds, removals, crashes and outages, and ``finrag index migrate/check`` work end to end.
(The shared search tests in test_search.py run on both backends.)"""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import numpy as np
import pytest

from agent.config import Settings
from agent.errors import NotFoundError, StoreError
from agent.index.bm25 import FinBM25
from agent.index.search import HybridSearcher
from agent.index.store import Store
from agent.index.tokenize import tokenize
from cli.main import main

try:  # tests/ is not a package: pytest imports the fixture module as top-level
    from milvus_server import free_port, milvus_server  # noqa: F401
except ImportError:  # pragma: no cover
    from tests.milvus_server import free_port, milvus_server  # noqa: F401

try:
    from test_search import ACME, BETA, build_doc
except ImportError:  # pragma: no cover
    from tests.test_search import ACME, BETA, build_doc


def milvus_settings(home: Path, uri: str) -> Settings:
    """Settings that search in Milvus, in a collection of this test's own."""
    return Settings.from_env(home=home, device="cpu", search_backend="milvus", milvus_uri=uri,
                             milvus_collection=f"t{uuid.uuid4().hex[:12]}")


def test_terms_survive_milvus_standard_analyzer() -> None:
    """finrag's compound tokens reach Milvus whole: its analyzer (\\w+, lower-case) splits the spelled text
    back into exactly one token per finrag token, and different tokens never share a spelling."""
    from agent.index.milvus import milvus_terms

    tokens = tokenize("PP&E of $1,577.5 million; S&P 500; Form 10-K; U.S. non-GAAP 4.2% FY2018 2017-2018")
    spelled = re.findall(r"\w+", milvus_terms(tokens).lower())
    assert len(spelled) == len(tokens)
    assert len(set(spelled)) == len(set(tokens))
    assert "pp_amp_e" in spelled and "10_dash_k" in spelled and "1577_dot_5" in spelled
    assert milvus_terms(["word"] * 100_000).count(" ") < 20_000  # cut to fit Milvus's VARCHAR


def test_bm25_scores_equal_finrags_over_the_collection(tmp_path: Path, milvus_server: str) -> None:
    with Store.open(milvus_settings(tmp_path, milvus_server)) as store:
        docs = [build_doc("ACME_2018_10K", ACME, None), build_doc("BETA_2019_10K", BETA, None)]
        for doc in docs:
            store.add_document(**doc)
        searcher = HybridSearcher(store, lambda: pytest.fail("no model needed"))
        chunks = [c for doc in sorted(docs, key=lambda d: d["meta"].doc_id) for c in doc["chunks"]]
        reference = FinBM25([tokenize(c.text) for c in chunks])
        for query in ("PP&E purchases 1,577", "percent revenue", "tax rate 21.4 percent", "share repurchase"):
            expected = reference.get_scores(tokenize(query))
            want = {c.chunk_id: float(s) for c, s in zip(chunks, expected, strict=True) if s > 0}
            got = {h.chunk.chunk_id: h.score for h in searcher.bm25(query, k=20)}
            assert got.keys() == want.keys()
            for chunk_id, score in want.items():
                assert got[chunk_id] == pytest.approx(score, rel=1e-4)
        searcher.backend.close()


def test_the_mirror_follows_the_store(tmp_path: Path, milvus_server: str) -> None:
    """Adds and removals reach Milvus on the next search; a crash between a document's chunks and its
    completion mark, or stray rows, are repaired by the next sync; a second sync writes nothing."""
    from agent.index.milvus import MilvusBackend

    settings = milvus_settings(tmp_path, milvus_server)
    with Store.open(settings) as store:
        acme, beta = build_doc("ACME_2018_10K", ACME, None), build_doc("BETA_2019_10K", BETA, None)
        store.add_document(**acme)
        backend = MilvusBackend(store)
        searcher = HybridSearcher(store, lambda: pytest.fail("no model needed"), backend=backend)
        assert [h.doc_name for h in searcher.bm25("dividends", k=5)] == ["ACME_2018_10K"]
        assert {d: m.n_chunks for d, m in backend.mirrored().items()} == {acme["meta"].doc_id: len(ACME)}

        store.add_document(**beta)
        assert searcher.bm25("goodwill impairment", k=1)[0].doc_name == "BETA_2019_10K"
        store.remove_document("ACME_2018_10K")
        assert searcher.bm25("dividends", k=5) == []
        assert set(backend.mirrored()) == {beta["meta"].doc_id}
        assert backend.chunk_ids(acme["meta"].doc_id) == set()
        with pytest.raises(NotFoundError):
            searcher.bm25("dividends", doc_ids=[acme["meta"].doc_id])

        # A crash after the chunks were written but before the completion mark: the next sync rewrites it.
        store.add_document(**acme)
        backend.mirror()
        backend.client.delete(backend.documents_collection, ids=[acme["meta"].doc_id])
        fresh = MilvusBackend(store)  # another process: it has not synced this generation yet
        assert fresh.mirror() == (1, 0)
        assert fresh.mirror() == (0, 0)
        assert fresh.chunk_ids(acme["meta"].doc_id, upto=len(ACME)) == {c.chunk_id for c in acme["chunks"]}
        fresh.close()

        # Re-ingested by a newer pipeline: the same document id with other chunks replaces the old rows.
        store.remove_document("BETA_2019_10K")
        newer = build_doc("BETA_2019_10K", BETA[:2], None)
        newer["meta"] = beta["meta"].model_copy(update={"pipeline_version": "next"})
        newer["chunks"] = [c.model_copy(update={"doc_id": beta["meta"].doc_id,
                                                "chunk_id": f"{beta['meta'].doc_id[:12]}:{c.ordinal}"})
                           for c in newer["chunks"]]
        newer["cards"] = [c.model_copy(update={"chunk_id": ch.chunk_id}) for c, ch in zip(newer["cards"], newer["chunks"], strict=True)]
        store.add_document(**newer)
        assert searcher.bm25("share repurchase", k=5) == []  # BETA[2] is gone from the newer version
        assert backend.chunk_ids(beta["meta"].doc_id, upto=4) == {c.chunk_id for c in newer["chunks"]}
        backend.close()


def test_an_unreachable_milvus_is_one_clear_error_and_ingest_still_stores(
    tmp_path: Path, milvus_server: str, sample_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from agent.ingest.pipeline import open_ingestor

    down = milvus_settings(tmp_path, f"http://127.0.0.1:{free_port()}").replace(milvus_timeout_s=2.0)
    with Store.open(down) as store:
        store.add_document(**build_doc("ACME_2018_10K", ACME, None))
        with pytest.raises(StoreError, match="cannot reach Milvus at http://127.0.0.1:.*FINRAG_SEARCH_BACKEND=embedded"):
            HybridSearcher(store, lambda: None).bm25("dividends")
    with open_ingestor(down) as ingestor:
        report = ingestor.ingest_file(sample_path)
    assert report.status == "ingested"  # safe in the store; Milvus catches up later
    assert "will be written on the next search" in caplog.text
    up = down.replace(milvus_uri=milvus_server)
    with Store.open(up) as store:
        searcher = HybridSearcher(store, lambda: None)
        assert {h.doc_name for h in searcher.bm25("revenue dividends", k=50)} == set(store.document_names().values())
        searcher.backend.close()


def test_index_migrate_and_check(tmp_path: Path, milvus_server: str, capsys: pytest.CaptureFixture[str]) -> None:
    settings = Settings.from_env(home=tmp_path, device="cpu")
    rng = np.random.default_rng(0)
    with Store.open(settings) as store:
        for name, texts in (("ACME_2018_10K", ACME), ("BETA_2019_10K", BETA)):
            doc = build_doc(name, texts, None)
            doc["embeddings"] = rng.normal(size=doc["embeddings"].shape).astype(np.float32)
            doc["embeddings"] /= np.linalg.norm(doc["embeddings"], axis=1, keepdims=True)
            store.add_document(**doc)
    base = ["--home", str(tmp_path), "index"]
    where = ["--uri", milvus_server, "--collection", "mig"]
    assert main([*base, "check", *where]) == 1
    assert "finrag index migrate --to milvus" in capsys.readouterr().err
    assert main([*base, "migrate", "--to", "milvus", *where]) == 0
    out = capsys.readouterr().out
    assert "2 document(s) copied" in out and "9 chunks" in out and "FINRAG_SEARCH_BACKEND=milvus" in out
    assert main([*base, "migrate", "--to", "milvus", *where]) == 0
    assert "0 document(s) copied" in capsys.readouterr().out  # resumable: nothing left to copy
    assert main([*base, "check", *where, "--queries", "9"]) == 0
    out = capsys.readouterr().out
    assert "chunk ids: identical for every document" in out and "agree" in out
    assert re.search(r"bm25 \(all\)\s+9\s+1\.000", out)

    # One chunk lost in Milvus: check names the document and fails; a fresh migration repairs it.
    from pymilvus import MilvusClient

    client = MilvusClient(uri=milvus_server)
    client.delete("mig_chunks", filter='chunk_id like "%:0"')
    client.flush("mig_chunks")
    client.close()
    assert main([*base, "check", *where, "--queries", "9"]) == 1
    out = capsys.readouterr().out
    assert "chunk ids differ in ACME_2018_10K: 1 missing from Milvus" in out and "DIFFER" in out
    assert main([*base, "migrate", "--to", "milvus", "--fresh", *where]) == 0
    assert main([*base, "check", *where, "--queries", "9", "--json"]) == 0
    assert '"ok": true' in capsys.readouterr().out


def test_a_search_never_starts_a_migration(tmp_path: Path, milvus_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An index Milvus has never seen is copied by `finrag index migrate`, not by the first question."""
    from agent.index import milvus

    with Store.open(milvus_settings(tmp_path, milvus_server)) as store:
        for i in range(3):
            store.add_document(**build_doc(f"DOC_{i}", [f"{ACME[0]} {i}"], None))
        searcher = HybridSearcher(store, lambda: None)
        monkeypatch.setattr(milvus, "SYNC_INLINE_MAX_DOCS", 2)
        with pytest.raises(StoreError, match="lacks 3 of the 3 indexed documents.*finrag index migrate"):
            searcher.bm25("PP&E")
        monkeypatch.setattr(milvus, "SYNC_INLINE_MAX_DOCS", 20)
        assert len(searcher.bm25("PP&E")) == 3
        searcher.backend.close()


def test_the_scale_benchmark_measures_both_backends(tmp_path: Path, sample_path: Path) -> None:
    """`finrag eval scale` on a tiny corpus made from the sample filing: a row per backend, with real timings."""
    from agent.ingest.pipeline import open_ingestor
    from evals.scale_bench import render, run_scale_bench

    source = tmp_path / "source"
    with open_ingestor(Settings.from_env(home=source, device="cpu")) as ingestor:
        assert ingestor.ingest_file(sample_path).status == "ingested"
    questions = ["What was Northwind's revenue in 2024?", "capital expenditures", "net income per share"]
    rows = run_scale_bench(source, tmp_path / "work", [40], ["embedded", "milvus"], questions)
    assert [(r.backend, r.chunks) for r in rows] == [("embedded", 40), ("milvus", 40)]
    assert rows[0].documents == 3  # 18 chunks per copy of the sample: 18 + 18 + 4
    for row in rows:
        assert row.ingest_s > 0 and row.all_p50_ms > 0 and row.company_p50_ms > 0 and row.query_peak_mb > 0
    assert rows[1].server_peak_mb > 0
    assert "| milvus | 40 |" in render(rows)
