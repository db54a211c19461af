"""Validation of tool-call tasks: static checks, then the reference plan and its mutants run by the judge in the
sandbox, one job per task.

In: tasks (or a family's drafts, whose expected values are the reference's outcomes on each test's state) and the
generation config. Out: a `ValidationOutcome` per task, in order. Rejected when entry_point is not "tool_calls"
(required, as README's field table says), the offered tools are unknown, a
test's argument is not a state object, the reference is not a plan or fails on a state, a stated expected value
differs from the reference's outcome, the reference with its "$N" references hard-coded (their values on test 0)
passes every test, or fewer than `mutant_kill_ratio` of the wrong plans (another offered tool, an argument left out,
a changed value, the last call dropped) fail some test.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from spade.config import GenerationConfig
from spade.kinds.base import Scorer
from spade.kinds.tool_call.judge import PlanError, parse_plan, references
from spade.kinds.tool_call.run import decode_reply, judge_job
from spade.kinds.tool_call.simtools import TOOLS, offered
from spade.records import Task, TaskDraft, TestCase
from spade.validate.outcome import Problem, ValidationOutcome


def validate(tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
    return _validate(tasks, pool, cfg, stated=True)


def validate_drafts(drafts: Sequence[TaskDraft], pool: Scorer, cfg: GenerationConfig) -> list[ValidationOutcome]:
    tasks = [Task(task_id=d.task_id, description=d.description, signature=d.signature, entry_point=d.entry_point,
                  difficulty=d.difficulty, tags=d.tags, test_cases=tuple(TestCase(a, None) for a in d.public_inputs),
                  hidden_test_cases=tuple(TestCase(a, None) for a in d.hidden_inputs),
                  reference_solution=d.reference_solution, family=d.family, params=dict(d.params),
                  provenance=dict(d.provenance), kind=d.kind) for d in drafts]
    return _validate(tasks, pool, cfg, stated=False)


def _validate(tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig, *, stated: bool) -> list[ValidationOutcome]:
    """`stated`: the tests' expected values are given and must be reproduced; else they are filled in."""
    outcomes: list[ValidationOutcome | None] = [None] * len(tasks)
    pending = []
    for i, task in enumerate(tasks):
        problems = static_problems(task)
        if problems:
            outcomes[i] = ValidationOutcome.rejected(task.task_id, problems)
        elif not task.reference_solution or pool is None:
            outcomes[i] = ValidationOutcome(True, task, notes=("static_only: no reference_solution to run",),
                                            task_id=task.task_id)
        else:
            plans = [task.reference_solution, *mutant_plans(task.reference_solution, offered(task.signature, task.params),
                                                            cfg.max_mutants)]
            job = judge_job(offered(task.signature, task.params), plans, [c.args[0] for c in task.all_tests], [0])
            pending.append((i, plans, pool.submit_program(job)))
    for i, plans, future in pending:
        outcomes[i] = _judged(tasks[i], plans, future.result(), cfg, stated)
    return [o for o in outcomes if o is not None]


ENTRY_POINT = "tool_calls"


def static_problems(task: Task) -> list[Problem]:
    if task.entry_point != ENTRY_POINT:
        return [Problem("bad_entry_point", f"entry_point = {task.entry_point[:40]!r} must be {ENTRY_POINT!r}: a "
                        "tool-call task names its answer so (there is no Python signature to take it from)")]
    names = offered(task.signature, task.params)
    unknown = [n for n in names if n not in TOOLS]
    listed = task.params.get("tools")
    if listed is not None and (not isinstance(listed, list) or not all(isinstance(n, str) for n in listed)):
        return [Problem("unknown_tool", f"params.tools = {str(listed)[:80]} must be a list of tool names")]
    if not names or unknown or len(set(names)) != len(names):
        where = "params.tools" if listed is not None else f"signature {task.signature[:80]!r}"
        return [Problem("unknown_tool", f"{where} must name the offered tools, each once, from: {', '.join(TOOLS)}"
                        + (f" ({unknown[0][:40]!r} is not one)" if unknown else ""))]
    in_signature = offered(task.signature)
    if listed is not None and in_signature and set(in_signature) <= set(TOOLS) and in_signature != names:
        return [Problem("tools_mismatch", f"signature {task.signature[:80]!r} and params.tools {names} name "
                        "different tools; give them once (params.tools wins)")]
    for k, case in enumerate(task.all_tests):
        if len(case.args) != 1 or not isinstance(case.args[0], dict):
            return [Problem("bad_state", f"test {k}'s input must be [state], one JSON object (sections weather, kv, "
                            "calendar, users, products, orders, rates, pages, files)")]
    return []


def _judged(task: Task, plans: list[str], run: Any, cfg: GenerationConfig, stated: bool) -> ValidationOutcome:
    decoded = decode_reply(run, len(plans), len(task.all_tests))
    if isinstance(decoded, str):
        return ValidationOutcome.rejected(task.task_id, [Problem("judge_failed", decoded)])
    reference = decoded[0]
    if "format" in reference:
        return ValidationOutcome.rejected(task.task_id, [Problem("reference_unparseable",
                                                                 f"reference_solution: {reference['format']}")])
    got = reference["outcomes"]
    for k, outcome in enumerate(got):
        if not isinstance(outcome, dict) or "error" in outcome:
            why = outcome.get("error") if isinstance(outcome, dict) else outcome
            return ValidationOutcome.rejected(task.task_id, [Problem("reference_fails", f"on test {k}: {why}")])
    if stated:
        from spade.sandbox.compare import values_equal

        for k, (case, outcome) in enumerate(zip(task.all_tests, got)):
            if not values_equal(outcome, case.expected):
                return ValidationOutcome.rejected(task.task_id, [Problem(
                    "expected_mismatch", f"test {k}: the reference gives {json.dumps(outcome)[:160]}, the task "
                    f"expects {json.dumps(case.expected)[:160]}")])
    else:
        n = len(task.test_cases)
        task = replace(task, test_cases=tuple(TestCase(c.args, o) for c, o in zip(task.test_cases, got[:n])),
                       hidden_test_cases=tuple(TestCase(c.args, o) for c, o in zip(task.hidden_test_cases, got[n:])))
    fixed = reference.get("hard_coded_digests")
    if isinstance(fixed, list) and fixed == reference["digests"]:
        return ValidationOutcome.rejected(task.task_id, [Problem(
            "weak_tests", "the reference with its references replaced by the values they take on test 0 passes "
                          "every test: give tests whose states differ in what the plan looks up")])
    mutants = decoded[1:]
    if not mutants:
        return ValidationOutcome(True, task, notes=("no mutants to try",), task_id=task.task_id)
    survivors = [plans[1 + m] for m, entry in enumerate(mutants)
                 if "format" not in entry and entry["digests"] == reference["digests"]]
    ratio = 1 - len(survivors) / len(mutants)
    if ratio < cfg.mutant_kill_ratio:
        return ValidationOutcome.rejected(task.task_id, [Problem(
            "weak_tests", f"{len(survivors)} of {len(mutants)} wrong plans pass every test (ratio {ratio:.2f} < "
            f"{cfg.mutant_kill_ratio}), e.g. {survivors[0][:200]}")], kill_ratio=ratio)
    return ValidationOutcome(True, task, task_id=task.task_id, kill_ratio=ratio)


def mutant_plans(reference: str, tools: Sequence[str], limit: int) -> list[str]:
    """Wrong plans made from the reference, as JSON texts: each call naming another offered tool, each argument left
    out, each literal argument value changed, and, for plans of several calls, the last call dropped. At most
    `limit`, spread over the kinds of change."""
    try:
        calls = parse_plan(reference)
    except PlanError:
        return []
    by_kind: list[list[list[tuple[str, dict]]]] = [[], [], [], []]
    for i, (name, arguments) in enumerate(calls):
        for other in tools:
            if other != name:
                by_kind[0].append(_with(calls, i, other, arguments))
        for key in arguments:
            by_kind[1].append(_with(calls, i, name, {k: v for k, v in arguments.items() if k != key}))
        for key, value in arguments.items():
            for changed in _changed(name, key, value):
                by_kind[2].append(_with(calls, i, name, {**arguments, key: changed}))
    if len(calls) > 1:
        by_kind[3].append(calls[:-1])
    chosen: list[list[tuple[str, dict]]] = []
    while len(chosen) < limit and any(by_kind):  # round robin, so each kind of change is tried
        for group in by_kind:
            if group and len(chosen) < limit:
                chosen.append(group.pop(0))
    return [json.dumps([{"name": n, "arguments": a} for n, a in plan]) for plan in chosen]


def _with(calls: list[tuple[str, dict]], i: int, name: str, arguments: dict) -> list[tuple[str, dict]]:
    return [*calls[:i], (name, arguments), *calls[i + 1:]]


def _changed(tool: str, key: str, value: Any) -> list[Any]:
    """Plausible wrong values for an argument: another enum member, a nearby number, an altered string."""
    if references(value):
        return []
    schema = TOOLS[tool][0]["function"]["parameters"]["properties"].get(key, {}) if tool in TOOLS else {}
    if "enum" in schema:
        return [e for e in schema["enum"] if e != value][:2]
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1]
    if isinstance(value, float):
        return [round(value * 1.5 + 1, 2)]
    if isinstance(value, str):
        return [_altered(value)]
    if isinstance(value, list):
        return [value[:-1]] if value else []
    return []


def _altered(text: str) -> str:
    """A string of the same shape with one character changed (a digit bumped, else the last letter)."""
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if ch.isdigit():
            return text[:i] + str((int(ch) + 1) % 10) + text[i + 1:]
    for i in range(len(text) - 1, -1, -1):
        if text[i].isalpha():
            return text[:i] + ("a" if text[i].lower() != "a" else "b") + text[i + 1:]
    return text + "x"
