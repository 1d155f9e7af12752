"""Explanation, definition and policy answers: the best one to three evidence sentences, and figures stated in
prose next to the words that name them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.answer.reading import (
    EvidenceReader,
    Segment,
)
from agent.answer.records import Passage, SubAnswer, _not_found
from agent.answer.words import RETRIEVAL_WEIGHT, _asks_figure, _for_company, clip_words
from agent.finance.periods import ends_in_month, find_periods
from agent.ingest.prose import FOOTNOTE_RE
from agent.query.content import WORD_RE, content_words
from agent.query.plan import SubQuery
from agent.query.scope import STOP_WORDS
from agent.schemas import NumericValue, Relation

MAX_PASSAGES = 3  # explanation answers quote at most three sentences: enough to explain, short enough to read


PASSAGE_MAX_CHARS = 600  # a "sentence" longer than this is a run-on extraction; clip the quote


PASSAGE_KEEP_SHARE = 0.75  # further passages must score close to the best one, or they are off topic
# A best passage naming under half of the question's own content words is about something else: quoting it as the
# answer states a claim the filing does not make about what was asked.
PASSAGE_MIN_SHARE = 0.5


PASSAGE_MIN_WORDS = 5  # shorter "sentences" are headings ("Currency exchange rates."), read with what follows


RELATION_CUE_BONUS = 0.3  # a sentence that explains ("driven by"), defines or states a policy, as asked


UPPERCASE_SHARE = 0.6  # a line mostly in capitals is a heading or cover text, not an answer


PROSE_FIGURE_WINDOW = 8  # words either side of a number in a sentence that say what the number is


PROSE_PERIOD_BONUS = 0.5  # among numbers named equally well, the one written next to the asked period


# Cues that a sentence explains, defines or states a policy (for extractive non-numeric answers).
_RELATION_CUES: dict[Relation, re.Pattern[str]] = {
    Relation.EXPLANATION: re.compile(
        r"\bdue\s+to\b|\bdriven\s+by\b|\bbecause\b|\breflect\w*|\bprimarily\b|"
        r"\bas\s+a\s+result\b|\battributable\s+to\b|\bled\s+by\b|\boffset\b",
        re.I,
    ),
    Relation.DEFINITION: re.compile(
        r"\bdefined\s+as\b|\bmeans\b|\brefers\s+to\b|\bconsists?\s+of\b|\bis\s+the\b|"
        r"\brepresents?\b",
        re.I,
    ),
    Relation.POLICY: re.compile(
        r"\brecogni[sz]\w*|\bpolicy\b|\baccount\w*\s+for\b|\bmeasured\b|\bestimat\w*|"
        r"\btested\b|\bamortiz\w*|\bdepreciat\w*|\bin\s+accordance\b",
        re.I,
    ),
}


def _keywords(sub_query: SubQuery) -> set[str]:
    intent = sub_query.intent
    words = set(intent.wording.terms)
    for kw in intent.keywords:
        words.update(w for w in WORD_RE.findall(kw.lower()) if w not in STOP_WORDS)
    for m in intent.metrics:  # the canonical name only: synonyms' generic words ('rate') pull in noise
        words.update(w for w in WORD_RE.findall(m.lower()) if w not in STOP_WORDS)
    return words


def _refused_with(base: SubAnswer, what: str, closest: Passage) -> SubAnswer:
    """'Not found' for ``what``, showing the closest passage with its citation."""
    refused = _not_found(base, what)
    refused.closest = f'"{closest.text}" {closest.citation.label()}'
    refused.answer += f" Closest evidence: {refused.closest}."
    return refused


def _named_share(topic: Sequence[str], company: str, passage: str) -> float:
    """Share of the question's own content words (its ``topic``: the words asking for a cause left out, 'what drove',
    'why': the passage answers them, it does not repeat them) the passage names, in any inflection ('increase' is
    named by 'increased'); the company's name aside (filings say 'we', and the company is the trust gate's check)."""
    own = {_root(w) for w in content_words(company)} if company else set()
    asked = {_root(w) for w in topic} - own
    named = {_root(w) for w in content_words(passage)}
    return len(asked & named) / len(asked) if asked else 1.0


_INFLECTION_RE = re.compile(r"(?:ed|ing|es|e|s)$")
ROOT_MIN_CHARS = 5  # shorter words keep their ending: 'used' is no 'us', 'sales' no 'sal'


def _root(word: str) -> str:
    """A word without its inflection ('increased', 'increases', 'increase' -> 'increas')."""
    return _INFLECTION_RE.sub("", word) if len(word) > ROOT_MIN_CHARS else word


def _passages_answer(base: SubAnswer, sub_query: SubQuery, reader: EvidenceReader) -> SubAnswer:
    """Extractive answer: the one to three sentences that best match the question's words and relation."""
    words = _keywords(sub_query)
    cue = _RELATION_CUES.get(sub_query.intent.relation)
    allowed = _for_company(reader, base.company)
    sentences = [seg for seg in reader.segments if seg.ev in allowed and seg.kind == "sentence"]
    scored: list[tuple[float, Segment]] = []
    heading: Segment | None = None
    for seg in sentences:
        letters = [ch for ch in seg.raw if ch.isalpha()]
        if letters and sum(ch.isupper() for ch in letters) / len(letters) > UPPERCASE_SHARE:
            heading = None
            continue
        if len(seg.text.split()) < PASSAGE_MIN_WORDS:
            heading = seg  # "Currency exchange rates." titles the sentence after it
            continue
        if seg.text.rstrip().endswith(":"):
            heading = None  # 'The components of inventories are as follows:' introduces a table; it answers nothing
            continue
        context = heading if heading is not None and heading.ev == seg.ev else None
        heading = None
        body = f"{context.text} {seg.text}" if context is not None else seg.text
        tokens = set(WORD_RE.findall(body.lower()))
        overlap = len(words & tokens) / max(1, len(words))
        if overlap == 0:
            continue
        score = (
            overlap
            + (RELATION_CUE_BONUS if cue is not None and cue.search(seg.text) else 0.0)
            + RETRIEVAL_WEIGHT * reader.rel_score[seg.ev]
        )
        if context is not None:
            seg = seg.model_copy(
                update={"start": context.start, "raw": reader.evidence[seg.ev].text[context.start : seg.end]}
            )
        scored.append((score, seg))
    if not scored:
        return _not_found(base, f"nothing in the evidence addresses: {sub_query.question}")
    scored.sort(key=lambda s: -s[0])
    best = scored[0][0]
    if _named_share(sub_query.intent.wording.topic, base.company, scored[0][1].raw or scored[0][1].text) < PASSAGE_MIN_SHARE:
        seg = scored[0][1]
        quote = clip_words(seg.text, PASSAGE_MAX_CHARS)
        passage = Passage(text=quote, citation=reader.evidence[seg.ev].citation(quote, seg.start, seg.row_label))
        return _refused_with(base, f"no passage addresses: {sub_query.question}", passage)
    chosen = [seg for score, seg in scored[:MAX_PASSAGES] if score >= PASSAGE_KEEP_SHARE * best]
    chosen.sort(key=lambda s: (s.ev, s.start))
    passages = []
    for seg in chosen:
        ev = reader.evidence[seg.ev]
        quote = clip_words(seg.text, PASSAGE_MAX_CHARS)
        passages.append(Passage(text=quote, citation=ev.citation(quote, seg.start, seg.row_label)))
    text = " ".join(f"{p.text} {p.citation.label()}" for p in passages)
    answer = base.model_copy(
        update={
            "status": "text",
            "answer": text,
            "passages": passages,
            "citations": [p.citation for p in passages],
            "citation": passages[0].citation,
            "quote": passages[0].text,
            "confidence": round(min(1.0, best), 3),
            "explanation": "extractive: the evidence sentences that best match the question",
        }
    )
    if _asks_figure(sub_query):
        figure = _prose_figure(reader, chosen, set(sub_query.intent.wording.words), base.period)
        if figure is None and sub_query.intent.requires_numeric:  # a number was asked; no quoted sentence names it
            return _refused_with(base, f"no figure for: {sub_query.question}", passages[0])
        if figure is not None:
            # The quoted sentence stays the answer; its figure is remembered so that a follow-up ('what is
            # the sum?', 'the difference between them?') can compute with it.
            at = chosen.index(figure[1])
            # Shown for the asked period when its sentence states none, and marked so: the gate then checks it.
            answer.value = figure[0].model_copy(update={"period": figure[0].period or base.period})
            answer.period_stated = bool(figure[0].period)
            answer.display = figure[0].text.strip()
            answer.citation = passages[at].citation
            answer.quote = passages[at].text
    return answer


def _prose_figure(
    reader: EvidenceReader, segs: Sequence[Segment], words: set[str], period: str
) -> tuple[NumericValue, Segment] | None:
    """The number of the quoted sentences whose neighbouring words name most of the question's ``words``
    ('$16 million accrued' for 'the accrued value'), with the sentence it is in. Years and the day of a
    date are not figures; None when no number's neighbourhood names any of the words."""
    best: tuple[float, NumericValue, Segment] | None = None
    for seg in segs:
        text = reader.evidence[seg.ev].text
        dates = [(seg.start + p.start, seg.start + p.end) for p in find_periods(text[seg.start : seg.end])]
        numbers = [
            n
            for n in seg.numbers
            if not any(a <= n.start < b for a, b in dates)
            and not ends_in_month(text[: n.start])
            and not FOOTNOTE_RE.fullmatch(n.text.strip())
        ]
        for i, n in enumerate(numbers):
            lo = numbers[i - 1].end if i > 0 else seg.start
            hi = numbers[i + 1].start if i + 1 < len(numbers) else seg.end
            before = text[max(lo, seg.start) : n.start].split()[-PROSE_FIGURE_WINDOW:]
            after = text[n.end : min(hi, seg.end)].split()[:PROSE_FIGURE_WINDOW]
            hits = len(words & content_words(" ".join(before + after)))
            if not hits:
                continue
            score = hits + (PROSE_PERIOD_BONUS if period and n.period == period else 0.0)
            if best is None or score > best[0]:
                best = (score, n, seg)
    if best is None:
        return None
    _, n, seg = best
    return n, seg
