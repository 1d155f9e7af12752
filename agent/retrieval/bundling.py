"""Chunk bundling (VeritasFi 4.2.2): a strong hit brings its similar neighbours from the same section.

A candidate whose similarity to the question exceeds ``bundle_hit_sim`` is a strong hit. Starting from the hit,
neighbours are examined outwards in both directions (previous, next, then one further each way) inside the
hit's section; a neighbour joins when its embedding's cosine with the hit's exceeds ``bundle_neighbour_sim``,
and a direction stops at the first neighbour that does not (a bundle is contiguous). A bundle holds at most
``bundle_max`` chunks including the hit. Chunks new to the candidate set enter right after their hit, with the
hit's retrieval score scaled by their similarity to it, so a continuation table keeps its header's standing.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, Field

from agent.config import Settings
from agent.retrieval.candidates import Candidate, CandidateGenerator


class Bundle(BaseModel):
    """One strong hit and the neighbours it brought."""

    hit: str
    members: list[str] = Field(description="chunk ids in reading order, the hit included")
    similarities: dict[str, float] = Field(default_factory=dict, description="neighbour -> cosine with the hit")


class BundlingResult(BaseModel):
    """Candidates after bundling and the bundles formed."""

    candidates: list[Candidate]
    bundles: list[Bundle] = Field(default_factory=list)
    added: int = 0
    strong_hits: int = 0


def neighbour_order(position: int, lo: int, hi: int) -> list[tuple[int, int]]:
    """Positions to examine around ``position`` inside ``[lo, hi]``, nearest first, as (direction, position)."""
    out: list[tuple[int, int]] = []
    step = 1
    while position - step >= lo or position + step <= hi:
        if position - step >= lo:
            out.append((-1, position - step))
        if position + step <= hi:
            out.append((1, position + step))
        step += 1
    return out


def bundle_members(
    position: int, section_ids: list[int], matrix: np.ndarray, neighbour_sim: float, max_size: int
) -> tuple[list[int], dict[int, float]]:
    """Positions bundled with the hit at ``position`` (reading order) and each neighbour's cosine with it."""
    section = section_ids[position]
    lo = hi = position
    while lo - 1 >= 0 and section_ids[lo - 1] == section:
        lo -= 1
    while hi + 1 < len(section_ids) and section_ids[hi + 1] == section:
        hi += 1
    members = [position]
    sims: dict[int, float] = {}
    open_dirs = {-1, 1}
    for direction, j in neighbour_order(position, lo, hi):
        if len(members) >= max_size or not open_dirs:
            break
        if direction not in open_dirs:
            continue
        sim = float(np.dot(matrix[position], matrix[j]))
        if sim > neighbour_sim:
            members.append(j)
            sims[j] = sim
        else:
            open_dirs.discard(direction)  # a bundle is contiguous: one dissimilar neighbour closes the side
    return sorted(members), sims


def bundle_candidates(
    candidates: list[Candidate], generator: CandidateGenerator, query_vector: np.ndarray, settings: Settings
) -> BundlingResult:
    """Expand strong hits with similar same-section neighbours (new chunks inserted after their hit)."""
    present = {c.chunk_id for c in candidates}
    out: list[Candidate] = []
    bundles: list[Bundle] = []
    strong = 0
    for cand in candidates:
        out.append(cand)
        if cand.query_cosine <= settings.bundle_hit_sim:
            continue
        strong += 1
        index = generator.doc_index(cand.chunk.doc_id)
        position = index.position[cand.chunk_id]
        section_ids = [c.section_id for c in index.chunks]
        members, sims = bundle_members(
            position, section_ids, index.matrix, settings.bundle_neighbour_sim, settings.bundle_max
        )
        if len(members) == 1:
            continue
        bundles.append(
            Bundle(
                hit=cand.chunk_id,
                members=[index.chunks[j].chunk_id for j in members],
                similarities={index.chunks[j].chunk_id: round(s, 4) for j, s in sims.items()},
            )
        )
        for j in members:
            chunk = index.chunks[j]
            if chunk.chunk_id in present:
                continue
            present.add(chunk.chunk_id)
            sim = sims[j]
            out.append(
                Candidate(
                    chunk=chunk,
                    doc_name=cand.doc_name,
                    retrieval_score=cand.retrieval_score * sim,
                    retrieval_norm=cand.retrieval_norm * sim,
                    query_cosine=float(np.dot(index.matrix[j], query_vector)),
                    path_scores={"bundle": round(sim, 4)},
                    bundle_of=cand.chunk_id,
                )
            )
    generator.attach_cards(out)
    return BundlingResult(candidates=out, bundles=bundles, added=len(out) - len(candidates), strong_hits=strong)
