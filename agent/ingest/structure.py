"""Find the structure of a filing: Parts, Items, financial statements, notes and MD&A sub-headings.

Sections tile the document text with no gap: each starts at its heading line and ends where the next starts;
text before the first heading is the ``cover`` section. Table-of-contents pages (many headings that end in
page numbers) and running headers (a heading repeated at the top of every page of its section) never open
a section.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import dataclass

from agent.ingest.line_cells import split_cells
from agent.ingest.tables import find_tables
from agent.schemas import PAGE_SEPARATOR, Page, Section

# Heading lines are short; a longer line is body text that happens to start with "Item 7" or "Note 4".
MAX_HEADING_CHARS = 160
# A title taken from the line after a bare "Item 7" has at most this many words.
MAX_TITLE_WORDS = 14
# Notes are numbered in order; outside a "Notes to ..." section a "Note N" this far past the last one is a
# cross-reference, not a heading.
NOTE_MAX_GAP = 3
# A table-of-contents page lists at least this many headings, most of them ending in a page number.
TOC_MIN_ENTRIES = 3
TOC_MIN_NUMBERED_SHARE = 0.5
# Running headers/footers: lines among the first/last few of a page that recur on many pages.
RUNNING_ZONE_LINES = 3
RUNNING_MIN_PAGES = 3
RUNNING_MIN_SHARE = 0.15
# MD&A sub-headings are short Title Case or ALL CAPS lines.
SUBHEADING_MAX_WORDS = 10
SUBHEADING_MAX_CHARS = 80
SUBHEADING_MIN_CAPITALISED = 0.7
# The line after a sub-heading starts a paragraph: at least this many words (table header fragments are short).
SUBHEADING_NEXT_MIN_WORDS = 6
# Longest title kept on a Section (some headings run on).
MAX_TITLE_CHARS = 150

LEVEL_PART, LEVEL_ITEM, LEVEL_SUB, LEVEL_NOTE = 0, 1, 2, 3

_PART_RE = re.compile(r"^PART\s+((?:I\s?){1,3}V?|IV|V)(?![A-Za-z])\s*[.:\-–—]?\s*(.*)$", re.IGNORECASE)
_ITEM_RE = re.compile(
    r"^ITEM\s+(\d{1,2}(?:\.\d{2})?)(?:\s?([A-Ca-c])(?![A-Za-z]))?\s*[.:\-–—]?\s*(.*)$", re.IGNORECASE
)
_STATEMENT_RE = re.compile(
    r"^(?:(?:condensed|combined)\s+)?consolidated\s+(?:"
    r"statements?\s+of\s+(?:consolidated\s+)?(?:cash\s+flows?|operations|income|earnings|comprehensive"
    r"(?:\s+(?:income|loss|earnings))?|(?:changes\s+in\s+)?(?:(?:share(?:holders|owners)|stockholders|share\s+owners)"
    r"['’]?\s+)?equity|financial\s+(?:position|condition)|(?:changes\s+in\s+)?net\s+assets)"
    r"|balance\s+sheets?)(?![A-Za-z])(?P<rest>.*)$",
    re.IGNORECASE,
)
_STATEMENT_REST_RE = re.compile(
    r"^\s*(?:\((?:continued|unaudited|in\s[^)]*|[^)]*(?:millions|thousands|billions)[^)]*)\)\s*)*"
    r"(?:[—–:-].*|for\s+the\b.*|as\s+of\b.*|at\b.*|years?\s+ended.*|(?:three|six|nine|twelve)\b.*"
    r"|and\s+(?:comprehensive\s+)?(?:income|loss|earnings|equity)\b.*|\d{1,3}"
    r"|[A-Z][\w.,&'’ -]*\b(?:subsidiar(?:y|ies)(?:\s+companies)?|inc\.?|corporation|company|companies))?\s*$",
    re.IGNORECASE,
)
# Statements titled without "Consolidated ... of" (Microsoft: "INCOME STATEMENTS", "BALANCE SHEETS"): a whole line
# in capitals (in mixed case "Balance Sheet" is a common caption inside notes).
_SHORT_STATEMENT_RE = re.compile(
    r"^(?:CONSOLIDATED\s+)?(?:(?:COMPREHENSIVE\s+)?INCOME|CASH\s+FLOWS?|(?:STOCKHOLDERS|SHAREHOLDERS)['’]?\s+EQUITY)"
    r"\s+STATEMENTS?$|^(?:CONSOLIDATED\s+)?BALANCE\s+SHEETS?$"
)
_NOTES_TO_RE = re.compile(
    r"^notes?\s+to\s+(?:the\s+)?(?:condensed\s+)?(?:consolidated\s+)?financial\s+statements(?![A-Za-z])"
    r"\s*(?:\((?:continued|unaudited)\))?\s*(?:[—–:-].*)?$",
    re.IGNORECASE,
)
_NOTE_RE = re.compile(r"^note\s+(\d{1,2})(?:\s*[.:\-–—]\s*|\s+)(?P<title>.+)$", re.IGNORECASE)
_PAGE_REF_RE = re.compile(r"(?:\s|^)(?:\d{1,3}|N/A)$", re.IGNORECASE)
_SENTENCE_END_RE = re.compile(r"[.:;?!)”\"’%\d]$")
_TRAILING_PAGE_RE = re.compile(r"\s+\d{1,3}$")
_SMALL_WORDS = {"and", "or", "of", "the", "in", "on", "for", "to", "a", "an", "by", "with", "from", "at", "vs", "vs."}


@dataclass
class _Heading:
    start: int  # offset in the document text
    level: int
    kind: str
    key: str
    label: str
    title: str
    path: tuple[str, ...] = ()


# -------------------------------------------------------------------------------------------------------
# Line helpers
# -------------------------------------------------------------------------------------------------------
def _despace(line: str) -> str:
    """Undo pdfium's split word ends ('Incom e', 'Shee t', 'PART II I') so headings match."""
    return re.sub(r"(?<=[a-z]{2}) (?=[b-z](?![A-Za-z]))", "", line)


def line_key(line: str) -> str:
    """A line's identity for repetition checks: lower case, digits as '#', spaces collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"\d+", "#", line.lower())).strip()


def running_lines(pages: list[Page]) -> set[str]:
    """Keys (:func:`line_key`) of running headers and footers: lines near a page's top or bottom that recur."""
    counts: Counter[str] = Counter()
    for page in pages:
        lines = [ln.strip() for ln in page.text.split("\n") if ln.strip()]
        zone = lines[:RUNNING_ZONE_LINES] + lines[-RUNNING_ZONE_LINES:]
        counts.update({line_key(ln) for ln in zone})
    threshold = max(RUNNING_MIN_PAGES, RUNNING_MIN_SHARE * len(pages))
    return {key for key, n in counts.items() if n >= threshold and key}


def _page_lines(page: Page) -> list[tuple[int, str]]:
    """(offset in the page, stripped text) of each non-empty line."""
    out: list[tuple[int, str]] = []
    pos = 0
    for raw in page.text.split("\n"):
        stripped = raw.strip()
        if stripped:
            out.append((pos + len(raw) - len(raw.lstrip()), stripped))
        pos += len(raw) + 1
    return out


def _is_title_text(text: str) -> bool:
    """Starts like a heading title: a capital letter, '[Reserved]' or '(Removed and Reserved)'."""
    return bool(text) and (text[0].isupper() or text[0] in "[(") and not text.startswith("(Note")


def _is_bare_item(line: str) -> bool:
    """'Item 7' or 'ITEM 1A.' with no title on the line."""
    m = _ITEM_RE.match(_despace(line))
    return bool(m) and not m.group(3).strip()  # type: ignore[union-attr]


def _item_order(key: str) -> tuple[float, str]:
    """Sort key of 'Item 7A' -> (7.0, 'A'); 'Item 2.02' -> (2.02, '')."""
    m = re.match(r"Item (\d+(?:\.\d+)?)([A-Z]?)", key)
    return (float(m.group(1)), m.group(2)) if m else (0.0, "")


def _clean_title(text: str) -> str:
    return _TRAILING_PAGE_RE.sub("", text).strip().rstrip(".").strip()[:MAX_TITLE_CHARS]


# -------------------------------------------------------------------------------------------------------
# Candidate headings on one line
# -------------------------------------------------------------------------------------------------------
def _structural(line: str, next_line: str) -> tuple[int, str, str, str] | None:
    """(level, kind, key, title) when a line is a Part, Item, statement, notes or note heading."""
    if len(line) > MAX_HEADING_CHARS:
        return None
    text = _despace(line)
    m = _PART_RE.match(text)
    if m:
        rest = m.group(2).strip()
        if rest and not (_is_title_text(rest) or _PAGE_REF_RE.fullmatch(" " + rest)):
            return None
        roman = m.group(1).replace(" ", "").upper()
        return LEVEL_PART, "other", f"Part {roman}", f"Part {roman}" + (f" — {_clean_title(rest)}" if rest else "")
    m = _ITEM_RE.match(text)
    if m:
        key = f"Item {m.group(1)}{(m.group(2) or '').upper()}"
        rest = m.group(3).strip()
        if not rest:
            nxt = _despace(next_line)
            if not _is_title_text(nxt) or len(nxt.split()) > MAX_TITLE_WORDS or _ITEM_RE.match(nxt) or _PART_RE.match(nxt):
                return None
            rest = nxt
        elif not _is_title_text(rest) or re.search(r"[.;]\s+\S", rest) or "(continued)" in rest.lower():
            return None  # a sentence that mentions an Item, or a continued table of contents
        title = _clean_title(rest)
        lowered = title.lower().replace("’", "'")
        kind = "risk" if "risk factors" in lowered else "mdna" if "management's discussion" in lowered else "item"
        return LEVEL_ITEM, kind, key, f"{key}. {title}"
    if _SHORT_STATEMENT_RE.match(text):
        return LEVEL_SUB, "statement", line_key(text), _clean_title(text)
    m = _STATEMENT_RE.match(text)
    if m and _STATEMENT_REST_RE.match(m.group("rest")):
        title = _clean_title(re.sub(r"\s*\((?:continued|unaudited)\)", "", text, flags=re.IGNORECASE))
        return LEVEL_SUB, "statement", line_key(text[: m.start("rest")]), title
    if _NOTES_TO_RE.match(text):
        title = _clean_title(re.sub(r"\s*\((?:continued|unaudited)\)", "", text, flags=re.IGNORECASE))
        return LEVEL_SUB, "note", "notes to financial statements", title
    m = _NOTE_RE.match(text)
    if m:
        title = m.group("title").strip().lstrip("—–-:. ").strip()
        if not _is_title_text(title) or (title.endswith(".") and len(title.split()) > MAX_TITLE_WORDS):
            return None
        return LEVEL_NOTE, "note", f"Note {int(m.group(1))}", _clean_title(f"Note {int(m.group(1))}. {title}")
    return None


def is_statement_title(text: str) -> bool:
    """Whether a line titles a primary statement ('Consolidated Statements of Earnings', 'BALANCE SHEETS')."""
    line = _despace(text)
    return bool(_SHORT_STATEMENT_RE.match(line) or _STATEMENT_RE.match(line))


def _capitalised_share(words: list[str]) -> float:
    significant = [w for w in words if w.lower() not in _SMALL_WORDS and w[0].isalpha()]
    return sum(w[0].isupper() for w in significant) / len(significant) if significant else 0.0


def _is_subheading(line: str, prev_line: str, next_line: str, after_heading: bool = False) -> bool:
    """A short Title Case or ALL CAPS line between paragraphs (MD&A sub-headings)."""
    words = line.split()
    if not words or len(words) > SUBHEADING_MAX_WORDS or len(line) > SUBHEADING_MAX_CHARS:
        return False
    if not line[0].isupper() or line[-1] in ".,;:" or line.lower() == "table of contents":
        return False
    if re.search(r"\d", re.sub(r"\b(?:19|20)\d{2}\b", "", line)):
        return False
    if _capitalised_share(words) < SUBHEADING_MIN_CAPITALISED:
        return False
    # The line before ends a sentence or a table row, so this is not the tail of a wrapped sentence.
    if prev_line and not after_heading and not _SENTENCE_END_RE.search(prev_line):
        return False
    # The line after starts a paragraph (or a run-in sub-heading "Net Sales:"), not more header fragments.
    next_words = next_line.split()
    if next_line.endswith(":") and len(next_words) <= SUBHEADING_MAX_WORDS:
        return True
    if len(next_words) < SUBHEADING_NEXT_MIN_WORDS or _capitalised_share(next_words) >= SUBHEADING_MIN_CAPITALISED:
        return False
    _, cells = split_cells(next_line)
    return not (cells and len(next_words) <= len(cells) + 2)


def _toc_start(lines: list[tuple[int, str]]) -> int | None:
    """Index of the first entry of a table of contents on this page, or None when the page is not one.

    A table of contents lists many headings that end in page numbers (on their line, or on the title line
    after a bare "Item 1."). Headings above its first entry are real: "Item 8. Financial Statements" often
    heads the page that indexes the statements.
    """
    entries = numbered = 0
    first: int | None = None
    for i, (_, text) in enumerate(lines):
        t = _despace(text)
        if not (_PART_RE.match(t) or _ITEM_RE.match(t) or _NOTE_RE.match(t) or _STATEMENT_RE.match(t)
                or _NOTES_TO_RE.match(_TRAILING_PAGE_RE.sub("", t))):
            continue
        if _PART_RE.match(t) and not _PAGE_REF_RE.search(t):
            continue  # Part lines carry no page numbers in most tables of contents
        entries += 1
        nxt = lines[i + 1][1] if i + 1 < len(lines) else ""
        if _PAGE_REF_RE.search(t) or (_is_bare_item(t) and _PAGE_REF_RE.search(nxt)):
            numbered += 1
            first = i if first is None else first
    if entries >= TOC_MIN_ENTRIES and numbered >= TOC_MIN_NUMBERED_SHARE * entries:
        return first
    return None


# -------------------------------------------------------------------------------------------------------
# Sections
# -------------------------------------------------------------------------------------------------------
def _headings(pages: list[Page]) -> list[_Heading]:
    running = running_lines(pages)
    accepted: list[_Heading] = []
    open_by_level: dict[int, _Heading] = {}
    item_part: dict[str, str] = {}
    last_note = 0
    for page in pages:
        lines = _page_lines(page)
        toc_start = _toc_start(lines)
        table_spans: list[tuple[int, int]] | None = None
        for i, (offset, text) in enumerate(lines):
            if toc_start is not None and i >= toc_start:
                break
            prev_line = next((t for _, t in reversed(lines[:i]) if line_key(t) not in running), "")
            next_line = lines[i + 1][1] if i + 1 < len(lines) else ""
            found = _structural(text, next_line)
            if toc_start is not None and found is not None and (found[0] != LEVEL_ITEM or _is_bare_item(text)):
                continue  # above a table of contents only a titled Item is trusted
            if found is None:
                item = open_by_level.get(LEVEL_ITEM)
                if item is None or item.kind != "mdna" or line_key(text) in running:
                    continue
                after_heading = bool(prev_line) and _structural(prev_line, text) is not None
                if not _is_subheading(text, prev_line, next_line, after_heading):
                    continue
                if table_spans is None:
                    table_spans = [(t.char_start, t.char_end)
                                   for t in find_tables(page.text, page.runs, page.grid, page.grid_tables)]
                if any(s <= offset < e for s, e in table_spans):
                    continue
                found = (LEVEL_SUB, "mdna", line_key(text), _clean_title(text))
            level, kind, key, title = found
            if level == LEVEL_ITEM and _is_bare_item(text) and line_key(text) in running:
                continue  # "Item 7" alone atop every page of Item 7
            current = open_by_level.get(level)
            if level == LEVEL_ITEM and current is not None and _item_order(key) <= _item_order(current.key):
                continue  # Items only move forward within a Part; an earlier one here is a cross-reference
            if (current is not None and current.key == key) or any(
                h.key == key for lvl, h in open_by_level.items() if lvl < level
            ):
                continue  # a running header or a "(continued)" page of the open section
            label = key if level in (LEVEL_PART, LEVEL_ITEM) else title
            if level == LEVEL_NOTE:
                number = int(key.split()[1])
                sub = open_by_level.get(LEVEL_SUB)
                in_notes = sub is not None and sub.key == "notes to financial statements"
                if number <= last_note or (not in_notes and number > last_note + NOTE_MAX_GAP):
                    continue
                last_note = number
            if kind == "note" and level == LEVEL_SUB:
                last_note = 0
            if level == LEVEL_ITEM:
                part = open_by_level[LEVEL_PART].key if LEVEL_PART in open_by_level else ""
                first_part = item_part.setdefault(key, part)
                if first_part != part and part:
                    label = f"{part} {key}"  # 10-Q: Part II Item 1 is not Part I Item 1
            heading = _Heading(page.char_start + offset, level, kind, key, label, title)
            for lvl in [lv for lv in open_by_level if lv >= level]:
                del open_by_level[lvl]
            open_by_level[level] = heading
            heading.path = tuple(h.label for lv, h in sorted(open_by_level.items()) if lv != LEVEL_PART) or (label,)
            accepted.append(heading)
    return accepted


def detect_sections(pages: list[Page]) -> list[Section]:
    """Sections that tile the document text (PAGE_SEPARATOR-joined pages), in order, with paths and kinds."""
    if not pages:
        return []
    doc_len = sum(len(p.text) for p in pages) + len(PAGE_SEPARATOR) * (len(pages) - 1)
    starts = [p.char_start for p in pages]
    headings = _headings(pages)
    spans: list[tuple[int, str, list[str], str]] = []
    if not headings or headings[0].start > 0:
        spans.append((0, "Cover", ["Cover"], "cover"))
    for h in headings:
        spans.append((h.start, h.title, list(h.path), h.kind))
    sections: list[Section] = []
    for i, (start, title, path, kind) in enumerate(spans):
        end = spans[i + 1][0] if i + 1 < len(spans) else doc_len
        sections.append(
            Section(
                section_id=i,
                title=title,
                path=path,
                kind=kind,
                page_start=max(0, bisect.bisect_right(starts, start) - 1),
                page_end=max(0, bisect.bisect_right(starts, max(start, end - 1)) - 1),
                char_start=start,
                char_end=end,
            )
        )
    return sections
