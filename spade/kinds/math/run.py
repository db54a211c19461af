"""Running the math judge (judge.py) in the sandbox, many items per program job, and reading its bounded replies.

In: judge requests (canonicalise a reference, or judge an answer against an expected value). Out: one `Verdict` per
request, in order. Requests go in batches (importing SymPy costs most of a run); a batch that dies part-way (memory,
time, a crash) has its unanswered requests re-run one per job, so one hostile answer costs only itself. Whatever
the judge prints is data: a reply that is missing, malformed or out of bounds is an internal_error verdict.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from spade.errors import SandboxError
from spade.kinds.base import Scorer
from spade.kinds.math.grammar import MAX_CHARS
from spade.sandbox.libraries import library_dirs, search_path
from spade.sandbox.program import ProgramJob, ProgramRun, ProgramVerdict

HERE = Path(__file__).resolve().parent
BATCH = 16
ITEM_CPU_S = 3.0
"""CPU seconds the judge may spend on one item (parse, build, compare), enforced inside the sandbox."""
JOB_MEMORY = 1 << 30
STATUSES = ("ok", "wrong", "form", "refused", "timeout", "memory", "error")
"""What the judge may say; the host adds killed and internal_error for a job that gave no verdict."""
MAX_REPLY_LINE = 8_000


@dataclass(frozen=True, slots=True)
class Request:
    """One thing for the judge: op 'canon' (text = a reference) or 'judge' (text = an answer, against expected)."""

    op: str
    form: str
    text: str
    expected: str = ""

    def to_json(self) -> dict[str, str]:
        if self.op == "canon":
            return {"op": "canon", "form": self.form, "text": self.text}
        return {"op": "judge", "form": self.form, "answer": self.text, "expected": self.expected}


@dataclass(frozen=True, slots=True)
class Verdict:
    """The judge's word on one request: status (STATUSES or internal_error), why, the value as the judge read it,
    CPU seconds; for canon, the canonical form and near misses a sound judge rejects."""

    status: str
    detail: str = ""
    shown: str = ""
    cpu_s: float = 0.0
    canon: str = ""
    wrong: tuple[str, ...] = ()
    peak_memory_kb: int = 0


@cache
def _program() -> tuple[str, tuple[tuple[str, bytes], ...]]:
    return ((HERE / "judge.py").read_text(), (("grammar.py", (HERE / "grammar.py").read_bytes()),))


def run_requests(pool: Scorer, requests: Sequence[Request]) -> list[Verdict]:
    """A verdict for every request, in order. Texts past the grammar's length bound are refused without a run."""
    if requests and not {"sympy", "mpmath"} <= library_dirs().keys():
        raise SandboxError("the math kind's judge needs SymPy; install it with pip install sympy==1.14.0")
    verdicts: list[Verdict | None] = [None] * len(requests)
    todo = []
    for i, r in enumerate(requests):
        if len(r.text) > MAX_CHARS:
            verdicts[i] = Verdict("refused", f"the text has {len(r.text)} characters; at most {MAX_CHARS}")
        else:
            todo.append(i)
    batches = [todo[k:k + BATCH] for k in range(0, len(todo), BATCH)]
    futures = [pool.submit_program(_job([requests[i] for i in batch])) for batch in batches]
    retry: list[int] = []
    for batch, future in zip(batches, futures):
        run = future.result()
        got = _replies(run, len(batch))
        for i, verdict in zip(batch, got):
            verdicts[i] = verdict
        retry += batch[len(got):]
    alone = [pool.submit_program(_job([requests[i]])) for i in retry]
    for i, future in zip(retry, alone):
        run = future.result()
        got = _replies(run, 1)
        verdicts[i] = got[0] if got else _failed_run(run)
    return [v if v is not None else Verdict("internal_error", "no verdict") for v in verdicts]


def _job(requests: list[Request]) -> ProgramJob:
    code, files = _program()
    stdin = json.dumps({"lib": search_path(), "item_s": ITEM_CPU_S, "items": [r.to_json() for r in requests]})
    limit = min(600.0, 10.0 + 2 * ITEM_CPU_S * len(requests))  # wall clock: the import, then each item's CPU cap
    return ProgramJob(code=code, stdin=stdin.encode(), files=files, time_limit_s=limit, memory_bytes=JOB_MEMORY,
                      max_output_bytes=len(requests) * MAX_REPLY_LINE + 1024)


def _replies(run: ProgramRun, expected: int) -> list[Verdict]:
    """The complete, well-formed reply lines the judge printed, at most `expected`; a batch that died part-way
    gives the lines before its death (the rest are re-run)."""
    lines = run.stdout.split(b"\n")
    verdicts = []
    for line in lines[:expected]:
        if not line.strip() or len(line) > MAX_REPLY_LINE:
            break
        verdict = _decode(line, run)
        if verdict is None:
            break
        verdicts.append(verdict)
    return verdicts


def _decode(line: bytes, run: ProgramRun) -> Verdict | None:
    try:
        reply: Any = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if type(reply) is not dict or reply.get("status") not in STATUSES:
        return None
    cpu = reply.get("cpu", 0.0)
    wrong = reply.get("wrong", [])
    fields = [reply.get(k, "") for k in ("detail", "shown", "canon")]
    if type(cpu) not in (int, float) or not 0 <= cpu < 1e6 or type(wrong) is not list \
            or not all(type(x) is str for x in [*wrong, *fields]) or len(wrong) > 8:
        return None
    detail, shown, canon = fields
    return Verdict(reply["status"], detail[:300], shown[:300], float(cpu), canon, tuple(wrong),
                   peak_memory_kb=run.peak_memory_kb)


def _failed_run(run: ProgramRun) -> Verdict:
    """One request's job that gave no verdict: its end is the verdict."""
    if run.verdict is ProgramVerdict.TIMEOUT:
        return Verdict("timeout", "the judge ran past its time limit", cpu_s=run.cpu_time_s)
    if run.verdict is ProgramVerdict.MEMORY:
        return Verdict("memory", "the judge ran out of memory", cpu_s=run.cpu_time_s)
    if run.verdict is ProgramVerdict.KILLED:
        return Verdict("killed", f"the judge was killed (signal {run.signal})", cpu_s=run.cpu_time_s)
    why = run.error or run.stderr[-300:].decode("utf-8", "replace")
    return Verdict("internal_error", f"the judge gave no verdict: {why}", cpu_s=run.cpu_time_s)
