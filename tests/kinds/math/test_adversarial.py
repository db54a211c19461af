"""Hostile math answers through the real sandbox: text that would run code under sympify is refused by the grammar
(a format failure), exponent towers, huge factorials and expansion bombs are bounded (refused, or a timeout of the
judge inside the sandbox), deep nesting and megabyte answers are refused, and none of it spoils the verdicts of the
honest answers judged in the same batch."""

from __future__ import annotations

import resource
import time
from pathlib import Path

import pytest

from spade.config import RewardConfig
from spade.kinds.math.run import Request, run_requests
from spade.records import Completion, ExecStatus, Task, TestCase
from spade.rollout import Grader

MARK = Path("/tmp/spade-math-pwned")
CODE = [
    f"__import__('os').system('touch {MARK}')", "lambda: __import__('os')", "x.__class__.__mro__",
    "().__class__.__bases__[0].__subclasses__()", "eval('1')", "exec('import os')", "getattr(x, 'real')",
    "open('/etc/passwd').read()", "Symbol('x')", "x if 1 else 0", "[c for c in 'ab']", "f'{x}'", "x; import os",
    "__builtins__", "sympify('x')", "\\input{/etc/passwd}", "x\x00", "1 # comment",
]
BOMBS = ["9^9^9^9", "10^10^10", "2^2^2^2^2^2", "99999!", "(10^30)!", "((10^30)^100)^100", "sqrt(2)^(10^9)",
         "1/0", "0^-1", "(3!)!!", "99999999999999999999999999999999999999^100"]
EXPR = Task("m/expr", "Simplify.", "expression in x", "answer", 0.5, test_cases=(TestCase((), "1"),), kind="math")
POLY = Task("m/poly", "Expand.", "polynomial in x", "answer", 0.5, test_cases=(TestCase((), "x**2 - 1"),),
            kind="math")


def _grade(pool, tasks, texts):
    return Grader(pool, RewardConfig()).grade(tasks, [Completion(t) for t in texts],
                                              ids=[f"a{i}" for i in range(len(texts))])


def test_text_that_would_run_code_under_sympify_is_a_format_failure_and_runs_nothing(pool):
    MARK.unlink(missing_ok=True)
    texts = [f"Answer: {c}" for c in CODE] + ["Answer: 1"]
    rollouts = _grade(pool, [EXPR] * len(texts), texts)
    for text, r in zip(texts[:-1], rollouts[:-1]):
        assert not r.passed, text
        assert r.result.status in (ExecStatus.SYNTAX_ERROR, ExecStatus.NO_ENTRY_POINT), (text, r.result)
        assert r.reward.format_penalty > 0
    assert rollouts[-1].passed  # the honest answer in the same batch
    assert not MARK.exists()


def test_exponent_towers_and_huge_factorials_are_refused_quickly(pool):
    started = time.monotonic()
    verdicts = run_requests(pool, [Request("judge", "expression in x", b, "1") for b in BOMBS])
    assert [v.status for v in verdicts] == ["wrong"] * len(BOMBS), [(b, v) for b, v in zip(BOMBS, verdicts)]
    assert max(v.cpu_s for v in verdicts) < 1.0
    assert time.monotonic() - started < 60


def test_an_expansion_bomb_times_out_inside_the_sandbox_and_costs_the_host_nothing(pool, monkeypatch):
    import spade.kinds.math.run as run

    monkeypatch.setattr(run, "ITEM_CPU_S", 1.0)
    form = "expression in a, b, c, d, e, f, g, h"
    bomb = "(a+b+c+d+e+f+g+h+1)^100 - (a+b+c+d+e+f+g+h+1)^99*(a+b+c+d+e+f+g+h)"
    host_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    verdicts = run_requests(pool, [Request("judge", form, bomb, "a"), Request("judge", form, "a", "a")])
    assert verdicts[0].status in ("timeout", "wrong", "memory"), verdicts[0]
    assert verdicts[1].status == "ok"  # the next item of the same batch is judged normally
    assert time.monotonic() - started < 120
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - host_rss < 50_000  # KiB


@pytest.mark.parametrize("text", ["(" * 5000 + "1" + ")" * 5000, "-" * 50_000 + "1", "sqrt(" * 1000 + "1" +
                                  ")" * 1000, "1" + "+1" * 100_000, "x" * 1_000_000])
def test_deep_wide_and_megabyte_answers_are_refused(pool, text):
    started = time.monotonic()
    [verdict] = run_requests(pool, [Request("judge", "expression in x", text, "1")])
    assert verdict.status == "refused"
    assert time.monotonic() - started < 30


def test_a_megabyte_completion_is_bounded_from_extraction_to_verdict(pool):
    texts = ["Answer: " + "9" * 1_000_000, "x" * 1_000_000 + "\nAnswer: x^2 - 1", "Answer: x^2 - 1"]
    rollouts = _grade(pool, [POLY] * 3, texts)
    assert [r.passed for r in rollouts] == [False, True, True]
    assert rollouts[0].result.status in (ExecStatus.SYNTAX_ERROR, ExecStatus.NO_ENTRY_POINT)
    assert rollouts[0].reward.format_penalty > 0
    assert len(rollouts[0].candidate.code) <= 1001


def test_a_judge_that_dies_mid_batch_costs_only_the_item_it_died_on(pool, monkeypatch):
    import spade.kinds.math.run as run

    code, files = run._program()
    dying = code.replace("def _one(item, grammar, sp):\n",
                         "def _one(item, grammar, sp):\n    if item.get('answer') == 'x*x*x':\n        os._exit(3)\n")
    assert dying != code
    monkeypatch.setattr(run, "_program", lambda: (dying, files))
    verdicts = run_requests(pool, [Request("judge", "expression in x", t, "x") for t in ["x", "x*x*x", "x^2", "x"]])
    assert [v.status for v in verdicts] == ["ok", "internal_error", "wrong", "ok"]


def test_a_judge_printing_garbage_gives_internal_error_verdicts_not_a_crash(pool, monkeypatch):
    import spade.kinds.math.run as run

    garbage = "import sys\nsys.stdout.write('{\"status\": \"ok\", \"cpu\": 1e999}\\n[[[[' * 1000)\n"
    monkeypatch.setattr(run, "_program", lambda: (garbage, ()))
    verdicts = run_requests(pool, [Request("judge", "number", "1", "1")] * 3)
    assert [v.status for v in verdicts] == ["internal_error"] * 3
