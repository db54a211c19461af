"""Benchmark: host cost of grading the red-team's degenerate answers, per grading call, worst case first.

Workload: each hostile answer (thousands of `@x` or `x=(` lines, a 3,000-term sum, parentheses 5,000 deep, a 6 MB
program, a line of a megabyte, lone surrogates, NULs, fences by the thousand, JSON 1,200 deep) graded on one task
of every kind, with and without the prefill, on the one grading path (spade.env.grading.grade, real sandbox); the
exported verl reward function (spade.export.reward_fn.compute_score) on the Python ones; the LLM proposer's parser
on each as a spec and as code; self-play's surfaces: each answer, and the code-reasoning attacks below, as a
proposal (parsed and validated by execution: spade.selfplay.proposal, spade.kinds.validate_drafts), graded on
code-reasoning tasks of every mode, and through an environment's draw and step (spade.env.Environment, what
/v1/env/draw and /v1/env/step call) on a run directory of its own. Per call: host CPU seconds of this process (time.process_time: the sandbox's own
processes are not the host's) and the peak resident memory of this process while the call ran (sampled from
/proc/self/statm every 2 ms). Target: <= 2 s of CPU and <= 200 MB per call.
The worst call per surface is printed after the costliest calls overall.
Run: .venv/bin/python bench/hostile.py [--workers 2] [--top 12]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from machine import cpu_model  # noqa: E402

from spade.config import ExecutorConfig, RewardConfig  # noqa: E402
from spade.env.grading import Answer, grade  # noqa: E402
from spade.evaluate.suites import load_suite  # noqa: E402
from spade.export.reward_fn import compute_score  # noqa: E402
from spade.generate.proposer import parse_answer  # noqa: E402
from spade.groundtruth import ground_truth  # noqa: E402
from spade.kinds import validate_drafts  # noqa: E402
from spade.records import TaskDraft  # noqa: E402
from spade.sandbox import SandboxPool  # noqa: E402
from spade.selfplay.proposal import draft_of, parse_proposal  # noqa: E402

PAGE = os.sysconf("SC_PAGE_SIZE")
HOSTILE = {
    "400 @x lines (1.2 KB)": "@x\n" * 400,
    "20,000 @x lines": "@x\n" * 20_000,
    "x=( lines (2 KB)": "```python\n" + "x=(\n" * 500 + "```",
    "20,000 x=( lines": "x=(\n" * 20_000,
    "return n+0+... (3,000 terms)": "```python\ndef f(n):\n    return n" + "+0" * 3000 + "\n```",
    "parentheses 5,000 deep": "```python\ndef f(n):\n    return " + "(" * 5000 + "n" + ")" * 5000 + "\n```",
    "6 MB program": "```python\ndef f(n):\n    return n\n" + "x = 1\n" * 1_000_000 + "```",
    "a line of 1 MB": "```python\ndef f(n):\n    return " + "1+" * 500_000 + "1\n```",
    "lone surrogates and NULs": "```python\ndef f(n):\n    return '\ud800'\x00\n```\n" + "\udfff" * 10_000,
    "50,000 fences": "```" * 50_000,
    "JSON 1,200 deep": "[" * 1200 + "]" * 1200,
    "boxed 50,000 deep": "\\boxed{" * 50_000,
    "SQL comments /**/ x 30": "```sql\n" + "/**/" * 30 + "x\n```",
    "answer lines of 4,000 spaces": ("Answer:" + " " * 3990 + "x\n") * 60,
}
# Self-play's own attacks (issue 70): answers and proposals against the code-reasoning judges and validation.
SELFPLAY = {
    "abduction answer 65 levels deep": "[" * 65 + "3" + "]" * 65 + ") == 3",
    "answer spelling a lone surrogate": "'\\ud800') == '\\ud800'",
    "a set answer": "{1, 2, 3}",
    "proposal: 4 KB unclosed list": "def f(x):\n    return [\n" + "1,\n" * 2000,
    "proposal: docstring escape \\ud800": ('```python\ndef f(xs):\n    """Triple \\ud800 them."""\n    return [x * 3 for x '
                                          'in xs]\n\nprint(f([1, 2]))\nprint(f([4]))\nprint(f([]))\n```'),
    "proposal: f returns chr(0xd800)": ('```python\ndef f(n):\n    """Spell it."""\n    return chr(0xd800) + str(n)\n\n'
                                        'print(f(1))\nprint(f(2))\n```'),
    "proposal: a call 65 levels deep": ("```python\ndef f(x):\n    \"\"\"Count.\"\"\"\n    return str(x).count('[')\n\n"
                                        "print(f(" + "[" * 65 + "3" + "]" * 65 + "))\nprint(f([1]))\n```"),
    "proposal: coin flip off its inputs": ("```python\nimport random\n\ndef f(x):\n    \"\"\"Double.\"\"\"\n    if x in (1, 2, 3):"
                                           "\n        return x * 2\n    return random.choice([0, 2])\n\n"
                                           "print(f(1))\nprint(f(2))\nprint(f(3))\n```"),
}
CR_PROGRAM = "def f(xs):\n    return sorted(x * 2 for x in xs)[:3]\n"


class PeakRss:
    """The peak resident memory of this process while the block runs, sampled every 2 ms."""

    def __enter__(self) -> PeakRss:
        self.peak, self._stop = _rss(), threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.002):
            self.peak = max(self.peak, _rss())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss())


def _rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * PAGE


def _measure(call: Callable[[], object]) -> tuple[float, int, str]:
    """(host CPU seconds, peak RSS bytes, what came back or what was raised)."""
    started = time.process_time()
    with PeakRss() as rss:
        try:
            outcome = call()
        except Exception as exc:  # noqa: BLE001 - a bench reports what escaped, it does not stop at it
            outcome = f"RAISED {type(exc).__name__}"
    return time.process_time() - started, rss.peak, _short(outcome)


def _short(outcome: object) -> str:
    if isinstance(outcome, tuple) and outcome and isinstance(outcome[0], list):  # Environment.step: (graded, report)
        outcome = outcome[0]
    if isinstance(outcome, list) and outcome and hasattr(outcome[0], "result"):
        g = outcome[0]
        return f"{g.result.status.value} reward {g.reward.total:+.2f}"
    if isinstance(outcome, dict):
        return f"score {outcome.get('score', 0.0):+.2f}"
    if hasattr(outcome, "reason"):
        return f"rejected: {outcome.reason}"
    return str(outcome)[:40]


def _tasks() -> list:
    picked = {}
    for name in ("builtin", "heldout-program-dev", "heldout-math-dev", "heldout-sql-dev", "heldout-structured-dev",
                 "heldout-tool_call-dev", "heldout-repair-dev"):
        for task in load_suite(name):
            picked.setdefault(task.kind, task)
    return list(picked.values())


def _cr_tasks(pool: SandboxPool) -> list:
    """One validated code-reasoning task per mode, on a small program."""
    from spade.config import GenerationConfig

    drafts = [TaskDraft(f"bench-cr-{mode}", "Double and sort, keep three.", "def f(xs)", "f", 0.3, ("code_reasoning",),
                        (([3, 1, 2],), ([5, -1],)), (([4, 4, 0],), ([9],), ([7, 8, 1, 2],)), CR_PROGRAM,
                        params={"mode": mode}, kind="code_reasoning")
              for mode in ("deduction", "abduction", "induction")]
    return [o.task for o in validate_drafts(drafts, pool, GenerationConfig()) if o.accepted]


def _propose(pool: SandboxPool, text: str) -> object:
    """A completion as self-play's proposer role's answer: parsed, then validated by execution as a draft."""
    from spade.config import GenerationConfig

    parsed = parse_proposal(text, prefilled=False)
    if isinstance(parsed, str):
        return f"rejected: {parsed}"
    draft = draft_of(parsed, "deduction", 0.3, iteration=0, index=0, checkpoint=None, model="bench")
    outcome = validate_drafts([draft], pool, GenerationConfig())[0]
    return "admitted" if outcome.accepted else f"rejected: {','.join(outcome.reasons)}"


def _environment(run_dir: Path, workers: int) -> object:
    from spade.config import load_config
    from spade.env import Environment

    cfg = load_config(None, {"generation.families": ["list_transform", "cr_deduction", "cr_abduction"],
                             "generation.tasks_per_iteration": 3, "executor.workers": workers})
    return Environment.open(run_dir, cfg)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--top", type=int, default=12, help="how many of the costliest calls to list")
    args = p.parse_args()
    tasks, cfg = _tasks(), RewardConfig()
    python_task = next(t for t in tasks if t.kind == "python_function")
    truth = ground_truth(python_task)
    rows: list[tuple[float, int, str, str, str]] = []
    with SandboxPool(ExecutorConfig(workers=args.workers)) as pool:
        right = f"```python\n{python_task.reference_solution}\n```"
        grade(pool, cfg, [Answer(python_task, right, False)])  # warm: workers started, modules imported
        compute_score("spade", right, truth)
        baseline = _rss()
        for name, text in HOSTILE.items():
            for task in tasks:
                for prefilled in (True, False):
                    cpu, peak, out = _measure(lambda t=task, pf=prefilled, x=text: grade(pool, cfg, [Answer(t, x, pf)]))
                    rows.append((cpu, peak, name, f"grade {task.kind} prefilled={prefilled}", out))
            cpu, peak, out = _measure(lambda x=text: compute_score("spade", x, truth))
            rows.append((cpu, peak, name, "verl compute_score", out))
            for mode in ("spec", "code_first"):
                cpu, peak, out = _measure(lambda m=mode, x=text: parse_answer(x, m))
                rows.append((cpu, peak, name, f"proposer parse {mode}", out))
        cr_tasks = _cr_tasks(pool)
        for name, text in {**HOSTILE, **SELFPLAY}.items():
            for task in cr_tasks:
                for prefilled in (True, False):
                    cpu, peak, out = _measure(lambda t=task, pf=prefilled, x=text: grade(pool, cfg, [Answer(t, x, pf)]))
                    rows.append((cpu, peak, name, f"grade code_reasoning/{task.params['mode']} prefilled={prefilled}",
                                 out))
            cpu, peak, out = _measure(lambda x=text: _propose(pool, x))
            rows.append((cpu, peak, name, "selfplay proposal", out))
        import tempfile

        with tempfile.TemporaryDirectory() as tmp, _environment(Path(tmp) / "run", args.workers) as env:
            cpu, peak, out = _measure(lambda: env.draw(3))
            rows.append((cpu, peak, "a draw of 3", "env draw (/v1/env/draw)", out))
            drawn = env.draw(3)
            for name, text in {**HOSTILE, **SELFPLAY}.items():
                ids = [d.task.task_id for d in drawn]
                cpu, peak, out = _measure(lambda x=text, i=ids, k=name: env.step(i, [x] * len(i), key=f"bench {k}"))
                rows.append((cpu, peak, name, "env step (/v1/env/step), 3 tasks", out))
        after = grade(pool, cfg, [Answer(python_task, right, False)])[0]
    print(f"CPU: {cpu_model()} ({os.cpu_count()} logical); Python {sys.version.split()[0]}; "
          f"{len(rows)} calls; RSS before the hostile calls {baseline / 2**20:.0f} MB")
    print(f"{'CPU s':>7} {'peak MB':>8} {'+MB':>6}  input / call / verdict")
    for cpu, peak, name, call, out in sorted(rows, reverse=True)[:args.top]:
        print(f"{cpu:7.3f} {peak / 2**20:8.0f} {(peak - baseline) / 2**20:6.0f}  {name} / {call} / {out}")
    print("worst call per surface:")
    surfaces: dict[str, tuple[float, int, str, str, str]] = {}
    for row in rows:
        surface = row[3].split(" prefilled=")[0]
        surfaces[surface] = max(surfaces.get(surface, row), row)
    for surface, (cpu, peak, name, _, out) in sorted(surfaces.items(), key=lambda s: -s[1][0]):
        print(f"{cpu:7.3f} {peak / 2**20:8.0f} {(peak - baseline) / 2**20:6.0f}  {surface}: {name} / {out}")
    worst_cpu = max(rows)
    worst_mem = max(rows, key=lambda r: r[1])
    raised = [r for r in rows if r[4].startswith("RAISED")]
    print(json.dumps({"worst_cpu_s": round(worst_cpu[0], 3), "worst_cpu_call": f"{worst_cpu[2]} / {worst_cpu[3]}",
                      "peak_rss_mb": round(worst_mem[1] / 2**20), "peak_rss_call": f"{worst_mem[2]} / {worst_mem[3]}",
                      "peak_rss_over_baseline_mb": round((worst_mem[1] - baseline) / 2**20),
                      "raised": len(raised), "correct_answer_after": f"{after.result.status.value} "
                      f"reward {after.reward.total:+.2f}"}))


if __name__ == "__main__":
    main()
