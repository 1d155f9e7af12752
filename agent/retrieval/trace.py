"""The audit trace of one deep retrieval: what each stage took in, kept, scored and why.

Every stage appends a :class:`StageTrace` (candidates in and out with their scores and the card fields that
matched, groups, notes such as "cross-encoder not configured: stage skipped"); the bootstrap stage adds its
per-round ranks; the trace ends with each final chunk's rank variance and top-5 frequency (FinCARDS 3.4.5 and
appendix C). :meth:`AuditTrace.render_text` prints it for people (``finrag retrieve --trace``); the model itself
is the JSON form (``--json``).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from agent.schemas import QueryIntent

TRACE_ROWS = 10  # candidates shown per stage in the text rendering; the JSON keeps them all
REASONS_SHOWN = 4  # matched-field reasons shown per candidate line
GROUP_IDS_SHOWN = 6  # chunk ids listed per group in the text rendering


class TracedCandidate(BaseModel):
    """One candidate as a stage saw it."""

    chunk_id: str
    doc: str
    page: int = Field(description="1-based page for people")
    section: str = ""
    is_table: bool = False
    score: float = Field(description="the score this stage ranked by")
    scores: dict[str, float] = Field(default_factory=dict, description="named components: bm25, dense, align, ...")
    matched: list[str] = Field(default_factory=list, description="card fields that matched the intent, and why")


class RoundTrace(BaseModel):
    """One bootstrap round (FinCARDS Stage 3)."""

    round: int = Field(description="1-based")
    groups: list[list[str]] = Field(default_factory=list, description="chunk ids per group, in the judge's order")
    ranks: dict[str, int] = Field(default_factory=dict, description="chunk id -> 1-based rank inside its group")
    top: list[str] = Field(default_factory=list, description="the accumulated ranking's top set after this round")
    jaccard: float | None = Field(default=None, description="top-set Jaccard with the previous round")
    judge: str = Field(default="offline", description="which judge ranked the groups: llm | offline | mixed")


class StageTrace(BaseModel):
    """What one stage did."""

    stage: str
    skipped: bool = False
    seconds: float = 0.0
    n_in: int = 0
    n_out: int = 0
    notes: list[str] = Field(default_factory=list)
    groups: list[list[str]] = Field(default_factory=list, description="chunk ids per group (screening)")
    rounds: list[RoundTrace] = Field(default_factory=list, description="bootstrap rounds")
    out: list[TracedCandidate] = Field(default_factory=list, description="candidates out, best first")


class ChunkStability(BaseModel):
    """How stable a chunk's place was across bootstrap rounds."""

    chunk_id: str
    rank_variance: float = Field(description="variance of the normalised in-group rank (0 = best) over rounds")
    top5_frequency: float = Field(description="share of rounds in which the chunk was in that round's top 5")
    rounds: int = 0


class AuditTrace(BaseModel):
    """The whole story of one retrieval, readable by a person."""

    question: str
    intent: QueryIntent | None = None
    intent_source: str = Field(default="offline", description="offline | llm | given (by the caller)")
    documents: list[str] = Field(default_factory=list, description="names of the routed documents")
    routing: list[str] = Field(default_factory=list, description="why those documents")
    budget: int = Field(default=0, description="FinCARDS Stage 1 length-adaptive candidate budget K")
    stages: list[StageTrace] = Field(default_factory=list)
    stability: list[ChunkStability] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="fallbacks and skipped steps, run-wide")

    def stage(self, name: str) -> StageTrace | None:
        """The trace of one stage by name, if it ran."""
        return next((s for s in self.stages if s.stage == name), None)

    def total_seconds(self) -> float:
        """Time spent in all stages."""
        return sum(s.seconds for s in self.stages)

    def render_text(self, rows: int = TRACE_ROWS) -> str:
        """The trace as plain text, stage by stage (``rows`` candidates per stage)."""
        lines = [f"Question: {self.question}"]
        if self.intent is not None:
            it = self.intent
            periods = ", ".join(it.temporal_scope.periods) or "-"
            lines.append(
                f"Intent ({self.intent_source}): relation={it.relation.value} topic={it.topic} "
                f"metrics={', '.join(it.metrics) or '-'} periods={periods} company={it.company or '-'} "
                f"numeric={'yes' if it.requires_numeric else 'no'}"
            )
        lines.append(f"Documents: {', '.join(self.documents) or '-'}")
        lines += [f"  routing: {r}" for r in self.routing]
        if self.budget:
            lines.append(f"Candidate budget K = {self.budget}")
        lines += [f"Note: {n}" for n in self.notes]
        for st in self.stages:
            head = f"\n== {st.stage}"
            head += " (skipped)" if st.skipped else f": {st.n_in} in -> {st.n_out} out"
            lines.append(f"{head}  [{st.seconds * 1000:.0f} ms]")
            lines += [f"  - {n}" for n in st.notes]
            for i, group in enumerate(st.groups, 1):
                more = f" +{len(group) - GROUP_IDS_SHOWN}" if len(group) > GROUP_IDS_SHOWN else ""
                lines.append(f"  group {i} ({len(group)}): {', '.join(group[:GROUP_IDS_SHOWN])}{more}")
            for rt in st.rounds:
                jac = "" if rt.jaccard is None else f" jaccard={rt.jaccard:.2f}"
                sizes = "/".join(str(len(g)) for g in rt.groups)
                lines.append(f"  round {rt.round}: groups {sizes} judge={rt.judge}{jac}")
                lines.append(f"    top: {', '.join(rt.top[:5])}")
            for rank, c in enumerate(st.out[:rows], 1):
                comps = " ".join(f"{k}={v:.3f}" for k, v in c.scores.items())
                table = " [table]" if c.is_table else ""
                lines.append(f"  {rank:>2}. {c.chunk_id} [{c.doc}, p. {c.page}]{table} score={c.score:.4f} {comps}")
                if c.section:
                    lines.append(f"      section: {c.section}")
                if c.matched:
                    lines.append(f"      matched: {'; '.join(c.matched[:REASONS_SHOWN])}")
            if len(st.out) > rows:
                lines.append(f"  ... {len(st.out) - rows} more")
        if self.stability:
            lines.append("\n== stability (bootstrap)")
            for s in self.stability[:rows]:
                lines.append(
                    f"  {s.chunk_id}: rank variance={s.rank_variance:.4f} top-5 frequency={s.top5_frequency:.2f}"
                    f" over {s.rounds} rounds"
                )
        return "\n".join(lines)
