"""Ingestion end to end: the sample filing, idempotent re-runs, bad input, and a crash mid-ingest."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.config import Settings
from agent.index.search import HybridSearcher
from agent.index.store import Store
from agent.ingest.files import find_files
from agent.ingest.pipeline import PIPELINE_VERSION, Ingestor, MetadataOverrides, file_sha256, open_ingestor
from cli.main import main

# Enough files that the ingest is still running when the test kills it after the first commit.
N_VARIANTS = 12


def _ingestor(settings: Settings, store: Store) -> Ingestor:
    from agent.index.embeddings import get_embedder

    return Ingestor(settings, store, get_embedder(settings))


def test_sample_filing_ingests_with_tables_and_metadata(settings: Settings, sample_path: Path) -> None:
    with Store.open(settings) as store:
        report = _ingestor(settings, store).ingest_file(sample_path)
        assert report.status == "ingested", report.error
        assert report.pages == 8
        assert report.tables >= 4
        assert report.sections >= 5
        doc = store.get_document("NORTHWIND_2024_10K")
        assert doc.company.lower().startswith("northwind")
        assert doc.form == "10-K"
        assert doc.fiscal_period == "FY2024"
        assert doc.ticker == "NWIN"
        chunks = store.chunks([doc.doc_id])
        text = store.document_text(doc.doc_id)
        # Offsets locate every chunk's source span again.
        for c in chunks:
            assert 0 <= c.char_start < c.char_end <= len(text)
        capex = [c for c in chunks if c.is_table and "Purchases of property, plant and equipment" in c.text]
        assert capex, "the cash-flow row must survive as a linearised table row"
        assert "2024: (437)" in capex[0].text and "2023: (392)" in capex[0].text
        assert capex[0].page == 6  # 0-based: the seventh page holds the cash-flow statement
        cards = store.cards([capex[0].chunk_id])
        assert "capital expenditure" in cards[capex[0].chunk_id].metrics


def test_reingest_is_a_noop_and_changed_content_replaces(settings: Settings, sample_path: Path, tmp_path: Path) -> None:
    copy = tmp_path / "NORTHWIND_2024_10K.md"
    copy.write_text(sample_path.read_text())
    with Store.open(settings) as store:
        ing = _ingestor(settings, store)
        first = ing.ingest_file(copy)
        again = ing.ingest_file(copy)
        assert (first.status, again.status) == ("ingested", "unchanged")
        assert again.doc_id == first.doc_id == file_sha256(copy)
        assert len(store.list_documents()) == 1
        copy.write_text(sample_path.read_text() + "\n\nAn amendment paragraph added later.\n")
        third = ing.ingest_file(copy)
        assert third.status == "ingested"
        docs = store.list_documents()
        assert [d.doc_id for d in docs] == [third.doc_id]


def test_metadata_overrides_win(settings: Settings, sample_path: Path) -> None:
    with Store.open(settings) as store:
        overrides = MetadataOverrides(company="Acme Corp", ticker="ACME", form="10-K", period="2023")
        _ingestor(settings, store).ingest_file(sample_path, overrides)
        doc = store.get_document("NORTHWIND_2024_10K")
        assert (doc.company, doc.ticker, doc.fiscal_period, doc.fiscal_year) == ("Acme Corp", "ACME", "FY2023", 2023)


def _bad_files(folder: Path, sample_path: Path) -> dict[str, str]:
    """A folder with one good filing and every kind of bad file; returns name -> expected reason fragment."""
    import pypdfium2 as pdfium

    folder.mkdir()
    (folder / "good.md").write_text(sample_path.read_text())
    (folder / "corrupt.pdf").write_bytes(b"%PDF-1.7\n" + os.urandom(2048))
    (folder / "empty.txt").write_text("")
    (folder / "zero.html").write_bytes(b"")
    (folder / "notes.xyz").write_text("what is this")
    scanned = pdfium.PdfDocument.new()
    scanned.new_page(612, 792)
    scanned.save(str(folder / "scanned.pdf"))
    return {
        "corrupt.pdf": "pdf",
        "empty.txt": "empty",
        "zero.html": "empty",
        "notes.xyz": "unsupported",
        "scanned.pdf": "ocr",
    }


def test_mixed_folder_reports_each_bad_file_and_ingests_the_good(
    settings: Settings, sample_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "filings"
    expected = _bad_files(folder, sample_path)
    code = main(["--home", str(settings.home), "ingest", str(folder), "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 1, "the exit status must say something failed"
    for name, fragment in expected.items():
        lines = [line for line in err.splitlines() if name in line]
        assert len(lines) == 1, f"one clear line for {name}: {err}"
        assert fragment in lines[0].lower(), lines[0]
    assert "ingested   good" in out
    assert "1 ingested, 0 unchanged, 5 failed" in out
    with Store.open(settings) as store:
        assert [d.name for d in store.list_documents()] == ["good"]
        hits = HybridSearcher(store, lambda: None).bm25("purchases of property plant equipment", k=3)
        assert hits and hits[0].doc_name == "good"


def test_expand_paths_skips_hidden_files(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("x")
    (tmp_path / ".hidden.md").write_text("x")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("x")
    assert [f.path.name for f in find_files([tmp_path])] == ["a.md", "b.txt"]


def test_killed_ingest_leaves_a_loadable_index_and_rerun_completes(sample_path: Path, tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    base = sample_path.read_text()
    for i in range(N_VARIANTS):
        (folder / f"NORTHWIND_{i}.md").write_text(base + f"\n\nVariant {i} of the sample for the crash test.\n")
    home = tmp_path / "home"
    env = {**os.environ, "FINRAG_HOME": str(home)}
    cmd = [sys.executable, "-m", "cli.main", "ingest", str(folder), "--no-progress"]
    proc = subprocess.Popen(cmd, env=env, cwd=Path(__file__).resolve().parent.parent,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    db = home / "index" / "finrag.sqlite"
    deadline = time.monotonic() + 120
    committed = 0
    while time.monotonic() < deadline and proc.poll() is None:
        if db.exists():
            try:
                with sqlite3.connect(db, timeout=1) as con:
                    committed = con.execute("select count(*) from documents").fetchone()[0]
            except sqlite3.Error:
                committed = 0
            if committed >= 1:
                break
        time.sleep(0.05)
    assert proc.poll() is None, "ingest finished before it could be killed; the test needs more files"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)

    settings = Settings.from_env(home=home)
    with Store.open(settings) as store:
        survivors = store.list_documents()
        assert 1 <= len(survivors) < N_VARIANTS
        hits = HybridSearcher(store, lambda: None).bm25("capital expenditures", k=3)
        assert hits, "the index must still load and answer after a crash"

    rerun = subprocess.run(cmd, env=env, cwd=Path(__file__).resolve().parent.parent,
                           capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{N_VARIANTS - len(survivors)} ingested, {len(survivors)} unchanged, 0 failed" in rerun.stdout
    with Store.open(settings) as store:
        assert len(store.list_documents()) == N_VARIANTS


def test_a_new_pipeline_version_reingests_and_keeps_edited_metadata(
    settings: Settings, sample_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent.ingest.pipeline as ingest

    with Store.open(settings) as store:
        ing = _ingestor(settings, store)
        first = ing.ingest_file(sample_path)
        store.update_metadata("NORTHWIND_2024_10K", ticker="NWI")
        assert ing.ingest_file(sample_path).status == "unchanged"
        monkeypatch.setattr(ingest, "PIPELINE_VERSION", "next")
        again = ing.ingest_file(sample_path)
        assert again.status == "ingested" and again.doc_id == first.doc_id
        doc = store.get_document("NORTHWIND_2024_10K")
        assert (doc.pipeline_version, doc.ticker) == ("next", "NWI")
        assert len(store.list_documents()) == 1
        assert len(store.chunks([doc.doc_id])) == first.chunks
        assert ing.ingest_file(sample_path).status == "unchanged"


def test_an_edited_period_is_read_again_by_the_next_ingest(settings: Settings, sample_path: Path) -> None:
    # Tables and sentences are typed in the filer's calendar at ingest: a corrected period makes the filing stale,
    # and ingesting its file again types it in the period the user gave, the edit kept.
    with Store.open(settings) as store:
        ing = _ingestor(settings, store)
        ing.ingest_file(sample_path)
        store.update_metadata("NORTHWIND_2024_10K", ticker="NWI")
        assert ing.ingest_file(sample_path).status == "unchanged"  # a ticker types nothing
        store.update_metadata("NORTHWIND_2024_10K", fiscal_period="FY2025")
        assert store.get_document("NORTHWIND_2024_10K").pipeline_version == ""
        assert ing.ingest_file(sample_path).status == "ingested"
        doc = store.get_document("NORTHWIND_2024_10K")
        assert (doc.fiscal_period, doc.pipeline_version) == ("FY2025", PIPELINE_VERSION)
        assert ing.ingest_file(sample_path).status == "unchanged"


def test_a_new_pipeline_version_keeps_the_name_of_a_file_that_moved(
    settings: Settings, sample_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A data directory copied elsewhere re-ingests its filings from their new place under the names they are
    cited by, not as 'sources_NAME' beside a name that seems taken."""
    import shutil

    import agent.ingest.pipeline as ingest

    first_place = tmp_path / "one" / sample_path.name
    first_place.parent.mkdir()
    shutil.copy(sample_path, first_place)
    with Store.open(settings) as store:
        ing = _ingestor(settings, store)
        first = ing.ingest_file(first_place)
        moved = tmp_path / "two" / sample_path.name
        moved.parent.mkdir()
        shutil.move(first_place, moved)
        monkeypatch.setattr(ingest, "PIPELINE_VERSION", "next")
        again = ing.ingest_file(moved)
        assert (again.status, again.name) == ("ingested", first.name)
        assert [d.name for d in store.list_documents()] == [first.name]


def test_the_same_filing_in_other_bytes_is_named_at_ingest(sample_path: Path, tmp_path: Path) -> None:
    """Issue 59 item 3: a filing already indexed (the same text in other bytes, or the same company, form and
    period) is reported by the ingest that adds it again, so a user can keep one."""
    settings = Settings.from_env(home=tmp_path / "home")
    copy = tmp_path / "northwind-copy.md"
    copy.write_bytes(sample_path.read_bytes() + b"\n\n")  # other bytes, the same text
    with open_ingestor(settings) as ingestor:
        first = ingestor.ingest_file(sample_path)
        second = ingestor.ingest_file(copy)
    assert first.same_as == [] and second.status == "ingested" and second.same_as == [first.name]
    with Store.open(settings) as store:
        docs = {d.name: d for d in store.list_documents()}
    assert docs[first.name].text_sha256 == docs[second.name].text_sha256 != ""
