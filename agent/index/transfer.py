"""Copying an index into another store (``finrag store migrate``) and comparing the two (``finrag store check``).

Documents are copied one transaction each, through the store's own write path, so the target checks them as an
ingest would and a run that stopped half way resumes at the first document the target lacks. The company
registry and each document's record are then made exactly the source's (hand merges, renames and aliases
included). The comparison reads both stores through the same API and compares a digest per document.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from pydantic import BaseModel, Field

from agent.index.store import Store

Progress = Callable[[str, int, int], None]


class CopyReport(BaseModel):
    """What a copy did."""

    copied: list[str] = Field(default_factory=list, description="documents written to the target")
    skipped: int = Field(0, description="documents the target already held")
    chunks: int = 0


class DocumentDifference(BaseModel):
    """A document both stores hold with different content."""

    name: str
    parts: list[str] = Field(description="what differs: pages, sections, chunks, cards, vectors, facts, counts, record")


class StoreComparison(BaseModel):
    """Two stores side by side; ``ok`` when they hold the same documents with the same content."""

    documents: int = 0
    only_in_source: list[str] = Field(default_factory=list)
    only_in_target: list[str] = Field(default_factory=list)
    differing: list[DocumentDifference] = Field(default_factory=list)
    companies_equal: bool = True

    @property
    def ok(self) -> bool:
        return not (self.only_in_source or self.only_in_target or self.differing) and self.companies_equal


def copy_index(source: Store, target: Store, progress: Progress | None = None) -> CopyReport:
    """Copy every document ``target`` lacks from ``source``, then make its records and companies the source's."""
    report = CopyReport()
    held = set(target.document_names())
    documents = source.list_documents()
    for number, meta in enumerate(documents, start=1):
        if meta.doc_id in held:
            report.skipped += 1
        else:
            chunks = source.chunks([meta.doc_id])
            _, vectors = source.doc_embeddings(meta.doc_id)
            cards = source.cards([c.chunk_id for c in chunks])
            target.add_document(
                meta,
                source.pages(meta.doc_id),
                source.sections(meta.doc_id),
                chunks,
                [cards[c.chunk_id] for c in chunks if c.chunk_id in cards],
                vectors,
                source.facts([meta.doc_id]),
                source.counts([meta.doc_id]),
            )
            report.copied.append(meta.name)
            report.chunks += len(chunks)
        if progress is not None:
            progress(meta.name, number, len(documents))
    target.adopt_records(documents, source.entities_all().entities)
    return report


def _digests(store: Store, doc_id: str) -> dict[str, str]:
    """A SHA-256 per part of one document, as the store API returns it."""
    chunks = store.chunks([doc_id])
    ids, vectors = store.doc_embeddings(doc_id)
    cards = store.cards([c.chunk_id for c in chunks])
    parts = {
        "record": store.get_document(doc_id).model_dump_json(),
        "pages": [p.model_dump_json() for p in store.pages(doc_id)],
        "sections": [s.model_dump_json() for s in store.sections(doc_id)],
        "chunks": [c.model_dump_json() for c in chunks],
        "cards": [cards[c.chunk_id].model_dump_json() for c in chunks if c.chunk_id in cards],
        "vectors": [ids, hashlib.sha256(vectors.tobytes()).hexdigest()],
        "facts": [f.model_dump_json() for f in store.facts([doc_id])],
        "counts": [c.model_dump_json() for c in store.counts([doc_id])],
    }
    return {part: hashlib.sha256(repr(value).encode()).hexdigest() for part, value in parts.items()}


def compare_indexes(source: Store, target: Store, progress: Progress | None = None) -> StoreComparison:
    """Compare two stores document by document, and their company registries."""
    ours, theirs = source.document_names(), target.document_names()
    report = StoreComparison(
        documents=len(ours),
        only_in_source=sorted(ours[d] for d in set(ours) - set(theirs)),
        only_in_target=sorted(theirs[d] for d in set(theirs) - set(ours)),
    )
    both = sorted(set(ours) & set(theirs), key=lambda d: ours[d])
    for number, doc_id in enumerate(both, start=1):
        a, b = _digests(source, doc_id), _digests(target, doc_id)
        differing = [part for part in a if a[part] != b[part]]
        if differing:
            report.differing.append(DocumentDifference(name=ours[doc_id], parts=differing))
        if progress is not None:
            progress(ours[doc_id], number, len(both))
    report.companies_equal = sorted(e.model_dump_json() for e in source.entities_all().entities) == sorted(
        e.model_dump_json() for e in target.entities_all().entities
    )
    return report
