"""Memory bank: matchers, entity/period agreement, verification, staleness, import/export, seed, CLI -- on each
engine: the embedded SQLite file and a real PostgreSQL server (skipped with the reason where none is installed)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

from agent.config import Settings
from agent.errors import FinragError, NotFoundError
from agent.memory import (
    MemoryBank,
    MemoryEntry,
    MemorySource,
    MemoryStatus,
    match_text,
    normalize_period,
    parse_citation,
)
from agent.schemas import Citation
from cli import memory_cmd

try:
    from pg_server import pg_server, pg_url  # noqa: F401
except ImportError:  # pragma: no cover
    from tests.pg_server import pg_server, pg_url  # noqa: F401

# A stand-in for a sentence embedder: one dimension per finance concept, so paraphrases that share no words
# still land on the same vector, and unrelated questions are orthogonal.
CONCEPTS: dict[str, tuple[str, ...]] = {
    "capex": ("capital expenditure", "capex", "purchases of property", "plant and equipment"),
    "revenue": ("revenue", "sales", "top line"),
    "dividend": ("dividend", "payout"),
    "tax": ("tax",),
    "cash": ("cash and cash equivalents", "liquidity"),
    "margin": ("margin",),
}


def concept_embed(texts: list[str]) -> np.ndarray:
    rows = [[1.0 if any(k in t.lower() for k in keys) else 0.0 for keys in CONCEPTS.values()] for t in texts]
    return np.asarray(rows, dtype=np.float32)


CANONICAL = [
    "What was the total revenue?",
    "What was the capital expenditure?",
    "What was the dividend payout ratio?",
    "What was the net income attributable to shareholders?",
    "How much cash and cash equivalents did the company hold at year end?",
    "What was the gross margin percentage?",
    "What was the effective tax rate?",
    "What was the operating cash flow?",
]
CITE = Citation(doc="3M_2018_10K", page=60, quote="Purchases of property, plant and equipment (PP&E) (1,577)")


@pytest.fixture(params=["sqlite", "postgresql"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    url = request.getfixturevalue("pg_url") if request.param == "postgresql" else ""
    return Settings.from_env(env={}, home=tmp_path / "home", store_url=url)


def verified(
    question: str, answer: str = "an answer", company: str = "3M", period: str = "FY2018"
) -> MemoryEntry:
    return MemoryEntry(
        question=question,
        answer=answer,
        company=company,
        period=period,
        citations=[CITE],
        status=MemoryStatus.VERIFIED,
        verifier="analyst",
    )


def full_bank(settings: Settings, embed: object = None) -> MemoryBank:
    bank = MemoryBank(settings, embed=embed)  # type: ignore[arg-type]
    for q in CANONICAL:
        bank.add(verified(q, answer=f"answer to {q}"))
    return bank


# --- normalisation -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("FY2018", "FY2018"),
        ("2018", "FY2018"),
        ("fiscal 2018", "FY2018"),
        ("FY18", "FY2018"),
        ("fiscal year 2022", "FY2022"),
        ("2023Q2", "FY2023Q2"),
        ("Q2 2023", "FY2023Q2"),
        ("2Q23", "FY2023Q2"),
        ("FY2023 Q2", "FY2023Q2"),
        ("first quarter 2024", "FY2024Q1"),
        ("H1 2023", "FY2023H1"),
        ("", ""),
    ],
)
def test_normalize_period(raw: str, expected: str) -> None:
    assert normalize_period(raw) == expected


def test_match_text_drops_company_and_period() -> None:
    assert (
        match_text("What was 3M's FY2018 capital expenditure?", "3M Company", "FY2018")
        == "what was capital expenditure"
    )


def test_parse_citation_forms() -> None:
    a = parse_citation('[3M_2018_10K, p. 60] "Purchases of PP&E (1,577)"')
    b = parse_citation("3M_2018_10K:60:Purchases of PP&E (1,577)")
    assert a == b == Citation(doc="3M_2018_10K", page=60, quote="Purchases of PP&E (1,577)")
    with pytest.raises(ValueError):
        parse_citation("page sixty")


# --- matchers -----------------------------------------------------------------------------------------------
def test_subsequence_matcher_fires_alone(settings: Settings) -> None:
    bank = MemoryBank(settings)
    bank.add(verified("What was the total revenue?", answer="$32.8 billion"))
    match = bank.lookup("what was 3M's total revenue in FY2018??", company="3M Company", period="fiscal 2018")
    assert match is not None and match.entry.answer == "$32.8 billion"
    # One entry gives BM25 no corpus statistics (its idf is negative), so only the subsequence matcher fires.
    assert match.fired == ["subsequence"]
    assert (
        match.scores.subsequence >= settings.memory_subsequence_min
        and match.scores.bm25 < settings.memory_bm25_min
    )
    assert match.scores.cosine is None


def test_bm25_matcher_fires_on_reworded_keywords(settings: Settings) -> None:
    bank = full_bank(settings)
    match = bank.lookup("Rate of tax, effective versus statutory, for 3M in 2018", "3M", "FY2018")
    assert match is not None and match.entry.question == "What was the effective tax rate?"
    assert match.fired == ["bm25"]
    assert match.scores.bm25 >= settings.memory_bm25_min > 0
    assert match.scores.subsequence < settings.memory_subsequence_min


def test_semantic_matcher_fires_on_paraphrase(settings: Settings) -> None:
    question = "How much did 3M spend on purchases of property, plant and equipment in fiscal 2018?"
    assert full_bank(settings).lookup(question, "3M", "FY2018") is None  # no lexical matcher passes
    bank = full_bank(settings, embed=concept_embed)
    match = bank.lookup(question, "3M", "FY2018")
    assert match is not None and match.entry.question == "What was the capital expenditure?"
    assert match.fired == ["semantic"] and match.scores.cosine == pytest.approx(1.0)
    assert "analyst" in match.provenance() and "[3M_2018_10K, p. 60]" in match.provenance()


def test_best_of_several_matches_wins(settings: Settings) -> None:
    bank = full_bank(settings, embed=concept_embed)
    match = bank.lookup("What was 3M's gross margin percentage in FY2018?", "3M", "FY2018")
    assert match is not None and match.entry.question == "What was the gross margin percentage?"
    assert set(match.fired) == {"subsequence", "bm25", "semantic"}


def test_embedder_is_called_once_per_text(settings: Settings) -> None:
    seen: list[str] = []

    def counting(texts: list[str]) -> np.ndarray:
        seen.extend(texts)
        return concept_embed(texts)

    bank = full_bank(settings, embed=counting)
    bank.lookup("What was the total revenue?", "3M", "FY2018")
    bank.lookup("What was the total revenue?", "3M", "FY2018")
    assert len(seen) == len(set(seen)) == len(CANONICAL)  # the query text equals an entry's text here


def test_broken_embedder_leaves_lexical_matchers_working(settings: Settings) -> None:
    def broken(texts: list[str]) -> np.ndarray:
        raise RuntimeError("model missing")

    bank = full_bank(settings, embed=broken)
    match = bank.lookup("What was the total revenue?", "3M", "FY2018")
    assert match is not None and match.scores.cosine is None and "semantic" not in match.fired


def test_contradicting_metric_qualifiers_block_a_hit(settings: Settings) -> None:
    bank = MemoryBank(settings, embed=concept_embed)
    bank.add(verified("What was the operating margin percentage?"))
    # Every matcher would pass (same template, same 'margin' concept), but gross margin is another figure.
    assert bank.lookup("What was the gross margin percentage?", "3M", "FY2018") is None
    assert bank.lookup("What was the operating margin percentage?", "3M", "FY2018") is not None
    bank.add(verified("What was the total revenue?"))
    one_sided = bank.lookup("What were total net revenues?", "3M", "FY2018")
    assert one_sided is not None and one_sided.entry.question == "What was the total revenue?"


@pytest.mark.parametrize(
    ("company", "period"),
    [("Nike", "FY2018"), ("3M", "FY2019"), ("", "FY2018"), ("3M", ""), ("3M", "2018Q3")],
)
def test_entity_or_period_disagreement_blocks_a_hit(settings: Settings, company: str, period: str) -> None:
    bank = full_bank(settings, embed=concept_embed)
    assert bank.lookup("What was the total revenue?", company, period) is None
    assert bank.lookup("What was the total revenue?", "3M Company", "2018") is not None


# --- verification, staleness, seeding ---------------------------------------------------------------------
def test_unverified_entries_do_not_answer_until_verified(settings: Settings) -> None:
    bank = MemoryBank(settings)
    entry = bank.add(
        MemoryEntry(
            question="What was the total revenue?", answer="$32.8 billion", company="3M", period="2018"
        )
    )
    assert (
        entry.status == MemoryStatus.UNVERIFIED
        and entry.period == "FY2018"
        and entry.source == MemorySource.MANUAL
    )
    assert bank.lookup("What was the total revenue?", "3M", "FY2018") is None
    done = bank.verify(entry.id[:6], "J. Doe")
    assert done.status == MemoryStatus.VERIFIED and done.verifier == "J. Doe" and done.verified_at is not None
    assert bank.lookup("What was the total revenue?", "3M", "FY2018") is not None
    with pytest.raises(FinragError):
        bank.verify(entry.id, "  ")
    with pytest.raises(NotFoundError):
        bank.verify("ffffffffffff", "J. Doe")


def test_match_index_sees_writes_from_another_instance(settings: Settings) -> None:
    reader, writer = MemoryBank(settings), MemoryBank(settings)
    assert reader.lookup("What was the total revenue?", "3M", "FY2018") is None  # builds the (empty) index
    writer.add(verified("What was the total revenue?"))
    assert reader.lookup("What was the total revenue?", "3M", "FY2018") is not None
    writer.mark_stale("3M", "FY2018", "3M_2018_10KA")
    assert reader.lookup("What was the total revenue?", "3M", "FY2018") is None


def test_verified_entry_requires_a_verifier() -> None:
    with pytest.raises(ValueError):
        MemoryEntry(question="q", answer="a", status=MemoryStatus.VERIFIED)


def test_add_same_triple_updates_in_place(settings: Settings) -> None:
    bank = MemoryBank(settings)
    first = bank.add(verified("What was the total revenue?", answer="old"))
    second = bank.add(
        verified("what was the total revenue", answer="new", company="3M", period="fiscal 2018")
    )
    assert first.id == second.id and second.created_at == first.created_at
    assert [e.answer for e in bank.list()] == ["new"]


def test_mark_stale_on_newer_filing(settings: Settings) -> None:
    bank = MemoryBank(settings)
    revenue = bank.add(verified("What was the total revenue?"))
    cites_new = bank.add(
        verified("What was the capital expenditure?").model_copy(
            update={"citations": [Citation(doc="3M_2018_10KA", page=3)]}
        )
    )
    other_year = bank.add(verified("What was the total revenue?", period="FY2019"))
    other_company = bank.add(verified("What was the total revenue?", company="Nike"))

    stale = bank.mark_stale("3M Company", "2018", "3M_2018_10KA")
    assert [e.id for e in stale] == [revenue.id]
    assert "3M_2018_10KA" in bank.get(revenue.id).stale_reason
    statuses = {e.id: e.status for e in bank.list()}
    assert statuses[revenue.id] == MemoryStatus.STALE
    assert (
        statuses[cites_new.id]
        == statuses[other_year.id]
        == statuses[other_company.id]
        == MemoryStatus.VERIFIED
    )
    assert bank.lookup("What was the total revenue?", "3M", "FY2018") is None
    assert bank.list(status="stale") == [bank.get(revenue.id)]

    bank.verify(revenue.id, "reviewer")  # re-verified against the new filing: answers again
    assert bank.lookup("What was the total revenue?", "3M", "FY2018") is not None
    assert bank.get(revenue.id).stale_reason == ""


def test_seed_stores_unverified_candidates_and_never_overwrites_verified(settings: Settings) -> None:
    bank = MemoryBank(settings)
    seeded = bank.seed(
        "What was the total revenue?",
        "$32.8 billion",
        ["[3M_2018_10K, p. 56] Net sales 32,765"],
        "3M",
        "2018",
    )
    assert seeded.status == MemoryStatus.UNVERIFIED and seeded.source == MemorySource.PIPELINE
    assert seeded.citations == [Citation(doc="3M_2018_10K", page=56, quote="Net sales 32,765")]
    assert bank.lookup("What was the total revenue?", "3M", "FY2018") is None

    bank.verify(seeded.id, "analyst")
    kept = bank.seed("What was the total revenue?", "$99 billion", [], "3M", "FY2018")
    assert kept.status == MemoryStatus.VERIFIED and kept.answer == "$32.8 billion"

    bank.mark_stale("3M", "FY2018", "3M_2018_10KA")
    replaced = bank.seed("What was the total revenue?", "$32.9 billion", [], "3M", "FY2018")
    assert replaced.status == MemoryStatus.UNVERIFIED and replaced.answer == "$32.9 billion"
    assert len(bank.list()) == 1


def test_remove(settings: Settings) -> None:
    bank = full_bank(settings)
    victim = bank.list()[0]
    assert bank.remove(victim.id) == victim
    assert len(bank.list()) == len(CANONICAL) - 1
    with pytest.raises(NotFoundError):
        bank.get(victim.id)


# --- import / export ----------------------------------------------------------------------------------------
def test_export_import_round_trip_and_idempotent(settings: Settings, tmp_path: Path) -> None:
    bank = full_bank(settings)
    bank.seed("What was the operating margin?", "22.3%", [CITE], "3M", "FY2018")
    out = tmp_path / "out" / "memory.jsonl"
    assert bank.export_jsonl(out) == len(CANONICAL) + 1

    other = MemoryBank(settings, path=tmp_path / "other.sqlite")
    report = other.import_jsonl(out)
    assert (report.added, report.updated) == (len(CANONICAL) + 1, 0)
    assert [e.model_dump() for e in other.list()] == [e.model_dump() for e in bank.list()]

    again = other.import_jsonl(out)
    assert (again.added, again.updated, again.unchanged) == (0, 0, len(CANONICAL) + 1)
    assert len(other.list()) == len(CANONICAL) + 1


def test_import_is_all_or_nothing_with_line_number(settings: Settings, tmp_path: Path) -> None:
    good = verified("What was the total revenue?").model_dump_json()
    path = tmp_path / "bad.jsonl"
    path.write_text(good + "\n" + json.dumps({"question": "q"}) + "\n", encoding="utf-8")
    bank = MemoryBank(settings)
    with pytest.raises(FinragError, match=r"bad.jsonl:2: answer"):
        bank.import_jsonl(path)
    assert bank.list() == []


# --- command line -------------------------------------------------------------------------------------------
def _run(settings: Settings, argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="finrag")
    memory_cmd.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["memory", *argv])
    return args.func(args, settings)


def test_cli_memory_workflow(settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        _run(
            settings,
            [
                "add",
                "--question",
                "What was 3M's FY2018 capital expenditure?",
                "--answer",
                "$1,577 million",
                "--company",
                "3M",
                "--period",
                "2018",
                "--citation",
                "[3M_2018_10K, p. 60] Purchases of property, plant and equipment (PP&E) (1,577)",
                "--json",
            ],
        )
        == 0
    )
    added = json.loads(capsys.readouterr().out)
    assert (
        added["status"] == "unverified"
        and added["period"] == "FY2018"
        and added["citations"][0]["page"] == 60
    )

    seed_file = tmp_path / "answers.json"
    seed_file.write_text(
        json.dumps(
            [
                {
                    "question": "What was the total revenue?",
                    "answer": "$32,765 million",
                    "citations": [{"doc": "3M_2018_10K", "page": 56, "quote": "Net sales 32,765"}],
                    "company": "3M",
                    "period": "FY2018",
                }
            ]
        ),
        encoding="utf-8",
    )
    assert _run(settings, ["seed", "--from-json", str(seed_file)]) == 0
    assert "seeded 1 unverified" in capsys.readouterr().out

    assert _run(settings, ["list", "--status", "unverified", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {e["source"] for e in listed} == {"manual", "pipeline"}

    assert _run(settings, ["verify", added["id"], "--verifier", "J. Doe"]) == 0
    assert "verified" in capsys.readouterr().out
    assert (
        _run(
            settings,
            [
                "lookup",
                "What was 3M's capital expenditure in FY2018?",
                "--company",
                "3M",
                "--period",
                "FY2018",
                "--no-embed",
            ],
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("$1,577 million") and "verified by J. Doe" in out

    assert _run(settings, ["list"]) == 0
    table_text = capsys.readouterr().out
    assert "verified" in table_text and "unverified" in table_text

    export = tmp_path / "export.jsonl"
    assert _run(settings, ["export", str(export)]) == 0
    assert "exported 2 entries" in capsys.readouterr().out
    assert _run(settings, ["import", str(export)]) == 0
    assert "0 added, 0 updated, 2 unchanged" in capsys.readouterr().out

    assert _run(settings, ["remove", added["id"]]) == 0
    capsys.readouterr()
    assert _run(settings, ["remove", added["id"]]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no memory entry" in err

    assert _run(settings, ["add", "--question", "q", "--answer", "a", "--citation", "nonsense"]) == 1
    assert "not a citation" in capsys.readouterr().err
    assert _run(settings, ["seed", "--from-json", str(tmp_path / "missing.json")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_entry_vectors_are_kept_so_later_processes_do_not_embed_them(settings: Settings) -> None:
    calls: list[int] = []

    def counting(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        return concept_embed(texts)

    first = full_bank(settings, embed=counting)
    first.lookup("What was 3M's capital expenditure in FY2018?", "3M", "FY2018")
    embedded_once = sum(calls)
    calls.clear()
    later = MemoryBank(settings, embed=counting)  # a new process: only the new question is embedded
    later.lookup("How much did 3M spend on capital expenditure in FY2018?", "3M", "FY2018")
    assert embedded_once > 1 and calls == [1]
