"""Errors finrag reports to people: one clear line each, never a traceback for bad input."""

from __future__ import annotations

import errno
import shutil
import sqlite3
from pathlib import Path


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


LOW_DISK_BYTES = 1 << 20  # less free space than this, and SQLite cannot write its journal or WAL


def _free_bytes(where: Path | str) -> int:
    """Free bytes on the disk holding ``where`` (or its nearest existing parent); a large number when unknown."""
    path = Path(where)
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return 1 << 62


def storage_error_message(exc: BaseException, where: Path | str) -> str | None:
    """One line with a hint for a storage failure under ``where`` (a damaged database, a full disk, missing
    permissions), or None when ``exc`` is not one."""
    text = str(exc)
    lowered = text.lower()
    if (isinstance(exc, OSError) and exc.errno == errno.ENOSPC) or "disk is full" in lowered:
        return f"no space left on the disk holding {where} ({text}); free some space and run the command again"
    if isinstance(exc, PermissionError):
        return f"no permission to use {exc.filename or where} ({exc.strerror}); check the owner and mode of {where}"
    if isinstance(exc, sqlite3.DatabaseError) and "disk i/o error" in lowered:
        # SQLite says 'disk I/O error' when it cannot create its journal on a full disk: not a damaged file.
        if _free_bytes(where) < LOW_DISK_BYTES:
            return f"no space left on the disk holding {where} ({text}); free some space and run the command again"
        return (f"the disk holding {where} failed a read or write of its database ({text}); check the disk "
                "and run the command again")
    if isinstance(exc, sqlite3.DatabaseError) and any(
        sign in lowered for sign in ("malformed", "not a database", "corrupt")
    ):
        return damaged_message(where, text)
    if isinstance(exc, sqlite3.DatabaseError):
        return f"database error under {where}: {text}"
    return None


def damaged_message(where: Path | str, detail: str) -> str:
    """One line for a database an integrity check found damaged."""
    return (
        f"a database under {where} is damaged ({detail}); restore that folder from a backup, "
        "or ingest the filings again into a new FINRAG_HOME"
    )


def first_line(exc: BaseException) -> str:
    """An exception's message, its first line only (a driver's error may add a multi-line context)."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
