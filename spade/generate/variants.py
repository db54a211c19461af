"""Seed-task variants (docs/method.md#seed-variants-and-composition): grow a seed set by renaming, new inputs and
composition, never by new answers.

In: a seed `Task` with a reference solution. Out: `TaskDraft`s — the function and its parameters renamed
(reference rewritten through the AST, description and signature updated) and the inputs re-drawn around the
seed's (perturbed numbers, strings and lists, plus empty / zero edge cases). A composed variant also applies one
type-fitting step from another family's domain to the result or to an argument (spade.generate.compose).
Expected values come later, from running the reference in the sandbox (spade.validate). A pure function of
(task, seed, index, compose).
"""

from __future__ import annotations

import ast
import hashlib
import json
import random
import re
from collections.abc import Collection
from typing import Any

from spade.generate.compose import Choice, composed_reference, composed_signature, fitting, pick, private_name, sentence
from spade.generate.procedural import TaskDraft
from spade.records import Task

_PREFIXES = ("compute_", "get_", "find_", "calc_", "solve_")
_PARAM_NAMES = ("values", "items", "data", "seq", "arr", "text", "word", "n", "k", "m", "x", "y", "target")


def seed_variant(task: Task, seed: int, index: int, n_public: int = 3, n_hidden: int = 5,
                 compose: bool = False, withhold: Collection[str] = ()) -> TaskDraft:
    """One variant of `task`: renamed and with fresh inputs drawn around the seed's own.

    With `compose`, one transform that fits the seed's types is composed in as well (the index-th of a
    shuffled list, so a seed's composed variants differ; none from a family in `withhold`); a seed no transform
    fits gets a plain variant."""
    if not task.reference_solution:
        raise ValueError(f"seed task {task.task_id} has no reference_solution; variants need one to execute")
    rng = random.Random(f"spade-variant|{task.task_id}|{seed}|{index}")
    names = _renames(task, rng)
    reference = _rename_code(task.reference_solution, names)
    signature = _rename_code(task.signature.rstrip(":") + ":\n    pass\n", names).split("\n")[0]
    description = _rename_text(task.description, names)
    seen = [list(c.args) for c in task.all_tests]
    fresh = [[_perturb(a, rng) for a in rng.choice(seen)] for _ in range(4 * (n_public + n_hidden))] if seen else []
    inputs = _unique(fresh + [_edge(args) for args in seen[:2]])
    rng.shuffle(inputs)
    fits = [c for c in fitting(signature) if c.transform.family not in withhold] if compose else []
    choice = pick(fits, random.Random(f"spade-compose|{task.task_id}|{seed}"), index) if compose else None
    tags, difficulty = (*task.tags, "variant"), task.difficulty
    params: dict[str, Any] = {"seed_task": task.task_id, "renames": names}
    provenance: dict[str, Any] = {"source": "variant", "seed_task": task.task_id, "seed": seed, "index": index}
    if choice is not None:
        t = choice.transform
        signature, reference, description = _composed(task, names, signature, description, choice)
        inputs = _bitten(inputs, choice, rng)
        # One more step to get right: a little harder than the seed.
        tags, difficulty = (*tags, "composed"), round(min(1.0, task.difficulty + 0.1), 4)
        step = {"key": t.key, "family": t.family, "where": t.where, "arg": choice.arg}
        params["transform"], provenance["transform"] = step, step
    public, hidden = inputs[:n_public], inputs[n_public: n_public + n_hidden]
    content = json.dumps([task.task_id, description, signature, reference, public, hidden], default=str)
    return TaskDraft(
        task_id=f"{task.task_id}~v{hashlib.sha256(content.encode()).hexdigest()[:10]}",
        description=description, signature=signature, entry_point=names[task.entry_point],
        difficulty=difficulty, tags=tags,
        public_inputs=tuple(tuple(a) for a in public), hidden_inputs=tuple(tuple(a) for a in hidden),
        reference_solution=reference, family=None, params=params, provenance=provenance,
    )


def _composed(task: Task, names: dict[str, str], signature: str, description: str,
              choice: Choice) -> tuple[str, str, str]:
    """Signature, reference and description of a composed variant; the seed's function lives on as a private helper."""
    assert task.reference_solution is not None  # seed_variant checked it
    private = private_name(task.reference_solution, task.entry_point)
    signature = composed_signature(signature, choice)
    helper = _rename_code(task.reference_solution, {**names, task.entry_point: private})
    return (signature, composed_reference(helper, private, signature, choice),
            f"{description.rstrip()} {sentence(signature, choice)}")


def _bitten(inputs: list[list[Any]], choice: Choice, rng: random.Random) -> list[list[Any]]:
    """Every other input with its argument made one the input transform is sure to change (e.g. given repeats)."""
    bite = choice.transform.bite
    if bite is None or choice.arg is None:
        return inputs
    out = [list(args) for args in inputs]
    for args in out[::2]:
        if choice.arg < len(args):
            args[choice.arg] = bite(args[choice.arg], rng)
    return _unique(out)


def _renames(task: Task, rng: random.Random) -> dict[str, str]:
    tree = ast.parse(task.signature.rstrip(":") + ":\n    pass\n")
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)  # taskio already checked the signature declares one function
    base = task.entry_point
    for prefix in _PREFIXES:
        base = base.removeprefix(prefix)
    names = {task.entry_point: rng.choice(_PREFIXES) + base}
    free = [n for n in _PARAM_NAMES if n not in {a.arg for a in fn.args.args}]
    rng.shuffle(free)
    for arg, new in zip(fn.args.args, free):
        names[arg.arg] = new
    return names


class _Renamer(ast.NodeTransformer):
    def __init__(self, names: dict[str, str]):
        self.names = names

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self.names.get(node.name, node.name)
        for arg in node.args.args:
            arg.arg = self.names.get(arg.arg, arg.arg)
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self.names.get(node.id, node.id)
        return node


def _rename_code(code: str, names: dict[str, str]) -> str:
    return ast.unparse(_Renamer(names).visit(ast.parse(code))) + "\n"


def _rename_text(text: str, names: dict[str, str]) -> str:
    for old, new in names.items():
        text = re.sub(rf"\b{re.escape(old)}\b", new, text)
    return text


def _perturb(value: Any, rng: random.Random) -> Any:
    """A nearby value of the same JSON type (bool before int: True is an int in Python)."""
    if isinstance(value, bool):
        return rng.random() < 0.5
    if isinstance(value, int):
        return value + rng.randint(-3, 3)
    if isinstance(value, float):
        return round(value * rng.uniform(0.5, 1.5), 3)
    if isinstance(value, str):
        chars = list(value)
        rng.shuffle(chars)
        return "".join(chars[: max(0, len(chars) + rng.randint(-1, 1))])
    if isinstance(value, list):
        items = [_perturb(v, rng) for v in value]
        if items and rng.random() < 0.5:
            items.append(_perturb(rng.choice(value), rng))
        return items
    return value


def _edge(args: list[Any]) -> list[Any]:
    """The seed's argument list with every list and string emptied and every number set to 0."""
    out: list[Any] = []
    for a in args:
        if isinstance(a, bool):
            out.append(a)
        elif isinstance(a, (int, float)):
            out.append(type(a)(0))
        elif isinstance(a, (str, list, dict)):
            out.append(type(a)())
        else:
            out.append(a)
    return out


def _unique(items: list[list[Any]]) -> list[list[Any]]:
    seen, out = set(), []
    for item in items:
        key = json.dumps(item, sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out
