"""The company registry's rows: one ``entities`` row per filer, kept in step with the documents that name it.

Every write happens inside the caller's transaction (the store's), so a filing and its entity commit together.
A document's ``company`` is always its entity's name and ``entity_id`` its entity: an entity renamed by a newer
filing, merged by hand or re-keyed by a CIK learned later renames or re-points its documents in the same
transaction. An entity left with no filing is deleted.
"""

from __future__ import annotations

import re
from pathlib import Path

from agent.db import Connection
from agent.entities import EntityRegistry, name_key
from agent.schemas import DefinedTerm, DocumentMeta, Entity

_FILE_COMPANY_RE = re.compile(r"^(.+?)[_\s-]+(?:19|20)\d{2}")


def load(conn: Connection) -> EntityRegistry:
    """Every stored entity."""
    return EntityRegistry(Entity.model_validate_json(row[0]) for row in conn.execute("SELECT data FROM entities"))


def with_filings(conn: Connection) -> EntityRegistry:
    """The entities that have at least one stored filing (the companies a question can be about), each with the
    names of parts its filings print."""
    parts: dict[str, list[str]] = {}
    terms: dict[str, dict[str, DefinedTerm]] = {}
    for (data,) in conn.execute("SELECT data FROM documents"):
        meta = DocumentMeta.model_validate_json(data)
        parts.setdefault(meta.entity_id, []).extend(meta.parts)
        for term in meta.terms:
            terms.setdefault(meta.entity_id, {}).setdefault(term.short, term)
    return EntityRegistry(
        e.model_copy(update={"parts": list(dict.fromkeys(parts[e.entity_id])),
                             "terms": list(terms.get(e.entity_id, {}).values())})
        for e in load(conn).entities if e.entity_id in parts)


def _save(conn: Connection, entity: Entity, old_id: str = "") -> None:
    """Write an entity and point its documents (and those of ``old_id``) at its id and name."""
    if old_id and old_id != entity.entity_id:
        conn.execute("DELETE FROM entities WHERE entity_id = ?", (old_id,))
    conn.execute(
        "INSERT INTO entities(entity_id, name, data) VALUES (?, ?, ?) ON CONFLICT(entity_id) DO UPDATE SET "
        "name = excluded.name, data = excluded.data",
        (entity.entity_id, entity.name, entity.model_dump_json()),
    )
    ids = [entity.entity_id, *([old_id] if old_id else [])]
    marks = ", ".join("?" for _ in ids)
    conn.execute(
        f"UPDATE documents SET data = json_set(data, '$.entity_id', ?, '$.company', ?) "
        f"WHERE json_extract(data, '$.entity_id') IN ({marks})",
        (entity.entity_id, entity.name if entity.name_source else "", *ids),  # an unknown company stays ''
    )


def attach(conn: Connection, meta: DocumentMeta) -> DocumentMeta:
    """Attach a filing (not yet stored, or being re-attached) to its entity; returns the metadata naming it."""
    registry = load(conn)
    entity, old_id = registry.attach(meta)
    _save(conn, entity, old_id)
    return _named(meta, entity)


def _named(meta: DocumentMeta, entity: Entity) -> DocumentMeta:
    ticker = meta.ticker or (entity.tickers[0] if entity.tickers else "")
    company = entity.name if entity.name_source else ""
    return meta.model_copy(update={"entity_id": entity.entity_id, "company": company, "ticker": ticker})


def reattach(conn: Connection, meta: DocumentMeta, company: str) -> DocumentMeta:
    """Move a filing to the entity named ``company`` (any of its names, a ticker or an id), or to a new entity
    of that name (``finrag docs edit --company``)."""
    entity = load(conn).resolve(company)
    if entity is None:
        if not name_key(company):
            raise ValueError(f"'{company}' is no company name")
        entity = Entity(entity_id=f"name:{name_key(company)}", name=company.strip(), name_source="edited")
        _save(conn, entity)
    updated = _named(meta.model_copy(update={"company_source": "edited"}), entity)
    conn.execute("UPDATE documents SET data = ? WHERE doc_id = ?", (updated.model_dump_json(), meta.doc_id))
    drop_orphans(conn)
    return updated


def add_ticker(conn: Connection, entity_id: str, ticker: str) -> None:
    """Record a ticker on an entity (``finrag docs edit --ticker``)."""
    entity = load(conn).get(entity_id)
    if entity is not None and ticker and ticker.upper() not in entity.tickers:
        _save(conn, entity.model_copy(update={"tickers": [*entity.tickers, ticker.upper()]}))


def merge(conn: Connection, keep: str, gone: str, force: bool = False) -> Entity:
    """Fold entity ``gone`` into ``keep``: its filings, names, tickers and identifiers (two CIKs only with
    ``force``)."""
    registry = load(conn)
    a, b = registry.resolve(keep), registry.resolve(gone)
    kept = registry.merge(keep, gone, force)
    if a is not None and b is not None and a.entity_id != b.entity_id:
        conn.execute("DELETE FROM entities WHERE entity_id = ?", (b.entity_id,))
        _save(conn, kept, b.entity_id)
    return kept


def rename(conn: Connection, company: str, name: str) -> Entity:
    """Give an entity its name by hand; the name it had stays findable as a former name."""
    registry = load(conn)
    entity = registry.resolve(company)
    if entity is None:
        raise KeyError(company)
    renamed = registry.rename(entity.entity_id, name)
    _save(conn, renamed)
    return renamed


def add_alias(conn: Connection, company: str, alias: str) -> Entity:
    """Add a short form people use for a company ('Big Blue')."""
    registry = load(conn)
    entity = registry.resolve(company)
    if entity is None:
        raise KeyError(company)
    alias = registry.checked_name(entity.entity_id, alias, "alias")
    updated = entity.model_copy(update={"aliases": list(dict.fromkeys([*entity.aliases, alias]))})
    _save(conn, updated)
    return updated


def drop_orphans(conn: Connection) -> None:
    """Delete entities no stored filing belongs to any more."""
    conn.execute(
        "DELETE FROM entities WHERE entity_id NOT IN "
        "(SELECT DISTINCT json_extract(data, '$.entity_id') FROM documents WHERE json_extract(data, '$.entity_id') "
        "IS NOT NULL)"
    )


def migrate(conn: Connection) -> int:
    """Attach every stored filing that has no entity yet (an index made before the registry), oldest period
    first so the newest name wins; returns how many were attached. No re-ingest: the stored company, ticker
    and name say enough."""
    rows = conn.execute(
        "SELECT doc_id, data FROM documents WHERE coalesce(json_extract(data, '$.entity_id'), '') = ''"
    ).fetchall()
    metas = sorted((DocumentMeta.model_validate_json(data) for _, data in rows),
                   key=lambda m: (m.period_end or m.fiscal_period or "", m.name))
    for meta in metas:
        evidence = meta.model_copy(update={"company_source": meta.company_source or _source_of(meta)})
        updated = attach(conn, evidence)
        conn.execute("UPDATE documents SET data = ? WHERE doc_id = ?", (updated.model_dump_json(), meta.doc_id))
    return len(metas)


def _source_of(meta: DocumentMeta) -> str:
    """Where a stored company name came from, for an index made before sources were recorded: a name that is the
    file name's company part ('ACME' from ACME_2023_EARNINGS.pdf) was the last resort, anything else was read."""
    if not meta.company:
        return ""
    stem = _FILE_COMPANY_RE.match(Path(meta.path or meta.name).stem)
    from_file = stem is not None and name_key(stem.group(1)) == name_key(meta.company)
    return "file name" if from_file and (meta.company.isupper() or "_" in meta.company) else "cover"
