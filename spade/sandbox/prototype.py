"""The naive prototype executor (docs/method.md#the-prototype-executor), kept only as the benchmark's baseline:
never use it to grade.

in: code, entry point, (args, expected) pairs, a timeout. out: True when `python -c` of the code with one
assert per test appended exits 0 within the timeout. Its verdict is the exit code, so a candidate that calls
`exit(0)` passes: exactly the forged-verdict hole the real sandbox closes.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from typing import Any


def prototype_passes(code: str, entry_point: str, tests: Sequence[tuple[Sequence[Any], Any]], timeout: float) -> bool:
    asserts = "\n".join(f"assert {entry_point}(*{list(args)!r}) == {expected!r}" for args, expected in tests)
    try:
        done = subprocess.run([sys.executable, "-c", f"{code}\n{asserts}\n"], capture_output=True, timeout=timeout,
                              check=False)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0
