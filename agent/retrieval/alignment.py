"""Card-intent alignment (FinCARDS 3.4.3 rubric): the offline judge for screening and listwise ranking.

``align`` compares a Chunk Card with a Query Intent field by field and returns a score in [0, 1] with its
components and plain-language reasons ("metric matched: capital expenditure ~ Purchases of property, plant and
equipment"; "period matched: FY2018"; "boilerplate down-weighted (x0.52)"). It reads only the card, never the
chunk text, is deterministic, and costs microseconds, so Stage 2/3 can call it on every candidate.

Score = weighted mean of the applicable components (metric, period, entity/scope, evidence type, keywords)
times a boilerplate factor. A component the intent does not constrain (no period asked) is left out of the
mean rather than scored, so cards are compared only on what the question demands.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pydantic import BaseModel, Field

from agent.finance.lexicon import canonical, components
from agent.finance.metrics import METRICS
from agent.finance.periods import periods_overlap
from agent.schemas import ChunkCard, ClaimRole, EvidenceType, QueryIntent, Relation

# --- weights of the components (FinCARDS Stage 2 rubric, in its order of importance) ---------------------
METRIC_WEIGHT = 0.35  # (i) the asked metric is the first condition evidence must meet
PERIOD_WEIGHT = 0.25  # (ii) wrong-period evidence is the most common silent error in filings QA
EVIDENCE_TYPE_WEIGHT = 0.15  # (iv) numbers need tables/figures, "why" needs prose
ENTITY_WEIGHT = 0.10  # (iii) one filing is one company; scope (segment vs total) still separates chunks
KEYWORD_WEIGHT = 0.15  # lexical cues the schema does not capture (summary, section, entity words)
TOPIC_ONLY_SHARE = 0.5  # with no metric asked, the topic stands in for it at half the metric weight

# --- credit levels -----------------------------------------------------------------------------------------
COMPONENT_CREDIT = 0.8  # the card holds the inputs of an asked derived metric (times the share held)
MIN_COMPONENT_SHARE = 0.5  # even one input of a ratio is a strong lead: its table usually holds the other
RELATED_CREDIT = 0.5  # a close metric: diluted EPS for EPS, net income for net income attributable
DERIVED_FROM_CREDIT = 0.4  # the card has a metric computed from the asked one (gross margin for revenue)
TOPIC_CREDIT = 0.15  # same topic, different metric: weak but better than nothing
PERIOD_OVERLAP_CREDIT = 0.7  # FY2023 asked, card has FY2023Q2 (or the reverse): same time, other granularity
UNDATED_CREDIT = 0.3  # the card names no period: its table header may sit in a neighbouring chunk
COMPANY_UNKNOWN_CREDIT = 0.5  # the card does not say whose it is
SCOPE_MISMATCH_CREDIT = 0.6  # segment detail for a company-level question (or the reverse)
SCOPE_MISSING_CREDIT = 0.3  # the asked segment/region is not on the card
CAVEAT_FACTOR = 0.9  # caveats qualify evidence; they rarely are the evidence
COMPANY_MIN_CHARS = 3  # a card entity this long inside the asked company's name counts ("3M": exact only)

# --- down-weighting ----------------------------------------------------------------------------------------
# factor = 1 - penalty * likelihood: certain boilerplate keeps 40% (FinCARDS: "unless uniquely relevant").
BOILERPLATE_PENALTY = 0.6
STRUCTURAL_FACTOR = 0.2  # headings and tables of contents have no evidence capability (FinCARDS B.1)

# How well each evidence type serves each kind of question.
_NUMERIC_FIT: dict[EvidenceType, float] = {
    EvidenceType.TABLE_NUMERIC: 1.0,
    EvidenceType.NARRATIVE_NUMERIC: 0.8,
    EvidenceType.GUIDANCE: 0.4,
    EvidenceType.QUALITATIVE_EXPLANATION: 0.3,
    EvidenceType.POLICY_TEXT: 0.2,
    EvidenceType.NONE: 0.0,
}
_EXPLANATION_FIT: dict[EvidenceType, float] = {
    EvidenceType.QUALITATIVE_EXPLANATION: 1.0,
    EvidenceType.NARRATIVE_NUMERIC: 0.9,
    EvidenceType.TABLE_NUMERIC: 0.5,
    EvidenceType.GUIDANCE: 0.5,
    EvidenceType.POLICY_TEXT: 0.4,
    EvidenceType.NONE: 0.0,
}
_DEFINITION_FIT: dict[EvidenceType, float] = {
    EvidenceType.POLICY_TEXT: 1.0,
    EvidenceType.QUALITATIVE_EXPLANATION: 0.7,
    EvidenceType.NARRATIVE_NUMERIC: 0.5,
    EvidenceType.GUIDANCE: 0.4,
    EvidenceType.TABLE_NUMERIC: 0.3,
    EvidenceType.NONE: 0.0,
}
_QUALITATIVE_FIT: dict[EvidenceType, float] = {
    EvidenceType.QUALITATIVE_EXPLANATION: 0.9,
    EvidenceType.NARRATIVE_NUMERIC: 0.9,
    EvidenceType.POLICY_TEXT: 0.7,
    EvidenceType.GUIDANCE: 0.7,
    EvidenceType.TABLE_NUMERIC: 0.6,
    EvidenceType.NONE: 0.0,
}
_WORD = re.compile(r"[a-z0-9&]+")


class AlignmentComponents(BaseModel):
    """Per-field scores in [0, 1]; None where the intent does not constrain the field."""

    metric: float | None = None
    period: float | None = None
    entity: float | None = None
    evidence_type: float = 0.0
    keyword: float | None = None
    boilerplate_factor: float = Field(default=1.0, description="multiplier applied to the weighted mean")


class Alignment(BaseModel):
    """How well a card can serve as evidence for an intent, and why."""

    chunk_id: str
    score: float = Field(ge=0.0, le=1.0)
    components: AlignmentComponents
    matched: list[str] = Field(default_factory=list, description="human-readable reasons, one per field")


# ---------------------------------------------------------------------------------------------------------
# Fields
# ---------------------------------------------------------------------------------------------------------
def _metric_surfaces(card: ChunkCard) -> dict[str, str]:
    """Canonical metric -> the words the chunk used for it (first mention)."""
    out: dict[str, str] = {}
    for span in card.evidence_spans:
        if span.field == "metric":
            key = canonical(span.value) or span.value
            out.setdefault(key, " ".join(span.value.split()))
    return out


def _canonical_names(names: list[str]) -> list[str]:
    """Names mapped to the lexicon's canonical metrics where known (a language-model card may say "capex")."""
    return list(dict.fromkeys(canonical(n) or n.strip().lower() for n in names))


def _metric_score(card: ChunkCard, intent: QueryIntent, reasons: list[str]) -> float | None:
    asked = _canonical_names(intent.metrics)
    have = set(_canonical_names(card.metrics))
    if not asked:
        if intent.topic in ("", "Other"):
            return None
        hit = card.topic == intent.topic
        reasons.append(
            f"topic matched: {card.topic}" if hit else f"topic differs: {card.topic} vs {intent.topic}"
        )
        return 1.0 if hit else 0.0
    known = [c for c in have if c in METRICS]
    surfaces = _metric_surfaces(card)
    scores: list[float] = []
    for m in asked:
        if m in have:
            surface = surfaces.get(m, m)
            same = surface.lower() == m
            reasons.append(f"metric matched: {m}" + ("" if same else f" ~ {surface}"))
            scores.append(1.0)
            continue
        info = METRICS.get(m)
        if info is None:  # a metric outside the lexicon matches only by name
            reasons.append(f"metric missing: {m}")
            scores.append(0.0)
            continue
        inputs = components(m)
        held = [c for c in inputs if c in have]
        if held:
            share = len(held) / len(inputs)
            reasons.append(f"metric components: {m} <- {', '.join(held)} ({len(held)}/{len(inputs)})")
            scores.append(COMPONENT_CREDIT * max(share, MIN_COMPONENT_SHARE))
            continue
        related = [r for r in info.related if r in have] + [c for c in known if m in METRICS[c].related]
        if related:
            reasons.append(f"related metric: {m} ~ {related[0]}")
            scores.append(RELATED_CREDIT)
            continue
        derived = [c for c in known if m in components(c)]
        if derived:
            reasons.append(f"metric derived from {m}: {derived[0]}")
            scores.append(DERIVED_FROM_CREDIT)
            continue
        if any(METRICS[c].topic == info.topic for c in known):
            reasons.append(f"metric missing: {m} (same topic {info.topic})")
            scores.append(TOPIC_CREDIT)
        else:
            reasons.append(f"metric missing: {m}")
            scores.append(0.0)
    return sum(scores) / len(scores)


def _period_score(card: ChunkCard, intent: QueryIntent, reasons: list[str]) -> float | None:
    asked = intent.temporal_scope.periods
    if not asked:
        return None
    have = card.periods
    if not have:
        reasons.append("no period on card")
        return UNDATED_CREDIT
    scores: list[float] = []
    exact: list[str] = []
    partial: list[str] = []
    for p in asked:
        if p in have:
            exact.append(p)
            scores.append(1.0)
        else:
            near = next((h for h in have if periods_overlap(p, h)), "")
            if near:
                partial.append(f"{p} ~ {near}")
                scores.append(PERIOD_OVERLAP_CREDIT)
            else:
                scores.append(0.0)
    if exact:
        reasons.append(f"period matched: {', '.join(exact)}")
    if partial:
        reasons.append(f"period overlaps: {', '.join(partial)}")
    missing = [p for p, s in zip(asked, scores, strict=True) if s == 0.0]
    if missing and not exact and not partial:
        reasons.append(f"period mismatch: asked {', '.join(asked)}, card has {', '.join(have[:4])}")
    elif missing:
        reasons.append(f"period missing: {', '.join(missing)}")
    return sum(scores) / len(scores)


def _squash(name: str) -> str:
    return "".join(_WORD.findall(name.lower().replace("&", "and")))


def _entity_score(card: ChunkCard, intent: QueryIntent, words: set[str], reasons: list[str]) -> float | None:
    company = _squash(intent.company) if intent.company else ""
    card_entities = {_squash(e): e for e in card.entities}
    parts: list[float] = []
    if company:
        if not card_entities:
            parts.append(COMPANY_UNKNOWN_CREDIT)
        elif any(company in e or (len(e) >= COMPANY_MIN_CHARS and e in company) for e in card_entities):
            reasons.append(f"company matched: {intent.company}")
            parts.append(1.0)
        else:
            reasons.append(f"company differs: asked {intent.company}")
            return 0.0  # another company's evidence does not answer, whatever its scope
    scoped = [e for e in intent.entities if _squash(e) != company]
    # the parts the plan narrows its metrics to ('Commercial Airplanes' of its revenue) are named as its entities are
    named = {_squash(e) for e in scoped}
    scoped += [t.text for t in intent.scope if t.kind != "measure" and _squash(t.text) not in named]
    if scoped:
        hits = [e for e in scoped if _squash(e) in card_entities or set(_WORD.findall(e.lower())) <= words]
        if hits:
            reasons.append(f"scope matched: {', '.join(hits)}")
            parts.append(1.0)
        elif card.scope in ("segment", "geography", "product"):
            reasons.append(f"scope: {card.scope} detail, not {', '.join(scoped)}")
            parts.append(SCOPE_MISMATCH_CREDIT)
        else:
            parts.append(SCOPE_MISSING_CREDIT)
    elif card.scope not in ("company", "unknown"):
        reasons.append(f"scope: {card.scope} detail for a company-level question")
        parts.append(SCOPE_MISMATCH_CREDIT)
    elif company:
        parts.append(1.0)
    return sum(parts) / len(parts) if parts else None


def _evidence_score(card: ChunkCard, intent: QueryIntent, reasons: list[str]) -> float:
    et = card.evidence_type
    rel = intent.relation
    if rel in (Relation.DEFINITION, Relation.POLICY):
        fit = 1.0 if card.claim_role == ClaimRole.DEFINITION else _DEFINITION_FIT[et]
        kind = "definition/policy"
    elif rel == Relation.EXPLANATION:
        fit, kind = _EXPLANATION_FIT[et], "explanation"
    elif intent.topic == "Guidance" and et == EvidenceType.GUIDANCE:
        fit, kind = 1.0, "guidance"
    elif intent.requires_numeric or rel in (Relation.TREND, Relation.COMPARISON):
        fit, kind = _NUMERIC_FIT[et], "numeric"
        if card.is_table and len(card.periods) >= 2 and et == EvidenceType.TABLE_NUMERIC:
            asked = "numeric" if rel == Relation.LOOKUP else rel.value
            reasons.append(f"table with period columns for {asked} question")
            return 1.0
    else:
        fit, kind = _QUALITATIVE_FIT[et], "qualitative"
    if card.claim_role == ClaimRole.CAVEAT:
        fit *= CAVEAT_FACTOR
    if fit >= 0.8:
        reasons.append(f"evidence type fits: {et.value} for {kind} question")
    elif fit <= 0.3:
        reasons.append(f"evidence type weak: {et.value} for {kind} question")
    return fit


def _card_words(card: ChunkCard) -> set[str]:
    text = " ".join(
        [card.summary, *card.section_path, *card.metrics, *card.entities]
        + [s.value for s in card.evidence_spans if s.field in ("metric", "entity")]
    )
    return set(_WORD.findall(text.lower()))


def _keyword_score(intent: QueryIntent, words: set[str], reasons: list[str]) -> float | None:
    if not intent.keywords:
        return None
    hits = [k for k in intent.keywords if all(w in words for w in _WORD.findall(k.lower()))]
    if hits:
        reasons.append(f"keywords: {', '.join(hits[:6])} ({len(hits)}/{len(intent.keywords)})")
    return len(hits) / len(intent.keywords)


def _factor(card: ChunkCard, reasons: list[str]) -> float:
    if card.claim_role == ClaimRole.STRUCTURAL_HEADING:
        reasons.append(f"structural heading down-weighted (x{STRUCTURAL_FACTOR:g})")
        return STRUCTURAL_FACTOR
    factor = 1.0 - BOILERPLATE_PENALTY * card.boilerplate
    if factor < 1.0:
        reasons.append(f"boilerplate down-weighted (x{factor:.2f})")
    return factor


# ---------------------------------------------------------------------------------------------------------
# Public
# ---------------------------------------------------------------------------------------------------------
def align(card: ChunkCard, intent: QueryIntent) -> Alignment:
    """How well ``card`` satisfies ``intent``, field by field, with reasons (deterministic, card-only)."""
    reasons: list[str] = []
    words = _card_words(card)  # what the card says, read once for the entity and keyword scores
    comp = AlignmentComponents(
        metric=_metric_score(card, intent, reasons),
        period=_period_score(card, intent, reasons),
        entity=_entity_score(card, intent, words, reasons),
        evidence_type=_evidence_score(card, intent, reasons),
        keyword=_keyword_score(intent, words, reasons),
    )
    metric_weight = METRIC_WEIGHT if intent.metrics else METRIC_WEIGHT * TOPIC_ONLY_SHARE
    weighted = [
        (metric_weight, comp.metric),
        (PERIOD_WEIGHT, comp.period),
        (ENTITY_WEIGHT, comp.entity),
        (EVIDENCE_TYPE_WEIGHT, comp.evidence_type),
        (KEYWORD_WEIGHT, comp.keyword),
    ]
    total = sum(w for w, v in weighted if v is not None)
    mean = sum(w * v for w, v in weighted if v is not None) / total if total else 0.0
    comp.boilerplate_factor = _factor(card, reasons)
    score = round(min(1.0, max(0.0, mean * comp.boilerplate_factor)), 4)
    return Alignment(chunk_id=card.chunk_id, score=score, components=comp, matched=reasons)


def rank(cards: Iterable[ChunkCard], intent: QueryIntent) -> list[Alignment]:
    """Alignments of many cards, best first; ties keep the input order (stable), so runs repeat exactly."""
    scored = [align(c, intent) for c in cards]
    return sorted(scored, key=lambda a: -a.score)
