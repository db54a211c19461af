"""The package's import graph, read from the source with `ast` (every import, also those inside functions; not
those under `if TYPE_CHECKING:`, which never run):
no cycles between packages (folders, and top-level packages with their sub-packages taken as one), no import that
climbs the data flow (FLOW below: a package imports only its own layer and the layers before it), and no module
importing another package's private names.

A unit is a folder of `spade/` (spade.generate.families is one, spade.generate another); the ground floor
modules (spade/records.py, config.py, ...) are each their own unit. Run alone: python tests/test_imports.py
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "spade"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _unit(module: str, packages: set[str]) -> str:
    """The folder a module lives in; a top-level module (spade.records) is its own unit."""
    if module in packages:
        return module
    parent = module.rsplit(".", 1)[0]
    return module if parent == ROOT.name else parent


def _imports(path: Path, module: str, is_package: bool) -> list[tuple[str, tuple[str, ...], int]]:
    """(imported module, names taken from it, line) for every import statement in the file."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    base = module if is_package else module.rsplit(".", 1)[0]
    typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If) and _is_type_checking(block.test)
                   for stmt in block.body for n in ast.walk(stmt)}
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found += [(a.name, (), node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                target = ".".join(anchor + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((target, tuple(a.name for a in node.names), node.lineno))
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def graph() -> tuple[dict[str, set[str]], list[str]]:
    """Unit -> units it imports, and the private-name imports across units ('file:line: what')."""
    files = sorted(ROOT.rglob("*.py"))
    modules = {_module_name(p): p for p in files}
    packages = {_module_name(p) for p in files if p.name == "__init__.py"}
    edges: dict[str, set[str]] = {}
    private = []
    for name, path in modules.items():
        unit = _unit(name, packages)
        edges.setdefault(unit, set())
        for target, names, line in _imports(path, name, path.name == "__init__.py"):
            if not target.startswith("spade"):
                continue
            # `from spade.x import y` may name a submodule y: the edge goes to it when it exists.
            targets = [f"{target}.{n}" if f"{target}.{n}" in modules else target for n in names] or [target]
            for t in targets:
                other = _unit(t, packages)
                if other != unit and not _inside(unit, other):
                    edges[unit].add(other)
                    hidden = [n for n in names if n.startswith("_") and not n.endswith("__")
                              and f"{target}.{n}" not in modules]
                    hidden += [p for p in t.split(".") if p.startswith("_") and p != "__init__"]
                    if hidden:
                        private.append(f"{path.relative_to(ROOT.parent)}:{line}: {t} {', '.join(hidden)}")
    return edges, private


def _inside(unit: str, other: str) -> bool:
    """A package's __init__ re-exporting its own sub-packages, or a sub-package using its parent's modules, is
    one package talking to itself, not a dependency between two."""
    if ROOT.name in (unit, other):
        return False
    return unit.startswith(other + ".") or other.startswith(unit + ".")


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one unit (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    sys.setrecursionlimit(10_000)

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


# The data flow, bottom up: a package may import packages of its own layer and of the layers above it in this list,
# never of a layer below. Every top-level package of spade/ must be placed here (a new one is placed on purpose).
FLOW: tuple[tuple[str, frozenset[str]], ...] = tuple((name, frozenset(f"spade.{p}" if p != "spade" else p
                                                                     for p in packages.split())) for name, packages in (
    ("ground floor: records, errors, config, task files", "spade errors extras records seeding untrusted groundtruth "
                                                          "jsonfile pycode registry config taskio timing cpus"),
    ("infrastructure: sandbox, run database, run directory", "sandbox store rundir audit serving"),
    ("pure rules: reward terms, the controller", "reward curriculum"),
    ("validation", "validate"),
    ("generation and dedup", "generate dedup"),
    ("task kinds (plug-ins over the stages above)", "kinds"),
    ("supply, sampling, grading", "supply policy rollout"),
    ("evaluation", "evaluate"),
    ("training", "train"),
    ("self-play", "selfplay"),
    ("the loop", "pipeline"),
    ("the environment API", "env catalog"),
    ("interfaces for outside tools", "export service doctor report"),
    ("commands", "commands check cli __main__"),
))


def top_level(unit: str) -> str:
    """spade.generate.families -> spade.generate; spade.records -> spade.records; spade -> spade."""
    return ".".join(unit.split(".")[:2])


def package_edges(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The unit graph with every sub-package folded into its top-level package."""
    folded: dict[str, set[str]] = {}
    for unit, targets in edges.items():
        folded.setdefault(top_level(unit), set())
        for target in targets:
            if top_level(target) != top_level(unit):
                folded[top_level(unit)].add(top_level(target))
    return folded


def climbing(edges: dict[str, set[str]]) -> list[str]:
    """Imports from a package to a package of a later layer of FLOW ('a -> b'), and packages FLOW does not place."""
    layer = {package: i for i, (_, packages) in enumerate(FLOW) for package in packages}
    folded = package_edges(edges)
    found = [f"{p} is in no layer of FLOW" for p in sorted(folded) if p not in layer]
    found += [f"{a} ({FLOW[layer[a]][0]}) -> {b} ({FLOW[layer[b]][0]})" for a in sorted(folded)
              for b in sorted(folded[a]) if a in layer and b in layer and layer[b] > layer[a]]
    return found


def test_the_packages_import_one_another_without_cycles():
    assert cycles(graph()[0]) == []


def test_top_level_packages_import_one_another_without_cycles():
    assert cycles(package_edges(graph()[0])) == []


def test_no_import_climbs_the_data_flow():
    assert climbing(graph()[0]) == []


def test_no_module_imports_another_packages_private_names():
    assert graph()[1] == []


if __name__ == "__main__":
    e, p = graph()
    for c in cycles(e):
        print("cycle:", " <-> ".join(c))
        for u in c:
            print("   ", u, "->", sorted(x for x in e[u] if x in c))
    for line in p:
        print("private:", line)
    for c in cycles(package_edges(e)):
        print("package cycle:", " <-> ".join(c))
    for line in climbing(e):
        print("climbs:", line)
