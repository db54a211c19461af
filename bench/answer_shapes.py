"""The shape of a policy's greedy answers on an evaluation suite: does an answer hold a function body, only a
restated docstring, or no code at all, how long is it, and does it pass (graded in the sandbox on every public and
hidden test, as `spade eval` grades). Transfer analysis: whether a checkpoint loses or gains a suite on format (no
body) or on logic (a body that is wrong, or right).

    .venv/bin/python bench/answer_shapes.py base runs/eff-c0/coevolve/checkpoints --suite humaneval --threads 2
    .venv/bin/python bench/answer_shapes.py base runs/sp-s0/selfplay/checkpoints --suite heldout-unseen \
        --withheld arithmetic_parse,command_machine,matrix_basic,palindrome,recursion_numbers,searching

Each argument is `base` (the embedded model) or a checkpoint root (its latest checkpoint is loaded). Prints one
line per model: counts per shape with how many of them pass, mean new tokens, mean statements in the function body
(answers with one); then, for each model after the first, the tasks it passes and the first does not (and the
reverse) by the first model's shape. `--out FILE` writes every answer with its shape and verdict as JSON.
`--withheld` names the families whose held-out tasks make `heldout-unseen` (an efficacy arm's withheld quarter).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SHAPES = ("has_body", "docstring_only", "pass_only", "no_entry", "syntax_error", "no_code")


def shape_of(code: str, entry_point: str) -> tuple[str, int]:
    """(shape, statements in the entry function's body besides its docstring) of extracted code."""
    if not code.strip():
        return "no_code", 0
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return "syntax_error", 0
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry_point), None)
    if fn is None:
        return "no_entry", 0
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    statements = sum(1 for s in body for _ in ast.walk(s) if isinstance(_, ast.stmt))
    if not body:
        return "docstring_only", 0
    if all(isinstance(s, ast.Pass) for s in body):
        return "pass_only", statements
    return "has_body", statements


def answers(model: str, suite: str, threads: int, max_new_tokens: int, withheld: list[str]) -> list[dict]:
    from spade.config import RewardConfig, load_config
    from spade.evaluate.suites import load_suite
    from spade.policy.embedded import EmbeddedPolicy
    from spade.policy.weights import latest_checkpoint, load_weights
    from spade.rollout import Grader
    from spade.sandbox import SandboxPool

    cfg = load_config(None, {"sampling.threads": threads, "sampling.max_new_tokens": max_new_tokens})
    tasks = load_suite(suite, withheld)
    policy = EmbeddedPolicy(cfg.sampling, cfg.training)
    if model != "base":
        path = latest_checkpoint(model)
        if path is None:
            raise SystemExit(f"{model}: no checkpoint under it; pass a checkpoint root (…/checkpoints) or 'base'")
        load_weights(path, policy)
    completions = [outs[0] for outs in policy.sample(tasks, 1, temperature=0.0, seed=0)]
    with SandboxPool(cfg.executor) as pool:  # the evaluator's grading path: every public and hidden test
        graded = Grader(pool, RewardConfig()).grade(tasks, completions, ids=[t.task_id for t in tasks])
    rows = []
    for task, c, rollout in zip(tasks, completions, graded):
        shape, statements = shape_of(rollout.candidate.code, task.entry_point)
        rows.append({"task": task.task_id, "shape": shape, "statements": statements, "passed": rollout.passed,
                     "new_tokens": c.new_tokens, "text": c.text})
    return rows


def summary(model: str, rows: list[dict]) -> str:
    counts = Counter(r["shape"] for r in rows)
    passed = Counter(r["shape"] for r in rows if r["passed"])
    bodies = [r["statements"] for r in rows if r["shape"] == "has_body"]
    tokens = sum(r["new_tokens"] for r in rows) / max(1, len(rows))
    shapes = ", ".join(f"{s} {counts[s]} ({passed[s]} pass)" for s in SHAPES if counts[s])
    return (f"{model}: {shapes} (of {len(rows)}; {sum(passed.values())} pass); mean new tokens {tokens:.1f}; "
            f"mean body statements {sum(bodies) / max(1, len(bodies)):.2f}")


def flips(first: list[dict], other: list[dict]) -> dict[str, Counter]:
    """The tasks `other` passes and `first` fails ('gained') and the reverse ('lost'), counted by the shape of
    `first`'s answer: a gain from a wrong body is logic, one from no body is format."""
    before = {r["task"]: r for r in first}
    out: dict[str, Counter] = {"gained": Counter(), "lost": Counter()}
    for r in other:
        b = before.get(r["task"])
        if b is not None and r["passed"] != b["passed"]:
            out["gained" if r["passed"] else "lost"][b["shape"]] += 1
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("models", nargs="+", help="'base' or checkpoint roots")
    p.add_argument("--suite", default="humaneval")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--max-new-tokens", type=int, default=128)
    p.add_argument("--withheld", default="", help="comma-separated families whose held-out tasks make the "
                   "heldout-unseen suite")
    p.add_argument("--out", type=Path, help="write every answer, its shape and its verdict here (JSON)")
    args = p.parse_args()
    withheld = [f for f in args.withheld.split(",") if f]
    if args.suite == "heldout-unseen" and not withheld:
        p.error("--suite heldout-unseen: name the withheld families with --withheld (an arm's efficacy.json "
                "lists them as withheld_families)")
    found = {}
    for model in args.models:
        found[model] = answers(model, args.suite, args.threads, args.max_new_tokens, withheld)
        print(summary(model, found[model]), flush=True)
    first = args.models[0]
    for model in args.models[1:]:
        f = flips(found[first], found[model])
        print(f"{model} against {first}, by {first}'s answer shape: "
              + "; ".join(f"{k} {sum(c.values())} ({', '.join(f'{s} {n}' for s, n in c.most_common())})"
                          for k, c in f.items()), flush=True)
    if args.out:
        args.out.write_text(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
