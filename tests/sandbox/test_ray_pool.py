"""executor.backend = 'ray': a local Ray instance with two sandbox actors gives the local pool's results and events;
an actor killed during a job gives that job internal_error, leaves no process behind and is replaced."""

from __future__ import annotations

import os
import signal
import time

import pytest

from spade.sandbox import Job, ProgramJob, ProgramVerdict, SandboxPool
from spade.sandbox.backend import open_pool
from tests.sandbox.conftest import CFG, CORRECT, secret_task
from tests.sandbox.test_hostile import HOSTILE

ray = pytest.importorskip("ray")  # the `ray` extra; about 35 s here, most of it starting Ray
RAY_CFG = CFG.model_copy(update={"backend": "ray", "workers": 2, "ray_cpus_per_worker": 0.5})
CANDIDATES = {
    "correct": CORRECT,
    "wrong": "def solve(n):\n    return 'SECRET-0'\n",
    "raising": "def solve(n):\n    raise KeyError(n)\n",
    "syntax": "def solve(n) return 1\n",
    "prints_and_reads_files": "def solve(n):\n    print('hi'); open('/etc/hostname').read()\n    return None\n",
    **{name: HOSTILE[name] for name in ("cpu_loop", "memory_bomb", "socket_connect", "fork_bomb", "exec_a_shell")},
}
PROGRAMS = {
    "echo": ("print(input()[::-1])\n", b"abc\n"),
    "crash": ("raise SystemExit(3)\n", b""),
    "loop": ("while True: pass\n", b""),
}


@pytest.fixture(scope="module")
def ray_pool():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        with open_pool(RAY_CFG) as pool:
            yield pool
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def local_pool():
    with SandboxPool(CFG) as pool:
        yield pool


def _verdict(result):
    return result.status, tuple(t.status for t in result.tests), result.events


def test_two_actors_each_own_a_strict_worker(ray_pool):
    placement = ray_pool.placement
    assert len(placement) == 2 and len({info["pid"] for info in placement.values()}) == 2
    assert all(all(info["layers"].values()) and len(info["worker_pids"]) == 1 for info in placement.values())


def test_the_ray_backend_gives_the_local_pools_verdicts_and_events(ray_pool, local_pool):
    task = secret_task()
    for name, code in CANDIDATES.items():
        limits = (4.0,) * 4 if name == "memory_bomb" else None
        assert _verdict(ray_pool.score(task, code, limits)) == _verdict(local_pool.score(task, code, limits)), name
    for name, (code, stdin) in PROGRAMS.items():
        remote, local = (p.run_program(ProgramJob(code, stdin, time_limit_s=1.0)) for p in (ray_pool, local_pool))
        assert (remote.verdict, remote.exit_code, remote.stdout, remote.events) == (
            local.verdict, local.exit_code, local.stdout, local.events), name


def test_jobs_spread_over_both_actors_in_parallel(ray_pool):
    started = time.monotonic()
    futures = [ray_pool.submit_program(ProgramJob("import time\ntime.sleep(1)\nprint(1)\n")) for _ in range(2)]
    assert [f.result().stdout for f in futures] == [b"1\n", b"1\n"]
    assert time.monotonic() - started < 1.9  # two at once, not one after the other


def test_an_actor_killed_during_a_job_gives_internal_error_and_is_replaced(ray_pool):
    sleeper = ray_pool.submit(Job("import time\ndef solve(n):\n    time.sleep(5)\n", "solve", ((1,),), (8.0,),
                                  CFG.memory_bytes, total_timeout=8.0))
    for _ in range(200):  # until a thread has taken an actor for it
        if ray_pool._free.qsize() < 2:
            break
        time.sleep(0.05)
    time.sleep(1.0)
    dead = dict(ray_pool.placement)
    for info in dead.values():  # the busy actor and the idle one
        os.kill(info["pid"], signal.SIGKILL)
    raw = sleeper.result(timeout=60)
    assert raw.outcomes[0].kind.value == "internal_error" and "died" in raw.outcomes[0].error
    for _ in range(100):  # each killed actor's sandbox worker dies with it
        if not any(os.path.exists(f"/proc/{info['worker_pids'][0]}") for info in dead.values()):
            break
        time.sleep(0.05)
    assert not any(os.path.exists(f"/proc/{info['worker_pids'][0]}") for info in dead.values())
    # the idle one is found dead before it gets a job, so these cost no verdict
    futures = [ray_pool.submit_program(ProgramJob("print(2)")) for _ in range(2)]
    assert [f.result().verdict for f in futures] == [ProgramVerdict.EXITED] * 2
    assert ray_pool.score(secret_task(), CORRECT).score == 1.0
    assert {info["pid"] for info in ray_pool.placement.values()}.isdisjoint(info["pid"] for info in dead.values())


def test_spade_eval_grades_on_ray_actors_with_the_local_figures(ray_pool, tmp_path):
    """`spade eval` (like `spade run` and `spade serve`) opens its pool by executor.backend."""
    import json

    from spade.config import SpadeConfig
    from spade.evaluate.commands import eval_command

    right = "def sum_evens(nums):\n    return sum(n for n in nums if n % 2 == 0)\n"
    samples = tmp_path / "s.jsonl"
    samples.write_text("".join(json.dumps({"task_id": "builtin/sum_evens", "completion": c}) + "\n"
                               for c in (right, "def sum_evens(nums):\n    return sum(nums)\n")))
    cfg = SpadeConfig(executor=RAY_CFG.model_copy(update={"workers": 1}))
    assert eval_command("builtin", None, [1, 2], samples, None, None, cfg, run_dir=tmp_path / "run") == 0
    report = json.loads((tmp_path / "run" / "evals" / "builtin-samples-s.json").read_text())
    assert report["pass_at_k"] == {"1": 0.5, "2": 1.0}
