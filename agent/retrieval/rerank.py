"""Cross-encoder reranking (FinSage 3.3, VeritasFi 4.3) with FinSage's publication-date bonus.

A ``sentence_transformers.CrossEncoder`` is loaded once per process from ``Settings.cross_encoder_model`` (a
hub id, fetched only when downloads are allowed, or a local directory): on CUDA in fp16 when a GPU is
present, on CPU otherwise, scoring (question, chunk) pairs in batches of ``cross_encoder_batch_size``.
When no model is configured, or it cannot be loaded, :func:`get_reranker` says why and the stage is skipped
with that reason in the trace; a run never fails for it.

Final order: the Stage 3 Borda score (or Stage 2 score when bootstrap is off) blended with the min-max scaled
cross-encoder score, plus the recency bonus for recency-sensitive questions (FinSage: a filing published within
a year of the newest one gets a bonus that grows as the gap shrinks).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, Field

from agent.config import Settings
from agent.finance.periods import NORM_RE
from agent.retrieval.candidates import Candidate
from agent.schemas import DocumentMeta, QueryIntent

if TYPE_CHECKING:  # importing sentence_transformers pulls in torch: only when a model is really loaded
    from sentence_transformers import CrossEncoder

log = logging.getLogger(__name__)

CE_BLEND = 0.5  # final = (1 - CE_BLEND) * stage score + CE_BLEND * cross-encoder: equal say, neither overrides
RECENCY_WINDOW_DAYS = 365  # FinSage: the bonus applies within a year of the reference date
CE_MAX_CHARS = 2000  # characters of chunk text per pair: a 512-token model truncates beyond this anyway
NOT_CONFIGURED = "no cross-encoder configured (Settings.cross_encoder_model / FINRAG_CROSS_ENCODER_MODEL)"


class RerankResult(BaseModel):
    """The reranked candidates and what the stage did."""

    candidates: list[Candidate]
    skipped: bool = False
    notes: list[str] = Field(default_factory=list)
    pairs_scored: int = 0
    seconds_per_pair: float = 0.0


class CrossEncoderReranker:
    """A loaded CrossEncoder and its device; scores (question, passage) pairs."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.name = settings.cross_encoder_model.strip()
        self.device = settings.resolved_device()
        self.batch_size = settings.cross_encoder_batch_size
        self.model: CrossEncoder = self._load()

    def _load(self) -> CrossEncoder:
        local = Path(self.name).expanduser()
        is_local = local.exists()
        if not is_local and not self.settings.allow_downloads:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import CrossEncoder

        kwargs: dict[str, Any] = {}
        if self.device.startswith("cuda"):
            import torch

            kwargs["model_kwargs"] = {"torch_dtype": torch.float16}  # fp16 on the GPU: twice the pairs per second
        model = CrossEncoder(
            str(local) if is_local else self.name,
            device=self.device,
            local_files_only=is_local or not self.settings.allow_downloads,
            num_labels=1,
            **kwargs,
        )
        return model

    def score(self, question: str, passages: list[str]) -> np.ndarray:
        """One relevance score per passage (higher is more relevant), batched."""
        if not passages:
            return np.zeros(0, dtype=np.float32)
        pairs = [(question, p[:CE_MAX_CHARS]) for p in passages]
        scores = self.model.predict(pairs, batch_size=self.batch_size, show_progress_bar=False, convert_to_numpy=True)
        return np.asarray(scores, dtype=np.float32).reshape(len(pairs), -1)[:, 0]


_CACHE: dict[tuple[str, str, int, bool], tuple[CrossEncoderReranker | None, str]] = {}
_CACHE_LOCK = threading.Lock()


def get_reranker(settings: Settings) -> tuple[CrossEncoderReranker | None, str]:
    """The process-wide reranker for these settings, or None and the reason it is unavailable (cached too)."""
    name = settings.cross_encoder_model.strip()
    if not name:
        return None, NOT_CONFIGURED
    key = (name, settings.resolved_device(), settings.cross_encoder_batch_size, settings.allow_downloads)
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
        if cached is None:
            try:
                cached = (CrossEncoderReranker(settings), "")
            except Exception as exc:  # a missing or broken model skips the stage; the trace says why
                reason = f"cross-encoder '{name}' could not be loaded: {type(exc).__name__}: {str(exc)[:300]}"
                log.warning(reason)
                cached = (None, reason)
            _CACHE[key] = cached
        return cached


# ---------------------------------------------------------------------------------------------------------
# Recency bonus (FinSage 3.3)
# ---------------------------------------------------------------------------------------------------------
def is_recency_sensitive(intent: QueryIntent) -> bool:
    """A question about the latest period, as the plan reads it ('the most recent quarter', 'latest')."""
    return intent.temporal_scope.type == "latest"


def document_date(meta: DocumentMeta) -> date | None:
    """When a filing was published: its filing date, else its period end, else the end of its fiscal year."""
    for text in (meta.filing_date, meta.period_end):
        if not text:
            continue
        try:
            return date.fromisoformat(text[:10])
        except ValueError:
            continue
    m = NORM_RE.match(meta.fiscal_period or "")
    year = int(m.group("year")) if m else meta.fiscal_year
    return date(year, 12, 31) if year else None


def recency_bonus(published: date | None, reference: date | None, weight: float) -> float:
    """``weight * (1 - age / 365)`` for a filing published within a year before ``reference``; else 0."""
    if published is None or reference is None:
        return 0.0
    age = (reference - published).days
    if age < 0 or age > RECENCY_WINDOW_DAYS:
        return 0.0
    return weight * (1.0 - age / RECENCY_WINDOW_DAYS)


# ---------------------------------------------------------------------------------------------------------
# The stage
# ---------------------------------------------------------------------------------------------------------
def score_candidates(reranker: CrossEncoderReranker, question: str, candidates: list[Candidate]) -> int:
    """Fill ``ce_score`` for candidates that lack one (one batched call); returns how many pairs were scored."""
    todo = [c for c in candidates if c.ce_score is None]
    if not todo:
        return 0
    scores = reranker.score(question, [c.chunk.text for c in todo])
    for cand, s in zip(todo, scores, strict=True):
        cand.ce_score = float(s)
    return len(todo)


def rerank(
    question: str,
    intent: QueryIntent,
    candidates: list[Candidate],
    reranker: CrossEncoderReranker | None,
    reason: str,
    metas: dict[str, DocumentMeta],
    settings: Settings,
) -> RerankResult:
    """Blend the stage score with cross-encoder scores (if a model is loaded) and add the recency bonus."""
    notes: list[str] = []
    bootstrapped = any(c.borda for c in candidates)  # Stage 3 ran: its Borda score is the base, else Stage 2's
    base = {c.chunk_id: c.borda if bootstrapped else (c.screen_score or c.judge_score) for c in candidates}
    ce_norm: dict[str, float] = {}
    pairs = 0
    per_pair = 0.0
    if reranker is not None:
        started = time.perf_counter()
        pairs = score_candidates(reranker, question, candidates)
        if pairs:
            per_pair = (time.perf_counter() - started) / pairs
        raw = {c.chunk_id: c.ce_score for c in candidates if c.ce_score is not None}
        low, high = (min(raw.values()), max(raw.values())) if raw else (0.0, 0.0)
        ce_norm = {cid: (s - low) / (high - low) if high > low else 1.0 for cid, s in raw.items()}
        notes.append(f"cross-encoder {reranker.name} on {reranker.device}: {pairs} pairs scored, "
                     f"{len(raw) - pairs} reused from judging")
    else:
        notes.append(f"cross-encoder skipped: {reason}")
    recency: dict[str, float] = {}
    if is_recency_sensitive(intent) and settings.recency_bonus > 0:
        dates = {doc_id: document_date(m) for doc_id, m in metas.items()}
        known = [d for d in dates.values() if d is not None]
        reference = max(known) if known else None
        for c in candidates:
            recency[c.chunk_id] = recency_bonus(dates.get(c.chunk.doc_id), reference, settings.recency_bonus)
        notes.append(f"recency bonus (weight {settings.recency_bonus}) relative to {reference}")
    for c in candidates:
        score = base[c.chunk_id]
        if c.chunk_id in ce_norm:
            score = (1.0 - CE_BLEND) * score + CE_BLEND * ce_norm[c.chunk_id]
        c.recency = recency.get(c.chunk_id, 0.0)
        c.final_score = round(score + c.recency, 6)
    order = {c.chunk_id: i for i, c in enumerate(candidates)}
    ranked = sorted(candidates, key=lambda c: (-c.final_score, order[c.chunk_id]))
    return RerankResult(candidates=ranked, skipped=reranker is None and not recency, notes=notes,
                        pairs_scored=pairs, seconds_per_pair=per_pair)
