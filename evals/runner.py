"""The evaluation runner: the main graph over a dataset, every answer scored by the metrics library.

One runner serves ``finrag eval answers`` (a plain loop with a progress bar) and ``finrag eval run`` (the same
predictions and scores through ``langsmith.evaluate``, see :mod:`evals.langsmith_io`):

* **FinanceBench**: questions whose filing is available. The filings are ingested once into the bench index
  shared with the retrieval benchmark (``<home>/bench/financebench-<data-dir hash>``) and the graph picks the
  filing from the question's company and period, as a user's would.
* **ConvFinQA**: turn by turn on one thread per conversation, so follow-ups ("what about in 2008?") resolve
  against the conversation. Each report page is written as Markdown (text, table, text) and ingested.
* **TAT-QA**: each table with its paragraphs is written as Markdown and ingested.
* **questions**: a user's JSON-lines file of questions (and gold answers) over the filings already in
  ``FINRAG_HOME``.

Scope: ``corpus`` puts every document of a dataset in one index (the graph must find the right one);
``document`` gives each document its own small index under ``<bench>/scoped/<doc>``, so a question is answered
over its own page, the setting ConvFinQA and TAT-QA were built for (their questions do not name the company).
Defaults: FinanceBench corpus, ConvFinQA and TAT-QA document.

Per question the run keeps the prediction, the gold, the scores (numeric-tolerant match, token F1, refusal,
and the LLM judge when asked for and a model is configured), latency, per-node timings, model calls and tokens,
citations and routes. A run directory holds ``run.json`` (what was run), ``results.jsonl`` (one
:class:`QuestionResult` per line), ``summary.json`` and ``summary.md``; ``finrag eval report`` reads it.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import BaseModel, Field, ValidationError
from tqdm import tqdm

from agent.config import Settings
from agent.errors import FinragError
from agent.ingest.pipeline import MetadataOverrides, open_ingestor
from evals.cost import (
    CostReport,
    Distribution,
    PriceTable,
    QuestionCost,
    StepTokens,
    cost_report,
    distribution,
    question_cost,
)
from evals.datasets import doc_file_stem, load_convfinqa, load_financebench, load_tatqa, write_if_changed
from evals.judges import judge_correctness
from evals.metrics.answers import is_refusal, numeric_match
from evals.metrics.text import token_f1
from evals.printed import printed_copies
from evals.retrieval_bench import bench_home, current_documents
from graphs.checkpoint import strict_serializer
from graphs.nodes import GraphDeps
from graphs.service import AskResult, Assistant, CitationRef

DATASETS = ("financebench", "convfinqa", "tatqa", "questions", "analyst", "fresh", "analyst_printed", "fresh_printed")
Scope = Literal["corpus", "document"]
DEFAULT_SCOPE: dict[str, Scope] = {"financebench": "corpus", "convfinqa": "document", "tatqa": "document",
                                   "questions": "corpus", "analyst": "corpus", "fresh": "corpus", "analyst_printed": "corpus",
                                   "fresh_printed": "corpus"}
RUN_FILE, RESULTS_FILE, SUMMARY_FILE, SUMMARY_MD = "run.json", "results.jsonl", "summary.json", "summary.md"
OFFLINE_MODEL = "offline"
TOP_FAILURES = 3  # the report names the most common failure modes; three is what a person acts on
EXAMPLES_PER_FAILURE = 2  # questions shown per failure mode in the Markdown summary
PREVIEW_CHARS = 160  # prediction text shown per failure example
TATQA_SCALE_WORDS = {"thousand": "thousand", "million": "million", "billion": "billion"}  # TAT-QA scale -> word


# ---------------------------------------------------------------------------------------------------------
# Items
# ---------------------------------------------------------------------------------------------------------
class SourceDoc(BaseModel):
    """A document some items are about: its name in the index and the file to ingest."""

    name: str
    path: Path
    company: str = ""
    period: str = ""


class GoldPage(BaseModel):
    """A gold evidence page: document name and 1-based page (None when only the document is known)."""

    doc: str
    page: int | None = None


class EvalItem(BaseModel):
    """One question to ask the graph, with its gold answer."""

    id: str
    dataset: str
    question: str
    gold: str = Field(description="gold answer as text; '' when the question has none (not scored)")
    question_type: str = "all"
    docs: list[str] = Field(default_factory=list, description="names of the documents the question is about")
    gold_pages: list[GoldPage] = Field(default_factory=list)
    conversation: str = Field(default="", description="items of one conversation share a thread, in order")
    turn: int = 0
    split: str = "dev"
    metadata: dict[str, str | int | float | bool | None] = Field(default_factory=dict)


class EvalSet(BaseModel):
    """A dataset's items and the documents they need."""

    dataset: str
    data_dir: str = ""
    items: list[EvalItem]
    sources: dict[str, SourceDoc] = Field(default_factory=dict)


def financebench_set(data_dir: Path, limit: int | None = None) -> EvalSet:
    """FinanceBench questions whose filing is available, with page-level gold evidence."""
    fb = load_financebench(data_dir)
    items: list[EvalItem] = []
    for q in fb.questions:
        doc = fb.documents.get(q.doc_name)
        if not q.doc_available or doc is None or not doc.available or not doc.pdf_path:
            continue
        items.append(EvalItem(
            id=q.id, dataset="financebench", question=q.question, gold=q.answer, question_type=q.question_type or "all",
            docs=[q.doc_name],
            gold_pages=[GoldPage(doc=e.doc, page=e.page + 1 if e.page is not None else None) for e in q.evidence],
            split=str((q.model_extra or {}).get("split") or "dev"),
            metadata={"company": q.company, "fiscal_period": q.fiscal_period, "doc_type": q.doc_type},
        ))
    items = items[:limit] if limit else items
    needed = dict.fromkeys(d for item in items for d in item.docs)
    sources = {d: SourceDoc(name=d, path=fb.pdf(d)) for d in needed}
    return EvalSet(dataset="financebench", data_dir=str(data_dir), items=items, sources=sources)


def convfinqa_set(data_dir: Path, source_dir: Path, limit: int | None = None, write_sources: bool = True) -> EvalSet:
    """ConvFinQA conversations (the first ``limit`` of them) as turn items on one thread each; each page the
    conversations use is written to ``source_dir`` as Markdown (unless ``write_sources`` is False)."""
    cv = load_convfinqa(data_dir)
    conversations = cv.conversations[:limit] if limit else cv.conversations
    if write_sources:
        source_dir.mkdir(parents=True, exist_ok=True)
    items: list[EvalItem] = []
    sources: dict[str, SourceDoc] = {}
    for conv in conversations:
        page = cv.pages.get(conv.doc_name)
        if page is None:
            raise FinragError(f"ConvFinQA conversation {conv.id} uses page {conv.doc_name!r}, which pages.jsonl lacks")
        name = doc_file_stem(page.doc_id)
        if name not in sources:
            path = source_dir / f"{name}.md"
            if write_sources:
                write_if_changed(path, page.markdown())
            sources[name] = SourceDoc(name=name, path=path, company=page.company, period=page.fiscal_period)
        for turn in sorted(conv.turns, key=lambda t: t.turn):
            items.append(EvalItem(
                id=f"{conv.id}#t{turn.turn}", dataset="convfinqa", question=turn.question, gold=str(turn.answer),
                question_type=_turn_type(turn.program), docs=[name], gold_pages=[GoldPage(doc=name, page=1)],
                conversation=conv.id, turn=turn.turn, split=str((conv.model_extra or {}).get("split") or "dev"),
                metadata={"conversation_type": conv.question_type, "program": turn.program},
            ))
    return EvalSet(dataset="convfinqa", data_dir=str(data_dir), items=items, sources=sources)


def _turn_type(program: str) -> str:
    """A ConvFinQA turn's kind from its gold program: a value read off the page, or a computation."""
    ops = re.findall(r"([a-z_]+)\(", program or "")
    if not ops:
        return "lookup"
    return "multi-step" if len(ops) > 1 else ops[0]


def tatqa_markdown(table_markdown: str, paragraphs: Sequence[dict[str, Any]]) -> str:
    """A TAT-QA context as Markdown: the table, then its paragraphs in order."""
    texts = [str(p.get("text", "")).strip() for p in sorted(paragraphs, key=lambda p: p.get("order", 0))]
    return "\n\n".join([table_markdown.strip(), *[t for t in texts if t]]) + "\n"


def tatqa_gold(answer: list[str] | float | int | str, scale: str) -> str:
    """A TAT-QA answer as text with its scale ("1,496.5" + million -> "1,496.5 million"; percent -> "%")."""
    parts = [str(a) for a in answer] if isinstance(answer, list) else [str(answer)]
    text = ", ".join(p.strip() for p in parts if p.strip())
    has_number = bool(re.search(r"\d", text))
    if scale == "percent" and has_number and not text.endswith("%") and len(parts) == 1:
        return text + "%"
    if scale in TATQA_SCALE_WORDS and has_number and len(parts) == 1:
        return f"{text} {TATQA_SCALE_WORDS[scale]}"
    return text


def tatqa_set(data_dir: Path, source_dir: Path, limit: int | None = None, write_sources: bool = True) -> EvalSet:
    """TAT-QA questions; each context they use is written to ``source_dir`` as Markdown (unless
    ``write_sources`` is False)."""
    tq = load_tatqa(data_dir)
    questions = tq.questions[:limit] if limit else tq.questions
    if write_sources:
        source_dir.mkdir(parents=True, exist_ok=True)
    items: list[EvalItem] = []
    sources: dict[str, SourceDoc] = {}
    for q in questions:
        context = tq.contexts.get(q.doc_name)
        if context is None:
            raise FinragError(f"TAT-QA question {q.id} uses context {q.doc_name!r}, which contexts.jsonl lacks")
        name = doc_file_stem(context.doc_id)
        if name not in sources:
            path = source_dir / f"{name}.md"
            if write_sources:
                write_if_changed(path, tatqa_markdown(context.table_markdown, context.paragraphs))
            sources[name] = SourceDoc(name=name, path=path)
        extra = q.model_extra or {}
        items.append(EvalItem(
            id=q.id, dataset="tatqa", question=q.question, gold=tatqa_gold(q.answer, q.scale),
            question_type=str(extra.get("question_type") or q.answer_type or "all"), docs=[name],
            gold_pages=[GoldPage(doc=name, page=1)], split=str(extra.get("split") or "dev"),
            metadata={"answer_type": q.answer_type, "answer_from": q.answer_from, "scale": q.scale},
        ))
    return EvalSet(dataset="tatqa", data_dir=str(data_dir), items=items, sources=sources)


class UserQuestion(BaseModel):
    """One line of a user questions file (JSON lines)."""

    question: str
    answer: str | float | int | None = None
    id: str = ""
    question_type: str = "all"
    conversation: str = ""
    docs: list[str] = Field(default_factory=list)
    split: str = "dev"
    metadata: dict[str, str | int | float | bool | None] = Field(default_factory=dict)


def questions_set(path: Path, limit: int | None = None) -> EvalSet:
    """A user's questions file: ``{"question", "answer"?, "id"?, "question_type"?, "conversation"?, "docs"?,
    "split"?, "metadata"?}`` per line; asked over the filings already ingested in ``FINRAG_HOME``."""
    if not Path(path).is_file():
        raise FinragError(f"no questions file at {path}")
    items: list[EvalItem] = []
    turns: Counter[str] = Counter()
    with Path(path).open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                q = UserQuestion.model_validate(json.loads(line))
            except (json.JSONDecodeError, ValidationError) as exc:
                raise FinragError(f"{path}:{n}: not a valid question record: {str(exc)[:300]}") from exc
            gold = "" if q.answer is None else (str(int(q.answer)) if isinstance(q.answer, float) and
                                                q.answer.is_integer() else str(q.answer))
            items.append(EvalItem(
                id=q.id or f"q{n}", dataset="questions", question=q.question, gold=gold, question_type=q.question_type,
                docs=q.docs, gold_pages=[GoldPage(doc=d) for d in q.docs], conversation=q.conversation,
                turn=turns[q.conversation] if q.conversation else 0, split=q.split, metadata=q.metadata,
            ))
            if q.conversation:
                turns[q.conversation] += 1
    if len({i.id for i in items}) != len(items):
        raise FinragError(f"{path}: question ids must be unique")
    return EvalSet(dataset="questions", data_dir=str(path), items=items[:limit] if limit else items)


ANALYST_DIR = Path(__file__).parent / "analyst_set"


def analyst_set(limit: int | None = None) -> EvalSet:
    """The analyst set: 144 questions an analyst asks (the first ``limit``) of ten filings of ten companies typeset
    for finrag, which are its sources, in one index -- 10-Ks with segment tables under headings (named by a
    sentence, or only by a 'Business Segment Results' heading), a regional note and non-GAAP reconciliations;
    retailers' 10-Qs of 52/53-week years; banks' 10-Qs with three- and six-month columns and segment columns;
    earnings releases with 'Amount | Percent to Sales' columns under a quarter named in the header's first cell and
    product tables split 'U.S. | Ex-U.S. | Total'; a 20-F in Canadian dollars with a Note column. Each question's
    type names its class (segment, region, product, qualifier, fiscal calendar, shorthand, wrapper, follow-up, a
    trap whose answer is a refusal, ...). Written by finrag's developers: a check of the classes the dev sets
    barely hold, not a held-out score. Its bench home caches the filings by name: delete it after editing one."""
    return typeset_set("analyst", ANALYST_DIR, limit)


FRESH_DIR = Path(__file__).parent / "fresh_set"


def fresh_set(limit: int | None = None) -> EvalSet:
    """The fresh set: 275 questions on sixteen more typeset filings of sixteen other companies in one index (10-Ks,
    10-Qs, a 20-F and earnings releases of industries the dev sets barely hold: packaging, banking, pharma, retail,
    insurance, health, hardware, travel, REITs, airlines, chips; fiscal years ending in September, January and
    February). Written by finrag's developers in batches, each first run on the code before the fixes it led to
    (docs/evaluation.md: the figures); a regression guard since."""
    return typeset_set("fresh", FRESH_DIR, limit)


def typeset_set(dataset: str, folder: Path, limit: int | None = None) -> EvalSet:
    """A set of questions (``folder``/questions.jsonl) over the filings typeset beside them (``folder``/*.md), which
    are its sources, in one index."""
    base = questions_set(folder / "questions.jsonl", limit)
    items = [item.model_copy(update={"dataset": dataset}) for item in base.items]
    sources = {p.stem: SourceDoc(name=p.stem, path=p) for p in sorted(folder.glob("*.md"))}
    return EvalSet(dataset=dataset, data_dir=str(folder), items=items, sources=sources)


def load_eval_set(settings: Settings, data_dir: Path | None, dataset: str, limit: int | None = None,
                  questions: Path | None = None, write_sources: bool = True) -> EvalSet:
    """The items of ``dataset`` (``limit``: first N questions; ConvFinQA: first N conversations). ConvFinQA
    pages and TAT-QA contexts are written as Markdown under the bench home unless ``write_sources`` is False
    (an export needs the questions only)."""
    if limit is not None and limit < 1:
        raise FinragError("--limit must be at least 1.")
    if dataset == "questions":
        if questions is None:
            raise FinragError("the 'questions' dataset needs a questions file (--questions FILE)")
        return questions_set(questions, limit)
    typeset = {"analyst": analyst_set, "fresh": fresh_set}.get(dataset.removesuffix("_printed"))
    if typeset is not None:  # '<set>_printed': its filings printed to PDF (evals/printed.py)
        base = typeset(limit)
        pdfs = printed_copies({n: s.path for n, s in base.sources.items()}, settings.home / "bench" / dataset) \
            if dataset != base.dataset else {}
        return base if not pdfs else base.model_copy(update={"dataset": dataset, "sources": {
            n: s.model_copy(update={"path": pdfs[n]}) for n, s in base.sources.items()},
            "items": [i.model_copy(update={"dataset": dataset}) for i in base.items]})
    if dataset not in DATASETS:
        raise FinragError(f"unknown dataset {dataset!r}; choose from {', '.join(DATASETS)}")
    if data_dir is None:
        raise FinragError("No data directory: pass --data DIR or set FINRAG_DATA_DIR to a folder in the findata layout.")
    sources = bench_home(settings, data_dir, dataset) / "sources"
    if dataset == "financebench":
        return financebench_set(data_dir, limit)
    if dataset == "convfinqa":
        return convfinqa_set(data_dir, sources, limit, write_sources)
    return tatqa_set(data_dir, sources, limit, write_sources)


# ---------------------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------------------
class AnswerScores(BaseModel):
    """Scores of one prediction from the metrics library."""

    scored: bool = Field(default=True, description="False when the item has no gold answer")
    correct: bool = False
    match_kind: str = ""
    match_reason: str = ""
    token_f1: float = 0.0
    refusal: bool = False
    judge_correct: bool | None = Field(default=None, description="LLM judge majority (when run with a model)")
    judge_agreement: float | None = Field(default=None, description="share of judge runs agreeing with the majority")


class Prediction(BaseModel):
    """What the graph answered for one item, and what it took."""

    id: str
    answer: str = ""
    error: str = ""
    latency_s: float = 0.0
    thread_id: str = ""
    rewritten: str = ""
    citations: list[CitationRef] = Field(default_factory=list)
    routes: list[str] = Field(default_factory=list)
    timings: dict[str, float] = Field(default_factory=dict)
    stage_seconds: dict[str, float] = Field(default_factory=dict)
    steps: dict[str, StepTokens] = Field(default_factory=dict, description="model use per model step")
    fallbacks: int = 0
    confidence: float = 0.0
    gate_failures: list[str] = Field(default_factory=list, description="'check: why' of each figure the gate refused")


class QuestionResult(BaseModel):
    """One evaluated question: item, prediction, scores, cost and the failure mode when wrong."""

    id: str
    dataset: str
    question_type: str
    question: str
    gold: str
    prediction: str
    scores: AnswerScores
    latency_s: float
    timings: dict[str, float] = Field(default_factory=dict)
    cost: QuestionCost
    citations: list[CitationRef] = Field(default_factory=list)
    cited_gold_doc: bool | None = Field(default=None, description="None when the gold document is unknown")
    cited_gold_page: bool | None = Field(default=None, description="None when no gold page is known")
    routes: list[str] = Field(default_factory=list)
    rewritten: str = ""
    conversation: str = ""
    turn: int = 0
    thread_id: str = ""
    error: str = ""
    failure: str = Field(default="", description="'' when correct or unscored")
    confidence: float = Field(default=0.0, description="the answer's confidence (its least sure stated figure)")
    gate_failures: list[str] = Field(default_factory=list, description="'check: why' for each figure the gate refused")

    @property
    def outcome(self) -> Literal["right", "wrong", "refused", "unscored"]:
        """Right; wrong (a figure or claim stated, not right); refused (an honest 'not found', not right)."""
        if not self.scores.scored:
            return "unscored"
        if self.scores.correct:
            return "right"
        return "refused" if self.scores.refusal else "wrong"


class RunInfo(BaseModel):
    """What a run was: dataset, system, model, scope, when, and how long it took."""

    name: str
    dataset: str
    data_dir: str = ""
    scope: Scope = "corpus"
    runner: Literal["answers", "langsmith"] = "answers"
    model: str = OFFLINE_MODEL
    limit: int | None = None
    created: str = ""
    wall_s: float = 0.0
    ingest_s: float = 0.0
    warm_s: float = 0.0
    experiment: str = Field(default="", description="LangSmith experiment name (runner 'langsmith')")
    uploaded: bool = False
    settings: dict[str, str] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)


class GroupScore(BaseModel):
    """Scores over a group of questions: right / wrong (stated, not right) / refused, over scored questions."""

    n: int
    scored: int
    correct: int
    accuracy: float
    token_f1: float
    refusal_rate: float
    wrong: int = 0
    refused: int = 0
    wrong_rate: float = 0.0
    refused_rate: float = Field(default=0.0, description="honest refusals that were not the right answer")


class RunSummary(BaseModel):
    """A run's headline numbers."""

    name: str
    dataset: str
    n: int
    errors: int
    overall: GroupScore
    by_question_type: dict[str, GroupScore]
    latency: Distribution = Field(description="seconds per question")
    judge_accuracy: float | None = None
    failure_modes: dict[str, int] = Field(default_factory=dict, description="most common first")
    gate_failures: dict[str, int] = Field(
        default_factory=dict, description="trust-gate checks that refused a figure, by check, most common first"
    )
    cost: CostReport

    def metrics(self) -> dict[str, float]:
        """Flat metric names -> values (what ``--fail-under`` / ``--fail-over`` gate on)."""
        out = {
            "accuracy": self.overall.accuracy, "token_f1": self.overall.token_f1,
            "refusal_rate": self.overall.refusal_rate, "error_rate": self.errors / self.n if self.n else 0.0,
            "wrong_rate": self.overall.wrong_rate, "refused_rate": self.overall.refused_rate,
            "latency_p50_s": self.latency.p50, "latency_p95_s": self.latency.p95, "latency_mean_s": self.latency.mean,
            "tokens_per_question": self.cost.tokens.mean, "calls_per_question":
                self.cost.calls / self.cost.questions if self.cost.questions else 0.0,
            "cost_per_question": self.cost.cost_per_question.mean, "cost_total": self.cost.cost,
        }
        if self.judge_accuracy is not None:
            out["judge_accuracy"] = self.judge_accuracy
        for qtype, g in self.by_question_type.items():
            out[f"accuracy:{qtype}"] = g.accuracy
            out[f"wrong_rate:{qtype}"] = g.wrong_rate
        return out


class RunRecord(BaseModel):
    """A run as stored in its directory."""

    info: RunInfo
    results: list[QuestionResult]


# ---------------------------------------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------------------------------------
def score_prediction(question: str, prediction: str, gold: str, *, judge_model: BaseChatModel | None = None,
                     judge_runs: int = 0) -> AnswerScores:
    """Scores of one answer: numeric-tolerant match, token F1, refusal; the LLM judge when a model is given
    and ``judge_runs`` > 0. An item without a gold answer is only checked for refusal."""
    refusal = is_refusal(prediction)
    if not gold.strip():
        return AnswerScores(scored=False, refusal=refusal, match_reason="no gold answer")
    match = numeric_match(prediction, gold, question)
    scores = AnswerScores(correct=match.matched, match_kind=match.kind, match_reason=match.reason,
                          token_f1=token_f1(prediction, gold), refusal=refusal)
    if judge_model is not None and judge_runs > 0:
        verdict = judge_correctness(question, prediction, gold, model=judge_model, runs=judge_runs)
        scores.judge_correct = verdict.correct
        scores.judge_agreement = verdict.spread.agreement
    return scores


def failure_mode(item: EvalItem, scores: AnswerScores, prediction: Prediction, cited_doc: bool | None,
                 cited_page: bool | None) -> str:
    """Why an answer is wrong, from the match and the citations ('' when correct or unscored)."""
    if not scores.scored or scores.correct:
        return ""
    if prediction.error:
        return "error"
    if scores.refusal:
        return "answered 'not found'" if cited_doc is not False else "answered 'not found' (gold document not cited)"
    if scores.match_kind == "yes_no":
        return "wrong yes/no"
    if not prediction.citations:
        evidence_routes = {"deep_retrieval", "memory_lookup"}
        if prediction.routes and not evidence_routes & set(prediction.routes):
            return f"routed to {'/'.join(sorted(set(prediction.routes)))} instead of the filings"
        return "answer without citations"
    if cited_doc is False:
        return "wrong document cited"
    if scores.match_kind == "numeric":
        if "sign differs" in scores.match_reason:
            return "sign differs"
        if cited_page is False:
            return "wrong figure (gold page not cited)"
        return "wrong figure from the gold page" if cited_page else "wrong figure"
    if scores.match_kind == "text":
        return "text answer misses the gold's words"
    return scores.match_kind or "other"


def _cited(item: EvalItem, citations: Sequence[CitationRef]) -> tuple[bool | None, bool | None]:
    """Whether the answer cites a gold document, and a gold page (None when the gold does not say)."""
    gold_docs = {g.doc for g in item.gold_pages} or set(item.docs)
    if not gold_docs:
        return None, None
    cited_doc = any(c.doc in gold_docs for c in citations)
    pages = {(g.doc, g.page) for g in item.gold_pages if g.page is not None}
    cited_page = any((c.doc, c.page) in pages for c in citations) if pages else None
    return cited_doc, cited_page


def assemble(item: EvalItem, prediction: Prediction, scores: AnswerScores, *, model: str = "",
             prices: PriceTable | None = None) -> QuestionResult:
    """The stored record of one evaluated question."""
    cited_doc, cited_page = _cited(item, prediction.citations)
    cost = question_cost(item.id, prediction.timings or {"total": prediction.latency_s}, prediction.steps,
                         stage_seconds=prediction.stage_seconds, model=model, prices=prices)
    return QuestionResult(
        id=item.id, dataset=item.dataset, question_type=item.question_type, question=item.question, gold=item.gold,
        prediction=prediction.answer, scores=scores, latency_s=prediction.latency_s, timings=prediction.timings,
        cost=cost, citations=prediction.citations, cited_gold_doc=cited_doc, cited_gold_page=cited_page,
        routes=prediction.routes, rewritten=prediction.rewritten, conversation=item.conversation, turn=item.turn,
        thread_id=prediction.thread_id, error=prediction.error,
        failure=failure_mode(item, scores, prediction, cited_doc, cited_page),
        confidence=prediction.confidence, gate_failures=prediction.gate_failures,
    )


# ---------------------------------------------------------------------------------------------------------
# Running the graph
# ---------------------------------------------------------------------------------------------------------
class OfflineMarket:
    """Market data source of evaluation runs: benchmark answers come from filings, never the live market, so
    a run repeats exactly and never waits on the network; the graph reports the data as unavailable."""

    def _refuse(self, *args: object) -> Any:
        raise ConnectionError("live market data is not used in evaluation runs (offline)")

    fetch_quote = fetch_history = fetch_statement = _refuse


def ingest_missing(settings: Settings, sources: Sequence[SourceDoc], log: Callable[[str], None]) -> list[str]:
    """Ingest the documents not yet in ``settings``' index, or stored by another ingestion pipeline version
    (cached for later runs); failure notes."""
    present = current_documents(settings)
    todo = [s for s in sources if s.name not in present]
    if not todo:
        return []
    notes: list[str] = []
    if len(todo) > 1:
        log(f"ingesting {len(todo)} documents into {settings.index_dir} (cached for later runs)")
    with open_ingestor(settings) as ingestor:
        for i, source in enumerate(todo, 1):
            report = ingestor.ingest_file(source.path, MetadataOverrides(company=source.company, period=source.period))
            if report.status == "failed":
                notes.append(f"ingest failed: {source.path.name}: {report.error}")
            if len(todo) > 1:
                log(f"  [{i}/{len(todo)}] {report.status} {report.name} ({report.pages} pages, {report.seconds:.0f} s)")
    return notes


class GraphRunner:
    """Answers :class:`EvalItem` s with the main graph: one :class:`Assistant` per index (the corpus index, or
    one per document in document scope) and one thread per conversation. Use as a context manager."""

    def __init__(self, settings: Settings, eval_set: EvalSet, *, scope: Scope | None = None,
                 log: Callable[[str], None] | None = None) -> None:
        self.settings = settings
        self.eval_set = eval_set
        self.scope: Scope = scope or DEFAULT_SCOPE.get(eval_set.dataset, "corpus")
        self.log = log or (lambda line: print(line, file=sys.stderr))
        self.items = {item.id: item for item in eval_set.items}
        if len(self.items) != len(eval_set.items):
            raise FinragError(f"{eval_set.dataset}: item ids are not unique")
        self.notes: list[str] = []
        self.ingest_s = 0.0
        self.warm_s = 0.0
        self._assistants: dict[str, Assistant] = {}
        self._threads: dict[str, str] = {}
        self._deps = GraphDeps(market_source=OfflineMarket())
        self._stack = ExitStack()
        self._home = (settings.home if eval_set.dataset == "questions" or not eval_set.data_dir
                      else bench_home(settings, Path(eval_set.data_dir), eval_set.dataset))

    # --- lifecycle -----------------------------------------------------------------------------------------
    def __enter__(self) -> GraphRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def home_of(self, item: EvalItem) -> Path:
        """The data home whose index answers ``item``."""
        if self.scope == "document" and item.docs and self.eval_set.dataset != "questions":
            return self._home / "scoped" / item.docs[0]
        return self._home

    def prepare(self, ingest: bool = True, progress: bool = True) -> None:
        """Ingest what the items need (cached), so timings measure answering only."""
        started = time.perf_counter()
        if ingest and self.eval_set.sources:
            if self.scope == "corpus":
                self.notes += ingest_missing(self._settings_for(self._home), list(self.eval_set.sources.values()),
                                             self.log)
            else:
                docs = list(dict.fromkeys(d for item in self.eval_set.items for d in item.docs[:1]))
                todo = [d for d in docs if d in self.eval_set.sources]
                for name in tqdm(todo, desc="ingest", unit="doc", file=sys.stderr, disable=not progress or len(todo) < 2):
                    home = self._home / "scoped" / name
                    self.notes += ingest_missing(self._settings_for(home), [self.eval_set.sources[name]], self.log)
        self.ingest_s = round(time.perf_counter() - started, 3)

    def _settings_for(self, home: Path) -> Settings:
        return self.settings.replace(home=home)

    def assistant_for(self, item: EvalItem) -> Assistant:
        """The assistant over ``item``'s index (created and warmed on first use; warm time kept apart)."""
        home = str(self.home_of(item))
        assistant = self._assistants.get(home)
        if assistant is None:
            started = time.perf_counter()
            # Evaluation threads live in memory: they must not pile up in the user's conversation store.
            assistant = Assistant(self._settings_for(Path(home)), checkpointer=InMemorySaver(serde=strict_serializer()),
                                  deps=self._deps)
            self._stack.callback(assistant.close)
            assistant.warm()
            self._assistants[home] = assistant
            self.warm_s += time.perf_counter() - started
        return assistant

    def predict(self, item: EvalItem) -> Prediction:
        """Ask the graph ``item``'s question (on its conversation's thread); never raises for one question."""
        assistant = self.assistant_for(item)
        key = f"{self.home_of(item)}::{item.conversation or item.id}"
        thread = self._threads.setdefault(key, Assistant.new_thread())
        started = time.perf_counter()
        try:
            result = assistant.ask(item.question, thread_id=thread)
        except Exception as exc:  # one failing question is a scored failure, never the end of the run
            return Prediction(id=item.id, error=f"{type(exc).__name__}: {exc}"[:500], thread_id=thread,
                              latency_s=round(time.perf_counter() - started, 4))
        return prediction_of(item.id, result, time.perf_counter() - started)


def prediction_of(item_id: str, result: AskResult, wall_s: float) -> Prediction:
    """The parts of an :class:`AskResult` an evaluation keeps."""
    stages: dict[str, float] = {}
    for audit in result.trace.retrieval:
        for stage in audit.stages:
            stages[stage.stage] = max(stages.get(stage.stage, 0.0), stage.seconds)  # parallel: the slowest
    steps = {name: StepTokens(calls=s.calls, prompt_tokens=s.prompt_tokens, completion_tokens=s.completion_tokens,
                              latency_s=s.latency_s) for name, s in result.tokens.by_step.items()}
    return Prediction(
        id=item_id, answer=result.answer, latency_s=round(result.timings.get("total", wall_s), 4),
        thread_id=result.thread_id, rewritten=result.rewritten, citations=result.citations,
        routes=[r.route for r in result.routes], timings=result.timings, stage_seconds=stages, steps=steps,
        fallbacks=result.tokens.fallbacks, confidence=result.confidence,
        gate_failures=[f"{c.name}: {c.detail}" for c in result.checks if not c.passed and c.name != "scale"]
        + [f"model: {e.text}" for e in result.trace.events if "trust gate:" in e.text],
    )


def judge_model_of(settings: Settings, judge_runs: int) -> BaseChatModel | None:
    """The configured chat model when the judge is asked for; None offline (the numeric matcher is the judge)."""
    if judge_runs <= 0 or not settings.llm_enabled:
        return None
    from agent.llm.models import get_chat_model

    return get_chat_model(settings)


def model_name(settings: Settings) -> str:
    """The model name that prices a run ('offline' without a configured model)."""
    return settings.llm_model if settings.llm_enabled else OFFLINE_MODEL


def run_info(settings: Settings, eval_set: EvalSet, runner: GraphRunner, *, name: str = "",
             limit: int | None = None, kind: Literal["answers", "langsmith"] = "answers") -> RunInfo:
    """The header of a run directory."""
    model = model_name(settings)
    return RunInfo(
        name=name or f"{eval_set.dataset}-{runner.scope}-{model}", dataset=eval_set.dataset,
        data_dir=eval_set.data_dir, scope=runner.scope, runner=kind, model=model, limit=limit,
        created=datetime.now(UTC).isoformat(timespec="seconds"), ingest_s=runner.ingest_s,
        settings={"embedding_model": settings.embedding_model or "packaged all-MiniLM-L6-v2",
                  "cross_encoder_model": settings.cross_encoder_model or "-", "device": settings.resolved_device(),
                  "index_home": str(runner.home_of(eval_set.items[0]) if eval_set.items else "")},
        notes=list(runner.notes),
    )


def run_answers(
    settings: Settings,
    eval_set: EvalSet,
    *,
    scope: Scope | None = None,
    name: str = "",
    limit: int | None = None,
    ingest: bool = True,
    judge_runs: int = 0,
    prices: PriceTable | None = None,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
) -> RunRecord:
    """Run the graph over every item (in order: conversations turn by turn), score each answer."""
    if not eval_set.items:
        raise FinragError(f"{eval_set.dataset}: no questions to run")
    judge = judge_model_of(settings, judge_runs)
    model = model_name(settings)
    results: list[QuestionResult] = []
    with GraphRunner(settings, eval_set, scope=scope, log=log) as runner:
        runner.prepare(ingest=ingest, progress=progress)
        started = time.perf_counter()
        bar = tqdm(eval_set.items, desc=eval_set.dataset, unit="q", file=sys.stderr, disable=not progress)
        correct = 0
        for i, item in enumerate(bar, 1):
            prediction = runner.predict(item)
            scores = score_prediction(item.question, prediction.answer, item.gold, judge_model=judge,
                                      judge_runs=judge_runs)
            results.append(assemble(item, prediction, scores, model=model, prices=prices))
            correct += scores.correct
            bar.set_postfix(acc=f"{correct / i:.0%}", refresh=False)
        info = run_info(settings, eval_set, runner, name=name, limit=limit)
        info.wall_s = round(time.perf_counter() - started, 3)
        info.warm_s = round(runner.warm_s, 3)
    return RunRecord(info=info, results=results)


# ---------------------------------------------------------------------------------------------------------
# Summaries and run directories
# ---------------------------------------------------------------------------------------------------------
def group_score(results: Sequence[QuestionResult]) -> GroupScore:
    """Accuracy (over scored questions), mean token F1 and refusal rate of a group."""
    scored = [r for r in results if r.scores.scored]
    n_scored = len(scored)
    correct = sum(r.scores.correct for r in scored)
    wrong = sum(r.outcome == "wrong" for r in scored)
    refused = sum(r.outcome == "refused" for r in scored)
    return GroupScore(
        n=len(results), scored=n_scored, correct=correct, accuracy=correct / n_scored if n_scored else 0.0,
        token_f1=sum(r.scores.token_f1 for r in scored) / n_scored if n_scored else 0.0,
        refusal_rate=sum(r.scores.refusal for r in results) / len(results) if results else 0.0,
        wrong=wrong, refused=refused, wrong_rate=wrong / n_scored if n_scored else 0.0,
        refused_rate=refused / n_scored if n_scored else 0.0,
    )


def summarise(record: RunRecord, prices: PriceTable | None = None) -> RunSummary:
    """Headline numbers of a run: accuracy overall and by question type, latency, failure modes, cost."""
    results = record.results
    types: dict[str, list[QuestionResult]] = {}
    for r in results:
        types.setdefault(r.question_type, []).append(r)
    judged = [r for r in results if r.scores.judge_correct is not None]
    failures = Counter(r.failure for r in results if r.failure)
    gated = Counter(f.split(":", 1)[0] for r in results for f in dict.fromkeys(r.gate_failures))
    model = record.info.model if record.info.model != OFFLINE_MODEL else ""
    return RunSummary(
        name=record.info.name, dataset=record.info.dataset, n=len(results), errors=sum(bool(r.error) for r in results),
        overall=group_score(results), by_question_type={k: group_score(v) for k, v in sorted(types.items())},
        latency=distribution(r.latency_s for r in results),
        judge_accuracy=sum(bool(r.scores.judge_correct) for r in judged) / len(judged) if judged else None,
        failure_modes=dict(failures.most_common()),
        gate_failures=dict(gated.most_common()),
        cost=cost_report([r.cost for r in results], model=model, prices=prices),
    )


def render_summary(record: RunRecord, summary: RunSummary) -> str:
    """A run's summary as Markdown: accuracy by question type, latency, failure modes with examples, cost."""
    info, o = record.info, summary.overall
    lines = [
        f"# Answer evaluation: {info.name}",
        "",
        f"Dataset `{info.dataset}` ({info.scope} scope) · model {info.model} · runner {info.runner} · "
        f"{summary.n} questions · {info.created}",
        f"Run time {info.wall_s:.1f} s (plus ingest {info.ingest_s:.1f} s, index warm-up {info.warm_s:.1f} s)"
        + (f" · LangSmith experiment `{info.experiment}`{' (uploaded)' if info.uploaded else ' (local)'}"
           if info.experiment else ""),
        "",
        "## Accuracy",
        "",
        "Right; wrong = a figure or claim stated that is not right; refused = an honest \"not found\" that is not",
        "the right answer (on trap sets the right answer *is* a refusal).",
        "",
        "| question type | n | right | wrong | refused | token F1 |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for qtype, g in summary.by_question_type.items():
        lines.append(f"| {qtype} | {g.scored} | {g.correct} ({g.accuracy:.1%}) | {g.wrong} ({g.wrong_rate:.1%}) | "
                     f"{g.refused} ({g.refused_rate:.1%}) | {g.token_f1:.3f} |")
    lines.append(f"| **all** | {o.scored} | {o.correct} (**{o.accuracy:.1%}**) | {o.wrong} (**{o.wrong_rate:.1%}**) | "
                 f"{o.refused} ({o.refused_rate:.1%}) | {o.token_f1:.3f} |")
    if summary.judge_accuracy is not None:
        lines += ["", f"LLM judge accuracy: {summary.judge_accuracy:.1%}"]
    lat = summary.latency
    lines += ["", "## Latency", "", f"End to end per question: p50 {lat.p50:.3f} s · p95 {lat.p95:.3f} s · "
              f"mean {lat.mean:.3f} s · max {lat.max:.3f} s" + (f" · {summary.errors} errors" if summary.errors else ""),
              "", "## Cost and time per node", "", summary.cost.to_markdown()]
    if summary.failure_modes:
        lines += ["## Failure modes", "", "| failure | questions |", "|---|---:|"]
        lines += [f"| {mode} | {count} |" for mode, count in summary.failure_modes.items()]
        lines.append("")
        for mode in list(summary.failure_modes)[:TOP_FAILURES]:
            lines.append(f"**{mode}**, e.g.:")
            for r in [r for r in record.results if r.failure == mode][:EXAMPLES_PER_FAILURE]:
                answer = " ".join((r.prediction or r.error).split())
                answer = answer if len(answer) <= PREVIEW_CHARS else answer[: PREVIEW_CHARS - 1] + "…"
                lines.append(f"- `{r.id}` {r.question!r} gold {r.gold[:80]!r} -> {answer!r}")
            lines.append("")
    if summary.gate_failures:
        lines += ["## Trust gate refusals", "", "Figures the gate refused, by the check that failed:", "",
                  "| check | questions |", "|---|---:|"]
        lines += [f"| {check} | {count} |" for check, count in summary.gate_failures.items()]
        lines.append("")
        for check in summary.gate_failures:
            example = next(r for r in record.results if any(f.startswith(f"{check}:") for f in r.gate_failures))
            why = next(f for f in example.gate_failures if f.startswith(f"{check}:"))
            lines.append(f"- {check}, e.g. `{example.id}` {example.question[:100]!r}: {why[:200]}")
        lines.append("")
    if info.notes:
        lines += ["## Notes", ""] + [f"- {n}" for n in info.notes] + [""]
    return "\n".join(lines) + "\n"


def _atomic_write(path: Path, text: str) -> None:
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp", encoding="utf-8") as fh:
        fh.write(text)
    Path(fh.name).replace(path)


def write_run(record: RunRecord, out_dir: Path, prices: PriceTable | None = None) -> RunSummary:
    """Write ``run.json``, ``results.jsonl``, ``summary.json`` and ``summary.md`` into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = summarise(record, prices)
    _atomic_write(out_dir / RUN_FILE, record.info.model_dump_json(indent=2))
    _atomic_write(out_dir / RESULTS_FILE, "".join(r.model_dump_json() + "\n" for r in record.results))
    _atomic_write(out_dir / SUMMARY_FILE, summary.model_dump_json(indent=2))
    _atomic_write(out_dir / SUMMARY_MD, render_summary(record, summary))
    return summary


def load_run(run_dir: Path) -> RunRecord:
    """A run directory written by :func:`write_run` (FinragError when it is not one)."""
    run_dir = Path(run_dir)
    info_path, results_path = run_dir / RUN_FILE, run_dir / RESULTS_FILE
    if not info_path.is_file() or not results_path.is_file():
        raise FinragError(f"{run_dir} is not a run directory (expected {RUN_FILE} and {RESULTS_FILE})")
    try:
        info = RunInfo.model_validate_json(info_path.read_text(encoding="utf-8"))
        results = [QuestionResult.model_validate_json(line)
                   for line in results_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except ValidationError as exc:
        raise FinragError(f"{run_dir}: unreadable run files: {str(exc)[:300]}") from exc
    return RunRecord(info=info, results=results)


def default_run_dir(settings: Settings, dataset: str, kind: str = "answers") -> Path:
    """Where a run goes without ``--out``: ``<home>/reports/<kind>-<dataset>-<UTC time>``."""
    return settings.home / "reports" / f"{kind}-{dataset}-{datetime.now(UTC):%Y%m%d-%H%M%S}"

