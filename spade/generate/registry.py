"""The registry of procedural families: name -> Family (spade.registry.FAMILIES).

Registering a name twice raises; asking for an unknown name raises ConfigError listing the known ones.
The built-in families (spade/generate/families/) register themselves on first lookup.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from spade.errors import ConfigError
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


def resolve_families(names: list[str] | tuple[str, ...], kinds: Mapping[str, float] | None = None,
                     withhold: Collection[str] = ()) -> list[Family]:
    """The families a config asks for: those named; else every family of the kinds weighted above 0 in `kinds`
    (generation.kinds; every Python function family when None); never one in `withhold`
    (generation.withhold_families), and each as `Family.without(withhold)` makes it: a family deriving its tasks
    from others draws only from those not withheld (and is left out when none is left)."""
    if names:
        chosen = [get_family(n) for n in names]
    else:
        wanted = {PYTHON_FUNCTION} if kinds is None else {k for k, w in kinds.items() if w > 0}
        chosen = [f for f in map(get_family, family_names()) if f.kind in wanted]
    return [kept for f in chosen if (kept := f.without(withhold)) is not None]


def family_for_run(name: str, withhold: Collection[str] = ()) -> Family:
    """Family `name` as a run withholding `withhold` draws it (`Family.without`); ConfigError when it is withheld."""
    family = get_family(name).without(withhold)
    if family is None:
        raise ConfigError(f"generation.withhold_families withholds family '{name}' (or every family it derives "
                          "its tasks from); take it out of generation.families or generation.withhold_families")
    return family
