"""Errors finrag reports to people: one clear line each, never a traceback for bad input."""

from __future__ import annotations


class FinragError(Exception):
    """Base class: the message is shown to the user as is."""


class IngestError(FinragError):
    """A file could not be ingested (corrupt, empty, unknown format, no text layer, too large)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class StoreError(FinragError):
    """The index is missing, unreadable or inconsistent."""


class NotFoundError(FinragError):
    """A named document, memory entry or thread does not exist."""


class ModelOutputError(FinragError):
    """A language model returned output that does not validate against the expected schema."""
