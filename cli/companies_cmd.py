"""``finrag companies``: the company registry — one entity per filer, its names, tickers and filings."""

from __future__ import annotations

import argparse

from agent.config import Settings
from cli.common import print_json, table


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "companies",
        help="the companies the filings belong to: names, former names, tickers, CIK, filings",
        description=(
            "Every filing belongs to one company entity, found at ingest from the cover (CIK, commission file "
            "number, ticker, registrant name, 'formerly ...'), an earnings release's first lines, or the file name "
            "as a last resort (marked 'file name'). Questions name companies only through this registry: any of "
            "a company's names, former names, aliases or tickers, as whole words."
        ),
        epilog=(
            "examples:\n"
            "  finrag companies                               list every company and its filings\n"
            "  finrag companies merge 'Acme Plc' ACME_CORP     fold a second entity into the first\n"
            "  finrag companies rename MMM '3M Company'        fix a name (the old one stays findable)\n"
            "  finrag companies alias 'International Business Machines' 'Big Blue'\n"
            "  finrag docs edit ACME_2023_EARNINGS --company 'Acme Plc'   move one filing to a company"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=list_companies)
    actions = p.add_subparsers(dest="action", metavar="ACTION")

    merge = actions.add_parser("merge", help="fold company GONE (its filings and names) into KEEP",
                               epilog="example: finrag companies merge 'Meta Platforms' 'Facebook, Inc.'")
    merge.add_argument("keep", help="the company kept: a name, former name, alias, ticker or entity id")
    merge.add_argument("gone", help="the company folded into it")
    merge.add_argument("--force", action="store_true",
                       help="merge even two companies with different CIKs (one filer whose CIK changed)")
    merge.set_defaults(func=merge_companies)

    rename = actions.add_parser("rename", help="give a company its name by hand",
                                epilog="example: finrag companies rename MMM '3M Company'")
    rename.add_argument("company", help="a name, ticker or entity id of the company")
    rename.add_argument("name", help="the new name (the old one is kept as a former name)")
    rename.set_defaults(func=rename_company)

    alias = actions.add_parser("alias", help="add a short form people use for a company",
                               epilog="example: finrag companies alias 'International Business Machines' 'Big Blue'")
    alias.add_argument("company", help="a name, ticker or entity id of the company")
    alias.add_argument("alias", help="the short form, e.g. 'Big Blue'")
    alias.set_defaults(func=alias_company)


def list_companies(args: argparse.Namespace, settings: Settings) -> int:
    from agent.index.store import Store

    with Store.open(settings) as store:
        registry = store.entities()
        filings = store.entity_filings()
    if args.json:
        print_json([{**e.model_dump(), "filings": filings.get(e.entity_id, [])} for e in registry.entities])
        return 0
    if not len(registry):
        print(f"no companies in {settings.index_dir} yet; add filings with: finrag ingest PATH")
        return 0
    rows = [
        [
            e.name,
            e.cik.lstrip("0") or "-",
            ", ".join(e.tickers) or "-",
            "; ".join([*e.former_names, *e.aliases]) or "-",
            e.name_source,
            ", ".join(filings.get(e.entity_id, [])),
        ]
        for e in registry.entities
    ]
    print(table(rows, ["company", "CIK", "tickers", "also known as", "name from", "filings"]))
    return 0


def merge_companies(args: argparse.Namespace, settings: Settings) -> int:
    from agent.index.store import Store

    with Store.open(settings) as store:
        kept = store.merge_entities(args.keep, args.gone, args.force)
        filings = store.entity_filings().get(kept.entity_id, [])
    print(f"merged into {kept.name}: {len(filings)} filings ({', '.join(filings)})")
    return 0


def rename_company(args: argparse.Namespace, settings: Settings) -> int:
    from agent.index.store import Store

    with Store.open(settings) as store:
        renamed = store.rename_entity(args.company, args.name)
    print(f"renamed to {renamed.name} (also known as: {'; '.join(renamed.former_names) or '-'})")
    return 0


def alias_company(args: argparse.Namespace, settings: Settings) -> int:
    from agent.index.store import Store

    with Store.open(settings) as store:
        entity = store.add_alias(args.company, args.alias)
    print(f"{entity.name} is also known as: {'; '.join(entity.aliases)}")
    return 0
