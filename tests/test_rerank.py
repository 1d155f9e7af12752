"""Cross-encoder stage: skipped cleanly without a model, loaded from the packaged MiniLM directory on CPU."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agent.config import Settings
from agent.index.embeddings import packaged_model_dir
from agent.retrieval.candidates import Candidate
from agent.retrieval.rerank import (
    NOT_CONFIGURED,
    CrossEncoderReranker,
    get_reranker,
    rerank,
    score_candidates,
)
from agent.schemas import Chunk, DocumentMeta, QueryIntent, TemporalScope

TEXTS = {
    "capex": "Purchases of property, plant and equipment | 2024: (437) | 2023: (392) | (in millions)",
    "risk": "Our business is subject to risks related to supply chains and currency exchange rates.",
    "tax": "The effective tax rate was 19.9% in 2024 compared with 21.1% in 2023.",
}


def candidates(doc_of: dict[str, str] | None = None) -> list[Candidate]:
    out = []
    for i, (cid, text) in enumerate(TEXTS.items()):
        doc = (doc_of or {}).get(cid, "d1")
        chunk = Chunk(chunk_id=cid, doc_id=doc, ordinal=i, section_id=0, page=i, page_end=i, char_start=0,
                      char_end=len(text), text=text)
        out.append(Candidate(chunk=chunk, doc_name=doc, borda=1.0 - i * 0.25, stage1_rank=i + 1))
    return out


@pytest.fixture(scope="module")
def cpu_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings.from_env(env={}, home=tmp_path_factory.mktemp("home"), device="cpu",
                             cross_encoder_model=str(packaged_model_dir()), cross_encoder_batch_size=2)


def test_not_configured_skips_with_reason() -> None:
    settings = Settings.from_env(env={}, cross_encoder_model="")
    reranker, reason = get_reranker(settings)
    assert reranker is None and reason == NOT_CONFIGURED
    result = rerank("capex?", QueryIntent(question="capex?"), candidates(), None, reason, {}, settings)
    assert result.skipped
    assert result.notes == [f"cross-encoder skipped: {NOT_CONFIGURED}"]
    assert [c.chunk_id for c in result.candidates] == ["capex", "risk", "tax"]  # Borda order stands
    assert [c.final_score for c in result.candidates] == [1.0, 0.75, 0.5]


def test_unloadable_model_is_a_reason_not_a_crash(tmp_path: Path) -> None:
    broken = tmp_path / "not-a-model"
    broken.mkdir()
    (broken / "config.json").write_text("{ this is not json")
    reranker, reason = get_reranker(Settings.from_env(env={}, device="cpu", cross_encoder_model=str(broken)))
    assert reranker is None
    assert reason.startswith(f"cross-encoder '{broken}' could not be loaded")


def test_cross_encoder_from_packaged_minilm_on_cpu(cpu_settings: Settings) -> None:
    reranker, reason = get_reranker(cpu_settings)
    assert reason == "" and isinstance(reranker, CrossEncoderReranker)
    assert reranker.device == "cpu"
    assert get_reranker(cpu_settings)[0] is reranker  # loaded once per process
    scores = reranker.score("What was capital expenditure in 2024?", list(TEXTS.values()))
    assert scores.shape == (3,) and np.isfinite(scores).all()
    cands = candidates()
    assert score_candidates(reranker, "capex?", cands) == 3
    assert score_candidates(reranker, "capex?", cands) == 0  # scores are kept, never recomputed
    result = rerank("capex?", QueryIntent(question="capex?"), cands, reranker, "", {}, cpu_settings)
    assert not result.skipped
    assert "on cpu: 0 pairs scored, 3 reused from judging" in result.notes[0]
    assert all(c.ce_score is not None for c in result.candidates)
    low, high = min(c.ce_score for c in cands), max(c.ce_score for c in cands)
    for c in result.candidates:  # final = half Borda + half min-max scaled cross-encoder score
        ce = (c.ce_score - low) / (high - low) if high > low else 1.0
        assert c.final_score == pytest.approx(0.5 * c.borda + 0.5 * ce, abs=1e-6)


def test_recency_bonus_for_recency_sensitive_question() -> None:
    settings = Settings.from_env(env={}, cross_encoder_model="", recency_bonus=0.05)
    cands = candidates({"capex": "old", "risk": "new", "tax": "new"})
    metas = {
        "old": DocumentMeta(doc_id="old", name="old", filing_date="2023-02-01"),
        "new": DocumentMeta(doc_id="new", name="new", filing_date="2024-02-01"),
    }
    intent = QueryIntent(question="What is the latest capex?", temporal_scope=TemporalScope(type="latest"))
    result = rerank(intent.question, intent, cands, None, NOT_CONFIGURED, metas, settings)
    bonus = {c.chunk_id: c.recency for c in result.candidates}
    assert bonus == {"capex": 0.0, "risk": 0.05, "tax": 0.05}
    assert not result.skipped and any("recency bonus" in n for n in result.notes)
    plain = rerank("capex FY2023?", QueryIntent(question="capex FY2023?"), candidates(), None, NOT_CONFIGURED,
                   metas, settings)
    assert all(c.recency == 0.0 for c in plain.candidates)
