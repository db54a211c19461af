"""Third-party pure-Python libraries a judge program may import inside the sandbox, shown there read-only.

A kind whose judge needs a library (the math kind's SymPy) imports it inside the sandbox, never on the host's
behalf. Under bubblewrap each library's package folder is bound read-only at `/sbxlib/<name>`; without it (isolation
'none' or 'standard' on a host lacking bwrap) the judge finds it where the host has it. `search_path()` lists both;
a judge puts those that exist on `sys.path`. Only the listed packages are shown: the venv itself stays out of reach.
"""

from __future__ import annotations

import functools
import importlib.util
import os

SANDBOX_LIB = "/sbxlib"
"""Outside /sbx, whose folder the candidate's uid cannot read."""
LIBRARIES = ("sympy", "mpmath", "numpy")
"""Packages bound into every worker (sympy needs mpmath). Read-only code: a candidate that finds them gains nothing
it could not write itself."""


@functools.cache
def library_dirs() -> dict[str, str]:
    """Each listed library that is installed here, mapped to its package folder on the host (found without
    importing it)."""
    found = {}
    for name in LIBRARIES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            found[name] = os.path.realpath(next(iter(spec.submodule_search_locations)))
            shared = found[name] + ".libs"  # a wheel's bundled shared libraries (numpy.libs), found by RPATH
            if os.path.isdir(shared):
                found[name + ".libs"] = shared
    return found


def bwrap_binds() -> list[str]:
    """bwrap arguments binding each installed library read-only under SANDBOX_LIB."""
    args: list[str] = ["--perms", "0755", "--dir", SANDBOX_LIB] if library_dirs() else []
    for name, folder in sorted(library_dirs().items()):
        args += ["--ro-bind", folder, f"{SANDBOX_LIB}/{name}"]
    return args


def search_path() -> list[str]:
    """Folders a judge program should try, in order, to import the libraries: the sandbox's, then the host's."""
    return [SANDBOX_LIB, *sorted({os.path.dirname(folder) for folder in library_dirs().values()})]
