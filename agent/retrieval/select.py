"""Final evidence selection: best first within a token budget, near-duplicates dropped, in document order.

Walking the final ranking, a chunk is taken unless it is a near-duplicate of one already taken (embedding
cosine above ``dedupe_cosine`` and no figure the other does not state: repeated tables, restated paragraphs) or
it would overflow the token budget;
selection stops at ``evidence_max_chunks`` (or the caller's k). The chosen chunks are then put back in document
order (document as routed, then reading order), which is how an analyst reads evidence and how the answer
step cites it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from pydantic import BaseModel, Field

from agent.finance.numbers import find_numbers
from agent.llm.models import CHARS_PER_TOKEN
from agent.retrieval.candidates import Candidate


class SelectionResult(BaseModel):
    """Selected evidence (document order) and what was left out and why."""

    selected: list[Candidate]
    duplicates: dict[str, str] = Field(default_factory=dict, description="dropped chunk -> the chunk it repeats")
    over_budget: list[str] = Field(default_factory=list, description="chunks that did not fit the token budget")
    tokens: int = 0


def estimate_tokens(text: str) -> int:
    """Tokens of a text by the characters-per-token rule (no tokenizer download)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _figures(text: str) -> frozenset[float]:
    return frozenset(round(n.value, 6) for n in find_numbers(text))


def repeats(text: str, other: str) -> bool:
    """``text`` states no figure ``other`` does not. Sibling tables (a segment's, a region's, a quarter's) read
    alike to an embedding, row for row, but their figures differ: each is evidence of its own."""
    return _figures(text) <= _figures(other)


def select_evidence(
    ranked: list[Candidate],
    vector_of: Callable[[Candidate], np.ndarray],
    max_chunks: int,
    token_budget: int,
    dedupe_cosine: float,
    doc_order: list[str] | None = None,
) -> SelectionResult:
    """Take the best candidates that fit, skipping near-duplicates; return them in document order."""
    taken: list[Candidate] = []
    vectors: list[np.ndarray] = []
    duplicates: dict[str, str] = {}
    over: list[str] = []
    tokens = 0
    for cand in ranked:
        if len(taken) >= max_chunks:
            break
        vec = vector_of(cand)
        twin = next((t for t, v in zip(taken, vectors, strict=True)
                     if float(np.dot(vec, v)) > dedupe_cosine and repeats(cand.chunk.text, t.chunk.text)), None)
        if twin is not None:
            duplicates[cand.chunk_id] = twin.chunk_id
            continue
        cost = estimate_tokens(cand.chunk.text)
        if taken and tokens + cost > token_budget:
            over.append(cand.chunk_id)
            continue
        taken.append(cand)
        vectors.append(vec)
        tokens += cost
    rank_of_doc = {d: i for i, d in enumerate(doc_order or [])}
    taken.sort(key=lambda c: (rank_of_doc.get(c.chunk.doc_id, len(rank_of_doc)), c.chunk.doc_id, c.chunk.ordinal))
    return SelectionResult(selected=taken, duplicates=duplicates, over_budget=over, tokens=tokens)
