"""Pool lifecycle, isolation levels and modes, layer reports, and the CLI pieces."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time

import pytest

from spade.config import ExecutorConfig, SpadeConfig
from spade.errors import SandboxError, TaskFormatError
from spade.sandbox import SandboxPool, UnsafeSandboxWarning, check_isolation, time_limits_for
from spade.sandbox.job import Job
from spade.sandbox.layers import ALT_HASH_SEED, GRADING_HASH_SEED, host_layers
from tests.sandbox.conftest import CFG, CORRECT, kill_each_new_worker, secret_task


def test_a_worker_killed_while_idle_is_replaced_before_the_next_job_which_it_does_not_cost():
    with SandboxPool(CFG.model_copy(update={"workers": 1})) as pool:
        (before,) = pool.worker_pids()
        os.kill(before, signal.SIGKILL)
        for _ in range(200):  # the kill has landed once the process is a zombie (or gone)
            try:
                if open(f"/proc/{before}/stat").read().rsplit(")", 1)[1].split()[0] == "Z":
                    break
            except OSError:
                break
            time.sleep(0.01)
        assert pool.score(secret_task(), CORRECT).score == 1.0
        (after,) = pool.worker_pids()
        assert after != before


def test_the_zygote_stays_small_and_imports_no_module_that_hooks_every_fork(pool):
    # threading and random register at-fork hooks that would run in every candidate's child; pyseccomp pulls
    # both in, so the zygote compiles its filter in a throwaway child instead. json (with re), typing and
    # shutil (with bz2 and lzma) would only add memory that every fork must copy-on-write.
    heavy = ("pyseccomp", "random", "threading", "json", "re", "typing", "shutil", "lzma")
    probe = ("import sys\n"
             "def probe():\n"
             f"    return sorted(m for m in {heavy!r} if m in sys.modules)\n")
    raw = pool.run(Job(probe, "probe", ((),), (5.0,), CFG.memory_bytes))
    assert raw.outcomes[0].value == []


def test_isolation_none_warns_on_every_run():
    with SandboxPool(CFG.model_copy(update={"isolation": "none", "workers": 1})) as pool:
        for _ in range(2):
            with pytest.warns(UnsafeSandboxWarning):
                assert pool.score(secret_task(), CORRECT).score == 1.0


def test_docker_mode_logs_that_the_sandbox_is_used_instead(caplog):
    with caplog.at_level(logging.WARNING, logger="spade.sandbox"):
        with SandboxPool(CFG.model_copy(update={"mode": "docker", "workers": 1})) as pool:
            assert pool.score(secret_task(), CORRECT).score == 1.0
    assert "Docker engine is not available" in caplog.text and "'strict'" in caplog.text


def test_subprocess_mode_is_refused_outside_the_benchmark():
    with pytest.raises(SandboxError, match="executor.mode"):
        SandboxPool(CFG.model_copy(update={"mode": "subprocess"}))


def test_check_isolation_verifies_every_layer_on_this_host():
    report = check_isolation(ExecutorConfig())
    assert report.meets_level and not report.missing
    assert report.layer("uid_drop").active and int(report.layer("uid_drop").detail.split()[-1]) >= 62000
    assert report.layer("network_off").detail == "interfaces visible: lo"


@pytest.mark.filterwarnings("ignore::spade.sandbox.UnsafeSandboxWarning")
def test_check_isolation_under_none_reports_layers_missing():
    report = check_isolation(ExecutorConfig(isolation="none"))
    assert not report.layer("seccomp").active and not report.layer("uid_drop").active
    assert report.layer("rlimits").active


def test_strict_refuses_a_host_without_bubblewrap_and_standard_degrades(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # bwrap cannot be found
    host_layers.cache_clear()
    try:
        with pytest.raises(SandboxError, match="namespaces layer"):
            SandboxPool(CFG)
        with SandboxPool(CFG.model_copy(update={"isolation": "standard", "workers": 1})) as pool:
            assert not pool.plan.uses_bwrap and pool.plan.use_seccomp
            assert pool.score(secret_task(), CORRECT).score == 1.0
    finally:
        host_layers.cache_clear()


def test_time_limits_scale_the_reference_time_with_a_floor():
    cfg = ExecutorConfig(time_floor_s=1.0, time_factor=10.0)
    assert time_limits_for(cfg, 2, [0.01, 0.5]) == (1.0, 5.0)
    with pytest.raises(SandboxError, match="one per test"):
        time_limits_for(cfg, 3, [0.1])


def test_exec_command_prints_json_and_exits_one_when_the_candidate_fails(tmp_path, capsys):
    from spade.commands.sandbox import exec_command

    task = {"task_id": "add1", "description": "add one", "signature": "def add1(x):", "difficulty": 0.1,
            "test_cases": [{"input": [1], "expected": 2}, {"input": [5], "expected": 6}]}
    (tmp_path / "t.json").write_text(json.dumps(task))
    (tmp_path / "s.py").write_text("def add1(x):\n    return 2\n")
    (tmp_path / "ok.py").write_text("def add1(x):\n    return x + 1\n")
    cfg = SpadeConfig(executor=CFG)
    assert exec_command(str(tmp_path / "t.json"), str(tmp_path / "s.py"), True, cfg) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "failed" and [t["status"] for t in out["tests"]] == ["passed", "wrong_answer"]
    assert exec_command(str(tmp_path / "t.json"), str(tmp_path / "s.py"), False, cfg) == 1
    assert "wrong_answer" in capsys.readouterr().out
    assert exec_command(str(tmp_path / "t.json"), str(tmp_path / "ok.py"), False, cfg) == 0
    with pytest.raises(TaskFormatError, match="does not exist"):
        exec_command(str(tmp_path / "t.json"), str(tmp_path / "nope.py"), False, cfg)
    with pytest.raises(TaskFormatError):
        exec_command(str(tmp_path / "missing.json"), str(tmp_path / "s.py"), False, cfg)


def test_sandbox_check_command_marks_each_layer(capsys):
    from spade.commands.sandbox import sandbox_check_command

    assert sandbox_check_command(SpadeConfig()) == 0
    out = capsys.readouterr().out
    assert out.count("✓") == 7 and "seccomp" in out


def _descendants(pid: int) -> list[tuple[int, str]]:
    """(pid, state) of every process below pid, from /proc."""
    parents: dict[int, list[int]] = {}
    states: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents.setdefault(int(fields[1]), []).append(int(entry))
            states[int(entry)] = fields[0]
    found, stack = [], list(parents.get(pid, []))
    while stack:
        p = stack.pop()
        found.append((p, states[p]))
        stack += parents.get(p, [])
    return found


def test_the_child_forked_ahead_is_reaped_when_a_job_has_no_test():
    with SandboxPool(CFG.model_copy(update={"workers": 1})) as pool:
        (worker,) = pool.worker_pids()
        for _ in range(5):
            assert pool.run(Job(CORRECT, "solve", (), (), CFG.memory_bytes)).outcomes == ()
        assert pool.score(secret_task(), CORRECT).score == 1.0
        # bwrap's two processes, the template, the watcher waiting for the next job and its child; nothing else,
        # no zombie (the last job's watcher exits just after replying: give the template a moment to reap it)
        for _ in range(100):
            tree = _descendants(worker)
            if len(tree) <= 5 and all(state != "Z" for _, state in tree):
                break
            time.sleep(0.02)
        assert len(tree) <= 5 and all(state != "Z" for _, state in tree), tree


SLOW_CORRECT = CORRECT.replace("def solve(n):\n", "def solve(n):\n    import time\n    time.sleep(0.5)\n", 1)


def test_a_worker_killed_during_a_job_is_replaced_and_the_job_runs_again_on_its_successor():
    assert SLOW_CORRECT != CORRECT
    with SandboxPool(CFG.model_copy(update={"workers": 1})) as pool:
        (first,) = pool.worker_pids()
        killer = kill_each_new_worker(pool, 1, 0.3)
        result = pool.score(secret_task(), SLOW_CORRECT, (5.0,) * 4)
        killer.join()
        assert result.score == 1.0 and "internal_error" not in result.events
        (after,) = pool.worker_pids()
        assert after != first



def test_a_program_whose_worker_is_killed_mid_run_runs_again_on_its_successor():
    from spade.sandbox.program import ProgramJob, ProgramVerdict

    slow_echo = "import sys, time\ntime.sleep(1.0)\nprint(sys.stdin.read().upper())\n"
    with SandboxPool(CFG.model_copy(update={"workers": 1})) as pool:
        killer = kill_each_new_worker(pool, 1, 0.3)
        run = pool.run_program(ProgramJob(slow_echo, b"hello", time_limit_s=5.0))
        killer.join()
        assert run.verdict is ProgramVerdict.EXITED and run.exit_code == 0 and run.stdout.strip() == b"HELLO"
        killer = kill_each_new_worker(pool, 2, 0.3)
        run = pool.run_program(ProgramJob(slow_echo, b"hello", time_limit_s=5.0))
        killer.join()
        assert run.verdict is ProgramVerdict.INTERNAL_ERROR


HASH_PROBE = "def f():\n    return hash('spade')\n"


def _hash_under(seed: int) -> int:
    out = subprocess.run([sys.executable, "-c", "print(hash('spade'))"], env={"PYTHONHASHSEED": str(seed)},
                         capture_output=True, text=True, check=True)
    return int(out.stdout)


def _probe(pool: SandboxPool, hash_seed: int | None = None) -> int:
    raw = pool.run(Job(HASH_PROBE, "f", ((),), (5.0,), CFG.memory_bytes, hash_seed=hash_seed))
    assert raw.all_returned, raw
    return raw.outcomes[0].value


def test_every_worker_grades_under_one_fixed_hash_seed_and_a_job_may_ask_for_another():
    with SandboxPool(CFG) as pool:
        seen = {f.result().outcomes[0].value for f in [pool.submit(Job(HASH_PROBE, "f", ((),), (5.0,), CFG.memory_bytes))
                                                       for _ in range(40)]}
        assert seen == {_hash_under(GRADING_HASH_SEED)}  # the same on every worker of this pool ...
        other = _probe(pool, ALT_HASH_SEED)
        assert other == _hash_under(ALT_HASH_SEED) != _hash_under(GRADING_HASH_SEED)
        assert _probe(pool) == _hash_under(GRADING_HASH_SEED)  # the other seed's worker takes only its own jobs
        assert len(pool.worker_pids()) == CFG.worker_count + 1
    with SandboxPool(CFG) as again:  # ... and in the next pool (the next run)
        assert _probe(again) == _hash_under(GRADING_HASH_SEED)
