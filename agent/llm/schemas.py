"""Output schemas of the language-model steps that ``agent/schemas.py`` does not already cover.

Prompts (``agent/llm/prompts.py``) describe these fields and parsers validate against them, so both sides share
one definition. Chunk Cards and Query Intents use :class:`agent.schemas.ChunkCard` and
:class:`agent.schemas.QueryIntent` directly. Every schema here is also what the offline twin of its step
returns, so the graph never needs to know which path produced a record.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from agent.schemas import Citation, SearchHit


# ---------------------------------------------------------------------------------------------------------
# Preprocessing: conversation rewrite and decomposition (VeritasFi 4.1)
# ---------------------------------------------------------------------------------------------------------
class RewriteOutput(BaseModel):
    """The user's latest turn rewritten as a standalone question (references resolved from the history)."""

    question: str = Field(description="the latest question, self-contained: company, metric and period explicit")
    carried_over: list[str] = Field(
        default_factory=list,
        description="slots taken from earlier turns, as 'slot: value', e.g. 'company: 3M', 'period: FY2022'",
    )
    changed: bool = Field(default=False, description="true when the question differs from what the user typed")

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("question must not be empty")
        return value.strip()


class SubQuery(BaseModel):
    """One minimal, self-contained information need: one company x one metric x one period."""

    question: str = Field(description="a standalone question that names its company, metric and period")
    company: str = Field(default="", description="the one company (or segment) it is about, '' if none")
    metric: str = Field(default="", description="the one metric it asks for, '' for non-numeric questions")
    period: str = Field(default="", description="the one normalised period, e.g. FY2022 or FY2023Q2, '' if none")

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("sub-query question must not be empty")
        return value.strip()


class Decomposition(BaseModel):
    """The rewritten question split into sub-queries (a simple question stays one sub-query)."""

    sub_queries: list[SubQuery] = Field(min_length=1, description="at least one; one per company x metric x period")


# ---------------------------------------------------------------------------------------------------------
# Reranking: FinCARDS Stage 2 (batch selection) and Stage 3 (listwise ranking)
# ---------------------------------------------------------------------------------------------------------
class SelectedChunk(BaseModel):
    """One finalist of a Stage 2 group, with why it was kept."""

    chunk_id: str
    selection_reasons: list[str] = Field(default_factory=list, description="card fields that matched the intent")
    relevance_score: int = Field(ge=0, le=100, description="0-100, higher is more relevant")


class ScreeningSelection(BaseModel):
    """FinCARDS B.3: the finalists chosen from one group, most relevant first."""

    selected_chunks: list[SelectedChunk] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_ids(self) -> ScreeningSelection:
        ids = [c.chunk_id for c in self.selected_chunks]
        if len(ids) != len(set(ids)):
            raise ValueError("selected_chunks repeats a chunk_id")
        return self


class RankedChunk(BaseModel):
    """One chunk's place in a Stage 3 listwise ranking."""

    chunk_id: str
    rank: int = Field(ge=1, description="1 = most relevant")
    reason: str = ""


class ListwiseRanking(BaseModel):
    """FinCARDS B.4: a complete ordering of one group, ranks 1..n without gaps or ties."""

    ranked_chunks: list[RankedChunk] = Field(default_factory=list)

    @model_validator(mode="after")
    def _complete_order(self) -> ListwiseRanking:
        ids = [c.chunk_id for c in self.ranked_chunks]
        if len(ids) != len(set(ids)):
            raise ValueError("ranked_chunks repeats a chunk_id")
        ranks = sorted(c.rank for c in self.ranked_chunks)
        if ranks != list(range(1, len(ranks) + 1)):
            raise ValueError("ranks must be 1..n with no gaps or ties")
        return self

    def ordered_ids(self) -> list[str]:
        """Chunk ids from most to least relevant."""
        return [c.chunk_id for c in sorted(self.ranked_chunks, key=lambda c: c.rank)]


# ---------------------------------------------------------------------------------------------------------
# Prompt inputs: evidence and conversation, rendered by agent/llm/prompts.py
# ---------------------------------------------------------------------------------------------------------
class EvidenceBlock(BaseModel):
    """One piece of evidence handed to the answer step, with the label it must be cited by."""

    label: str = Field(description="how to cite it, e.g. '[3M_2018_10K, p. 60]' or '[memory bank]'")
    text: str
    source: Literal["filing", "memory", "market"] = "filing"
    chunk_id: str = ""

    @classmethod
    def from_hit(cls, hit: SearchHit) -> EvidenceBlock:
        """Evidence from a retrieved filing chunk, cited by document name and 1-based page."""
        citation = Citation(doc=hit.doc_name, page=hit.page_label, chunk_id=hit.chunk.chunk_id)
        return cls(label=citation.label(), text=hit.chunk.text, source="filing", chunk_id=hit.chunk.chunk_id)


class SubAnswer(BaseModel):
    """A sub-query's answer, merged with the others into the final reply."""

    question: str
    answer: str
