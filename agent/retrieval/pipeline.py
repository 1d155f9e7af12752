"""Deep retrieval end to end without LangGraph: intent -> routing and candidates -> bundling -> screening ->
bootstrap -> cross-encoder -> selection, each stage timed and traced.

:class:`DeepRetriever` owns the shared resources (store, searcher, embedder, caches, optional chat model and
cross-encoder) and exposes one method per stage; the LangGraph subgraph (``graphs/deep_retrieval.py``) calls
the same methods from its nodes, and :meth:`DeepRetriever.retrieve` chains them for the CLI, the benchmark and
tests. Every stage method returns its output and a :class:`StageTrace`.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Literal

import numpy as np
from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from agent.config import Settings
from agent.entities import EntityRegistry
from agent.finance.metrics import METRICS
from agent.index.embeddings import Embedder, get_embedder
from agent.index.protocol import IndexStore
from agent.index.search import HybridSearcher
from agent.index.store import Store
from agent.llm.models import UsageLog, get_chat_model, structured_call, text_call
from agent.llm.prompts import hyde_messages, intent_messages
from agent.query.intent import extract_intent, read_wording
from agent.retrieval.bootstrap import bootstrap_rank
from agent.retrieval.bundling import bundle_candidates
from agent.retrieval.candidates import (
    Candidate,
    CandidateGenerator,
    CandidateSet,
    RoutingDecision,
    route_documents,
)
from agent.retrieval.judges import GroupJudge, LLMJudge, OfflineJudge, annotate
from agent.retrieval.options import RetrievalOptions
from agent.retrieval.rerank import get_reranker, rerank, score_candidates
from agent.retrieval.screening import screen
from agent.retrieval.select import select_evidence
from agent.retrieval.trace import AuditTrace, ChunkStability, StageTrace, TracedCandidate
from agent.schemas import QueryIntent, SearchHit

TRACE_MAX_CANDIDATES = 50  # candidates kept per stage in the trace (JSON): the rest are summarised by count


class RetrievalResult(BaseModel):
    """What deep retrieval returns: evidence in document order, the full ranking and the audit trace."""

    question: str
    intent: QueryIntent
    selected: list[SearchHit] = Field(description="evidence within budget, deduplicated, in document order")
    ranked: list[SearchHit] = Field(description="every candidate, best first (the ranking metrics score this)")
    trace: AuditTrace


def traced(cands: list[Candidate], stage: str, limit: int = TRACE_MAX_CANDIDATES) -> list[TracedCandidate]:
    """Candidates as the trace shows them, with the score the stage ranked by and its components."""
    out = []
    for c in cands[:limit]:
        scores: dict[str, float] = {k: round(v, 4) for k, v in c.path_scores.items()}
        if stage in ("candidates", "bundling"):
            score = c.retrieval_score
        else:
            scores = {"rrf": round(c.retrieval_norm, 4)}
            if c.alignment is not None:
                scores["align"] = round(c.alignment, 4)
            if c.section_prior:
                scores["section"] = round(c.section_prior, 4)
            if c.ce_score is not None:
                scores["ce"] = round(c.ce_score, 4)
            score = {"screening": c.screen_score, "bootstrap": c.borda, "rerank": c.final_score,
                     "select": c.final_score}.get(stage, c.judge_score)
            if stage in ("bootstrap", "rerank", "select"):
                scores["judge"] = round(c.judge_score, 4)
            if c.recency:
                scores["recency"] = round(c.recency, 4)
        out.append(TracedCandidate(
            chunk_id=c.chunk_id, doc=c.doc_name, page=c.chunk.page + 1, section=" > ".join(c.chunk.section_path),
            is_table=c.chunk.is_table, score=round(score, 6), scores=scores,
            matched=list(c.matched) + ([f"bundled with {c.bundle_of}"] if c.bundle_of else []),
        ))
    return out


class DeepRetriever:
    """The deep-retrieval stages over one store. Thread-safe for concurrent questions (graph branches)."""

    def __init__(
        self,
        settings: Settings,
        store: IndexStore,
        embedder: Embedder | None = None,
        chat_model: BaseChatModel | None | Literal["auto"] = "auto",
        usage: UsageLog | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder or get_embedder(settings)
        self.searcher = HybridSearcher(store, lambda: self.embedder)
        self.generator = CandidateGenerator(store, self.searcher, self.embedder, settings)
        self.chat_model = get_chat_model(settings) if chat_model == "auto" else chat_model
        self.usage = usage if usage is not None else UsageLog()
        self._lock = threading.Lock()

    @classmethod
    @contextlib.contextmanager
    def open(cls, settings: Settings, **kwargs: object) -> Iterator[DeepRetriever]:
        """A retriever over the store under ``settings.index_dir``; the store is closed afterwards."""
        store = Store.open(settings)
        try:
            yield cls(settings, store, **kwargs)  # type: ignore[arg-type]
        finally:
            store.close()

    # --- helpers ---------------------------------------------------------------------------------------------
    def _model(self, options: RetrievalOptions) -> BaseChatModel | None:
        return self.chat_model if options.use_llm and self.settings.llm_retrieval else None

    def judge(self, options: RetrievalOptions) -> GroupJudge:
        """The LLM judge when a model is configured (and cards are on), else the offline judge."""
        model = self._model(options)
        if model is not None and options.use_cards:
            return LLMJudge(model, self.usage)
        return OfflineJudge()

    def warm(self, doc_ids: list[str]) -> None:
        """Load what a question over these documents needs (model, chunks, vectors, cards, sections, BM25), so
        timing a retrieval measures the retrieval and not the first load."""
        self.searcher.encode_query("warm up")
        for doc_id in doc_ids:
            index = self.generator.doc_index(doc_id)
            self.generator.cards_of(index)
            self.generator.sections.get(doc_id)
        self.searcher.bm25("warm up", doc_ids, 1)

    def known_companies(self) -> EntityRegistry:
        """The companies with an ingested filing, for matching the question's company."""
        return self.store.entities()

    # --- stages --------------------------------------------------------------------------------------------------
    def stage_intent(
        self, question: str, intent: QueryIntent | None = None, options: RetrievalOptions | None = None
    ) -> tuple[QueryIntent, str, list[str]]:
        """The Query Intent (given, the model's, or the offline twin's), its source, and notes for the trace."""
        if intent is not None:
            return intent, "given", []
        options = options or RetrievalOptions()
        companies = self.known_companies()
        model = self._model(options)
        if model is None:
            return extract_intent(question, companies), "offline", []
        result = structured_call(
            model, QueryIntent, intent_messages(question, sorted(METRICS)),
            fallback=lambda: extract_intent(question, companies), step="intent", usage=self.usage,
        )
        # the question's wording is read in code whoever fills the rest (one reading for every reader after it)
        value = result.value.model_copy(update={"question": result.value.question or question,
                                                "wording": read_wording(question)})
        notes = [f"intent: model output invalid twice ({result.reason}); offline twin used"] if result.fell_back else []
        return value, result.source, notes

    def stage_candidates(
        self,
        question: str,
        intent: QueryIntent,
        docs: Sequence[str] = (),
        company: str | None = None,
        options: RetrievalOptions | None = None,
    ) -> tuple[RoutingDecision, CandidateSet, StageTrace]:
        """Route to documents, run the paths, fuse, cut at the budget K."""
        options = options or RetrievalOptions()
        started = time.perf_counter()
        routing = route_documents(self.store, self.searcher, intent, docs=docs, company=company)
        notes: list[str] = []
        hyde = ""
        model = self._model(options)
        if "hyde" in options.paths and model is not None:
            period = ", ".join(intent.temporal_scope.periods)
            result = text_call(model, hyde_messages(question, intent.company, period), fallback=lambda: "",
                               step="hyde", usage=self.usage)
            hyde = result.text
            if result.fell_back:
                notes.append(f"HyDE: model failed ({result.reason}); path off")
        elif "hyde" in options.paths:
            notes.append("HyDE off: no language model configured")
        # the plan's search words: a company's filings print its name without its legal form ('Inc.')
        searched = intent.search if intent.search and routing.by_company else question
        cset = self.generator.generate(searched, intent, routing, options, hyde_text=hyde)
        if searched != question:
            notes.append(f"searched the company's filings by its name without its legal form: {searched}")
        notes += [f"{p}: {n} ranked" for p, n in cset.path_sizes.items()] + cset.notes
        notes.append(f"budget K = clamp(ceil({self.settings.candidate_ratio} x {cset.n_chunks}), "
                     f"{self.settings.candidate_min}, {self.settings.candidate_max}) = {cset.budget}")
        trace = StageTrace(stage="candidates", seconds=time.perf_counter() - started, n_in=cset.n_chunks,
                           n_out=len(cset.candidates), notes=notes, out=traced(cset.candidates, "candidates"))
        return routing, cset, trace

    def stage_bundling(
        self, question: str, candidates: list[Candidate], options: RetrievalOptions | None = None
    ) -> tuple[list[Candidate], StageTrace]:
        """VeritasFi chunk bundling (skipped when switched off)."""
        options = options or RetrievalOptions()
        if not options.use_bundling:
            return candidates, StageTrace(stage="bundling", skipped=True, n_in=len(candidates),
                                          n_out=len(candidates), notes=["bundling switched off"])
        started = time.perf_counter()
        result = bundle_candidates(candidates, self.generator, self.searcher.encode_query(question), self.settings)
        notes = [f"{result.strong_hits} strong hits (question cosine > {self.settings.bundle_hit_sim}); "
                 f"{len(result.bundles)} bundles; {result.added} chunks added"]
        notes += [f"bundle {b.hit}: {', '.join(b.members)}" for b in result.bundles]
        trace = StageTrace(stage="bundling", seconds=time.perf_counter() - started, n_in=len(candidates),
                           n_out=len(result.candidates), notes=notes,
                           out=traced([c for c in result.candidates if c.bundle_of], "bundling"))
        return result.candidates, trace

    def stage_screening(
        self, question: str, intent: QueryIntent, candidates: list[Candidate], options: RetrievalOptions | None = None
    ) -> tuple[list[Candidate], StageTrace]:
        """FinCARDS Stage 2 (annotates every candidate first; the offline judge ranks by that annotation)."""
        options = options or RetrievalOptions()
        started = time.perf_counter()
        notes: list[str] = []
        reranker, reason = get_reranker(self.settings) if options.use_cross_encoder else (None, "switched off")
        if reranker is not None:
            pairs = score_candidates(reranker, question, candidates)
            notes.append(f"cross-encoder scored {pairs} candidates for the judge")
        annotate(candidates, intent, use_cards=options.use_cards)
        if not options.use_cards:
            notes.append("cards off: the judge blends retrieval and statement prior only")
        if not options.use_screening:
            ordered = sorted(candidates, key=lambda c: (-c.judge_score, c.stage1_rank or 10**9))
            for c in ordered:
                c.screen_score = c.judge_score
            return ordered, StageTrace(stage="screening", skipped=True, seconds=time.perf_counter() - started,
                                       n_in=len(candidates), n_out=len(ordered), notes=notes + ["screening off"],
                                       out=traced(ordered, "screening"))
        judge = self.judge(options)
        result = screen(question, intent, candidates, judge, self.settings)
        notes.append(f"judge: {judge.name}; {len(result.groups)} round-robin groups of <= "
                     f"{self.settings.screen_group_size}; keep {self.settings.screen_keep_min}-"
                     f"{self.settings.screen_keep_max} each; cap {self.settings.screen_total_max}")
        notes += [f"quota: {q.text}" for q in result.quotas] + result.notes
        trace = StageTrace(stage="screening", seconds=time.perf_counter() - started, n_in=len(candidates),
                           n_out=len(result.candidates), notes=notes, groups=result.groups,
                           out=traced(result.candidates, "screening"))
        return result.candidates, trace

    def stage_bootstrap(
        self, question: str, intent: QueryIntent, candidates: list[Candidate], options: RetrievalOptions | None = None
    ) -> tuple[list[Candidate], StageTrace, list[ChunkStability]]:
        """FinCARDS Stage 3 (skipped when switched off: Stage 2 order stands)."""
        options = options or RetrievalOptions()
        if not options.use_bootstrap:
            return candidates, StageTrace(stage="bootstrap", skipped=True, n_in=len(candidates),
                                          n_out=len(candidates), notes=["bootstrap switched off: Stage 2 order"]), []
        started = time.perf_counter()
        judge = self.judge(options)
        result = bootstrap_rank(question, intent, candidates, judge, self.settings)
        notes = [f"judge: {judge.name}; {len(result.rounds)} rounds"] + result.notes
        trace = StageTrace(stage="bootstrap", seconds=time.perf_counter() - started, n_in=len(candidates),
                           n_out=len(result.candidates), notes=notes, rounds=result.rounds,
                           out=traced(result.candidates, "bootstrap"))
        return result.candidates, trace, result.stability

    def stage_rerank(
        self, question: str, intent: QueryIntent, candidates: list[Candidate], options: RetrievalOptions | None = None
    ) -> tuple[list[Candidate], StageTrace]:
        """Cross-encoder + recency bonus; skipped with its reason when no cross-encoder is available."""
        options = options or RetrievalOptions()
        started = time.perf_counter()
        reranker, reason = get_reranker(self.settings) if options.use_cross_encoder else (None, "switched off")
        metas = {d: self.generator.doc_index(d).meta for d in {c.chunk.doc_id for c in candidates}}
        result = rerank(question, intent, candidates, reranker, reason, metas, self.settings)
        trace = StageTrace(stage="rerank", skipped=result.skipped, seconds=time.perf_counter() - started,
                           n_in=len(candidates), n_out=len(result.candidates), notes=result.notes,
                           out=[] if result.skipped else traced(result.candidates, "rerank"))
        return result.candidates, trace

    def stage_select(
        self, candidates: list[Candidate], k: int | None = None, doc_order: list[str] | None = None
    ) -> tuple[list[Candidate], StageTrace]:
        """Top evidence within the token budget, deduplicated, in document order."""
        started = time.perf_counter()

        def vector_of(c: Candidate) -> np.ndarray:
            index = self.generator.doc_index(c.chunk.doc_id)
            return index.matrix[index.position[c.chunk_id]]

        result = select_evidence(candidates, vector_of, k or self.settings.evidence_max_chunks,
                                 self.settings.evidence_token_budget, self.settings.dedupe_cosine, doc_order)
        notes = [f"{len(result.selected)} chunks, ~{result.tokens} tokens (budget {self.settings.evidence_token_budget})"]
        notes += [f"dropped {d}: near-duplicate of {o} (cosine > {self.settings.dedupe_cosine})"
                  for d, o in result.duplicates.items()]
        if result.over_budget:
            notes.append(f"over the token budget: {', '.join(result.over_budget)}")
        trace = StageTrace(stage="select", seconds=time.perf_counter() - started, n_in=len(candidates),
                           n_out=len(result.selected), notes=notes, out=traced(result.selected, "select"))
        return result.selected, trace

    # --- all stages --------------------------------------------------------------------------------------------
    def retrieve(
        self,
        question: str,
        *,
        intent: QueryIntent | None = None,
        docs: Sequence[str] = (),
        company: str | None = None,
        k: int | None = None,
        options: RetrievalOptions | None = None,
    ) -> RetrievalResult:
        """Run every stage for one question (``docs``/``company`` restrict the documents searched)."""
        options = options or RetrievalOptions()
        intent, source, notes = self.stage_intent(question, intent, options)
        routing, cset, t_cand = self.stage_candidates(question, intent, docs, company, options)
        bundled, t_bundle = self.stage_bundling(question, cset.candidates, options)
        screened, t_screen = self.stage_screening(question, intent, bundled, options)
        boot, t_boot, stab = self.stage_bootstrap(question, intent, screened, options)
        final, t_rerank = self.stage_rerank(question, intent, boot, options)
        selected, t_select = self.stage_select(final, k, routing.doc_ids)
        trace = AuditTrace(
            question=question, intent=intent, intent_source=source, documents=routing.doc_names,
            routing=routing.reasons, budget=cset.budget,
            stages=[t_cand, t_bundle, t_screen, t_boot, t_rerank, t_select], stability=stab, notes=notes,
        )
        return RetrievalResult(
            question=question, intent=intent,
            selected=[c.to_hit() for c in selected],
            ranked=[c.to_hit(score) for c, score in full_ranking(final, bundled)],
            trace=trace,
        )


def full_ranking(final: list[Candidate], pool: list[Candidate]) -> list[tuple[Candidate, float]]:
    """The final ranking, then the candidates screening dropped (by judge score), each with a display score."""
    seen = {c.chunk_id for c in final}
    rest = sorted((c for c in pool if c.chunk_id not in seen), key=lambda c: (-c.judge_score, c.stage1_rank or 10**9))
    n = len(final) + len(rest)
    # Display scores fall with rank so a consumer sorting by score keeps this order.
    return [(c, float(n - i)) for i, c in enumerate([*final, *rest])]
