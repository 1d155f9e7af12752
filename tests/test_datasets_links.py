"""Data folders whose links were copied as small text files (the trap sets point at the dev filings that way)."""

from __future__ import annotations

import json
from pathlib import Path

from evals.datasets import load_financebench, resolve_data_path


def test_link_files_are_followed(tmp_path: Path) -> None:
    dev = tmp_path / "dev" / "financebench"
    (dev / "docs" / "pdf").mkdir(parents=True)
    (dev / "docs" / "pdf" / "ACME_2024_10K.pdf").write_bytes(b"%PDF-1.4 stand-in")
    (dev / "documents.jsonl").write_text(json.dumps({"doc_name": "ACME_2024_10K", "pdf_path": "docs/pdf/ACME_2024_10K.pdf"}) + "\n")
    traps = tmp_path / "traps" / "financebench"
    traps.mkdir(parents=True)
    (traps / "documents.jsonl").write_text("../../dev/financebench/documents.jsonl")
    (traps / "docs").write_text("../../dev/financebench/docs")
    (traps / "questions.jsonl").write_text(json.dumps({
        "id": "q1-absent-company", "question": "What was Initech's revenue in 2024?", "answer": "Not found in the filings",
        "doc_name": "ACME_2024_10K", "company": "Initech", "question_type": "trap-absent-company",
    }) + "\n")
    fb = load_financebench(tmp_path / "traps")
    assert list(fb.documents) == ["ACME_2024_10K"]
    assert fb.pdf("ACME_2024_10K").read_bytes() == b"%PDF-1.4 stand-in"
    # A real data file is never mistaken for a link, and a dangling link is left as it is.
    assert resolve_data_path(traps, "questions.jsonl") == traps / "questions.jsonl"
    (traps / "broken").write_text("../nowhere")
    assert resolve_data_path(traps, "broken") == traps / "broken"
