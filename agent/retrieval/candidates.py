"""Stage 1: document routing and multi-path candidate generation, fused by reciprocal rank fusion.

Routing (multistage_retrieval_reranking 3.4, with rules instead of a model): a question is answered from its
company's filings; among those, the asked form and the filings whose fiscal period best covers the asked periods
(normalised: "FY 2022", "fiscal 2022" and "2022" are one period; a later 10-K still covers a year through its
comparative columns) narrow the set, each filter applied only when it leaves something, at most three filings.
Without a company every filing is searched (form and period alone would pick other companies' filings).

Paths (FinSage 3.2, VeritasFi 4.2.1), each ranking chunks of the routed documents:

* ``bm25``: the question as written (finance-aware BM25 from :mod:`agent.index.bm25`);
* ``lexicon``: BM25 over the question's keywords, the synonyms of its metrics from the finance lexicon
  ("capex" -> "purchases of property, plant and equipment") and its fiscal years as they appear in tables;
* ``dense``: cosine between the question and chunk embeddings;
* ``metadata``: cosine between the question and section heading + summary embeddings; a section hit brings
  its chunks (the section's best-matching chunks first);
* ``cards``: structured match of Chunk Card fields against the Query Intent: asked metrics (or the inputs of a
  derived one), weighted by how rare each is among the filing's cards (a metric every third chunk names, such as
  "liquidity", says little), plus periods; dense similarity breaks ties;
* ``statements``: chunks in the financial statement the question names ("relying on the cash flow statement")
  or its metrics are reported in (capital expenditure: cash flow statement), best card match first;
* ``hyde``: cosine with a language model's hypothetical passage, only when a model is configured.

The fused list is cut at FinCARDS' length-adaptive budget ``K = clamp(ceil(0.5 * n_chunks), 60, 150)``.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from pydantic import BaseModel, Field

from agent.config import Settings
from agent.errors import NotFoundError
from agent.finance.lexicon import components, synonyms
from agent.finance.metrics import METRICS
from agent.finance.periods import period_year, periods_overlap, sort_key
from agent.index.embeddings import Embedder
from agent.index.fusion import min_max_normalise, reciprocal_rank_fusion
from agent.index.protocol import IndexStore
from agent.index.search import HybridSearcher
from agent.retrieval.options import RetrievalOptions
from agent.retrieval.section_index import SectionIndexCache
from agent.retrieval.statements import chunk_statements, target_statements
from agent.schemas import Chunk, ChunkCard, DocumentMeta, QueryIntent, SearchHit

# --- routing ------------------------------------------------------------------------------------------------
ROUTE_MAX_DOCS = 3  # multistage_retrieval_reranking 3.4: one primary filing plus one or two for context
PERIOD_EXACT, PERIOD_OVERLAP, PERIOD_LATER_FILING = 3, 2, 1  # how well a filing's period covers the asked one
LATER_FILING_YEARS = 2  # a 10-K repeats the two prior years in its comparative columns

# --- paths -------------------------------------------------------------------------------------------------
METADATA_TOP_SECTIONS = 3  # sections whose chunks the metadata path brings (a hit brings the whole section)
CARD_COMPONENT_CREDIT = 0.5  # a card holding an input of the asked derived metric is half a metric match
CARD_PERIOD_WEIGHT = 0.5  # a matching period counts half as much as a matching metric
CARD_OVERLAP_CREDIT = 0.5  # FY2023 asked, card has FY2023Q2: half a period match
STATEMENT_NAMED = 2.0  # statement path: chunks of a statement the question names rank before ...
STATEMENT_IMPLIED = 1.0  # ... chunks of a statement its metric implies (card match orders within each)
LEXICON_MAX_SYNONYMS = 6  # per metric: the common names carry the signal; long tails add noise terms
PATH_WEIGHTS: dict[str, float] = {  # every path votes equally in RRF: no path is trusted blindly offline
    "bm25": 1.0,
    "lexicon": 1.0,
    "dense": 1.0,
    "metadata": 1.0,
    "cards": 1.0,
    "statements": 1.0,
    "hyde": 1.0,
}
DOC_CACHE_MAX_CHUNKS = 40_000  # chunks (with vectors and cards, ~5 KB each) kept in memory across documents


class Candidate(BaseModel):
    """A chunk on its way through the stages, with every score it collected."""

    chunk: Chunk
    doc_name: str
    card: ChunkCard | None = None
    stage1_rank: int = Field(default=0, description="1-based rank after fusion (0: added by bundling)")
    retrieval_score: float = Field(default=0.0, description="fused RRF score")
    retrieval_norm: float = Field(default=0.0, description="RRF score min-max scaled over the candidate set")
    query_cosine: float = Field(default=0.0, description="cosine between the question and the chunk")
    path_scores: dict[str, float] = Field(default_factory=dict)
    path_ranks: dict[str, int] = Field(default_factory=dict)
    bundle_of: str = Field(default="", description="the hit whose bundle brought this chunk in")
    alignment: float | None = Field(default=None, description="card-intent alignment in [0, 1]")
    section_prior: float = Field(default=0.0, description="the section is the statement the question points to")
    matched: list[str] = Field(default_factory=list, description="why it scored: matched card fields")
    judge_score: float = Field(default=0.0, description="the offline judge's blended score")
    screen_score: float = Field(default=0.0, description="Stage 2 relevance in [0, 1]")
    ce_score: float | None = Field(default=None, description="raw cross-encoder score")
    borda: float = Field(default=0.0, description="Stage 3 mean normalised Borda score")
    recency: float = Field(default=0.0, description="FinSage publication-date bonus")
    final_score: float = 0.0

    @property
    def chunk_id(self) -> str:
        return self.chunk.chunk_id

    def to_hit(self, score: float | None = None) -> SearchHit:
        """The candidate as a search hit (what the answer step and the metrics consume)."""
        scores = dict(self.path_scores)
        for name, value in (("rrf", self.retrieval_score), ("align", self.alignment), ("ce", self.ce_score),
                            ("borda", self.borda), ("final", self.final_score)):
            if value is not None:
                scores[name] = value
        return SearchHit(chunk=self.chunk, doc_name=self.doc_name,
                         score=self.final_score if score is None else score,
                         path_scores=scores, path_ranks=dict(self.path_ranks))


class RoutingDecision(BaseModel):
    """The documents chunk search runs over, and why."""

    doc_ids: list[str]
    doc_names: list[str]
    reasons: list[str] = Field(default_factory=list)
    by_company: bool = Field(default=False, description="the documents are the filings of one company named")


class CandidateSet(BaseModel):
    """Stage 1's output."""

    candidates: list[Candidate]
    budget: int
    n_chunks: int = Field(description="chunks in the routed documents")
    path_sizes: dict[str, int] = Field(default_factory=dict, description="how many chunks each path ranked")
    notes: list[str] = Field(default_factory=list)


# ---------------------------------------------------------------------------------------------------------
# Budget and routing
# ---------------------------------------------------------------------------------------------------------
def candidate_budget(n_chunks: int, settings: Settings) -> int:
    """FinCARDS Stage 1 length-adaptive budget ``clamp(ceil(ratio * n), min, max)``, never above ``n``."""
    k = min(max(math.ceil(settings.candidate_ratio * n_chunks), settings.candidate_min), settings.candidate_max)
    return min(k, n_chunks)


def _period_fit(meta: DocumentMeta, asked: Sequence[str]) -> int:
    """How well a filing's own period covers the asked periods (0: not at all)."""
    best = 0
    for p in asked:
        if meta.fiscal_period == p:
            return PERIOD_EXACT
        if meta.fiscal_period and periods_overlap(meta.fiscal_period, p):
            best = max(best, PERIOD_OVERLAP)
        year = period_year(p)
        doc_year = meta.fiscal_year or period_year(meta.fiscal_period)
        if year is not None and doc_year is not None and 0 < doc_year - year <= LATER_FILING_YEARS:
            best = max(best, PERIOD_LATER_FILING)
    return best


def route_documents(
    store: IndexStore,
    searcher: HybridSearcher,
    intent: QueryIntent,
    docs: Sequence[str] = (),
    company: str | None = None,
) -> RoutingDecision:
    """The documents to search: ``docs`` when given, else filings of the intent's company, form and period.

    An explicit document or ``company`` that matches nothing is a :class:`NotFoundError` (the user asked for it);
    filters taken from the question itself are soft and fall back to the wider set with a note.
    """
    names = store.document_names()
    if docs:
        given = [store.get_document(d) for d in dict.fromkeys(docs)]  # NotFoundError names the document
        return RoutingDecision(doc_ids=[m.doc_id for m in given], doc_names=[m.name for m in given],
                               reasons=[f"document{'s' if len(given) > 1 else ''} given: "
                                        + ", ".join(m.name for m in given)])
    docs = store.list_documents()
    if not docs:
        raise NotFoundError("The index holds no documents; ingest filings first (finrag ingest PATH).")
    reasons: list[str] = []
    pool = list(docs)
    narrowed_by_company = False
    if company:
        ids = set(searcher.filter_documents(company=company)) | set(searcher.filter_documents(ticker=company))
        if not ids:
            raise NotFoundError(f"No ingested document belongs to company '{company}' (see: finrag docs).")
        pool = [d for d in pool if d.doc_id in ids]
        narrowed_by_company = True
        reasons.append(f"company given: {company} ({len(pool)} filings)")
    elif intent.company or intent.ticker:
        ids = set(searcher.filter_documents(company=intent.company)) if intent.company else set()
        if intent.ticker:
            ids |= set(searcher.filter_documents(ticker=intent.ticker))
        asked = intent.company or intent.ticker
        if ids:
            pool = [d for d in pool if d.doc_id in ids]
            narrowed_by_company = True
            reasons.append(f"company from question: {asked} ({len(pool)} filings)")
        else:
            reasons.append(f"company from question not among the filings: {asked}; searching all")
    if narrowed_by_company:
        # Form and period choose among one company's filings; across companies they would pick by accident.
        pool, more = _narrow_by_form_and_period(pool, intent, searcher)
        reasons += more
    elif intent.form or intent.temporal_scope.periods:
        reasons.append("form/period not used for routing without a company; the cards still check periods")
    newest_first = sorted(pool, key=lambda d: (sort_key(d.fiscal_period), d.filing_date, d.name), reverse=True)
    if intent.temporal_scope.type == "latest" and newest_first:
        reasons.append(f"latest period asked: newest filing first ({newest_first[0].name})")
    if narrowed_by_company and len(newest_first) > ROUTE_MAX_DOCS:
        reasons.append(f"kept the {ROUTE_MAX_DOCS} newest of {len(newest_first)} filings")
        newest_first = newest_first[:ROUTE_MAX_DOCS]
    return RoutingDecision(
        doc_ids=[d.doc_id for d in newest_first],
        doc_names=[names.get(d.doc_id, d.name) for d in newest_first],
        reasons=reasons or ["no company, form or period in the question: all filings"],
        by_company=narrowed_by_company,
    )


def _narrow_by_form_and_period(
    pool: list[DocumentMeta], intent: QueryIntent, searcher: HybridSearcher
) -> tuple[list[DocumentMeta], list[str]]:
    """Soft filters: the asked form, then the filings whose fiscal period best covers the asked periods."""
    reasons: list[str] = []
    if intent.form:
        ids = set(searcher.filter_documents(form=intent.form))
        narrowed = [d for d in pool if d.doc_id in ids]
        if narrowed:
            pool = narrowed
            reasons.append(f"form: {intent.form} ({len(pool)} filings)")
        else:
            reasons.append(f"no {intent.form} among them; form filter dropped")
    asked = intent.temporal_scope.periods
    if asked:
        fits = {d.doc_id: _period_fit(d, asked) for d in pool}
        best = max(fits.values(), default=0)
        if best > 0:
            pool = [d for d in pool if fits[d.doc_id] == best]
            reasons.append(f"period {', '.join(asked)}: {len(pool)} filings cover it")
        else:
            reasons.append(f"no filing covers {', '.join(asked)}; period filter dropped")
    return pool, reasons


# ---------------------------------------------------------------------------------------------------------
# Per-document data the paths share
# ---------------------------------------------------------------------------------------------------------
@dataclass
class DocIndex:
    """One document's chunks, vectors and cards, aligned by position (reading order)."""

    doc_id: str
    name: str
    chunks: list[Chunk]
    position: dict[str, int]
    matrix: np.ndarray
    meta: DocumentMeta
    cards: list[ChunkCard | None] | None = None
    card_metrics: list[frozenset[str]] = field(default_factory=list)
    card_periods: list[frozenset[str]] = field(default_factory=list)
    statements: list[frozenset[str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class CandidateGenerator:
    """Runs the paths over routed documents and fuses them (one per store; thread-safe, caches per document)."""

    def __init__(self, store: IndexStore, searcher: HybridSearcher, embedder: Embedder, settings: Settings) -> None:
        self.store = store
        self.searcher = searcher
        self.embedder = embedder
        self.settings = settings
        self.sections = SectionIndexCache(store, embedder)
        self._docs: OrderedDict[str, DocIndex] = OrderedDict()
        self._lock = threading.Lock()

    # --- caches ------------------------------------------------------------------------------------------
    def doc_index(self, doc_id: str) -> DocIndex:
        """A document's chunks, vectors and metadata (cached)."""
        with self._lock:
            cached = self._docs.get(doc_id)
            if cached is not None:
                self._docs.move_to_end(doc_id)
                return cached
        meta = self.store.get_document(doc_id)
        chunks = self.store.chunks([doc_id])
        ids, matrix = self.store.doc_embeddings(doc_id)
        if ids != [c.chunk_id for c in chunks]:  # align rows to reading order whatever the store returned
            row = {cid: i for i, cid in enumerate(ids)}
            matrix = matrix[[row[c.chunk_id] for c in chunks]] if ids else np.zeros((len(chunks), 0), np.float32)
        index = DocIndex(
            doc_id=doc_id,
            name=meta.name,
            chunks=chunks,
            position={c.chunk_id: i for i, c in enumerate(chunks)},
            matrix=np.ascontiguousarray(matrix, dtype=np.float32),
            meta=meta,
            statements=[chunk_statements(c) for c in chunks],
        )
        with self._lock:
            self._docs[doc_id] = index
            # Bounded by chunks, not documents: a corpus of one-page reports and a shelf of 10-Ks both fit.
            while len(self._docs) > 1 and sum(len(d.chunks) for d in self._docs.values()) > DOC_CACHE_MAX_CHUNKS:
                self._docs.popitem(last=False)
        return index

    def cards_of(self, index: DocIndex) -> list[ChunkCard | None]:
        """Every chunk's card, in reading order (loaded once per document)."""
        with index.lock:
            if index.cards is None:
                by_id = self.store.cards([c.chunk_id for c in index.chunks])
                index.cards = [by_id.get(c.chunk_id) for c in index.chunks]
                index.card_metrics = [frozenset(c.metrics) if c else frozenset() for c in index.cards]
                index.card_periods = [frozenset(c.periods) if c else frozenset() for c in index.cards]
            return index.cards

    # --- the stage -----------------------------------------------------------------------------------------
    def generate(
        self,
        question: str,
        intent: QueryIntent,
        routing: RoutingDecision,
        options: RetrievalOptions,
        hyde_text: str = "",
    ) -> CandidateSet:
        """Rank chunks of the routed documents on every enabled path and fuse them into the top-K candidates."""
        docs = [self.doc_index(d) for d in routing.doc_ids]
        n_chunks = sum(len(d.chunks) for d in docs)
        budget = candidate_budget(n_chunks, self.settings)
        if budget == 0:
            return CandidateSet(candidates=[], budget=0, n_chunks=0, notes=["the routed documents hold no chunks"])
        # the plan's years the question does not print as the filing's columns do ('FY20', '2Q25' -> '2020', '2025')
        question = " ".join([question, *(y for y in asked_years(intent) if y not in question)])
        query_vector = self.searcher.encode_query(question)
        cosines = {d.doc_id: _cosines(d.matrix, query_vector) for d in docs}
        depth = budget
        notes: list[str] = []
        rankings: dict[str, list[str]] = {}
        path_scores: dict[str, dict[str, float]] = {}
        wanted = [p for p in options.paths if p in PATH_WEIGHTS]

        def add(path: str, ranked: list[tuple[str, float]]) -> None:
            rankings[path] = [cid for cid, _ in ranked]
            path_scores[path] = dict(ranked)

        if "bm25" in wanted:
            add("bm25", [(h.chunk.chunk_id, h.score) for h in self.searcher.bm25(question, routing.doc_ids, depth)])
        if "lexicon" in wanted:
            query = lexicon_query(intent)
            if query:
                add("lexicon", [(h.chunk.chunk_id, h.score) for h in self.searcher.bm25(query, routing.doc_ids, depth)])
        if "dense" in wanted:
            add("dense", _top_over_docs(docs, cosines, depth))
        if "metadata" in wanted:
            add("metadata", self._metadata_path(docs, cosines, query_vector, depth))
        if "cards" in wanted:
            ranked = self._cards_path(docs, cosines, intent, depth)
            if ranked:
                add("cards", ranked)
            else:
                notes.append("cards path: the intent names no metric or period; path idle")
        if "statements" in wanted:
            ranked = self._statements_path(docs, cosines, intent, depth, use_cards=options.use_cards)
            if ranked:
                add("statements", ranked)
        if "hyde" in wanted and hyde_text:
            hyde_vector = self.embedder.encode_one(hyde_text)
            add("hyde", _top_over_docs(docs, {d.doc_id: _cosines(d.matrix, hyde_vector) for d in docs}, depth))
        fused = reciprocal_rank_fusion(rankings, k=self.settings.rrf_k, weights=PATH_WEIGHTS)[:budget]
        normalised = min_max_normalise(dict(fused))
        by_id = {c.chunk_id: (d, i) for d in docs for i, c in enumerate(d.chunks)}
        candidates: list[Candidate] = []
        for rank, (chunk_id, score) in enumerate(fused, start=1):
            d, i = by_id[chunk_id]
            cands_scores = {p: s[chunk_id] for p, s in path_scores.items() if chunk_id in s}
            ranks = {p: r.index(chunk_id) + 1 for p, r in rankings.items() if chunk_id in path_scores[p]}
            candidates.append(
                Candidate(
                    chunk=d.chunks[i],
                    doc_name=d.name,
                    stage1_rank=rank,
                    retrieval_score=score,
                    retrieval_norm=normalised[chunk_id],
                    query_cosine=float(cosines[d.doc_id][i]),
                    path_scores=cands_scores,
                    path_ranks=ranks,
                )
            )
        self.attach_cards(candidates)
        return CandidateSet(
            candidates=candidates,
            budget=budget,
            n_chunks=n_chunks,
            path_sizes={p: len(r) for p, r in rankings.items()},
            notes=notes,
        )

    def attach_cards(self, candidates: list[Candidate]) -> None:
        """Give each candidate its Chunk Card (from the per-document cache)."""
        for c in candidates:
            if c.card is None:
                index = self.doc_index(c.chunk.doc_id)
                cards = self.cards_of(index)
                c.card = cards[index.position[c.chunk_id]]

    # --- paths -----------------------------------------------------------------------------------------------
    def _metadata_path(
        self, docs: list[DocIndex], cosines: dict[str, np.ndarray], query_vector: np.ndarray, depth: int
    ) -> list[tuple[str, float]]:
        """Section heading + summary hits, each bringing its chunks (best-matching chunks first)."""
        hits: list[tuple[float, str, int]] = []  # (section cosine, doc id, section id)
        for d in docs:
            sections = self.sections.get(d.doc_id)
            if not len(sections.vectors):
                continue
            scores = np.einsum("ij,j->i", sections.vectors, query_vector)
            hits += [(float(scores[i]), d.doc_id, s.section_id) for i, s in enumerate(sections.sections)]
        hits.sort(key=lambda h: -h[0])
        by_doc = {d.doc_id: d for d in docs}
        ranked: list[tuple[str, float]] = []
        taken = 0
        for score, doc_id, section_id in hits:
            d = by_doc[doc_id]
            members = [i for i, c in enumerate(d.chunks) if c.section_id == section_id]
            if not members:
                continue
            members.sort(key=lambda i: -cosines[doc_id][i])
            ranked += [(d.chunks[i].chunk_id, score) for i in members]
            taken += 1
            if taken >= METADATA_TOP_SECTIONS or len(ranked) >= depth:
                break
        return ranked[:depth]

    def _cards_path(
        self, docs: list[DocIndex], cosines: dict[str, np.ndarray], intent: QueryIntent, depth: int
    ) -> list[tuple[str, float]]:
        """Chunks whose cards carry the asked metrics (or their inputs) and periods; dense breaks ties."""
        asked = [m for m in intent.metrics if m in METRICS]
        periods = intent.temporal_scope.periods
        if not asked and not periods:
            return []
        for d in docs:
            self.cards_of(d)
        weights = metric_weights(asked, [m for d in docs for m in d.card_metrics])
        scored: list[tuple[float, float, str]] = []
        for d in docs:
            for i, (metrics, card_periods) in enumerate(zip(d.card_metrics, d.card_periods, strict=True)):
                metric = card_metric_score(metrics, asked, weights)
                if asked and not metric:
                    continue  # a period alone matches half the filing: no signal for a metric question
                score = metric + CARD_PERIOD_WEIGHT * card_period_score(card_periods, periods)
                if score > 0:
                    scored.append((score, float(cosines[d.doc_id][i]), d.chunks[i].chunk_id))
        scored.sort(key=lambda s: (-s[0], -s[1]))
        return [(cid, round(score, 4)) for score, _, cid in scored[:depth]]

    def _statements_path(
        self, docs: list[DocIndex], cosines: dict[str, np.ndarray], intent: QueryIntent, depth: int,
        use_cards: bool = True,
    ) -> list[tuple[str, float]]:
        """Chunks of the statements the question names (first) or its metrics imply, best card match first
        (without cards: most similar to the question first)."""
        named, implied = target_statements(intent)
        if not named and not implied:
            return []
        asked = [m for m in intent.metrics if m in METRICS] if use_cards else []
        for d in docs:
            self.cards_of(d)
        weights = metric_weights(asked, [m for d in docs for m in d.card_metrics])
        scored: list[tuple[float, float, str]] = []
        for d in docs:
            for i, found in enumerate(d.statements):
                if not found:
                    continue
                level = STATEMENT_NAMED if found & named else STATEMENT_IMPLIED if found & implied else 0.0
                if level:
                    score = level + card_metric_score(d.card_metrics[i], asked, weights)
                    scored.append((score, float(cosines[d.doc_id][i]), d.chunks[i].chunk_id))
        scored.sort(key=lambda s: (-s[0], -s[1]))
        return [(cid, round(score, 4)) for score, _, cid in scored[:depth]]


def metric_weights(asked: Sequence[str], card_metrics: Sequence[frozenset[str]]) -> dict[str, float]:
    """Inverse document frequency of each asked metric (and its inputs) over the searched cards."""
    n = len(card_metrics)
    names = set(asked) | {c for m in asked for c in components(m)}
    return {m: math.log(1.0 + n / (1.0 + sum(1 for ms in card_metrics if m in ms))) for m in names}


def card_metric_score(metrics: frozenset[str], asked: Sequence[str], weights: dict[str, float]) -> float:
    """IDF-weighted share of the asked metrics a card carries; a derived metric's inputs earn partial credit."""
    if not asked:
        return 0.0
    total = got = 0.0
    for m in asked:
        w = weights.get(m, 1.0)
        total += w
        if m in metrics:
            got += w
            continue
        inputs = components(m)
        if inputs:
            got += w * CARD_COMPONENT_CREDIT * sum(1 for c in inputs if c in metrics) / len(inputs)
    return got / total if total else 0.0


def card_period_score(card_periods: frozenset[str], asked: Sequence[str]) -> float:
    """Share of the asked periods a card carries (same time at another granularity earns partial credit)."""
    if not asked:
        return 0.0
    score = 0.0
    for p in asked:
        if p in card_periods:
            score += 1.0
        elif any(periods_overlap(p, q) for q in card_periods):
            score += CARD_OVERLAP_CREDIT
    return score / len(asked)


def asked_years(intent: QueryIntent) -> list[str]:
    """The years of the periods the plan asks, as a filing's columns print them ('FY2020', 'FY2025Q2' -> '2020',
    '2025'), each once."""
    return list(dict.fromkeys(str(y) for p in intent.temporal_scope.periods if (y := period_year(p)) is not None))


def lexicon_query(intent: QueryIntent) -> str:
    """Keywords, metric synonyms from the lexicon and fiscal years: the question in the filing's own words."""
    words = list(intent.keywords)
    for m in intent.metrics:
        if m in METRICS:
            words += synonyms(m)[:LEXICON_MAX_SYNONYMS]
    words += asked_years(intent)
    return " ".join(dict.fromkeys(words))


def _cosines(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """Row-wise dot products (einsum: no threaded BLAS call, which costs more than the work on 2 cores)."""
    if not len(matrix):
        return np.zeros(0, dtype=np.float32)
    return np.einsum("ij,j->i", matrix, np.asarray(vector, dtype=np.float32))


def _top_over_docs(docs: list[DocIndex], scores: dict[str, np.ndarray], depth: int) -> list[tuple[str, float]]:
    """The ``depth`` best chunks over several documents by a per-chunk score (ties by reading order)."""
    pooled = [(float(s), d.chunks[i].chunk_id, j, i) for j, d in enumerate(docs) for i, s in enumerate(scores[d.doc_id])]
    pooled.sort(key=lambda t: (-t[0], t[2], t[3]))
    return [(cid, s) for s, cid, _, _ in pooled[:depth]]
