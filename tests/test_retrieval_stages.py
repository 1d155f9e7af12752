"""Deep-retrieval stages as pure functions: budget, grouping, quotas, Borda, Jaccard stopping, bundling, select."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

import numpy as np
import pytest

from agent.config import Settings
from agent.query.intent import extract_intent
from agent.retrieval.bootstrap import (
    accumulated_order,
    bootstrap_group_size,
    bootstrap_rank,
    borda,
    group_borda,
    jaccard,
    shuffled_groups,
    stability,
)
from agent.retrieval.bundling import bundle_members, neighbour_order
from agent.retrieval.candidates import Candidate, candidate_budget, lexicon_query
from agent.retrieval.judges import (
    JudgeRanking,
    JudgeSelection,
    OfflineJudge,
    annotate,
    section_prior,
)
from agent.retrieval.rerank import document_date, is_recency_sensitive, recency_bonus
from agent.retrieval.screening import (
    EXPLANATORY,
    PERIOD_TABLE,
    Quota,
    coverage_quotas,
    enforce_quotas,
    merge_selections,
    round_robin_groups,
    screen,
)
from agent.retrieval.select import estimate_tokens, repeats, select_evidence
from agent.retrieval.statements import target_statements
from agent.schemas import (
    Chunk,
    ChunkCard,
    ClaimRole,
    DocumentMeta,
    EvidenceType,
    QueryIntent,
    Relation,
    TemporalScope,
)

SETTINGS = Settings.from_env(env={})


def cand(cid: str, ordinal: int = 0, *, table: bool = False, periods: Sequence[str] = (), judge: float = 0.0,
         rank: int = 0, evidence: EvidenceType = EvidenceType.NONE, role: ClaimRole = ClaimRole.SUPPORTING_CONTEXT,
         section: Sequence[str] = ("Item 7",), text: str = "text", doc: str = "d1") -> Candidate:
    chunk = Chunk(chunk_id=cid, doc_id=doc, ordinal=ordinal, section_id=0, section_path=list(section), page=ordinal,
                  page_end=ordinal, char_start=0, char_end=len(text), text=text, is_table=table)
    card = ChunkCard(chunk_id=cid, is_table=table, periods=list(periods), evidence_type=evidence, claim_role=role,
                     section_path=list(section))
    return Candidate(chunk=chunk, doc_name="D", card=card, judge_score=judge, stage1_rank=rank)


# ---------------------------------------------------------------------------------------------------------
# Stage 1 budget and lexicon query
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("n", "k"), [(0, 0), (10, 10), (59, 59), (100, 60), (121, 61), (200, 100), (299, 150),
                                      (2000, 150)])
def test_candidate_budget(n: int, k: int) -> None:
    assert candidate_budget(n, SETTINGS) == k


def test_lexicon_query_spells_metric_in_filing_words() -> None:
    intent = QueryIntent(metrics=["capital expenditure"], keywords=["capex"],
                         temporal_scope=TemporalScope(type="point", periods=["FY2018"]))
    query = lexicon_query(intent)
    assert "capex" in query and "2018" in query
    assert "purchases of property plant and equipment" in query.lower().replace(",", "")


# ---------------------------------------------------------------------------------------------------------
# Stage 2: grouping, quotas, merge
# ---------------------------------------------------------------------------------------------------------
def test_round_robin_groups_exact() -> None:
    assert round_robin_groups(list(range(7)), 3) == [[0, 3, 6], [1, 4], [2, 5]]
    assert round_robin_groups(list(range(4)), 25) == [[0, 1, 2, 3]]
    groups = round_robin_groups(list(range(150)), 25)
    assert len(groups) == 6 and all(len(g) == 25 for g in groups)
    assert groups[0][:3] == [0, 6, 12]  # every group mixes strong (early) and weak (late) candidates
    assert round_robin_groups([], 25) == []
    with pytest.raises(ValueError):
        round_robin_groups([1], 0)


def test_coverage_quotas_by_relation() -> None:
    assert [q.name for q in coverage_quotas(QueryIntent(relation=Relation.TREND))] == [PERIOD_TABLE]
    assert [q.name for q in coverage_quotas(QueryIntent(relation=Relation.DEFINITION))] == [EXPLANATORY]
    assert [q.name for q in coverage_quotas(QueryIntent(relation=Relation.POLICY))] == [EXPLANATORY]
    assert coverage_quotas(QueryIntent(relation=Relation.LOOKUP)) == []


def test_enforce_quotas_adds_then_replaces() -> None:
    quota = Quota(name=PERIOD_TABLE, text="...")
    pool = [cand("a"), cand("b"), cand("c"), cand("t1", table=True, periods=["FY2018"]), cand("t2", table=True)]
    # room left: the best period-bearing table is appended
    assert enforce_quotas(["a", "b"], pool, [quota], keep_max=3) == (["a", "b", "t1"], ["quota 'period_table' enforced: kept t1"])
    # full: it replaces the last selected chunk no quota needs
    assert enforce_quotas(["a", "b", "c"], pool, [quota], keep_max=3)[0] == ["a", "b", "t1"]
    # already met: unchanged
    assert enforce_quotas(["t1", "a"], pool, [quota], keep_max=3) == (["t1", "a"], [])
    # nothing meets it: unchanged, with a note (a table without periods does not count)
    ids, notes = enforce_quotas(["a"], pool[:3] + [pool[4]], [quota], keep_max=3)
    assert ids == ["a"] and "unmet" in notes[0]
    explanatory = Quota(name=EXPLANATORY, text="...")
    pool2 = [cand("x"), cand("def", role=ClaimRole.DEFINITION), cand("q", evidence=EvidenceType.QUALITATIVE_EXPLANATION)]
    assert enforce_quotas(["x"], pool2, [explanatory], keep_max=5)[0] == ["x", "def"]


def test_merge_selections_keeps_best_score_and_breaks_ties_by_stage1() -> None:
    s1 = JudgeSelection(selected=["a", "b", "c"], scores={"a": 0.9, "b": 0.5, "c": 0.5})
    s2 = JudgeSelection(selected=["b", "d"], scores={"b": 0.7, "d": 0.5})
    merged = merge_selections([s1, s2], {"a": 4, "b": 3, "c": 2, "d": 1}, cap=3)
    assert merged == [("a", 0.9), ("b", 0.7), ("d", 0.5)]  # c ties with d at 0.5; d ranked higher in Stage 1


def test_offline_select_keeps_between_min_and_max() -> None:
    judge = OfflineJudge()
    intent = QueryIntent()
    group = [cand(f"c{i}", judge=1.0 - i * 0.01, rank=i + 1) for i in range(25)]
    # scores fall slowly: every one is within 75% of the best, so the cap of 15 applies
    assert len(judge.select("q", intent, group, 8, 15).selected) == 15
    steep = [cand(f"c{i}", judge=1.0 if i < 3 else 0.1, rank=i + 1) for i in range(25)]
    sel = judge.select("q", intent, steep, 8, 15)
    assert sel.selected == [f"c{i}" for i in range(8)]  # only 3 are close to the best: the floor of 8 applies
    assert len(judge.select("q", intent, steep[:5], 8, 15).selected) == 5


def test_screen_caps_union_and_applies_quotas() -> None:
    intent = QueryIntent(relation=Relation.TREND)
    cands = [cand(f"c{i}", judge=1.0 - i / 200, rank=i + 1) for i in range(150)]
    cands[149] = cand("tbl", table=True, periods=["FY2019", "FY2018"], judge=0.01, rank=150)
    result = screen("q", intent, cands, OfflineJudge(), SETTINGS)
    assert len(result.groups) == 6
    ids = [c.chunk_id for c in result.candidates]
    assert len(ids) == 50 and len(set(ids)) == 50
    assert "tbl" in ids  # the trend quota kept the only period-bearing table, weak as it is
    assert ids[:3] == ["c0", "c1", "c2"]


# ---------------------------------------------------------------------------------------------------------
# Stage 3: Borda, grouping, Jaccard stopping, stability
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("n", "size"), [(1, 1), (8, 8), (15, 15), (16, 15), (31, 15), (32, 16), (49, 24), (50, 25),
                                         (51, 25), (150, 25)])
def test_bootstrap_group_size(n: int, size: int) -> None:
    assert bootstrap_group_size(n) == size


def test_borda_exact() -> None:
    assert [borda(r, 5) for r in range(1, 6)] == [1.0, 0.75, 0.5, 0.25, 0.0]
    assert borda(1, 1) == 1.0
    assert group_borda(["a", "b", "c"]) == {"a": 1.0, "b": 0.5, "c": 0.0}
    with pytest.raises(ValueError):
        borda(0, 3)
    with pytest.raises(ValueError):
        borda(4, 3)


def test_jaccard_exact() -> None:
    assert jaccard(["a", "b", "c"], ["b", "c", "d"]) == 0.5
    assert jaccard([], []) == 1.0
    assert jaccard(["a"], []) == 0.0
    assert jaccard(list("abcdefghij"), list("abcdefghik")) == pytest.approx(9 / 11)


def test_shuffled_groups_are_seeded_and_balanced() -> None:
    items = [f"c{i}" for i in range(45)]
    a = shuffled_groups(items, 22, seed=13)
    assert a == shuffled_groups(items, 22, seed=13)
    assert a != shuffled_groups(items, 22, seed=14)
    assert sorted(len(g) for g in a) == [15, 15, 15]  # ceil(45/22) = 3 groups, sizes within one
    assert sorted(x for g in a for x in g) == sorted(items)


def test_accumulated_order_ties() -> None:
    assert accumulated_order({"a": 1.0, "b": 2.0, "c": 1.0}, {"a": 0.1, "c": 0.9}) == ["b", "c", "a"]


def test_stability_exact() -> None:
    out = {s.chunk_id: s for s in stability({"a": [0.0, 0.5], "b": [0.25, 0.25]}, {"a": 1}, rounds=2)}
    assert out["a"].rank_variance == 0.0625 and out["a"].top5_frequency == 0.5
    assert out["b"].rank_variance == 0.0 and out["b"].top5_frequency == 0.0


class FixedOrderJudge:
    """Ranks any group by a fixed global preference (like a perfectly consistent judge)."""

    name = "fixed"

    def __init__(self, preference: list[str]) -> None:
        self.preference = {cid: i for i, cid in enumerate(preference)}
        self.calls = 0

    def select(self, question, intent, group, keep_min, keep_max, quotas=()) -> JudgeSelection:  # noqa: ANN001
        raise NotImplementedError

    def rank(self, question: str, intent: QueryIntent, group: Sequence[Candidate]) -> JudgeRanking:
        self.calls += 1
        return JudgeRanking(order=sorted((c.chunk_id for c in group), key=self.preference.__getitem__))


class ShiftingJudge(FixedOrderJudge):
    """Reverses its preference on every call: the top set never settles."""

    def rank(self, question: str, intent: QueryIntent, group: Sequence[Candidate]) -> JudgeRanking:
        order = super().rank(question, intent, group).order
        return JudgeRanking(order=order if self.calls % 2 else order[::-1])


def test_bootstrap_single_group_exact_borda_and_early_stop() -> None:
    cands = [cand(f"c{i}") for i in range(5)]
    judge = FixedOrderJudge(["c3", "c1", "c4", "c0", "c2"])
    result = bootstrap_rank("q", QueryIntent(), cands, judge, SETTINGS)
    assert [c.chunk_id for c in result.candidates] == ["c3", "c1", "c4", "c0", "c2"]
    assert [c.borda for c in result.candidates] == [1.0, 0.75, 0.5, 0.25, 0.0]
    assert len(result.rounds) == 2 and result.stopped_early  # identical top sets: Jaccard 1.0 >= 0.9 at round 2
    assert result.rounds[1].jaccard == 1.0 and result.rounds[0].jaccard is None
    assert result.rounds[0].ranks == {"c3": 1, "c1": 2, "c4": 3, "c0": 4, "c2": 5}
    assert all(s.rank_variance == 0.0 for s in result.stability)
    assert {s.chunk_id: s.top5_frequency for s in result.stability}["c2"] == 1.0  # 5 chunks: all in the top 5


def test_bootstrap_runs_all_rounds_when_top_set_moves() -> None:
    cands = [cand(f"c{i}") for i in range(60)]
    judge = ShiftingJudge([f"c{i}" for i in range(60)])
    result = bootstrap_rank("q", QueryIntent(), cands, judge, SETTINGS.replace(bootstrap_top=5))
    assert len(result.rounds) == SETTINGS.bootstrap_rounds and not result.stopped_early
    assert all(len(g) in (20,) for r in result.rounds for g in r.groups)  # 60 -> groups of 25 -> 3 groups of 20
    assert judge.calls == 3 * SETTINGS.bootstrap_rounds


def test_bootstrap_consistent_judge_recovers_global_order_at_top() -> None:
    ids = [f"c{i:02d}" for i in range(40)]
    cands = [cand(cid) for cid in reversed(ids)]
    result = bootstrap_rank("q", QueryIntent(), cands, FixedOrderJudge(ids), SETTINGS)
    assert result.candidates[0].chunk_id == "c00"  # ranked first in every group it was in
    assert result.candidates[0].borda == 1.0


# ---------------------------------------------------------------------------------------------------------
# Judges' building blocks
# ---------------------------------------------------------------------------------------------------------
def test_statement_prior() -> None:
    # the plan reads the statement the question names; retrieval reads the plan
    intent = extract_intent("Using the cash flow statement, what was capex?")
    assert intent.statements == ["cash flow statement"] and intent.metrics == ["capital expenditure"]
    named, implied = target_statements(intent)
    assert named == {"cash flow statement"}
    path = ("Item 8", "Consolidated Statements of Cash Flows")
    in_cf = cand("a", table=True, section=path,
                 text="Item 8 > Consolidated Statements of Cash Flows\nCONSOLIDATED STATEMENTS OF CASH FLOWS | columns: 2018")
    assert section_prior(in_cf, named, implied)[0] == 1.0
    # a section that is the statement counts even when the table's caption is only "ASSETS"
    body = cand("s", table=True, section=path, text="Item 8 > Consolidated Statements of Cash Flows\nASSETS | 2018: 5")
    assert section_prior(body, named, implied)[0] == 1.0
    # a lower-case sentence fragment taken for a heading does not make the notes under it the statement
    bogus = ("Item 16", "consolidated statements of cash flows (in millions):")
    note = cand("n", table=True, section=bogus, text="Item 16 > consolidated statements of cash flows (in millions):\nLeases")
    assert section_prior(note, named, implied)[0] == 0.0
    assert section_prior(cand("b", section=("Item 7",)), named, implied)[0] == 0.0
    named2, implied2 = target_statements(QueryIntent(question="What was revenue in 2018?", metrics=["revenue"],
                                                     requires_numeric=True))
    assert named2 == set() and "income statement" in implied2
    in_is = cand("c", table=True, text="Condensed Consolidated Statements of Operations (Unaudited) | columns: 2023")
    assert section_prior(in_is, named2, implied2)[0] == 0.5


def test_annotate_blends_and_explains() -> None:
    intent = QueryIntent(question="capex FY2018", metrics=["capital expenditure"], requires_numeric=True,
                         temporal_scope=TemporalScope(type="point", periods=["FY2018"]))
    good = cand("g", table=True, periods=["FY2018", "FY2017"], evidence=EvidenceType.TABLE_NUMERIC)
    good.card.metrics = ["capital expenditure"]
    bad = cand("b")
    good.retrieval_norm = bad.retrieval_norm = 0.5
    annotate([good, bad], intent)
    assert good.judge_score > bad.judge_score
    assert any(r.startswith("metric matched: capital expenditure") for r in good.matched)
    annotate([good, bad], intent, use_cards=False)
    assert good.alignment is not None and good.judge_score == bad.judge_score  # no cards: retrieval only


# ---------------------------------------------------------------------------------------------------------
# Bundling, rerank bonus, selection
# ---------------------------------------------------------------------------------------------------------
def test_neighbour_order() -> None:
    assert neighbour_order(2, 0, 4) == [(-1, 1), (1, 3), (-1, 0), (1, 4)]
    assert neighbour_order(0, 0, 2) == [(1, 1), (1, 2)]


def test_bundle_members_same_section_contiguous_and_capped() -> None:
    v = np.asarray([[1.0, 0.0], [0.8, 0.6], [1.0, 0.0], [0.96, 0.28], [0.0, 1.0], [1.0, 0.0]], dtype=np.float32)
    sections = [0, 0, 0, 0, 0, 1]
    members, sims = bundle_members(2, sections, v, neighbour_sim=0.66, max_size=4)
    assert members == [0, 1, 2, 3]  # 1 (0.8) and 3 (0.96) join, then 0 (1.0); 4 is dissimilar; 5 is another section
    assert sims[1] == pytest.approx(0.8) and sims[3] == pytest.approx(0.96)
    members, _ = bundle_members(2, sections, v, neighbour_sim=0.9, max_size=4)
    assert members == [2, 3]  # 1 fails (0.8): the left side closes before reaching 0
    assert bundle_members(2, sections, v, neighbour_sim=0.66, max_size=2)[0] == [1, 2]


def test_recency_bonus_exact() -> None:
    ref = date(2024, 12, 31)
    assert recency_bonus(ref, ref, 0.05) == 0.05
    assert recency_bonus(date(2024, 7, 4), ref, 0.05) == pytest.approx(0.05 * (1 - 180 / 365))
    assert recency_bonus(date(2023, 12, 30), ref, 0.05) == 0.0
    assert recency_bonus(None, ref, 0.05) == 0.0
    meta = DocumentMeta(doc_id="x", name="x", fiscal_period="FY2022", fiscal_year=2022)
    assert document_date(meta) == date(2022, 12, 31)
    assert document_date(meta.model_copy(update={"filing_date": "2023-02-10"})) == date(2023, 2, 10)
    assert is_recency_sensitive(extract_intent("What is the most recent quarterly revenue?"))
    assert not is_recency_sensitive(extract_intent("What was FY2018 revenue?"))


def test_select_evidence_dedupes_budgets_and_orders_by_document() -> None:
    a = cand("a", ordinal=5, text="x" * 400)
    b = cand("b", ordinal=1, text="y" * 400)
    c = cand("c", ordinal=3, text="z" * 400)
    d = cand("d", ordinal=2, text="w" * 4000)
    vectors = {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [0.99, 0.141], "d": [0.6, 0.8]}
    result = select_evidence([a, b, c, d], lambda x: np.asarray(vectors[x.chunk_id]), max_chunks=3,
                             token_budget=300, dedupe_cosine=0.9)
    assert [x.chunk_id for x in result.selected] == ["b", "a"]  # document order; c repeats a; d is too long
    assert result.duplicates == {"c": "a"} and result.over_budget == ["d"]
    assert result.tokens == 2 * estimate_tokens("x" * 400) == 200


def test_sibling_tables_that_read_alike_are_not_duplicates() -> None:
    # Two segments' tables embed alike row for row; their figures differ, so each is evidence of its own.
    # A table printed twice with the same figures is a duplicate.
    space = cand("space", ordinal=2, text="Space | Net sales | 2024: 1,900 | Operating profit | 2024: 150")
    aero = cand("aero", ordinal=1, text="Aeronautics | Net sales | 2024: 3,100 | Operating profit | 2024: 310")
    again = cand("again", ordinal=4, text="Aeronautics (continued) | Net sales | 2024: 3,100 | Operating profit | 2024: 310")
    result = select_evidence([aero, space, again], lambda x: np.asarray([1.0, 0.0]), max_chunks=5,
                             token_budget=3000, dedupe_cosine=0.9)
    assert [x.chunk_id for x in result.selected] == ["aero", "space"]
    assert result.duplicates == {"again": "aero"}
    assert repeats("Net sales 3,100 and 310", "Net sales | 3,100 | 310 | 2,900")
    assert not repeats("Net sales 1,900", "Net sales 3,100")
