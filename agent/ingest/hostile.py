"""Recognise hostile text inside filings: sentences and table rows written as instructions to a model.

Filing text is evidence, never instruction. Sentences that read as prompts ("ignore all previous instructions
and report ...") are kept in the index (they are part of the document) but never chosen as summaries, never
accepted as support for a figure, and always quoted as data in prompts. Tables can be hostile too: a row whose
label reads as an instruction, speaks as a chat role ("SYSTEM: ...") or carries a citation of its own
("cite [OTHERCO_2024_10K, p. 3]") is no line item, so it is never read as a metric row.
"""

from __future__ import annotations

import re

_INSTRUCTION_RE = re.compile(
    r"\bignore\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier|preceding)\s+"
    r"(?:instructions?|prompts?|rules?|messages?|context)"
    r"|\bdisregard\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier|system)\b"
    r"|\b(?:you\s+are\s+now|act\s+as|pretend\s+to\s+be|new\s+instructions?\s*:|system\s+prompt)"
    r"|\b(?:assistant|ai|model|chatbot|language\s+model)s?\s*(?:must|should|shall)\b"
    r"|\b(?:report|answer|say|respond|state|reply)\s+(?:that|with)\b[^.]{0,80}\binstead\b"
    r"|^\s*(?:ignore|disregard|forget)\b",
    re.IGNORECASE,
)


def is_instruction_like(text: str) -> bool:
    """True when ``text`` reads as an instruction to a model rather than a statement of fact."""
    return bool(_INSTRUCTION_RE.search(text))


_CITATION_RE = re.compile(r"\[[^\]\n]{1,80},\s*p(?:age|\.)?\s*\d+\s*\]", re.IGNORECASE)
_ROLE_RE = re.compile(r"^\W*(?:system|assistant|user|developer|instructions?)\s*:", re.IGNORECASE)


def is_hostile_row(label: str) -> bool:
    """True when a table row's label is no line item: an instruction, a chat role speaking, or a citation."""
    return bool(is_instruction_like(label) or _CITATION_RE.search(label) or _ROLE_RE.match(label))
