"""Companies: one identity per filer (the registry), and what a company's name is made of.

Sits below every stage that names a company (ingest attaches filings, query resolves names, the gate, search
filters and the memory bank compare entities) and above ``finance`` (a metric or a period is never a name).
"""

from agent.entities.names import name_key, proper_case
from agent.entities.registry import EntityRegistry, Mention, as_registry

__all__ = ["EntityRegistry", "Mention", "as_registry", "name_key", "proper_case"]
