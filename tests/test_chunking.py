"""Chunking: section boundaries, source offsets, table chunks, overlap, near-duplicates, summaries.

The slow test runs the whole parse -> sections -> chunks path over real FinanceBench PDFs and checks that the
numbers of every gold evidence snippet are in the chunks of its page.
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from pathlib import Path

import pytest

from agent.config import Settings
from agent.finance.numbers import find_numbers
from agent.ingest.chunking import chunk_document, drop_near_duplicates, summarize_section
from agent.ingest.parsing import load_pages
from agent.ingest.structure import detect_sections
from agent.schemas import PAGE_SEPARATOR, Chunk, Page


def make_pages(texts: list[str]) -> list[Page]:
    pages, offset = [], 0
    for i, text in enumerate(texts):
        pages.append(Page(page=i, text=text, char_start=offset))
        offset += len(text) + len(PAGE_SEPARATOR)
    return pages


def sentences(topic: str, n: int) -> str:
    """n distinct sentences of 12 words, 3 per line."""
    words = [f"{topic.capitalize()} result number {i} grew because demand for the {topic} line rose sharply." for i in range(n)]
    return "\n".join(" ".join(words[i:i + 3]) for i in range(0, n, 3))


def source_words(doc_text: str, chunk: Chunk) -> list[str]:
    return doc_text[chunk.char_start:chunk.char_end].split()


DOC_PAGES = [
    "ACME CORP\nFORM 10-K\nFor the fiscal year ended December 31, 2023\n" + sentences("cover", 6),
    "PART I\nItem 1. Business\n" + sentences("business", 60),
    "Item 1A. Risk Factors\n" + sentences("risk", 45),
    "Item 8. Financial Statements and Supplementary Data\nConsolidated Statement of Cash Flows\n"
    "Years ended December 31\n(Millions) 2023 2022 2021\n"
    + "\n".join(f"Line item {i} for operations {i * 10:,} ({i * 7:,}) {i * 3:,}" for i in range(1, 61))
    + "\nThe accompanying notes are an integral part of these consolidated financial statements today.",
]


@pytest.fixture
def chunked(settings: Settings):  # type: ignore[no-untyped-def]
    settings = settings.replace(chunk_words=100, chunk_overlap_words=15)
    pages = make_pages(DOC_PAGES)
    sections = detect_sections(pages)
    chunks = chunk_document("f" * 64, pages, sections, settings)
    return pages, sections, chunks, PAGE_SEPARATOR.join(p.text for p in pages)


def test_chunks_stay_inside_sections_and_keep_offsets(chunked) -> None:  # type: ignore[no-untyped-def]
    pages, sections, chunks, doc_text = chunked
    by_id = {s.section_id: s for s in sections}
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    assert [c.chunk_id for c in chunks[:2]] == ["ffffffffffff:0", "ffffffffffff:1"]
    for chunk in chunks:
        section = by_id[chunk.section_id]
        assert section.char_start <= chunk.char_start < chunk.char_end <= section.char_end
        assert chunk.section_path == section.path
        assert pages[chunk.page].char_start <= chunk.char_start
        assert chunk.char_end <= pages[chunk.page_end].char_start + len(pages[chunk.page_end].text)
        if not chunk.is_table:
            # A prose chunk's text is its source span, lines trimmed.
            assert chunk.text.split() == source_words(doc_text, chunk)


def test_prose_is_cut_at_sentences_near_the_target_with_overlap(chunked) -> None:  # type: ignore[no-untyped-def]
    _, sections, chunks, doc_text = chunked
    business = [c for c in chunks if c.section_path == ["Item 1"]]
    assert len(business) >= 7  # 720 words at ~100 words a chunk
    for chunk in business:
        assert len(chunk.text.split()) <= 100 + 12 * 3  # a folded tail adds at most a few sentences
        assert doc_text[chunk.char_end - 1] == "."  # cut after a sentence
    for before, after in zip(business, business[1:], strict=False):
        overlap = before.char_end - after.char_start
        assert overlap > 0  # the next chunk starts inside the previous one
        assert len(doc_text[after.char_start:before.char_end].split()) <= 15


def test_table_chunks_repeat_header_and_map_to_rows(chunked) -> None:  # type: ignore[no-untyped-def]
    _, _, chunks, doc_text = chunked
    tables = [c for c in chunks if c.is_table]
    assert len(tables) >= 2  # 60 rows do not fit one 100-word chunk
    header = "Consolidated Statement of Cash Flows | Years ended December 31 | columns: 2023, 2022, 2021 | (in millions)"
    for chunk in tables:
        lines = chunk.text.split("\n")
        assert lines[:2] == ["Item 8 > Consolidated Statement of Cash Flows", header]
        assert chunk.section_path == ["Item 8", "Consolidated Statement of Cash Flows"]
        source = doc_text[chunk.char_start:chunk.char_end]
        # Every linearised row's values come from this chunk's own span.
        for row in lines[2:]:
            label = row.split(" | ")[0]
            assert label in source
        assert source.rstrip().splitlines()[-1].startswith(lines[-1].split(" | ")[0])
    first = tables[0]
    assert doc_text[first.char_start:].startswith("Consolidated Statement of Cash Flows")
    assert "Line item 1 for operations | 2023: 10 | 2022: (7) | 2021: 3 | (in millions)" in first.text
    rows = [line for c in tables for line in c.text.split("\n")[2:]]
    assert len(rows) == 60 and rows[-1] == "Line item 60 for operations | 2023: 600 | 2022: (420) | 2021: 180 | (in millions)"
    # Spans of consecutive table chunks do not overlap and follow each other.
    for before, after in zip(tables, tables[1:], strict=False):
        assert before.char_end < after.char_start


def test_summaries_are_informative_sentences(chunked) -> None:  # type: ignore[no-untyped-def]
    _, sections, chunks, _ = chunked
    risk = next(s for s in sections if s.path == ["Item 1A"])
    assert risk.summary and "Risk Factors" not in risk.summary
    assert all(part.endswith(".") for part in re.split(r"(?<=\.) ", risk.summary))
    statement = next(s for s in sections if s.kind == "statement")
    assert statement.summary.startswith("Consolidated Statement of Cash Flows | Years ended December 31")
    for chunk in chunks:
        assert chunk.section_summary == next(s.summary for s in sections if s.section_id == chunk.section_id)


def test_summarize_picks_central_sentences_not_headings() -> None:
    text = (
        "RESULTS OF OPERATIONS\n"
        "Revenue grew 12% to $4.8 billion as demand for sensors rose across all regions.\n"
        "The weather was pleasant for most of the year at headquarters.\n"
        "Revenue from sensors and revenue from devices both grew, and sensors revenue led the growth.\n"
        "Net Sales\n"
    )
    assert summarize_section(text, 2) == (
        "Revenue grew 12% to $4.8 billion as demand for sensors rose across all regions. "
        "Revenue from sensors and revenue from devices both grew, and sensors revenue led the growth."
    )
    assert summarize_section("Heading Only\nAnother Heading", 2) == ""


def test_boilerplate_repeated_on_pages_is_dropped(settings: Settings) -> None:
    legal = (
        "This document contains forward-looking statements that involve risks and uncertainties, and actual results "
        "could differ materially from those anticipated in these statements for many reasons."
    )
    legal += " Readers should not place undue reliance on these statements, which speak only as of this date today."
    topics = {1: "sensors", 2: "valves", 3: "pumps"}
    pages = make_pages([
        f"Item {n}. {topic.title()}\n{sentences(topic, 12)}\n{legal}\n{sentences(topic + 'x', 12)}"
        for n, topic in topics.items()
    ])
    settings = settings.replace(chunk_words=30, chunk_overlap_words=0)
    chunks = chunk_document("a" * 64, pages, detect_sections(pages), settings)
    # The legal sentence fills a chunk of its own on every page: only the first page's copy stays.
    assert [c.page for c in chunks if "forward-looking" in c.text] == [0]
    assert len([c for c in chunks if "undue reliance" in c.text]) == 3  # merged with page text: not duplicates
    for topic in ("sensors", "valves", "pumps", "pumpsx"):  # every page's own sentences survive
        assert any(c.text.startswith(topic.capitalize()) for c in chunks)
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))


def test_drop_near_duplicates_keeps_the_first() -> None:
    base = " ".join(f"w{i}" for i in range(40))
    near = base.replace("w39", "x39")  # 35 of 36 shingles shared: Jaccard 0.95
    other = " ".join(f"v{i}" for i in range(40))
    assert drop_near_duplicates([base, other, near, "Short text", "short  TEXT"], 0.9) == [0, 1, 3]
    assert drop_near_duplicates([base, near], 0.99) == [0, 1]


# ---------------------------------------------------------------------------------------------------------
# Real filings (slow)
# ---------------------------------------------------------------------------------------------------------
# Most of an evidence snippet's numbers must be in its page's chunks; dates in headers ("December 31") and
# page numbers are reformatted or dropped, so not all of them are.
MIN_PAGE_NUMBER_RECALL = 0.8
MIN_TOTAL_NUMBER_RECALL = 0.95
N_FILINGS = 6


@pytest.mark.slow
def test_gold_evidence_numbers_are_in_their_page_chunks(findata: Path) -> None:
    bench = findata / "financebench"
    evidence: dict[str, list[dict]] = defaultdict(list)
    for line in (bench / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        for ev in json.loads(line)["evidence"]:
            if (bench / "docs" / "pdf" / f"{ev['doc']}.pdf").exists() and find_numbers(ev["text"]):
                evidence[ev["doc"]].append(ev)
    sizes = {d: (bench / "docs" / "pdf" / f"{d}.pdf").stat().st_size for d in evidence}
    ordered = sorted(evidence, key=lambda d: (sizes[d], d))
    if len(ordered) < N_FILINGS:
        pytest.skip("fewer than 6 FinanceBench filings with evidence available")
    # Filings spread over the size range: earnings releases, 10-Qs and 10-Ks.
    picked = [ordered[round(i * (len(ordered) - 1) / (N_FILINGS - 1))] for i in range(N_FILINGS)]
    settings = Settings.from_env()
    needed = found = 0
    timings: list[str] = []
    for name in picked:
        start = time.perf_counter()
        doc = load_pages(bench / "docs" / "pdf" / f"{name}.pdf", settings)
        chunks = chunk_document("0" * 64, doc.pages, detect_sections(doc.pages), settings)
        per_page = (time.perf_counter() - start) / len(doc.pages)
        timings.append(f"{name}: {len(doc.pages)} pages, {1000 * per_page:.1f} ms/page")
        for ev in evidence[name]:
            want = {round(abs(n.value), 6) for n in find_numbers(ev["text"])}
            have = {
                round(abs(n.value), 6)
                for c in chunks
                if c.page <= ev["page"] <= c.page_end
                for n in find_numbers(c.text)
            }
            recall = len(want & have) / len(want)
            assert recall >= MIN_PAGE_NUMBER_RECALL, (name, ev["page"], sorted(want - have)[:10])
            needed += len(want)
            found += len(want & have)
    print("\n".join(timings))
    assert found / needed >= MIN_TOTAL_NUMBER_RECALL, found / needed


def test_a_table_continued_in_another_chunk_repeats_its_sub_heading(settings: Settings) -> None:
    rows = "\n".join(f"Segment {chr(65 + i)} North America\n$ {100 + i} $ {90 + i}" for i in range(12))
    text = ("Supplemental Financial Information\n(in millions)\n12 Weeks Ended\n3/25/2023\n3/19/2022\n"
            f"Operating Profit\n{rows}\nTotal\n$ 1,266 $ 1,146\n")
    pages = make_pages([text])
    chunks = chunk_document("b" * 64, pages, detect_sections(pages), settings.replace(chunk_words=60))
    tables = [c for c in chunks if "| 12 Weeks Ended 3/25/2023:" in c.text]
    assert len(tables) >= 2  # the table was split
    for chunk in tables:
        lines = chunk.text.split("\n")
        first_row = next(i for i, line in enumerate(lines) if "| 12 Weeks Ended 3/25/2023:" in line)
        assert lines[first_row - 1] == "Operating Profit", chunk.text  # the rows' metric travels with them
