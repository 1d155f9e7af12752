"""The memory bank: expert-verified answers to recurring questions (:mod:`agent.memory.bank`), matched to a new
question by the normalised text, periods and qualifiers of :mod:`agent.memory.matching`."""

from agent.memory.bank import (
    MEMORY_FILE_NAME,
    EntryCheck,
    MemoryBank,
    MemoryEntry,
    MemoryImportReport,
    MemoryMatch,
    MemorySource,
    MemoryStatus,
    SeedAnswer,
    entry_id,
    load_seed_answers,
    parse_citation,
)
from agent.memory.matching import content_tokens, match_text, normalize_period, question_key

__all__ = [
    "MEMORY_FILE_NAME",
    "EntryCheck",
    "MemoryBank",
    "MemoryEntry",
    "MemoryImportReport",
    "MemoryMatch",
    "MemorySource",
    "MemoryStatus",
    "SeedAnswer",
    "content_tokens",
    "entry_id",
    "load_seed_answers",
    "match_text",
    "normalize_period",
    "parse_citation",
    "question_key",
]
