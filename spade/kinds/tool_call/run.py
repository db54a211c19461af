"""Host side of the tool-call judge: plans sent to the sandbox as one program job per task, the judge's reply
decoded with bounds and compared with the expected outcomes outside the sandbox.

In: a task (offered tools in `signature`, one state per test as its only argument) and answer texts. Out: the
judge's per-plan reply (`judge_plans`) or an `ExecResult` per answer (`execute`). A reply that is missing,
malformed or too large is an INTERNAL_ERROR verdict, never an exception.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from spade.kinds.tool_call.simtools import offered
from spade.records import ExecResult, ExecStatus, Task, TestOutcome, TestStatus
from spade.sandbox.compare import values_equal
from spade.sandbox.program import ProgramJob, ProgramRun

_HERE = Path(__file__).parent
JUDGE_SOURCE = (_HERE / "judge.py").read_text()
SIMTOOLS_BYTES = (_HERE / "simtools.py").read_bytes()
TIME_LIMIT_S = 10.0
MEMORY_BYTES = 256 << 20
MAX_REPLY_BYTES = 4 << 20
MAX_ANSWER_CHARS = 20_000  # the judge refuses longer answers too; the host does not even send them


def judge_job(tools: Sequence[str], plans: Sequence[str], states: Sequence[Any], full: Sequence[int]) -> ProgramJob:
    request = {"tools": list(tools), "plans": list(plans), "states": list(states), "full": list(full)}
    return ProgramJob(code=JUDGE_SOURCE, stdin=json.dumps(request).encode(), files=(("simtools.py", SIMTOOLS_BYTES),),
                      time_limit_s=TIME_LIMIT_S, memory_bytes=MEMORY_BYTES, max_output_bytes=MAX_REPLY_BYTES)


def decode_reply(run: ProgramRun, n_plans: int, n_states: int) -> list[dict[str, Any]] | str:
    """The judge's per-plan entries, or why there are none (a sentence)."""
    if not run.ok:
        tail = run.stderr[-300:].decode("utf-8", "replace")
        return f"the judge ended {run.verdict.value} (exit {run.exit_code}): {run.error or tail}"
    if run.stdout_bytes > len(run.stdout):
        return f"the judge's reply of {run.stdout_bytes} bytes was cut at {len(run.stdout)}"
    try:
        reply = json.loads(run.stdout)
    except (ValueError, RecursionError) as exc:
        return f"the judge's reply is not JSON ({str(exc)[:100]})"
    plans = reply.get("plans") if isinstance(reply, dict) else None
    if not isinstance(plans, list) or len(plans) != n_plans or not all(_entry_ok(p, n_states) for p in plans):
        return "the judge's reply has the wrong shape"
    return plans


def _entry_ok(entry: Any, n_states: int) -> bool:
    if not isinstance(entry, dict):
        return False
    if "format" in entry:
        return isinstance(entry["format"], str)
    digests = entry.get("digests")
    outcomes = entry.get("outcomes", [None] * n_states)
    return (isinstance(digests, list) and len(digests) == n_states and all(isinstance(d, str) for d in digests)
            and isinstance(outcomes, list) and len(outcomes) == n_states)


def execute(pool: Any, items: Sequence[tuple[Task, str]], on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
    """One judge job per (task, answer), all submitted at once; results in order."""
    futures: list[Any] = []
    for i, (task, answer) in enumerate(items):
        if not answer.strip() or len(answer) > MAX_ANSWER_CHARS:
            futures.append(None)
            if on_done is not None:
                on_done(i)
            continue
        future = pool.submit_program(judge_job(offered(task.signature, task.params), [answer], [c.args[0] if c.args else None
                                                                                for c in task.all_tests], [0]))
        if on_done is not None:
            future.add_done_callback(lambda _f, i=i: on_done(i))
        futures.append(future)
    return [verdict(task, answer, None if f is None else f.result()) for (task, answer), f in zip(items, futures)]


def verdict(task: Task, answer: str, run: ProgramRun | None) -> ExecResult:
    n_public, tests = len(task.test_cases), task.all_tests
    if run is None:
        why = "no answer" if not answer.strip() else f"the answer has {len(answer)} characters, more than {MAX_ANSWER_CHARS}"
        return _all(task, TestStatus.NOT_RUN, ExecStatus.SYNTAX_ERROR if answer.strip() else ExecStatus.NO_ENTRY_POINT,
                    why, None)
    decoded = decode_reply(run, 1, len(tests))
    if isinstance(decoded, str):
        return _all(task, TestStatus.INTERNAL_ERROR, ExecStatus.INTERNAL_ERROR, decoded, run)
    entry = decoded[0]
    if "format" in entry:
        return _all(task, TestStatus.NOT_RUN, ExecStatus.SYNTAX_ERROR, entry["format"], run)
    outcomes = []
    for k, (case, got) in enumerate(zip(tests, entry.get("outcomes", [None] * len(tests)))):
        hidden = k >= n_public
        if isinstance(got, dict) and isinstance(got.get("error"), str):
            outcomes.append(TestOutcome(k, hidden, TestStatus.WRONG_ANSWER, error=got["error"][:300]))
        elif values_equal(got, case.expected):
            outcomes.append(TestOutcome(k, hidden, TestStatus.PASSED))
        else:
            outcomes.append(TestOutcome(k, hidden, TestStatus.WRONG_ANSWER, got=_short(got)))
    passed = all(t.status is TestStatus.PASSED for t in outcomes)
    return ExecResult(ExecStatus.PASSED if passed else ExecStatus.FAILED, tuple(outcomes), run.cpu_time_s,
                      run.peak_memory_kb, run.wall_time_s, events=run.events)


def _all(task: Task, status: TestStatus, overall: ExecStatus, why: str, run: ProgramRun | None) -> ExecResult:
    n_public = len(task.test_cases)
    tests = tuple(TestOutcome(k, k >= n_public, status, error=why[:300]) for k in range(len(task.all_tests)))
    if run is None:
        return ExecResult(overall, tests, 0.0, 0, 0.0, load_error=why[:300])
    return ExecResult(overall, tests, run.cpu_time_s, run.peak_memory_kb, run.wall_time_s, load_error=why[:300],
                      events=run.events)


def _short(value: Any) -> str:
    try:
        text = json.dumps(value, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        text = "<unprintable>"
    return text if len(text) <= 300 else text[:297] + "..."
