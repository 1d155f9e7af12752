"""Section heading + summary embeddings for the metadata retrieval path (FinSage 3.2, VeritasFi 4.2.1).

The store keeps sections with their extractive summaries but no vectors for them, so this module embeds
``"<section path>. <summary>"`` once per document and keeps the matrix in memory and in a small file beside
the index (``<index>/retrieval/sections-<doc_id>.npz``, written atomically). The file records the embedding
model and the section ids it was built from; a file that disagrees with either is rebuilt, never trusted.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict

from agent.index.embeddings import Embedder
from agent.index.protocol import IndexStore
from agent.schemas import Section

log = logging.getLogger(__name__)

CACHE_DIR = "retrieval"  # under the index directory: derived files of the retrieval stages
SECTION_CACHE_MAX_ROWS = 20_000  # section vectors kept in memory across documents (~1.5 KB each)
SUMMARY_CHARS = 600  # a summary longer than this adds nothing to a 256-token embedding but noise


class SectionIndex(BaseModel):
    """One document's sections and their unit vectors, row i for ``sections[i]``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    doc_id: str
    sections: list[Section]
    vectors: np.ndarray


def section_text(section: Section) -> str:
    """What the metadata path embeds for a section: its heading path and its summary."""
    heading = " > ".join(section.path) if section.path else section.title
    if section.title and section.path and section.title not in section.path[-1]:
        heading = f"{heading} > {section.title}"
    summary = " ".join(section.summary.split())[:SUMMARY_CHARS]
    return f"{heading}. {summary}" if summary else heading


class SectionIndexCache:
    """Section indexes per document: memory first, then the file, else embed and write the file."""

    def __init__(self, store: IndexStore, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder
        self._memory: OrderedDict[str, SectionIndex] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, doc_id: str) -> SectionIndex:
        """The section index of a document (built on first use)."""
        with self._lock:
            cached = self._memory.get(doc_id)
            if cached is not None:
                self._memory.move_to_end(doc_id)
                return cached
        sections = self.store.sections(doc_id)
        index = self._read(doc_id, sections) or self._build(doc_id, sections)
        with self._lock:
            self._memory[doc_id] = index
            while len(self._memory) > 1 and sum(len(i.sections) for i in self._memory.values()) > SECTION_CACHE_MAX_ROWS:
                self._memory.popitem(last=False)
        return index

    def _path(self, doc_id: str) -> Path:
        return Path(self.store.settings.index_dir) / CACHE_DIR / f"sections-{doc_id}.npz"

    def _read(self, doc_id: str, sections: list[Section]) -> SectionIndex | None:
        path = self._path(doc_id)
        if not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as data:
                model = str(data["model"])
                ids = data["section_ids"].tolist()
                vectors = np.ascontiguousarray(data["vectors"], dtype=np.float32)
        except (OSError, ValueError, KeyError) as exc:  # damaged or foreign file: rebuild it
            log.warning("section index %s unreadable (%s); rebuilding", path.name, exc)
            return None
        if model != self.embedder.model_name or ids != [s.section_id for s in sections] or len(vectors) != len(ids):
            return None
        return SectionIndex(doc_id=doc_id, sections=sections, vectors=vectors)

    def _build(self, doc_id: str, sections: list[Section]) -> SectionIndex:
        vectors = self.embedder.encode([section_text(s) for s in sections]) if sections else np.zeros((0, 0), np.float32)
        index = SectionIndex(doc_id=doc_id, sections=sections, vectors=vectors)
        with contextlib.suppress(OSError):  # a read-only index still searches; it just re-embeds next time
            self._write(doc_id, index)
        return index

    def _write(self, doc_id: str, index: SectionIndex) -> None:
        path = self._path(doc_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".sections-", suffix=".npz", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(
                    fh,
                    model=np.asarray(self.embedder.model_name),
                    section_ids=np.asarray([s.section_id for s in index.sections], dtype=np.int64),
                    vectors=index.vectors,
                )
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
