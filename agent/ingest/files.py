"""Which files an ingest covers: the paths given, and the filings under each folder, with the ones left out.

A folder walk never leaves the folder through a link (``passwd.txt -> /etc/passwd`` would make a system file
searchable); such a link is reported as skipped unless the caller allows following links. A folder that
cannot be read is reported too, instead of silently yielding nothing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel

# Files a folder walk never treats as filings (editor droppings, OS metadata).
IGNORED_NAMES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})


class FoundFile(BaseModel):
    """One file an ingest met; ``skipped`` says why it is left out (empty when it is to be ingested)."""

    path: Path
    skipped: str = ""


def display_path(path: Path | str) -> str:
    """A path as text that can be stored and printed: bytes that are not UTF-8 in a file name become U+FFFD
    (Python carries them as lone surrogates, which SQLite, JSON and terminals all refuse)."""
    return os.fsencode(str(path)).decode("utf-8", "replace")


_CONTROL_RUN_RE = re.compile(r"[\x00-\x1f\x7f-\x9f]+")


def document_name(path: Path | str) -> str:
    """The name a file's document is cited by: its stem as text, with control characters (a newline or an escape
    sequence in a file name) as '_', so ``[name, p. N]`` stays one line wherever it is printed or parsed."""
    return _CONTROL_RUN_RE.sub("_", display_path(Path(path).stem))


def _inside(target: Path, root: Path) -> bool:
    return target == root or root in target.parents


def _resolved(path: Path) -> Path | None:
    """Where a path leads, or None for a link loop or a place that cannot be looked at."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):  # 'Symlink loop from ...', a folder on the way that cannot be read
        return None


def _walk(root: Path, follow_links: bool) -> Iterable[FoundFile]:
    real_root = root.resolve()
    problems: list[OSError] = []
    seen_dirs: set[Path] = set()  # a followed link back up the tree would otherwise loop forever
    for folder, dirs, files in os.walk(root, onerror=problems.append, followlinks=follow_links):
        here = Path(folder)
        real = _resolved(here)
        if real is None or real in seen_dirs:
            dirs[:] = []
            continue
        seen_dirs.add(real)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        kept = []
        for d in dirs:
            link = here / d
            target = _resolved(link)
            if target is None:
                yield FoundFile(path=link, skipped="a link that loops back on itself")
            elif link.is_symlink() and not follow_links and not _inside(target, real_root):
                yield FoundFile(path=link, skipped=_link_reason(link))
            else:
                kept.append(d)
        dirs[:] = kept
        for name in sorted(files):
            if name.startswith(".") or name in IGNORED_NAMES:
                continue
            path = here / name
            if path.is_symlink():
                target = _resolved(path)
                if target is None:
                    yield FoundFile(path=path, skipped="a link that loops back on itself")
                    continue
                if not target.exists():
                    yield FoundFile(path=path, skipped=f"a broken link (to {display_path(os.readlink(path))})")
                    continue
                if not follow_links and not _inside(target, real_root):
                    yield FoundFile(path=path, skipped=_link_reason(path))
                    continue
            try:
                regular = path.is_file()
            except OSError as exc:  # a folder on the way that cannot be searched: the ingest says so per file
                yield FoundFile(path=path, skipped=f"cannot read this file: {exc.strerror or exc}")
                continue
            if regular:
                yield FoundFile(path=path)
    for exc in problems:
        where = display_path(exc.filename or root)
        yield FoundFile(path=Path(where), skipped=f"cannot read this folder: {exc.strerror or exc}")


def _link_reason(link: Path) -> str:
    return (
        f"a link to {display_path(_resolved(link) or link)}, outside the folder being ingested "
        "(pass --follow-links to ingest what links point to)"
    )


def find_files(paths: Iterable[Path], follow_links: bool = False) -> list[FoundFile]:
    """Files as given, and every non-hidden file under each folder in a stable order, each with why it is
    skipped when it is. A path given by name is taken as it is (a link named on purpose is followed)."""
    found: list[FoundFile] = []
    for path in paths:
        if path.is_dir():
            found.extend(_walk(path, follow_links))
        else:
            found.append(FoundFile(path=path))
    return found
