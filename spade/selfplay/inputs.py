"""Inputs the environment adds to a proposal whose own calls are too few (selfplay.complete_inputs).

In: a proposer's drafts (spade.selfplay.proposal: the program f and the literal calls it wrote, maybe none), the
sandbox pool and the GenerationConfig. Out: the drafts with the inputs on which f raises (or returns nothing
showable) left out and, where fewer than WANT remain, inputs added; all chosen by one run of the program in the
sandbox:
- with inputs of its own, the candidates are small edits of them (spade.validate.probes: same types, near the
  proposer's values);
- with none, candidates come in typed groups (every argument an int; a string; a list of ints; ...), and the
  group on which f returns the most distinct values is taken, so the inputs share the types f was written for.
A candidate is kept only where f returns a plain JSON value short enough to show; the task's outputs still come
from validation's own two runs of the program, never from this one. The draft's provenance counts the inputs
added (`inputs_added`). Why: a fifth of the proposals of the default recipe wrote f without any call and a tenth
with one usable call (docs/selfplay.md); their programs were thrown away with the proposer's sampling.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from spade.kinds.code_reasoning.prompt import call_text
from spade.kinds.code_reasoning.validate import MAX_SHOWN_CHARS, split_inputs
from spade.kinds.program.run import executor_config
from spade.pycode import parse_untrusted
from spade.records import TaskDraft
from spade.sandbox import Job, OutcomeKind, RawRun, to_json_value
from spade.validate.probes import argument_probes
from spade.validate.types import is_json

if TYPE_CHECKING:
    from spade.config import GenerationConfig
    from spade.kinds.base import Scorer

WANT = 3  # the calls the proposer prompt asks for: induction then shows one pair and hides two
MAX_OWN = 8
PER_GROUP = 5
EDITS = 8
_INTS = (3, 0, 7, -2, 12, 1, 25, 4)
_STRS = ("abc", "", "hello world", "racecar", "Aab", "x1y2", "banana", "ok")
_INT_LISTS: tuple[list[int], ...] = ([3, 1, 2], [], [5, -2, 7, 0], [4, 4, 1], [10], [1, 2, 3, 4, 5], [9, 8],
                                     [6, 0, 6])
_STR_LISTS: tuple[list[str], ...] = (["b", "a"], [], ["apple", "kiwi", "fig"], ["x"], ["aa", "b", "aa"],
                                     ["hi", "there"], ["q", "rs"])
_TYPES = {"int": _INTS, "str": _STRS, "list_int": _INT_LISTS, "list_str": _STR_LISTS}
_GROUPS = {1: (("int",), ("str",), ("list_int",), ("list_str",)),
           2: (("int", "int"), ("str", "str"), ("list_int", "int"), ("str", "int"), ("list_int", "list_int")),
           3: (("int", "int", "int"), ("list_int", "int", "int"), ("str", "int", "int"))}


def complete_inputs(drafts: Sequence[TaskDraft], pool: Scorer, cfg: GenerationConfig) -> list[TaskDraft]:
    """Each draft with the inputs its program does not answer left out and, when fewer than WANT remain,
    candidates it answers added (see the module doc); a draft whose program does not load is returned unchanged,
    and one whose program answers nothing keeps its own inputs (validation names the problem)."""
    plans = [_plan(d) for d in drafts]
    futures = [_submit(pool, d, own + extra, cfg) if own or extra else None
               for d, (own, extra) in zip(drafts, plans)]
    out = []
    for d, (own, extra), future in zip(drafts, plans, futures):
        run: RawRun | None = future.result() if future is not None else None
        if run is None or run.load_status is not None:
            out.append(d)
            continue
        shown = _shown_values(d.entry_point, own + extra, run)
        kept = [own[k] for k in range(len(own)) if k in shown]
        added = _chosen(kept, extra, {k - len(own): v for k, v in shown.items() if k >= len(own)})
        inputs = kept + added
        if not inputs:
            inputs = own  # nothing answered: validation names the problem on the proposer's own inputs
        public, hidden = split_inputs(str(d.params.get("mode")), inputs)
        provenance = {**d.provenance, "inputs_added": len(added)} if added else d.provenance
        out.append(replace(d, public_inputs=public, hidden_inputs=hidden, provenance=provenance))
    return out


def candidate_groups(arity: int, salt: str) -> list[list[tuple[Any, ...]]]:
    """Typed groups of PER_GROUP argument tuples for a function of `arity` positional arguments (none above 3
    but all-int), a pure function of the arguments: each group varies every argument across its tuples."""
    if arity < 1:
        return []
    kinds = _GROUPS.get(arity) or (("int",) * arity,)
    offset = sum(map(ord, salt)) % len(_INTS)
    groups = []
    for kind in kinds:
        rows = []
        for i in range(PER_GROUP):
            rows.append(tuple(_value(_TYPES[t], offset + i + 3 * j) for j, t in enumerate(kind)))
        groups.append(rows)
    return groups


def positional_arity(program: str, entry_point: str) -> int:
    """The number of positional arguments `entry_point` needs (its parameters without defaults); -1 when the
    program does not define it or it needs keyword-only ones."""
    try:
        tree = parse_untrusted(program)
    except SyntaxError:
        return -1
    func = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry_point), None)
    if func is None or any(d is None for d in func.args.kw_defaults):
        return -1
    return len(func.args.posonlyargs) + len(func.args.args) - len(func.args.defaults)


def _plan(d: TaskDraft) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """(the proposer's own inputs, candidates to add) for one draft: edits of its own inputs where it has any,
    else the typed groups, concatenated."""
    own = [tuple(a) for a in d.all_inputs][:MAX_OWN]
    if len(own) >= WANT:
        return own, []
    if own:
        return own, argument_probes(own, EDITS, d.task_id)
    return own, [args for group in candidate_groups(positional_arity(d.reference_solution or "", d.entry_point),
                                                    d.task_id) for args in group]


def _chosen(kept: list[tuple[Any, ...]], extra: list[tuple[Any, ...]],
            answered: dict[int, str]) -> list[tuple[Any, ...]]:
    """The candidates to add: with inputs of its own, the answered edits in order; with none, the answered members
    of the typed group with the most distinct outputs (at least two). Up to WANT inputs in all."""
    room = max(0, WANT - len(kept))
    if not room or not answered:
        return []
    seen = {json.dumps(list(a), sort_keys=True) for a in kept}
    if kept:
        picks = [extra[k] for k in sorted(answered)]
    else:
        best: tuple[int, int] = (0, 0)
        picks = []
        for g in range(0, len(extra), PER_GROUP):
            members = [k for k in range(g, min(g + PER_GROUP, len(extra))) if k in answered]
            score = (len({answered[k] for k in members}), len(members))
            if score[0] >= 2 and score > best:  # one distinct output is a constant on the group: no evidence
                best, picks = score, [extra[k] for k in members]
    added: list[tuple[Any, ...]] = []
    for args in picks:
        key = json.dumps(list(args), sort_keys=True)
        if key not in seen and len(added) < room:
            seen.add(key)
            added.append(args)
    return added


def _shown_values(entry_point: str, inputs: list[tuple[Any, ...]], run: RawRun) -> dict[int, str]:
    """Input index -> its output as canonical JSON, for the inputs on which the run returned a plain JSON value
    whose call and output both fit in a prompt (MAX_SHOWN_CHARS)."""
    out = {}
    for k, (args, o) in enumerate(zip(inputs, run.outcomes)):
        if o.kind is not OutcomeKind.VALUE or len(call_text(entry_point, args)) > MAX_SHOWN_CHARS:
            continue
        try:
            value = to_json_value(o.value)
        except (ValueError, TypeError, RecursionError):
            continue
        if is_json(value) and len(repr(value)) <= MAX_SHOWN_CHARS:
            out[k] = json.dumps(value, sort_keys=True)
    return out


def _submit(pool: Scorer, d: TaskDraft, inputs: list[tuple[Any, ...]], cfg: GenerationConfig) -> Any:
    limit, ex = cfg.reference_time_limit_s, executor_config(pool)
    return pool.submit(Job(code=d.reference_solution or "", entry_point=d.entry_point,  # type: ignore[attr-defined]
                           inputs=tuple(inputs), time_limits=(limit,) * len(inputs), memory_bytes=ex.memory_bytes,
                           total_timeout=limit * len(inputs) + 1.0, max_output_bytes=ex.max_output_bytes,
                           run_all_tests_after_timeout=False))


def _value(values: Sequence[Any], index: int) -> Any:
    value = values[index % len(values)]
    return list(value) if isinstance(value, list) else value


__all__ = ["WANT", "candidate_groups", "complete_inputs", "positional_arity"]
