"""Offline Chunk Cards: numbers with scale/sign/period, roles, boilerplate, scope, spans, speed."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from agent.ingest.cards import build_card, find_named_entities, find_scope_entities, fy_end_month_of
from agent.schemas import Chunk, ClaimRole, DocumentMeta, EvidenceType

META = DocumentMeta(
    doc_id="d" * 64, name="3M_2018_10K", company="3M", fiscal_year=2018, fiscal_period="FY2018"
)

CASH_FLOW_TABLE = (
    "Consolidated Statement of Cash Flows | Years ended December 31 | columns: 2018, 2017, 2016 "
    "| (in millions)\n"
    "Purchases of property, plant and equipment (PP&E) | 2018: (1,577) | 2017: (1,373) | 2016: (1,420) "
    "| (in millions)\n"
    "Net cash provided by (used in) operating activities | 2018: 6,439 | 2017: 6,240 | 2016: 6,662 "
    "| (in millions)\n"
    "Diluted earnings per share | 2018: $8.89 | 2017: $7.93 | 2016: $8.16 | (in millions)\n"
    "Effective tax rate | 2018: 23.4% | 2017: 35.5% | 2016: 28.3% | (in millions)"
)
SEGMENT_NARRATIVE = (
    "Sales in the Safety and Industrial segment increased 4.5 percent to $12.3 billion in 2018, compared "
    "with "
    "$11.8 billion in 2017, driven by organic growth in Asia Pacific and Latin America. See Note 12 and Item "
    "7."
)
SAFE_HARBOR = (
    "This Annual Report on Form 10-K contains forward-looking statements within the meaning of the Private "
    "Securities Litigation Reform Act of 1995. Such statements involve risks and uncertainties that could "
    "cause "
    "actual results to differ materially from those expressed. The Company undertakes no obligation to "
    "update any "
    "forward-looking statement. Investors are cautioned not to place undue reliance on these statements."
)
SIGNATURES = (
    "SIGNATURES Pursuant to the requirements of Section 13 or 15(d) of the Securities Exchange Act of 1934, "
    "the "
    "registrant has duly caused this report to be signed on its behalf by the undersigned, thereunto duly "
    "authorized. /s/ Michael F. Roman Chairman of the Board /s/ Monish Patolawala Senior Vice President"
)


def _chunk(
    text: str, is_table: bool = False, section_path: list[str] | None = None, ordinal: int = 1
) -> Chunk:
    return Chunk(
        chunk_id=f"dddddddddddd:{ordinal}",
        doc_id="d" * 64,
        ordinal=ordinal,
        section_id=3,
        section_path=section_path or [],
        page=59,
        page_end=59,
        char_start=0,
        char_end=len(text),
        text=text,
        is_table=is_table,
    )


def test_table_card_numbers_keep_scale_sign_and_period() -> None:
    card = build_card(
        _chunk(
            CASH_FLOW_TABLE, is_table=True, section_path=["Item 8", "Consolidated Statement of Cash Flows"]
        ),
        META,
    )
    by_text = {(n.text, n.period): n for n in card.numbers}
    capex = by_text[("(1,577)", "FY2018")]
    assert (capex.value, capex.scale, capex.absolute) == (-1577.0, 1e6, -1.577e9)
    assert by_text[("(1,373)", "FY2017")].value == -1373.0
    assert by_text[("6,439", "FY2018")].scale == 1e6
    eps = by_text[("$8.89", "FY2018")]
    assert (eps.value, eps.scale, eps.unit) == (8.89, 1.0, "USD")  # per-share amounts are never "in millions"
    rate = by_text[("23.4%", "FY2018")]
    assert (rate.value, rate.scale, rate.unit) == (23.4, 1.0, "%")
    # Twelve values, each located exactly in the chunk text; header years and "(in millions)" are not values.
    assert len(card.numbers) == 12
    for n in card.numbers:
        assert CASH_FLOW_TABLE[n.start:n.end] == n.text

    assert card.metrics == [
        "capital expenditure", "cash from operations", "diluted earnings per share", "effective tax rate"
    ]
    assert card.periods == ["FY2018", "FY2017", "FY2016"]
    assert card.is_table
    assert card.evidence_type == EvidenceType.TABLE_NUMERIC
    assert card.claim_role == ClaimRole.PRIMARY_EVIDENCE
    assert card.topic == "Cash Flow"  # the statement named in the title, not the balance-sheet lines it lists
    assert card.measurement_basis == "reported"
    assert card.entities == ["3M"]
    assert card.scope == "company"
    assert card.boilerplate == 0.0
    assert card.source == "offline"
    assert card.summary.startswith("Purchases of property, plant and equipment (PP&E) | 2018: (1,577)")

    spans = {(s.field, s.value) for s in card.evidence_spans}
    assert ("metric", "Purchases of property, plant and equipment (PP&E)") in spans
    assert ("number", "(1,577)") in spans
    for s in card.evidence_spans:
        assert CASH_FLOW_TABLE[s.start:s.end] == s.value or s.field == "entity"


def test_narrative_card_numbers_take_their_sentence_period() -> None:
    card = build_card(_chunk(SEGMENT_NARRATIVE, section_path=["Item 7", "Results of Operations"]), META)
    found = [(n.text, n.value, n.scale, n.unit, n.period) for n in card.numbers]
    assert found == [
        ("4.5 percent", 4.5, 1.0, "%", "FY2018"),
        ("$12.3 billion", 12.3, 1e9, "USD", "FY2018"),
        ("$11.8 billion", 11.8, 1e9, "USD", "FY2017"),
    ]  # "Note 12" and "Item 7" are references, not values
    assert card.metrics == ["revenue", "organic growth"]
    assert card.periods == ["FY2018", "FY2017"]
    assert card.evidence_type == EvidenceType.NARRATIVE_NUMERIC
    assert card.claim_role == ClaimRole.PRIMARY_EVIDENCE
    assert card.scope == "segment"
    assert card.entities[:4] == ["3M", "Safety and Industrial", "Asia Pacific", "Latin America"]
    assert card.measurement_basis == "organic"  # organic growth is a non-GAAP view of its own
    assert card.topic == "Revenue"
    assert not card.is_table


def test_safe_harbor_is_boilerplate() -> None:
    card = build_card(_chunk(SAFE_HARBOR), META)
    assert card.boilerplate >= 0.9
    assert card.claim_role == ClaimRole.BOILERPLATE
    assert card.evidence_type == EvidenceType.NONE
    assert card.numbers == []


def test_signature_block_is_boilerplate_but_a_results_paragraph_is_not() -> None:
    assert build_card(_chunk(SIGNATURES), META).claim_role == ClaimRole.BOILERPLATE
    assert build_card(_chunk(SEGMENT_NARRATIVE), META).boilerplate < 0.2


def test_headings_and_tables_of_contents_are_structural() -> None:
    heading = build_card(_chunk("Item 7. Management's Discussion and Analysis"), META)
    assert heading.claim_role == ClaimRole.STRUCTURAL_HEADING
    assert heading.evidence_type == EvidenceType.NONE
    toc = (
        "PART I Item 1. Business 4 Item 1A. Risk Factors 12 Item 1B. Unresolved Staff Comments 22 "
        "Item 2. Properties 22 Item 3. Legal Proceedings 23 PART II Item 5. Market for Registrant's Common "
        "Equity 24"
    )
    assert build_card(_chunk(toc), META).claim_role == ClaimRole.STRUCTURAL_HEADING


def test_policy_definition_and_guidance_cues() -> None:
    policy = (
        "Revenue recognition policy. We recognize revenue when control of the promised goods transfers to "
        "the "
        "customer. Revenue is recognized net of allowances in accordance with the accounting standard."
    )
    assert build_card(_chunk(policy), META).evidence_type == EvidenceType.POLICY_TEXT
    definition = (
        "Free cash flow is defined as net cash provided by operating activities less purchases of property, "
        "plant "
        "and equipment. Management uses it to evaluate liquidity."
    )
    card = build_card(_chunk(definition), META)
    assert card.claim_role == ClaimRole.DEFINITION
    assert "free cash flow" in card.metrics
    guidance = (
        "Full-year 2023 outlook: we now expect organic revenue growth of approximately 10 percent and expect "
        "core constant currency EPS growth of 9 percent, raised from our prior guidance."
    )
    card = build_card(_chunk(guidance), META)
    assert card.evidence_type == EvidenceType.GUIDANCE
    assert card.measurement_basis == "organic"  # the first basis it says other than the reported one


def test_fiscal_year_end_from_metadata_maps_quarters() -> None:
    nike = DocumentMeta(doc_id="n" * 64, name="NIKE_2019_10K", company="Nike", fiscal_period="FY2019",
                        period_end="2019-05-31")
    assert fy_end_month_of(nike) == 5
    assert fy_end_month_of(META) == 12
    card = build_card(_chunk("Revenues for the three months ended August 31, 2019 were $10.7 billion."), nike)
    assert card.periods == ["FY2020Q1"]
    assert card.numbers[0].period == "FY2020Q1"


def test_scope_and_named_entities() -> None:
    text = (
        "The Consumer segment and the Health Care segment grew in Greater China; "
        "Upjohn was spun off to Viatris."
    )
    scopes = find_scope_entities(text)
    assert [(s.name, s.kind) for s in scopes] == [
        ("Consumer", "segment"), ("Health Care", "segment"), ("Greater China", "geography")
    ]
    names = [n.name for n in find_named_entities(text)]
    assert "Upjohn" in names and "Viatris" in names
    assert "The" not in names


def _real_windows(findata: Path, doc: str, words: int = 250) -> list[Chunk]:
    out: list[Chunk] = []
    for line in (findata / "financebench" / "docs" / "text" / f"{doc}.jsonl").open():
        page = json.loads(line)
        tokens = list(re.finditer(r"\S+", page["text"]))
        for k in range(0, len(tokens), words):
            w = tokens[k:k + words]
            s, e = w[0].start(), w[-1].end()
            out.append(Chunk(chunk_id=f"{doc}:{page['page']}:{k}", doc_id=doc, ordinal=len(out), section_id=0,
                             page=page["page"], page_end=page["page"], char_start=s, char_end=e,
                             text=page["text"][s:e]))
    return out


def test_real_filing_cards_are_right_and_fast(findata: Path) -> None:
    chunks = _real_windows(findata, "3M_2018_10K")
    page59 = [c for c in chunks if c.page == 59]
    cards59 = [build_card(c, META) for c in page59]
    assert any("capital expenditure" in c.metrics and "FY2018" in c.periods for c in cards59)
    assert any(c.evidence_type == EvidenceType.TABLE_NUMERIC for c in cards59)
    start = time.process_time()
    cards = [build_card(c, META) for c in chunks]
    per_chunk_ms = 1000 * (time.process_time() - start) / len(chunks)
    # ~1-2 ms of CPU per 250-word chunk on a 2-core machine; the bound leaves room for slow CI hosts.
    assert per_chunk_ms < 8.0, per_chunk_ms
    assert sum(c.claim_role == ClaimRole.BOILERPLATE for c in cards) >= 1
