"""The registry of procedural families: name -> Family (spade.registry.FAMILIES).

Registering a name twice raises; asking for an unknown name raises ConfigError listing the known ones.
The built-in families (spade/generate/families/) register themselves on first lookup.
"""

from __future__ import annotations

from spade.generate.family import Family
from spade.records import PYTHON_FUNCTION
from spade.registry import FAMILIES


def register(family: Family) -> Family:
    """Add a family under its name and return it, so a family module can end with `register(...)`."""
    return FAMILIES.register(family.name, family)


def get_family(name: str) -> Family:
    return FAMILIES.get(name)


def family_names() -> list[str]:
    return FAMILIES.names()


def resolve_families(names: list[str] | tuple[str, ...]) -> list[Family]:
    """The families a config asks for; an empty list means every registered Python function family (families of
    other task kinds are drawn only when named)."""
    if names:
        return [get_family(n) for n in names]
    return [f for f in map(get_family, family_names()) if f.kind == PYTHON_FUNCTION]
