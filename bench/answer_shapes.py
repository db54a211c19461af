"""The shape of a policy's greedy answers on an evaluation suite: does an answer hold a function body, only a
restated docstring, or no code at all, and how long is it. Transfer analysis: whether a checkpoint loses a suite
on format (no body) or on logic (a body that is wrong).

    .venv/bin/python bench/answer_shapes.py base runs/eff-c0/coevolve/checkpoints --suite humaneval --threads 2

Each argument is `base` (the embedded model) or a checkpoint root (its latest checkpoint is loaded). Prints one
line per model: counts per shape, mean new tokens, mean statements in the function body (answers with one);
`--out FILE` writes every answer with its shape as JSON.
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


def answers(model: str, suite: str, threads: int, max_new_tokens: int) -> list[dict]:
    from spade.config import load_config
    from spade.evaluate.suites import load_suite
    from spade.kinds.python_function.extract import extract_code
    from spade.policy.embedded import EmbeddedPolicy
    from spade.policy.weights import latest_checkpoint, load_weights

    cfg = load_config(None, {"sampling.threads": threads, "sampling.max_new_tokens": max_new_tokens})
    tasks = load_suite(suite)
    policy = EmbeddedPolicy(cfg.sampling, cfg.training)
    if model != "base":
        path = latest_checkpoint(model)
        if path is None:
            raise SystemExit(f"{model}: no checkpoint under it; pass a checkpoint root (…/checkpoints) or 'base'")
        load_weights(path, policy)
    rows = []
    for task, outs in zip(tasks, policy.sample(tasks, 1, temperature=0.0, seed=0)):
        text = outs[0].text
        shape, statements = shape_of(extract_code(text, task.entry_point), task.entry_point)
        rows.append({"task": task.task_id, "shape": shape, "statements": statements,
                     "new_tokens": outs[0].new_tokens, "text": text})
    return rows


def summary(model: str, rows: list[dict]) -> str:
    counts = Counter(r["shape"] for r in rows)
    bodies = [r["statements"] for r in rows if r["shape"] == "has_body"]
    tokens = sum(r["new_tokens"] for r in rows) / max(1, len(rows))
    shapes = ", ".join(f"{s} {counts[s]}" for s in SHAPES if counts[s])
    return (f"{model}: {shapes} (of {len(rows)}); mean new tokens {tokens:.1f}; "
            f"mean body statements {sum(bodies) / max(1, len(bodies)):.2f}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("models", nargs="+", help="'base' or checkpoint roots")
    p.add_argument("--suite", default="humaneval")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--max-new-tokens", type=int, default=128)
    p.add_argument("--out", type=Path, help="write every answer and its shape here (JSON)")
    args = p.parse_args()
    found = {}
    for model in args.models:
        found[model] = answers(model, args.suite, args.threads, args.max_new_tokens)
        print(summary(model, found[model]), flush=True)
    if args.out:
        args.out.write_text(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
