"""Offline Chunk Card twin (FinCARDS 3.2): a typed description of what a chunk can serve as evidence for.

Built from rules and parsers only (lexicon metrics, number and period parsers, section, scope and boilerplate
cues), so it is deterministic and fast enough for every chunk of a long filing (1-2 ms each).
Table chunks are linearised one row per line, ``Label | 2018: (1,577) | 2017: (1,373) | (in millions)``; each
number of such a row keeps its column's period, and the row's or table's declared scale.
"""

from __future__ import annotations

import bisect
import re

from pydantic import BaseModel

from agent.finance.basis import bases_said, other_than_reported
from agent.finance.fiscal_calendar import SNAP_DAY
from agent.finance.lexicon import MetricMention, find_metrics, topic_from_cues, topic_of
from agent.finance.numbers import find_numbers, header_scale
from agent.finance.periods import PeriodMention, find_periods, normalise_period, sort_key
from agent.schemas import (
    Basis,
    Chunk,
    ChunkCard,
    ClaimRole,
    DocumentMeta,
    EvidenceSpan,
    EvidenceType,
    NumericValue,
)

SUMMARY_MAX_CHARS = 200  # one line that fits a Stage 2 prompt row and a trace line
HEADING_MAX_WORDS = 12  # a chunk this short without numbers is a heading, not evidence
TOC_MIN_ITEMS = 4  # four "Item N" references in a short span is a table of contents
TOC_ITEMS_PER_100_WORDS = 3.0  # ...when they are this dense
BOILERPLATE_ROLE_MIN = 0.5  # boilerplate likelihood from which the claim role is boilerplate
TABLE_NUMERIC_LINE_SHARE = 0.4  # share of number-only lines that makes raw (unlinearised) text a table
NUMBER_WINDOW = 600  # characters around a narrative number searched for its period (one or two sentences)
LEGALESE_WEIGHT = 0.04  # boilerplate per legalese word per 100 words
LEGALESE_MAX = 0.3  # legalese alone never makes a chunk certain boilerplate
FEW_NUMBERS_BONUS = 0.1  # prose with no figures leans boilerplate
TOPIC_CUE_CHARS = 400  # with no metric named, the opening words (and section) carry the topic
STATEMENT_TITLE_CHARS = 160  # a table chunk's first line (title | columns | scale) names its statement
STATEMENT_TOPICS: dict[str, str] = {
    "income statement": "Profitability",
    "balance sheet": "Balance Sheet",
    "cash flow statement": "Cash Flow",
    "statement of shareholders equity": "Balance Sheet",
}
EVIDENCE_DISCOUNT = 0.25  # metric-bearing figures lean substantive: subtract this from the boilerplate score

# Cue phrases and how strongly each marks boilerplate (safe harbor, signatures, certifications, exhibit
# indexes, cover-page check boxes, legal notices). Weights add up and are capped at 1. Each cue has a
# lower-case anchor that must occur in the text before its pattern is run (keeps a card near a millisecond).
# Cue patterns are written in lower case and run on the lower-cased text: much faster than re.IGNORECASE.
_BOILERPLATE_CUES: tuple[tuple[str, re.Pattern[str], float], ...] = tuple(
    (anchor, re.compile(p), w)
    for anchor, p, w in (
        ("looking", r"forward[\s-]looking\s+statements?", 0.3),
        ("harbo", r"safe\s+harbou?r", 0.3),
        ("reform", r"private\s+securities\s+litigation\s+reform\s+act", 0.35),
        ("undertake", r"undertakes?\s+no\s+(?:obligation|duty)", 0.3),
        ("actual", r"actual\s+results\s+(?:could|may|might)\s+differ|cause\s+actual\s+results\s+to\s+differ",
         0.25),
        ("undue", r"undue\s+reliance", 0.25),
        ("pursuant", r"pursuant\s+to\s+the\s+requirements\s+of", 0.3),
        ("duly", r"duly\s+(?:authorized|caused)", 0.35),
        ("/s/", r"/s/", 0.2),
        ("attorney", r"attorney[\s-]in[\s-]fact|power\s+of\s+attorney", 0.3),
        ("certif", r"hereby\s+certif", 0.4),
        ("sarbanes", r"sarbanes[\s-]oxley", 0.2),
        ("exhibit", r"exhibit\s+index|index\s+to\s+exhibits", 0.4),
        ("reference", r"incorporated\s+(?:herein\s+)?by\s+reference", 0.15),
        ("herewith", r"filed\s+herewith|furnished\s+herewith", 0.3),
        ("check", r"indicate\s+by\s+check\s+mark", 0.25),
        ("filer", r"(?:large\s+)?accelerated\s+filer", 0.15),
        ("reserved", r"all\s+rights\s+reserved", 0.3),
        ("trademark", r"registered\s+trademarks?|trademarks?\s+of", 0.1),
        ("limitation", r"without\s+limitation", 0.1),
        ("contains", r"this\s+(?:annual\s+)?report\s+(?:on\s+form\s+10-[kq]\s+)?contains", 0.1),
    )
)
_LEGALESE = re.compile(
    r"\b(?:hereby|herein|hereof|hereto|hereunder|thereof|therein|thereto|thereunder|pursuant|whereof|"
    r"aforementioned|notwithstanding|shall|undersigned|heretofore)\b",
)
_LEGALESE_ANCHORS = (
    "here", "there", "pursuant", "whereof", "aforementioned", "notwithstanding", "shall", "undersigned"
)
_DEFINITION = re.compile(
    r"\b(?:is|are)\s+defined\s+as|\bwe\s+define\b|\brefers?\s+to\b|\bmeans\b|\bis\s+calculated\s+as|"
    r"\bis\s+computed\s+as|\bconsists?\s+of\b|\bdefinition\s+of\b|\bnon-gaap\s+(?:financial\s+)?measures?\b",
)
_POLICY = re.compile(
    r"\bpolic(?:y|ies)\b|\bwe\s+recogni[sz]e\b|\bis\s+recogni[sz]ed\b|\bare\s+recogni[sz]ed\b|"
    r"\bwe\s+account\s+for\b|\baccounting\s+(?:standard|principles?|treatment|estimates?)\b|"
    r"\bin\s+accordance\s+with\b|\bgaap\s+requires\b",
)
_GUIDANCE = re.compile(
    r"\b(?:guidance|outlook|we\s+expect|expects?\s+to|anticipates?|forecast(?:s|ed|ing)?|projected|"
    r"full[\s-]year\s+\d{4}|raised?\s+(?:its|our)\s+)\b",
)
_EXPLANATION = re.compile(
    r"\b(?:due\s+to|driven\s+by|primarily|because|as\s+a\s+result|attributable\s+to|reflect(?:s|ed|ing)?|"
    r"offset\s+by|resulting\s+from|contributed|impact(?:ed)?\s+(?:by|of))\b",
)
_CAVEAT = re.compile(
    r"\b(?:except|excluding|excludes|does\s+not\s+include|not\s+comparable|should\s+not\s+be\s+considered|"
    r"limitations?|no\s+assurance|subject\s+to|unaudited)\b",
)
_ITEM_REF = re.compile(r"\bitem\s+\d{1,2}[a-c]?\b")
# Numbers that are labels, not values: "Item 7", "Note 12", "Form 10-K", "ASU 2016-02".
_LABEL_BEFORE_NUMBER = re.compile(
    r"\b(?:Item|Notes?|Section|Rule|Part|page|Exhibit|No\.|Form|ASU|Topic|ASC)\s*(?=[\d(])", re.I
)
MONTH_LOOKBACK = 12  # "September. " is the longest month name before a day number, with its space
_MONTH_BEFORE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\(?$", re.I
)  # "December 31": the number after a month name is a day
_NON_VALUE_AFTER = re.compile(r"^-?[KQ]\b|^\s*-\s*[KQ]\b|^-\d")
_UNSCALED_ROW = re.compile(
    r"per\s+(?:common\s+|diluted\s+|basic\s+)?share|\bEPS\b|%|percent|ratio|\brate\b|margin|\bdays\b|"
    r"number\s+of",
    re.I,
)
_CELL_HEADER = re.compile(r"^\s*(?P<hdr>[^:|]{1,60}?)\s*:\s*(?P<val>.*)$", re.S)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"“$])")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’&-]*")
_NUMERIC_LINE = re.compile(r"^[\s$€£(),.%\d\-–—]*\d[\s$€£(),.%\d\-–—]*$")
_SEGMENT_CUE = re.compile(r"\b(?:segments?|divisions?|business\s+units?|operating\s+groups?)\b")
_PRODUCT_CUE = re.compile(r"\b(?:product\s+(?:lines?|categor(?:y|ies)|groups?)|brands?|franchises?)\b")
_MONEY_WORDS = re.compile(r"[$%€£]|\b(?:million|billion|percent)\b")
_STATEMENT_PATH = re.compile(r"consolidated|statements?\s+of|balance\s+sheets?", re.I)

# Regions named in filings, written as proper nouns (matched case-sensitively).
REGIONS: tuple[str, ...] = (
    "United States", "U.S.", "North America", "Latin America", "South America", "Central America", "Americas",
    "Europe", "Western Europe", "Eastern Europe", "EMEA", "Europe, Middle East and Africa", "Middle East",
    "Africa", "Asia Pacific", "Asia-Pacific", "APAC", "Asia", "Greater China", "China", "Japan", "India",
    "Canada", "Mexico", "Brazil", "United Kingdom", "U.K.", "Germany", "France", "Australia", "Korea",
    "Singapore", "Taiwan", "Macau", "Las Vegas", "Puerto Rico", "Russia", "Ukraine", "Switzerland",
    "Netherlands", "Ireland", "Italy", "Spain", "Israel", "Hong Kong",
)
_REGION_RE = re.compile(
    r"(?<![A-Za-z.-])(?:"
    + "|".join(re.escape(r) for r in sorted(REGIONS, key=len, reverse=True))
    + r")(?![A-Za-z])"
)
_SEGMENT_NAME_RE = re.compile(
    r"(?P<name>[A-Z][\w&'’.-]*(?:\s+(?:and\s+|&\s+|of\s+)?[A-Z][\w&'’.-]*){0,4})\s+"
    r"(?:business\s+|operating\s+|reportable\s+|reporting\s+)?(?:segments?|divisions?)\b"
)
# Capitalised words that start a sentence or a heading rather than name a segment.
_NOT_SEGMENT_WORDS = frozenset(
    {
        "the", "our", "each", "total", "other", "all", "reportable", "business", "operating", "this", "these",
        "its", "by", "in", "for", "of", "a", "an", "certain", "both", "new", "segment", "segments", "two",
        "three", "four", "five", "six", "seven", "eight", "which", "and", "information", "note", "item",
        "results", "consolidated", "geographic", "financial", "division", "divisions",
    }
)


_PROPER_NOUN_RE = re.compile(
    r"\b(?:[A-Z][a-z][\w'’&.-]*|[A-Z][A-Z&]{1,6}s?\b)"
    r"(?:[ \t]+(?:of[ \t]+|and[ \t]+|&[ \t]+|for[ \t]+)?(?:[A-Z][a-z][\w'’&.-]*|[A-Z][A-Z&]{1,6}s?\b))*"
)
_SENTENCE_START = re.compile(r"(?:^|[.!?|•\n])\s*[\"“(]?$")
# Capitalised words that open sentences, headings and statements rather than name something.
_NOT_NAMES_TEXT = """a an and as at by for from in into of on or the to with we our us it its this that
    these those our they their there here if when while where which who what how however although also
    any all each other such total net item part note notes table contents page form see refer including
    includes included other otherwise consolidated statements statement balance sheet sheets income loss
    cash flows flow operations financial results year years fiscal quarter months ended ending january
    february march april may june july august september october november december company corporation inc
    incorporated co ltd llc plc group million millions billion billions thousand thousands percent share
    shares per usd gaap non"""
_NOT_NAMES = frozenset(_NOT_NAMES_TEXT.split())
NAMED_ENTITY_MAX = 12  # proper names kept per card, most frequent first: enough to carry a chunk's actors


class ScopeMention(BaseModel):
    """A segment, region or other named thing (company, product, programme, person) in a text."""

    name: str
    kind: str  # segment | geography | name
    start: int
    end: int


# ---------------------------------------------------------------------------------------------------------
# Scope entities
# ---------------------------------------------------------------------------------------------------------
def find_scope_entities(text: str) -> list[ScopeMention]:
    """Segments ("Safety and Industrial segment") and regions ("Asia Pacific") named in ``text``."""
    out: list[ScopeMention] = []
    for m in _REGION_RE.finditer(text):
        out.append(ScopeMention(name=m.group(0), kind="geography", start=m.start(), end=m.end()))
    low = text.lower()
    has_segment_word = "segment" in low or "division" in low
    for m in _SEGMENT_NAME_RE.finditer(text) if has_segment_word else ():
        words = m.group("name").split()
        start = m.start("name")
        while words and words[0].lower().strip(".,") in _NOT_SEGMENT_WORDS:
            start = text.index(words[0], start) + len(words[0])
            words = words[1:]
            while start < len(text) and text[start].isspace():
                start += 1
        if not words or all(w.lower() in _NOT_SEGMENT_WORDS for w in words):
            continue
        name = " ".join(words)
        if _REGION_RE.fullmatch(name):
            continue  # already a region
        out.append(ScopeMention(name=name, kind="segment", start=start, end=m.end("name")))
    out.sort(key=lambda s: s.start)
    return out


def find_named_entities(
    text: str, limit: int = NAMED_ENTITY_MAX, skip: list[tuple[int, int]] | None = None
) -> list[ScopeMention]:
    """Proper names ("Upjohn", "Card Members", "Chief Executive Officer"), most frequent first, ``limit`` max.

    Runs of capitalised words and acronyms on one line, trimmed of the capitalised function words that start
    sentences and headings. Not names: a single ordinary word opening a sentence, table rows ("a | b" lines,
    whose labels are line items) and the ``skip`` spans (metric mentions such as "PP&E").
    """
    counts: dict[str, int] = {}
    first: dict[str, ScopeMention] = {}
    skip = sorted(skip or [])
    row_spans = [(m.start(), m.end()) for m in re.finditer(r"[^\n]*\|[^\n]*", text)] if "|" in text else []
    blocked = skip + row_spans
    for m in _PROPER_NOUN_RE.finditer(text):
        if blocked and any(s < m.end() and m.start() < e for s, e in blocked):
            continue
        words = m.group(0).split()
        start = m.start()
        while words and words[0].lower().strip(".,'’") in _NOT_NAMES:
            start = text.index(words[0], start) + len(words[0])
            words = words[1:]
            while start < len(text) and text[start].isspace():
                start += 1
        while words and words[-1].lower().strip(".,'’") in _NOT_NAMES:
            words = words[:-1]
        if not words:
            continue
        name = " ".join(words).strip(".,'’")
        if len(name) < 2 or name.lower() in _NOT_NAMES:
            continue
        single_word = len(words) == 1 and not name.isupper()
        if single_word and _SENTENCE_START.search(text, max(0, start - 4), start):
            continue  # "Revenues rose": a capital that only opens a sentence
        counts[name] = counts.get(name, 0) + 1
        if name not in first:
            first[name] = ScopeMention.model_construct(
                name=name, kind="name", start=start, end=start + len(name)
            )
    ranked = sorted(first, key=lambda n: (-counts[n], first[n].start))[:limit]
    return sorted((first[n] for n in ranked), key=lambda s: s.start)


# ---------------------------------------------------------------------------------------------------------
# Numbers with scale and period
# ---------------------------------------------------------------------------------------------------------
def _values(text: str, numbers: list[NumericValue]) -> list[NumericValue]:
    """Drop numbers that are labels, not values: 'Item 7', 'Note 12', 'Form 10-K'."""
    label_ends = {m.end() for m in _LABEL_BEFORE_NUMBER.finditer(text)}
    return [
        nv for nv in numbers
        if nv.start not in label_ends and not _NON_VALUE_AFTER.match(text, nv.end, nv.end + 4)
    ]


def _shift(nv: NumericValue, offset: int, period: str = "") -> NumericValue:
    """The number with offsets moved by ``offset`` (cell or line start) and, if given, its period."""
    changes: dict[str, object] = {"start": nv.start + offset, "end": nv.end + offset}
    if period:
        changes["period"] = period
    return nv.model_copy(update=changes)


def _table_row_numbers(line: str, offset: int, table_scale: float, fy_end_month: int) -> list[NumericValue]:
    """Numbers of one linearised row 'Label | 2018: (1,577) | 2017: (1,373) | (in millions)'."""
    cells: list[tuple[int, str]] = []
    pos = 0
    for part in line.split("|"):
        cells.append((pos, part))
        pos += len(part) + 1
    label = cells[0][1]
    row_scale = header_scale(line)
    scale = row_scale if row_scale != 1.0 else table_scale
    if _UNSCALED_ROW.search(label):
        scale = 1.0  # per-share amounts, percentages, ratios and days are never "in millions"
    out: list[NumericValue] = []
    for cell_start, cell in cells[1:]:
        m = _CELL_HEADER.match(cell)
        period, body, body_start = "", cell, 0
        if m is not None and re.search(r"\d", m.group("val")):
            period = normalise_period(m.group("hdr"), fy_end_month)
            body, body_start = m.group("val"), m.start("val")
        for nv in find_numbers(body, scale):
            if nv.unit in {"%", "bps", "x"} or _UNSCALED_ROW.search(label):
                nv = nv.model_copy(update={"scale": 1.0})
            out.append(_shift(nv, offset + cell_start + body_start, period))
    return out


def _narrative_numbers(text: str, periods: list[PeriodMention]) -> list[NumericValue]:
    """Numbers of prose; each takes the nearest period written in its sentence, if any."""
    bounds = [0] + [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text) + 1]
    starts = [p.start for p in periods]
    out: list[NumericValue] = []
    for nv in _values(text, find_numbers(text, 1.0)):
        k = bisect.bisect_right(bounds, nv.start) - 1
        lo, hi = bounds[k], bounds[k + 1]
        best, best_dist = "", NUMBER_WINDOW
        i = bisect.bisect_left(starts, lo)
        while i < len(periods) and periods[i].start < hi:
            p = periods[i]
            dist = p.start - nv.end if p.start >= nv.end else nv.start - p.end
            if 0 <= dist < best_dist:
                best, best_dist = p.norm, dist
            i += 1
        out.append(_shift(nv, 0, best) if best else nv)
    return out


def looks_tabular(text: str) -> bool:
    """True for linearised rows ('a | b') or raw statement text where most short lines are numbers."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return False
    if sum(1 for ln in lines if ln.count("|") >= 1) >= max(2, len(lines) // 2):
        return True
    numeric = sum(1 for ln in lines if _NUMERIC_LINE.match(ln))
    return len(lines) >= 8 and numeric / len(lines) >= TABLE_NUMERIC_LINE_SHARE


def _outside_dates(text: str, values: list[NumericValue], periods: list[PeriodMention]) -> list[NumericValue]:
    """Drop day numbers of dates ("December 31", "three months ended June 30, 2023"): they are not values."""
    spans = [(p.start, p.end) for p in periods]
    out: list[NumericValue] = []
    for nv in values:
        if any(s <= nv.start < e for s, e in spans):
            continue  # part of a period expression: "Q2 2023", "June 30, 2023"
        if _MONTH_BEFORE.search(text, max(0, nv.start - MONTH_LOOKBACK), nv.start):
            continue  # a day after a month name with no year: "December 31"
        out.append(nv)
    return out


def extract_numbers(
    text: str, is_table: bool, periods: list[PeriodMention] | None = None, fy_end_month: int = 12
) -> list[NumericValue]:
    """Every value in a chunk with unit, scale, sign and (when written) period; offsets into ``text``."""
    periods = periods if periods is not None else find_periods(text, fy_end_month)
    return _outside_dates(text, _extract_numbers(text, is_table, periods, fy_end_month), periods)


def _extract_numbers(
    text: str, is_table: bool, periods: list[PeriodMention], fy_end_month: int
) -> list[NumericValue]:
    if not is_table or "|" not in text:
        return _narrative_numbers(text, periods)
    table_scale = header_scale(text)
    out: list[NumericValue] = []
    offset = 0
    for line in text.split("\n"):
        if "|" in line:
            out.extend(_table_row_numbers(line, offset, table_scale, fy_end_month))
        elif line.strip():
            line_periods = [p.model_copy(update={"start": p.start - offset, "end": p.end - offset})
                            for p in periods if offset <= p.start < offset + len(line)]
            out.extend(_shift(nv, offset) for nv in _narrative_numbers(line, line_periods))
        offset += len(line) + 1
    return out


# ---------------------------------------------------------------------------------------------------------
# Roles, types, boilerplate
# ---------------------------------------------------------------------------------------------------------
def boilerplate_score(text: str, n_values: int, n_metrics: int, n_words: int) -> float:
    """Likelihood in [0, 1] that a chunk is boilerplate: cue phrases, legalese density, few figures."""
    score = 0.0
    low = text.lower()
    for anchor, pat, weight in _BOILERPLATE_CUES:
        if anchor not in low:
            continue
        hits = len(pat.findall(low))
        if hits:
            score += weight * min(hits, 3) ** 0.5  # repeated cues count, with diminishing returns
    legalese = len(_LEGALESE.findall(low)) if any(a in low for a in _LEGALESE_ANCHORS) else 0
    per_100 = 100.0 * legalese / max(n_words, 1)
    score += min(LEGALESE_MAX, LEGALESE_WEIGHT * per_100)
    if n_values <= 1:
        score += FEW_NUMBERS_BONUS
    if n_metrics and n_values >= 2:
        score -= EVIDENCE_DISCOUNT
    return round(min(1.0, max(0.0, score)), 3)


def _is_structural(low: str, n_words: int, n_values: int) -> bool:
    if n_words <= HEADING_MAX_WORDS and n_values == 0:
        return True
    items = len(_ITEM_REF.findall(low))
    return items >= TOC_MIN_ITEMS and 100.0 * items / max(n_words, 1) >= TOC_ITEMS_PER_100_WORDS


def _evidence_type(low: str, is_table: bool, n_values: int, n_metrics: int) -> EvidenceType:
    """The kind of evidence a chunk offers (``low`` is its lower-cased text)."""
    if is_table and n_values >= 2:
        return EvidenceType.TABLE_NUMERIC
    guidance = len(_GUIDANCE.findall(low))
    if guidance >= 2:
        return EvidenceType.GUIDANCE
    if n_values >= 1 and (n_metrics or _MONEY_WORDS.search(low)):
        return EvidenceType.NARRATIVE_NUMERIC
    if len(_POLICY.findall(low)) >= 2:
        return EvidenceType.POLICY_TEXT
    if _EXPLANATION.search(low):
        return EvidenceType.QUALITATIVE_EXPLANATION
    if guidance:
        return EvidenceType.GUIDANCE
    if _POLICY.search(low):
        return EvidenceType.POLICY_TEXT
    return EvidenceType.QUALITATIVE_EXPLANATION if _has_prose(low) else EvidenceType.NONE


def _has_prose(text: str) -> bool:
    """Enough words to explain something (more than a heading)."""
    return len(_WORD.findall(text)) > HEADING_MAX_WORDS


def _claim_role(
    low: str, structural: bool, boilerplate: float, evidence: EvidenceType, n_metrics: int
) -> ClaimRole:
    if structural:
        return ClaimRole.STRUCTURAL_HEADING
    if boilerplate >= BOILERPLATE_ROLE_MIN:
        return ClaimRole.BOILERPLATE
    numeric = evidence in (EvidenceType.TABLE_NUMERIC, EvidenceType.NARRATIVE_NUMERIC)
    if numeric and n_metrics:
        return ClaimRole.PRIMARY_EVIDENCE
    if _DEFINITION.search(low):
        return ClaimRole.DEFINITION
    if len(_CAVEAT.findall(low)) >= 2:
        return ClaimRole.CAVEAT
    return ClaimRole.SUPPORTING_CONTEXT


def _scope(low: str, scopes: list[ScopeMention], section_path: list[str]) -> str:
    if any(_SEGMENT_CUE.search(s.lower()) for s in section_path):
        return "segment"
    seg_cues = len(_SEGMENT_CUE.findall(low))
    seg_names = {s.name for s in scopes if s.kind == "segment"}
    regions = {s.name for s in scopes if s.kind == "geography"}
    if seg_cues >= 2 or (seg_cues and seg_names):
        return "segment"
    if len(regions) >= 2:
        return "geography"
    if len(_PRODUCT_CUE.findall(low)) >= 2:
        return "product"
    return "company"


def _measurement_basis(low: str, section_path: list[str], is_table: bool) -> str:
    """The basis the chunk states its figures on (:class:`agent.schemas.Basis`): another than the reported one when
    its words say one ('adjusted', 'organic growth', 'at constant currency'), reported when they say so or when it
    is a table of the audited statements, 'unknown' otherwise."""
    said = bases_said(low)
    other = other_than_reported(said)
    if other:
        return other[0].value
    if said or (is_table and any(_STATEMENT_PATH.search(s) for s in section_path)):
        return Basis.REPORTED.value  # the audited statements are as reported by definition
    return "unknown"


# ---------------------------------------------------------------------------------------------------------
# Summary
# ---------------------------------------------------------------------------------------------------------
def _summary(text: str, is_table: bool, marks: list[int]) -> str:
    """The most evidence-dense sentence (or table row), whitespace-normalised and cut to one line."""
    if is_table:
        units = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text)]
    else:
        bounds = [0] + [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]
        units = [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]
    best, best_score = (0, 0), -1
    for s, e in units:
        if not text[s:e].strip():
            continue
        score = bisect.bisect_left(marks, e) - bisect.bisect_left(marks, s)
        if score > best_score:
            best, best_score = (s, e), score
    line = " ".join(text[best[0]:best[1]].split())
    if len(line) > SUMMARY_MAX_CHARS:
        cut = line.rfind(" ", 0, SUMMARY_MAX_CHARS - 1)
        line = line[: cut if cut > 0 else SUMMARY_MAX_CHARS - 1] + "…"
    return line


# ---------------------------------------------------------------------------------------------------------
# The card
# ---------------------------------------------------------------------------------------------------------
def _statement_of(section_path: list[str], text: str) -> str:
    """The financial statement a table belongs to, from its section path or title line; '' when not named."""
    head = " ".join(section_path) + "\n" + text[:STATEMENT_TITLE_CHARS]
    for m in find_metrics(head, include_statements=True):
        if m.canonical in STATEMENT_TOPICS:
            return m.canonical
    return ""


def fy_end_month_of(meta: DocumentMeta | None, default: int = 12) -> int:
    """The fiscal year-end month of a filing when its metadata says so (the cover or its year-to-date columns,
    or an annual period ending then)."""
    if meta is not None and meta.fy_end_month:
        return meta.fy_end_month
    if meta is None or not meta.period_end:
        return default
    m = re.match(r"^\d{4}-(\d{2})-(\d{2})$", meta.period_end)
    if m is None or not re.fullmatch(r"FY\d{4}", meta.fiscal_period or ""):
        return default
    month, day = int(m.group(1)), int(m.group(2))
    if day <= SNAP_DAY:  # 52/53-week years that end in a month's first days close the previous month
        month = 12 if month == 1 else month - 1
    return month


def build_card(chunk: Chunk, meta: DocumentMeta | None = None) -> ChunkCard:
    """The offline Chunk Card of one chunk (deterministic; 1-2 ms of CPU for a 250-word chunk).

    ``meta`` adds the company as the first entity and the fiscal year-end month used to read quarter dates.
    """
    text = chunk.text or ""
    fy_end = fy_end_month_of(meta)
    is_table = chunk.is_table or looks_tabular(text)
    metrics: list[MetricMention] = find_metrics(text)
    periods = find_periods(text, fy_end)
    numbers = extract_numbers(text, is_table, periods, fy_end)
    scopes = find_scope_entities(text)
    scope_names = {s.name for s in scopes}
    metric_spans = [(m.start, m.end) for m in metrics]
    names = [n for n in find_named_entities(text, skip=metric_spans) if n.name not in scope_names]
    n_words = len(_WORD.findall(text))
    low = text.lower()
    metric_names = list(dict.fromkeys(m.canonical for m in metrics))

    boilerplate = boilerplate_score(text, len(numbers), len(metric_names), n_words)
    structural = _is_structural(low, n_words, len(numbers))
    evidence = (
        EvidenceType.NONE if structural else _evidence_type(low, is_table, len(numbers), len(metric_names))
    )
    role = _claim_role(low, structural, boilerplate, evidence, len(metric_names))
    if role == ClaimRole.BOILERPLATE and not numbers:
        evidence = EvidenceType.NONE  # safe-harbor prose and signatures evidence nothing

    period_norms = list(dict.fromkeys([p.norm for p in periods] + [n.period for n in numbers if n.period]))
    period_norms.sort(key=sort_key, reverse=True)
    entities: list[str] = [meta.company] if meta is not None and meta.company else []
    entities += [s.name for s in scopes] + [n.name for n in names]
    entities = list(dict.fromkeys(entities))

    # Spans are built from parser output of known types: construct without re-validating (hot path).
    span = EvidenceSpan.model_construct
    spans = [span(field="metric", value=m.surface, start=m.start, end=m.end) for m in metrics]
    spans += [span(field="period", value=p.surface, start=p.start, end=p.end) for p in periods]
    spans += [span(field="number", value=n.text, start=n.start, end=n.end) for n in numbers]
    spans += [span(field="entity", value=s.name, start=s.start, end=s.end) for s in [*scopes, *names]]
    spans.sort(key=lambda s: (s.start, s.end))

    topic = topic_of([m.canonical for m in metrics])
    statement = _statement_of(chunk.section_path, text) if is_table else ""
    if statement:
        # A cash-flow statement lists balance-sheet changes: it is still about cash flow.
        topic = STATEMENT_TOPICS[statement]
    elif topic == "Other":
        topic = topic_from_cues(" ".join([*chunk.section_path, text[:TOPIC_CUE_CHARS]]))
    # Weight the summary towards metric mentions: a metric counts twice, a number or period once.
    marks = sorted([m.start for m in metrics] * 2 + [n.start for n in numbers] + [p.start for p in periods])

    return ChunkCard(
        chunk_id=chunk.chunk_id,
        topic=topic,
        entities=entities,
        metrics=metric_names,
        numbers=numbers,
        periods=period_norms,
        section_path=list(chunk.section_path),
        is_table=is_table,
        claim_role=role,
        evidence_type=evidence,
        scope=_scope(low, scopes, chunk.section_path),
        measurement_basis=_measurement_basis(low, chunk.section_path, is_table),
        boilerplate=boilerplate,
        summary=_summary(text, is_table and "|" in text, marks),
        evidence_spans=spans,
        source="offline",
    )
