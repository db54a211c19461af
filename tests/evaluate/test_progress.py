"""Evaluation shows progress: `spade eval` and the loop's eval stage report sampling and grading as they go (bars on
a terminal, periodic lines on stderr otherwise), so a long evaluation is never a silent wait."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from spade.evaluate.progress import PeriodicLines

ROOT = Path(__file__).resolve().parents[2]


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_periodic_lines_say_the_start_then_at_most_one_line_per_period_then_the_end():
    out, clock = io.StringIO(), _Clock()
    lines = PeriodicLines(out, every_s=10, prefix="eval builtin: ", clock=clock)
    for done in range(72):
        clock.now = done * 1.0  # a task a second: 72 s in all
        lines("sample", done, 72)
    clock.now = 72.0
    lines("sample", 72, 72)
    lines("sample", 72, 72)  # said once
    said = out.getvalue().splitlines()
    assert said[0] == "eval builtin: sample 0/72 (0:00:00)"
    assert said[-1] == "eval builtin: sample 72/72 (0:01:12)"
    assert len(said) == 9  # start, every 10 s (10..70), end


def test_a_pass_that_ended_short_does_not_keep_its_clock_into_the_next():
    out, clock = io.StringIO(), _Clock()
    lines = PeriodicLines(out, every_s=10, clock=clock)
    lines("generate", 0, 6)
    clock.now = 5.0
    lines("generate", 5, 6)  # the supply accepted 5 of 6: this pass never reaches its total
    clock.now = 3600.0
    lines("generate", 0, 6)  # the next iteration's pass
    clock.now = 3603.0
    lines("generate", 6, 6)
    assert out.getvalue().splitlines() == ["generate 0/6 (0:00:00)", "generate 0/6 (0:00:00)",
                                           "generate 6/6 (0:00:03)"]


def test_the_loop_display_prints_stage_lines_when_stderr_is_no_terminal(capsys):
    from spade.pipeline.progress import LoopDisplay

    with LoopDisplay(1) as display:
        display.stage("eval sample", 0, 40)
        display.stage("eval sample", 40, 40)
    err = capsys.readouterr().err
    assert "eval sample 0/40" in err and "eval sample 40/40" in err


@pytest.mark.slow
def test_spade_eval_reports_sampling_and_grading_on_stderr():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "spade", "eval", "--suite", "builtin", "--limit", "2",
                           "--set", "sampling.max_new_tokens=16", "--set", "sampling.threads=1"],
                          capture_output=True, text=True, timeout=600, cwd=ROOT, env=env, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    for line in ("eval builtin: sample 0/2", "eval builtin: sample 2/2", "eval builtin: grade 2/2"):
        assert line in done.stderr


@pytest.mark.slow
def test_the_loops_eval_stage_reports_its_progress(tmp_path):
    from spade.config import SpadeConfig
    from spade.curriculum import Controller
    from spade.dedup import DedupIndex
    from spade.evaluate.suites import load_suite
    from spade.pipeline.build import make_policy
    from spade.pipeline.stages import Engine, evaluate_policy
    from spade.sandbox import SandboxPool
    from spade.store import RunStore

    cfg = SpadeConfig.model_validate({"sampling": {"max_new_tokens": 16, "threads": 1}, "executor": {"workers": 2}})
    heard: list[tuple[str, int, int]] = []
    with SandboxPool(cfg.executor) as pool:
        e = Engine(cfg=cfg, store=RunStore(tmp_path, create=True), pool=pool, policy=make_policy(cfg), trainer=None,
                   controller=Controller(cfg.evolution, ["primes"]), dedup=DedupIndex(),
                   eval_tasks=load_suite("builtin")[:3], families=["primes"],
                   progress=lambda stage, done, total: heard.append((stage, done, total)))
        report = evaluate_policy(e, 0, "builtin")
    assert report.n_tasks == 3
    assert ("eval sample", 0, 3) in heard and ("eval sample", 3, 3) in heard and ("eval grade", 3, 3) in heard
