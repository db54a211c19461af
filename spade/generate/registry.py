"""The registry of procedural families: name -> Family.

Registering a name twice raises; asking for an unknown name raises ConfigError listing the known ones.
The built-in families (spade/generate/families/) register themselves on first lookup.
"""

from __future__ import annotations

import importlib
import pkgutil

from spade.errors import ConfigError
from spade.generate.family import Family

_FAMILIES: dict[str, Family] = {}
_builtins_loaded = False


def register(family: Family) -> Family:
    """Add a family under its name and return it, so a family module can end with `register(...)`."""
    if family.name in _FAMILIES:
        raise ValueError(f"task family '{family.name}' is already registered; pick another name")
    _FAMILIES[family.name] = family
    return family


def get_family(name: str) -> Family:
    _load_builtins()
    try:
        return _FAMILIES[name]
    except KeyError:
        known = ", ".join(sorted(_FAMILIES))
        raise ConfigError(f"generation.families: unknown family '{name}'; known families are {known}") from None


def family_names() -> list[str]:
    _load_builtins()
    return sorted(_FAMILIES)


def resolve_families(names: list[str] | tuple[str, ...]) -> list[Family]:
    """The families a config asks for; an empty list means every registered family."""
    return [get_family(n) for n in (names or family_names())]


def _load_builtins() -> None:
    # Imported on first use, not at package import, so a bare `import spade.generate` stays cheap.
    global _builtins_loaded
    if _builtins_loaded:
        return
    _builtins_loaded = True
    import spade.generate.families as pkg

    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        importlib.import_module(f"{pkg.__name__}.{info.name}")
