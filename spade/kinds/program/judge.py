"""Judging a program's run on one test: its stdout against the expected output, outside the sandbox.

In: a `ProgramRun` (bounded stdout, full byte counts, how it ended), the expected output text and the task's match
mode. Out: a `TestOutcome`. Modes: 'tokens' (the default: the whitespace-separated tokens are equal, so spacing and
line breaks do not matter) and 'exact' (the same text, apart from newlines at the very end). Output larger than
what was kept (an output flood) never passes; nothing here decodes more than the bounded bytes the sandbox kept.
"""

from __future__ import annotations

from typing import Any

from spade.records import Task, TestOutcome, TestStatus
from spade.sandbox.program import ProgramRun, ProgramVerdict

MATCH_MODES = ("tokens", "exact")
DEFAULT_MATCH = "tokens"
MAX_GOT_CHARS = 200  # of a wrong output kept in TestOutcome.got

_STATUS = {ProgramVerdict.TIMEOUT: TestStatus.TIMEOUT, ProgramVerdict.MEMORY: TestStatus.MEMORY,
           ProgramVerdict.KILLED: TestStatus.KILLED, ProgramVerdict.INTERNAL_ERROR: TestStatus.INTERNAL_ERROR}


def match_mode(task: Task) -> str:
    """The task's output comparison, from params['output_match'] (tokens when absent)."""
    mode = task.params.get("output_match", DEFAULT_MATCH)
    return mode if mode in MATCH_MODES else DEFAULT_MATCH


def outputs_match(got: bytes, expected: str, mode: str) -> bool:
    """Whether a program's stdout `got` is the expected output under `mode`."""
    want = expected.encode("utf-8", "surrogatepass")
    if mode == "exact":
        return got.rstrip(b"\n") == want.rstrip(b"\n")
    return got.split() == want.split()


def judge_run(index: int, hidden: bool, run: ProgramRun, expected: Any, mode: str) -> TestOutcome:
    """One test's verdict. A run that did not exit 0 is judged by how it ended, never by what it printed."""
    if run.verdict in _STATUS:
        return TestOutcome(index, hidden, _STATUS[run.verdict], error=run.error)
    if run.exit_code != 0:
        return TestOutcome(index, hidden, TestStatus.EXCEPTION, error=exception_name(run.stderr))
    if run.stdout_bytes > len(run.stdout):
        return TestOutcome(index, hidden, TestStatus.WRONG_ANSWER, got=f"<{run.stdout_bytes} bytes: output flood>")
    if isinstance(expected, str) and outputs_match(run.stdout, expected, mode):
        return TestOutcome(index, hidden, TestStatus.PASSED)
    return TestOutcome(index, hidden, TestStatus.WRONG_ANSWER, got=shown(run.stdout))


def shown(output: bytes) -> str:
    """A short printable form of an output, for reports."""
    text = output[: MAX_GOT_CHARS * 4].decode("utf-8", "replace")
    return repr(text[:MAX_GOT_CHARS]) + ("…" if len(text) > MAX_GOT_CHARS or len(output) > MAX_GOT_CHARS * 4 else "")


def exception_name(stderr: bytes) -> str:
    """The exception named on the last line of a traceback ('error' when there is none), at most 80 characters."""
    lines = stderr[-4096:].decode("utf-8", "replace").strip().splitlines()
    last = lines[-1] if lines else ""
    name = last.split(":", 1)[0].strip()
    return name[:80] if name.replace(".", "").replace("_", "").isalnum() else "error"
