"""A named registry: the one pattern behind task families, task kinds, policy backends, trainers, eval suites,
reward terms and sandbox backends, all declared at the bottom of this file.

In: `register(name, item)` (a plug-in module ends with it); a duplicate name raises. Out: `get(name)`, where an
unknown name raises ConfigError naming the config key and listing the known names. Each registry imports the module
(or every module of the package) named by `builtins` on its first lookup, where the built-in plug-ins register
themselves: importing this file stays cheap and imports no stage.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from typing import Any, Generic, TypeVar

from spade.errors import ConfigError

T = TypeVar("T")


class Registry(Generic[T]):
    """name -> item. `what` names the thing in errors ("task kind"), `key` the config key that chooses one."""

    def __init__(self, what: str, key: str, *, builtins: str | tuple[str, ...] | None = None) -> None:
        self.what, self.key = what, key
        self._items: dict[str, T] = {}
        # Modules, or packages of modules, that register the built-in items.
        self._builtins = (builtins,) if isinstance(builtins, str) else tuple(builtins or ())
        self._loaded = builtins is None

    def register(self, name: str, item: T) -> T:
        """Add `item` under `name` and return it; a name registered twice raises."""
        if name in self._items:
            raise ValueError(f"{self.what} '{name}' is already registered; pick another name")
        self._items[name] = item
        return item

    def get(self, name: str) -> T:
        self._ensure_loaded()
        try:
            return self._items[name]
        except KeyError:
            raise ConfigError(f"{self.key}: unknown {self.what} '{name}'; known: {', '.join(self.names())}") from None

    def names(self) -> list[str]:
        self._ensure_loaded()
        return sorted(self._items)

    def __contains__(self, name: object) -> bool:
        self._ensure_loaded()
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def _ensure_loaded(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        for name in self._builtins:
            module = importlib.import_module(name)
            for info in sorted(pkgutil.iter_modules(getattr(module, "__path__", [])), key=lambda m: m.name):
                importlib.import_module(f"{module.__name__}.{info.name}")


# The registries. Items are typed loosely here so this file imports no stage; each plug-in module says what it adds.
FAMILIES: Registry[Any] = Registry("family", "generation.families", builtins=("spade.generate.families", "spade.kinds"))
"""Procedural task families (spade.generate.family.Family): Python function families one file each in
spade/generate/families/; other kinds' families in their kind's folder (spade/kinds/<kind>/), registered on import."""
KINDS: Registry[Any] = Registry("task kind", "kind", builtins="spade.kinds")
"""Task kinds (spade.kinds.base.TaskKind), one module or folder each in spade/kinds/."""
SUITES: Registry[Any] = Registry("eval suite", "eval.suite", builtins="spade.evaluate.suites")
"""Named evaluation suites: name -> a function returning their tasks."""
POLICIES: Registry[Any] = Registry("policy backend", "sampling.backend", builtins="spade.policy.backends")
"""Policy backends: name -> a function of the SpadeConfig returning the policy."""
TRAINERS: Registry[Any] = Registry("update method", "training.update_method", builtins="spade.train.methods")
"""Update methods that train the policy in the loop: name -> a function building the Trainer."""
REWARD_TERMS: Registry[Any] = Registry("reward term", "reward.terms", builtins="spade.reward.terms")
"""Reward terms (spade.reward.base.RewardTerm): the built-ins in spade/reward/terms.py; more through
spade.reward.register_term."""
SANDBOX_BACKENDS: Registry[Any] = Registry("sandbox backend", "executor.backend", builtins="spade.sandbox.backend")
"""Where sandbox workers run: name -> a function of the ExecutorConfig returning a started pool."""
