"""Cut a parsed, sectioned document into retrievable chunks.

Chunks never cross a section. Prose is cut at line and sentence boundaries into chunks of about
``settings.chunk_words`` words with ``settings.chunk_overlap_words`` of overlap. Tables become table chunks whose
text is the section path, the table's header line (title, period columns, scale) and its linearised rows; a
long table is split into several chunks that each repeat the header. Every chunk keeps its source span:
``doc_text[chunk.char_start:chunk.char_end]`` is the text it came from. Near-duplicate chunks (boilerplate
repeated on every page) are dropped, keeping the first. Each section gets an extractive summary that its
chunks carry.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from agent.config import Settings
from agent.ingest.families import carried_scales, continued_tables, stacked_tables
from agent.ingest.hostile import is_instruction_like
from agent.ingest.layout import line_box, line_indent, span_box
from agent.ingest.linearise import linearise_row, table_header_line
from agent.ingest.parts import PARENT_ONLY, carried_parts, table_parts
from agent.ingest.prose import read_sentences
from agent.ingest.structure import RUNNING_ZONE_LINES, line_key, running_lines
from agent.ingest.tables import TableBlock, find_tables, scale_above, title_above
from agent.ingest.typed_tables import same_label, summed_parents, table_currency, table_record
from agent.schemas import PAGE_SEPARATOR, Chunk, Page, Section, TableRecord, chunk_id_for

# A prose piece with fewer words than this (a page number, a lone caption) is not worth a chunk.
MIN_CHUNK_WORDS = 4
# A last chunk smaller than this share of chunk_words is folded into the one before it.
MIN_TAIL_SHARE = 0.25
# Word n-grams compared for near-duplicates.
SHINGLE_SIZE = 5
# Extractive summaries: sentences this long are run-ons or lists; only the first sentences are scored.
SUMMARY_MIN_WORDS = 8
SUMMARY_MAX_WORDS = 60
SUMMARY_MAX_CANDIDATES = 400
SUMMARY_MAX_CHARS = 500
# Sentences that carry a figure are more informative in a filing; earlier sentences set the topic.
SUMMARY_NUMBER_BONUS = 0.25
SUMMARY_POSITION_BONUS = 0.5
# A line this short without end punctuation is a heading, not part of a paragraph (summaries skip headings).
HEADING_MAX_WORDS = 6

_SENTENCE_SPLIT_RE = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"”’)]))\s+(?=[A-Z0-9“\"(])")
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'’-]{2,}")
_TOKEN_RE = re.compile(r"\w+")
_PAGE_NUMBER_RE = re.compile(r"^(?:page\s+)?[-–]?\s*\d{1,4}\s*[-–]?(?:\s+of\s+\d{1,4})?$", re.IGNORECASE)
_STOPWORDS = frozenset(
    re.findall(
        r"\w+",
        """the and for that with this from are was were has have had its our their which such other than into
        these those been being also may not any all each more most over under per can could would should will
        including included includes based upon within during about between as of in on to by at or an a is be it
        we us you they them his her there here when where while what who whom how whose if then so""",
    )
)


@dataclass
class _Piece:
    start: int
    end: int
    text: str
    is_table: bool
    section: Section
    header: str = ""
    part: str = ""
    table: TableRecord | None = None


@dataclass
class _Unit:
    start: int
    end: int
    words: int


# -------------------------------------------------------------------------------------------------------
# Summaries
# -------------------------------------------------------------------------------------------------------
def _paragraphs(text: str) -> list[str]:
    """Join wrapped lines into paragraphs; short unpunctuated lines (headings) and blank lines separate them."""
    paragraphs: list[str] = []
    current: list[str] = []
    for line in text.split("\n"):
        stripped = line.strip()
        heading = len(stripped.split()) <= HEADING_MAX_WORDS and not re.search(r"[.!?:;,]$", stripped)
        if not stripped or heading or " | " in stripped:
            if current:
                paragraphs.append(" ".join(current))
            current = []
            continue
        current.append(stripped)
    if current:
        paragraphs.append(" ".join(current))
    return paragraphs


def summarize_section(text: str, n_sentences: int) -> str:
    """An extractive summary: the ``n_sentences`` most central, informative sentences, in text order.

    Sentences are scored by the average section frequency of their content words, with a bonus for carrying
    a figure and for coming early; headings, table rows and run-on sentences are never picked.
    """
    if n_sentences <= 0:
        return ""
    candidates: list[str] = []
    for paragraph in _paragraphs(text):
        for sentence in _SENTENCE_SPLIT_RE.split(paragraph):
            sentence = sentence.strip()
            words = sentence.split()
            if not (SUMMARY_MIN_WORDS <= len(words) <= SUMMARY_MAX_WORDS) or not re.search(r"[.!?][\"”’)]?$", sentence):
                continue
            alpha = sum(any(ch.isalpha() for ch in w) for w in words) / len(words)
            if alpha < 0.6 or is_instruction_like(sentence):
                continue
            candidates.append(sentence)
            if len(candidates) >= SUMMARY_MAX_CANDIDATES:
                break
        if len(candidates) >= SUMMARY_MAX_CANDIDATES:
            break
    if not candidates:
        return ""
    content = [[w.lower() for w in _WORD_RE.findall(s) if w.lower() not in _STOPWORDS] for s in candidates]
    freq = Counter(w for words in content for w in set(words))
    top = max(freq.values(), default=1)
    scored: list[tuple[float, int]] = []
    for i, (sentence, words) in enumerate(zip(candidates, content, strict=True)):
        unique = set(words)
        if not unique:
            continue
        centrality = sum(freq[w] for w in unique) / (len(unique) * top)
        bonus = (1 + SUMMARY_NUMBER_BONUS * bool(re.search(r"\d", sentence))) * (1 + SUMMARY_POSITION_BONUS / (1 + i))
        scored.append((centrality * bonus, i))
    chosen = sorted(i for _, i in sorted(scored, reverse=True)[:n_sentences])
    return " ".join(candidates[i] for i in chosen)


# -------------------------------------------------------------------------------------------------------
# Prose chunks
# -------------------------------------------------------------------------------------------------------
_SENTENCE_END_RE = re.compile(r"[.!?][\"”’)]?(?=\s)")


def _units(doc_text: str, start: int, end: int, max_words: int) -> list[_Unit]:
    """Sentences within lines (a line is never joined to the next), run-ons cut at max_words words."""
    units: list[_Unit] = []
    pos = start
    for line in doc_text[start:end].split("\n"):
        line_start, pos = pos, pos + len(line) + 1
        if not line.strip() or line.strip() == "\f":
            continue
        bounds = [0, *(m.end() for m in _SENTENCE_END_RE.finditer(line)), len(line)]
        for a, b in zip(bounds, bounds[1:], strict=False):
            tokens = list(re.finditer(r"\S+", line[a:b]))
            for k in range(0, len(tokens), max_words):
                group = tokens[k:k + max_words]
                units.append(_Unit(line_start + a + group[0].start(), line_start + a + group[-1].end(), len(group)))
    return units


def _boilerplate_lines(pages: list[Page]) -> set[int]:
    """Document offsets of lines to leave out of chunk text: repeated running headers/footers, page numbers."""
    running = running_lines(pages)
    offsets: set[int] = set()
    seen: set[str] = set()
    for page in pages:
        located: list[tuple[int, str]] = []
        pos = page.char_start
        for line in page.text.split("\n"):
            if line.strip():
                located.append((pos, line.strip()))
            pos += len(line) + 1
        zone = located[:RUNNING_ZONE_LINES] + located[-RUNNING_ZONE_LINES:]
        for off, text in dict(zone).items():
            key = line_key(text)
            if key in running:
                # The first occurrence stays: a running header says something once (a company, a title).
                if key in seen:
                    offsets.add(off)
                seen.add(key)
        offsets.update(off for off, text in located if _PAGE_NUMBER_RE.match(text))
    return offsets


def _clean_chunk_text(doc_text: str, start: int, end: int, skip: set[int]) -> str:
    """The span's text without running headers, page numbers and page separators (the span keeps them)."""
    kept: list[str] = []
    pos = start
    for line in doc_text[start:end].split("\n"):
        stripped = line.strip()
        if stripped and stripped != "\f" and pos + len(line) - len(line.lstrip()) not in skip:
            kept.append(stripped)
        pos += len(line) + 1
    return "\n".join(kept)


def _is_bare_heading(text: str, section: Section) -> bool:
    """Only the section's heading (or a short title line): nothing to retrieve that the section path lacks."""
    lines = text.split("\n")
    return len(lines) <= 2 and all(
        len(line.split()) <= HEADING_MAX_WORDS * 2 and not re.search(r"[.!?:;]$", line) for line in lines
    ) and section.title.split(".")[0].lower() in text.lower()


def _prose_pieces(
    doc_text: str, start: int, end: int, section: Section, settings: Settings, skip: set[int]
) -> list[_Piece]:
    target = max(1, settings.chunk_words)
    overlap = max(0, min(settings.chunk_overlap_words, target // 2))
    units = _units(doc_text, start, end, target)
    pieces: list[_Piece] = []
    i = 0
    while i < len(units):
        j, words = i, 0
        while j < len(units) and (words == 0 or words + units[j].words <= target):
            words += units[j].words
            j += 1
        rest = sum(u.words for u in units[j:])
        if 0 < rest < MIN_TAIL_SHARE * target:
            j = len(units)  # fold a small tail into this chunk
        span_start, span_end = units[i].start, units[j - 1].end
        text = _clean_chunk_text(doc_text, span_start, span_end, skip)
        if len(text.split()) >= MIN_CHUNK_WORDS and not _is_bare_heading(text, section):
            pieces.append(_Piece(span_start, span_end, text, False, section))
        if j >= len(units):
            break
        # Step back over whole units worth at most `overlap` words, always moving forward.
        k, back = j, 0
        while k - 1 > i and back + units[k - 1].words <= overlap:
            k -= 1
            back += units[k].words
        i = k
    return pieces


# -------------------------------------------------------------------------------------------------------
# Table chunks
# -------------------------------------------------------------------------------------------------------
def _summed_across_pages(pieces: list[_Piece], continuing: Sequence[int]) -> list[_Piece]:
    """``pieces`` with the rows of a table continued past a page break read with the rows before the break
    (``continuing``: the indexes of the tables that continue the one before them): rows a 'Total <X>' on the next
    page adds up are parts of X on either page (:func:`summed_parents`)."""
    for k in continuing:
        ids = {f"t{k - 1}", f"t{k}"}
        at = [i for i, p in enumerate(pieces) if p.table is not None and p.table.table_id.rsplit(":", 1)[-1] in ids]
        tables = [pieces[i].table for i in at if pieces[i].table is not None]
        if len({len(t.columns) for t in tables}) != 1:
            continue  # not one layout: no sum is read across them
        rows = summed_parents([r for t in tables for r in t.rows], tables[-1].columns)
        for i, table in zip(at, tables, strict=True):
            own, rows = rows[: len(table.rows)], rows[len(table.rows):]
            pieces[i] = replace(pieces[i], table=table.model_copy(update={"rows": own}))
    return pieces


def _table_pieces(
    table: TableBlock, record: TableRecord, clip_start: int, clip_end: int, section: Section, settings: Settings
) -> list[_Piece]:
    """One or more chunks for a table (clipped to its section), each repeating the section path and header, each
    with the typed record of the rows it holds."""
    offset = record.char_start - table.char_start
    kept = [i for i, r in enumerate(table.rows) if offset + r.char_start >= clip_start and offset + r.char_end <= clip_end]
    if not any(table.rows[i].cells for i in kept):
        return []
    header = table_header_line(table)
    path = " > ".join(section.path)
    lead = f"{path}\n{header}" if path and path != header else header
    lead_words = len(lead.split())
    lead_lines = lead.count("\n") + 1
    budget = max(1, settings.chunk_words - lead_words)
    pieces: list[_Piece] = []
    group: list[tuple[str, int]] = []  # (line, row index in the table)
    group_start = max(offset + table.char_start, clip_start)
    group_end = group_start
    words = 0

    def close() -> None:
        lines = [line for line, _ in group]
        rows = [record.rows[i].model_copy(update={"chunk_line": lead_lines + n}) for n, (_, i) in enumerate(group)]
        typed = record.model_copy(update={"rows": rows, "first_row": group[0][1], "section_path": list(section.path)})
        pieces.append(_Piece(group_start, group_end, lead + "\n" + "\n".join(lines), True, section, header,
                             record.part, typed))

    for i in kept:
        row = table.rows[i]
        if not row.label and record.rows[i].label:  # a line the record names ('Total Revenues' for a block's total)
            row = row.model_copy(update={"label": record.rows[i].label})
        line = linearise_row(table, row)
        n = len(line.split())
        if group and words + n > budget:
            close()
            group, words, group_start = [], 0, offset + row.char_start
            subheading = _heading_of(record, i) if row.cells else -1
            if subheading >= 0:
                # A continuation chunk repeats the header and the sub-heading its first rows are under.
                sub = linearise_row(table, table.rows[subheading])
                group, words = [(sub, subheading)], len(sub.split())
        group.append((line, i))
        words += n
        group_end = offset + row.char_end
    if group:
        close()
    return pieces


def _headed_above(table: TableBlock, lead: str) -> TableBlock:
    """``table`` titled and scaled by the header lines left at the foot of the page before it (see
    :func:`title_above`, :func:`scale_above`) where it states no title or scale of its own."""
    update: dict[str, object] = {} if table.title else {"title": title_above(lead)}
    scale, label = scale_above(lead) if not table.scale_label else (1.0, "")
    if scale != 1.0:
        update |= {"scale": scale, "scale_label": label}
    return table.model_copy(update=update) if update else table


def _heading_of(record: TableRecord, i: int) -> int:
    """The index of the sub-heading row the ``i``-th row sits under (-1: none; a total closed its block)."""
    parent = record.rows[i].parent
    if not parent:
        return -1
    return next((j for j in range(i - 1, -1, -1) if record.rows[j].heading and same_label(record.rows[j].label, parent)),
                -1)


# -------------------------------------------------------------------------------------------------------
# Near-duplicates
# -------------------------------------------------------------------------------------------------------
def _shingles(text: str) -> set[int]:
    tokens = [t.lower() for t in _TOKEN_RE.findall(text)]
    if len(tokens) < SHINGLE_SIZE:
        return {hash(" ".join(tokens))}
    return {hash(" ".join(tokens[i:i + SHINGLE_SIZE])) for i in range(len(tokens) - SHINGLE_SIZE + 1)}


def drop_near_duplicates(texts: list[str], threshold: float) -> list[int]:
    """Indexes of the texts to keep: a text whose shingle Jaccard with an earlier kept one is >= threshold goes."""
    index: dict[int, list[int]] = defaultdict(list)
    sizes: dict[int, int] = {}
    keep: list[int] = []
    for i, text in enumerate(texts):
        shingles = _shingles(text)
        shared: Counter[int] = Counter()
        for s in shingles:
            shared.update(index.get(s, ()))
        duplicate = any(
            n / (len(shingles) + sizes[j] - n) >= threshold for j, n in shared.items() if len(shingles) + sizes[j] - n
        )
        if duplicate:
            continue
        keep.append(i)
        sizes[i] = len(shingles)
        for s in shingles:
            index[s].append(i)
    return keep


# -------------------------------------------------------------------------------------------------------
# Entry point
# -------------------------------------------------------------------------------------------------------
def chunk_document(
    doc_id: str, pages: list[Page], sections: list[Section], settings: Settings, fy_end_month: int = 0,
    filing_period: str = "",
) -> list[Chunk]:
    """Chunks of a document in reading order, each table chunk with the typed record of its rows (periods in a
    fiscal year ending in ``fy_end_month``, the filer's; 0 when unknown). Also fills ``Section.summary`` on the
    sections passed in."""
    doc_text = PAGE_SEPARATOR.join(p.text for p in pages)
    page_starts = [p.char_start for p in pages]
    skip = _boilerplate_lines(pages)
    tables: list[tuple[int, TableBlock]] = [
        (page.char_start, table)
        for page in pages
        for table in find_tables(page.text, page.runs, page.grid, page.grid_tables)
    ]
    table_pages = [max(0, bisect.bisect_right(page_starts, offset) - 1) for offset, _ in tables]
    table_starts = [offset + t.char_start for offset, t in tables]
    section_starts = [s.char_start for s in sections]

    def in_statement(start: int) -> bool:
        at = bisect.bisect_right(section_starts, start) - 1
        return at >= 0 and sections[at].kind == "statement"

    table_ends = [offset + t.char_end for offset, t in tables]
    leads = [doc_text[(table_ends[k - 1] if k else 0):start] for k, start in enumerate(table_starts)]
    # a table at a page's top is titled by the heading left at the foot of the page before, and scaled by the scale
    # line under it there
    tables = [(offset, _headed_above(t, lead)) for (offset, t), lead in zip(tables, leads, strict=True)]
    titled = stacked_tables(continued_tables(carried_scales([t for _, t in tables], leads), leads), leads)
    # a table continued past a page break, or stacked under another, is one with it: its rows are the first part's
    continued = [i > 0 and titled[i].title != t.title and titled[i].title == titled[i - 1].title
                 for i, (_, t) in enumerate(tables)]
    parts = table_parts([t for _, t in tables], [in_statement(start) for start in table_starts], doc_text, leads,
                        continued)
    parts = carried_parts(parts, continued)
    named_parts = [p for p in dict.fromkeys(parts) if p and p != PARENT_ONLY]
    tables = list(zip([offset for offset, _ in tables], titled, strict=True))
    # the filing's reporting currency: the one most of its tables state
    stated = Counter(c for _, t in tables if (c := table_currency(t)))
    filing_currency = stated.most_common(1)[0][0] if stated else ""
    pieces: list[_Piece] = []
    for section in sections:
        s_start, s_end = section.char_start, section.char_end
        section_pieces: list[_Piece] = []
        prose_text: list[str] = []
        pos = s_start
        first = max(0, bisect.bisect_right(table_starts, s_start) - 1)
        for k, ((offset, table), part) in enumerate(zip(tables[first:], parts[first:], strict=True), start=first):
            t_start, t_end = offset + table.char_start, offset + table.char_end
            if t_start >= s_end:
                break
            if t_end <= s_start or t_start < pos and t_end <= pos:
                continue
            clip_start, clip_end = max(t_start, s_start, pos), min(t_end, s_end)
            on_page = pages[table_pages[k]]
            record = table_record(table, table_id=f"{doc_id[:12]}:t{k}", page=table_pages[k], offset=offset,
                                  section=section, part=part, other_parts=[p for p in named_parts if p != part],
                                  fy_end_month=fy_end_month,
                                  filing_period=filing_period, filing_currency=filing_currency,
                                  box=span_box(on_page, table.char_start, table.char_end),
                                  row_boxes=[line_box(on_page, row.char_start) for row in table.rows],
                                  row_indents=[line_indent(on_page, row.char_start) for row in table.rows])
            table_pieces = _table_pieces(table, record, clip_start, clip_end, section, settings)
            if not table_pieces:
                continue
            gap_end = table_pieces[0].start
            if gap_end > pos:
                section_pieces.extend(_prose_pieces(doc_text, pos, gap_end, section, settings, skip))
                prose_text.append(_clean_chunk_text(doc_text, pos, gap_end, skip))
            section_pieces.extend(table_pieces)
            pos = max(pos, table_pieces[-1].end)
        if pos < s_end:
            section_pieces.extend(_prose_pieces(doc_text, pos, s_end, section, settings, skip))
            prose_text.append(_clean_chunk_text(doc_text, pos, s_end, skip))
        prose = "\n".join(prose_text)
        table_words = sum(len(p.text.split()) for p in section_pieces if p.is_table)
        # A section that is mostly tables (a statement) is summarised by its tables' headers, not its footnotes.
        summary = "" if table_words > len(prose.split()) else summarize_section(prose, settings.summary_sentences)
        if not summary:
            # A section of tables only (a statement): its summary names the tables, periods and scale.
            headers = [p.header for p in section_pieces if p.is_table]
            summary = "; ".join(dict.fromkeys(headers))[:SUMMARY_MAX_CHARS]
        section.summary = summary
        pieces.extend(section_pieces)
    pieces = _summed_across_pages(pieces, [k for k, c in enumerate(continued) if c])
    keep = drop_near_duplicates([p.text for p in pieces], settings.near_duplicate_threshold)
    chunks: list[Chunk] = []
    for ordinal, index in enumerate(keep):
        piece = pieces[index]
        chunks.append(
            Chunk(
                chunk_id=chunk_id_for(doc_id, ordinal),
                doc_id=doc_id,
                ordinal=ordinal,
                section_id=piece.section.section_id,
                section_path=list(piece.section.path),
                page=max(0, bisect.bisect_right(page_starts, piece.start) - 1),
                page_end=max(0, bisect.bisect_right(page_starts, max(piece.start, piece.end - 1)) - 1),
                char_start=piece.start,
                char_end=piece.end,
                text=piece.text,
                is_table=piece.is_table,
                section_summary=piece.section.summary,
                part=piece.part,
                table=piece.table,
                sentences=read_sentences(piece.text, fy_end_month, filing_period, rows=piece.table is not None),
            )
        )
    return chunks
