"""The company check of the trust gate: every document a figure cites belongs to the asked company (one entity
of the company registry, :mod:`agent.entities`), and a name a question uses that no indexed filing is must be the
figure's own (a segment or subsidiary line the filer prints), never a competitor named in another company's prose.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.answer.provenance import chunk_text, covers, figure_provenance, mentioned, row_label
from agent.answer.reading import EvidenceReader
from agent.answer.records import Check, SubAnswer
from agent.entities import EntityRegistry, as_registry
from agent.entities.names import name_key, names_company, same_name
from agent.query.cues import possessive
from agent.query.scope import printed_as_registrant


def same_company(a: str, b: str, registry: EntityRegistry | None = None) -> bool:
    """True when two company names (or a name and a document's company) denote one company: one entity of
    the registry (any of its names or tickers), or without a registry one name key."""
    if not a or not b:
        return False
    return registry.same(a, b) if registry is not None else same_name(a, b)


def doc_company(reader: EvidenceReader, doc: str) -> str:
    for ev in reader.evidence:
        if ev.doc_name == doc and ev.company:
            return ev.company
    return ""


def _names(text: str, company: str, registry: EntityRegistry | None = None) -> bool:
    """``text`` names ``company`` as whole words (by any of its names, with a registry)."""
    return registry.named_by(text, company) if registry is not None else names_company(text, company)


def owned_by(doc: str, owner: str, company: str, registry: EntityRegistry | None = None) -> bool:
    """The document belongs to ``company``: its recorded company agrees, or (none recorded) its name does."""
    if owner:
        return same_company(owner, company, registry)
    return _names(doc.replace("_", " "), company, registry)


def _unknown_name(
    names: Sequence[str], answer: SubAnswer, reader: EvidenceReader, registry: EntityRegistry | None
) -> str:
    """A name of the plan's ``names`` (the question's) that is neither an indexed company nor mentioned on the cited
    pages, or ''. A segment's or product's name is often printed as the heading of the figure's page, not in its
    table."""
    cites = answer.citations or ([answer.citation] if answer.citation else [])
    chunks = {c.chunk_id for c in cites}
    pages = {(ev.doc_name, ev.page) for ev in reader.evidence if ev.chunk_id in chunks}
    cited = [ev for ev in reader.evidence if (ev.doc_name, ev.page) in pages]
    seen = " ".join([answer.quote, *(f"{ev.doc_name.replace('_', ' ')} {ev.company} {ev.text}" for ev in cited)])
    for name in names:
        if registry is not None and registry.knows(name):
            continue
        if not mentioned(seen, name):
            return name
    return ""


def _row_naming(reader: EvidenceReader, doc: str, name: str, registry: EntityRegistry | None) -> str:
    """The label of a table row of the document's evidence that is ``name`` ('EMEA | 315,535 | ...'), or ''."""
    return next((seg.label.strip() for seg in reader.segments
                 if seg.kind == "row" and reader.evidence[seg.ev].doc_name == doc
                 and seg.label.strip() and same_company(seg.label.strip(), name, registry)), "")


def _check_part_name(answer: SubAnswer, reader: EvidenceReader, name: str, filer: str, known: str) -> Check | None:
    """A name the question gives as its company which no filing goes by, read as a part of the only filer (see
    :func:`agent.query.intent.extract_intent`): the figure (or the passage) must be that part's by its own words,
    and the filing must not print the name as a company of its own (a customer, supplier or rival). None when
    it is the part's; else the check refusing it, said as the absent company it may be."""
    absent = f"no filing of {name} is indexed{known}"
    whose = possessive(answer.company or filer) if answer.company or filer else "the filer's"
    if answer.value is None:
        text = " ".join(p.text for p in answer.passages)
        if answer.passages and mentioned(text, name):
            return None
        return Check(name="company", passed=False, detail=f"{absent}, and {whose} filings say nothing of a part "
                                                           f"named {name}")
    provenance = figure_provenance(answer, reader)
    if not covers(provenance, name):
        what = f"{answer.metric} figure" if answer.metric else "figure"
        return Check(name="company", passed=False, detail=f"{absent}, and no {what} of {whose} names {name}")
    printed = printed_as_registrant(provenance, name)
    if printed:
        return Check(name="company", passed=False, detail=(
            f"{absent}; {whose} filing prints {printed!r} as a company of its own, and the figure found is "
            f"{whose} with it, not {possessive(name)} own"))
    return None


def names_absent_company(check: Check) -> bool:
    """Whether a failed check says the asked company has no indexed filing (any figure would be another's)."""
    return check.name == "company" and not check.passed and "is indexed" in check.detail


def check_company(
    answer: SubAnswer,
    reader: EvidenceReader,
    indexed: EntityRegistry | Sequence[str] | None,
    names: Sequence[str] = (),
    part_names: Sequence[str] = (),
) -> Check:
    """Every cited document belongs to the asked company; an unindexed company is said so. ``names``: the proper
    names the plan read in the question, each a company indexed or one the evidence mentions. ``part_names``: the
    names the question gives as its company that the plan reads as parts of the only filer (each must be the
    figure's own, and no company the filing prints)."""
    registry = as_registry(indexed) if indexed is not None else None
    known = f" (indexed companies: {', '.join(registry)})" if registry else ""
    for name in part_names:
        refused = _check_part_name(answer, reader, name, registry.sole if registry else "", known)
        if refused is not None:
            return refused
    asked = answer.company
    if not asked:
        stranger = _unknown_name(names, answer, reader, registry)
        if stranger:
            return Check(name="company", passed=False, detail=(
                f"the question names {stranger}, which no indexed filing is and the evidence does not mention{known}"))
        cites = answer.citations or ([answer.citation] if answer.citation else [])
        owners = sorted({owner for cite in cites if (owner := doc_company(reader, cite.doc))}, key=name_key)
        if len({name_key(o) for o in owners}) > 1:
            # one answer made of several companies' filings answers none of them: whose is the plain question back
            return Check(name="company", passed=False, detail=(
                f"the question names no company, and what was found is from {' and '.join(owners)}'s filings: "
                "which company is asked?"))
        return Check(name="company", passed=True, detail="no company named")
    if (registry is None or registry.resolve(asked) is None) and answer.value is not None and covers(
        figure_provenance(answer, reader), asked
    ):
        # A name no filing is, which the figure's own row, table or section names: a segment or a subsidiary.
        return Check(name="company", passed=True, detail=f"the figure's own row, table or section names {asked}")
    if _names(row_label(answer), asked, registry):
        return Check(name="company", passed=True, detail=f"the figure's row names {asked}")
    if registry and registry.complete and registry.resolve(asked) is None:
        return Check(name="company", passed=False, detail=f"no filing of {asked} is indexed{known}")
    cites = answer.citations or ([answer.citation] if answer.citation else [])
    for cite in cites:
        owner = doc_company(reader, cite.doc)
        if not owner and _names(chunk_text(reader, cite.chunk_id), asked, registry):
            row = _row_naming(reader, cite.doc, asked, registry)
            if row:
                # 'net sales for EMEA': the filing prints EMEA as a row of its table, one part of the filer; a
                # figure whose own words do not name it (the company's total) is not that part's
                return Check(name="company", passed=False, detail=(
                    f"the filing reports {asked} as a part of the company (its row {row!r}); the figure found "
                    f"is not {possessive(asked)} own"))
            continue  # the filing's company is not recorded, and its own text names the asked one
        if not owned_by(cite.doc, owner, asked, registry):
            whose = f"{possessive(owner)} filing" if owner else f"{cite.doc}, whose company is not recorded"
            return Check(name="company", passed=False, detail=f"the figure comes from {whose}, not {asked}'s")
    return Check(name="company", passed=True, detail=f"cited filings are {possessive(asked)}")
