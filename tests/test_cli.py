"""The CLI's exit codes and its handling of SIGINT and SIGTERM, seen from outside: real subprocesses."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.pipeline.conftest import ROOT, spade

TASK = {"task_id": "add", "description": "add one", "signature": "def f(x: int) -> int:",
        "test_cases": [{"input": [1], "expected": 2}], "hidden_test_cases": [{"input": [5], "expected": 6}]}


@pytest.fixture
def task_file(tmp_path: Path) -> Path:
    path = tmp_path / "task.json"
    path.write_text(json.dumps(TASK))
    return path


def _solution(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "solution.py"
    path.write_text(f"def f(x):\n    {body}\n")
    return path


def test_exec_exits_0_when_the_candidate_passes_and_1_when_it_does_not(tmp_path, task_file):
    assert spade("exec", str(task_file), str(_solution(tmp_path, "return x + 1"))).returncode == 0
    failed = spade("exec", str(task_file), str(_solution(tmp_path, "return x")), "--json")
    assert failed.returncode == 1, failed.stderr
    assert json.loads(failed.stdout)["status"] == "failed"
    crashed = spade("exec", str(task_file), str(_solution(tmp_path, "raise ValueError")))
    assert crashed.returncode == 1


def test_exec_reads_a_reply_as_the_loop_does_and_raw_runs_the_file_as_written(tmp_path, task_file):
    reply = tmp_path / "reply.md"
    reply.write_text("Here it is:\n```python\ndef f(x):\n    return x + 1\n```\nIt adds one.\n")
    judged = spade("exec", str(task_file), str(reply), "--json")
    assert judged.returncode == 0, judged.stderr
    assert json.loads(judged.stdout)["score"] == 1.0
    raw = spade("exec", str(task_file), str(reply), "--json", "--raw")
    assert raw.returncode == 1 and json.loads(raw.stdout)["load_error"]


def test_a_missing_solution_file_is_an_input_error(tmp_path, task_file):
    proc = spade("exec", str(task_file), str(tmp_path / "nope.py"))
    assert proc.returncode == 2 and "solution file" in proc.stderr and "Traceback" not in proc.stderr


def test_help_documents_the_exit_codes():
    out = spade("--help").stdout
    for code in ("0 ", "1 ", "2 ", "3 ", "130", "143"):
        assert f"  {code}" in out
    assert "infrastructure" in out and "SIGTERM" in out
    for command in ("exec", "run", "validate", "doctor"):
        assert "exit codes" in spade(command, "--help").stdout


def _descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        p = todo.pop()
        try:
            tasks = list(Path(f"/proc/{p}/task").iterdir())
        except OSError:  # it exited between being listed as a child and being read
            continue
        for task in tasks:
            try:
                kids = {int(c) for c in (task / "children").read_text().split()}
            except OSError:
                continue
            todo += kids - found
            found |= kids
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for p in pids:
        try:
            if Path(f"/proc/{p}/stat").read_text().split(") ")[1][0] != "Z":
                alive.add(p)
        except (OSError, IndexError):
            pass
    return alive


def _default_signals() -> None:
    """As a terminal would start the command: an ignored or blocked SIGINT in the test process (some library
    earlier in the session leaves it so) would be inherited, and a Python started with SIGINT ignored keeps
    ignoring it."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})


@pytest.mark.parametrize("sig, code, name", [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGINT, 130, "SIGINT")])
def test_a_signal_during_exec_stops_it_with_one_line_and_no_stray_processes(tmp_path, task_file, sig, code, name):
    config = tmp_path / "slow.yaml"
    config.write_text("executor: {timeout: 60, time_floor_s: 60}\n")
    looping = _solution(tmp_path, "while True: pass")
    proc = subprocess.Popen([sys.executable, "-m", "spade", "exec", str(task_file), str(looping), "--config",
                             str(config)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_signals)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(_descendants(proc.pid)) < 3:  # zygote, its watcher, the candidate
        time.sleep(0.1)
    time.sleep(0.5)
    children = _descendants(proc.pid)
    assert children, "the sandbox never started"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == code, err
    assert err.strip() == f"spade exec: stopped by {name}; no verdict was given"
    assert "resume" not in err
    time.sleep(0.5)
    assert not _alive(children), "sandbox processes outlived the command"


def test_sigterm_during_run_names_the_run_directory_to_resume(tmp_path):
    from tests.pipeline.conftest import SMALL_RUN

    config = tmp_path / "small.yaml"
    config.write_text(SMALL_RUN)
    run_dir = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "spade", "run", "--config", str(config), "--run-dir",
                             str(run_dir)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (run_dir / "spade.sqlite").exists():
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert err.strip().splitlines()[-1] == (f"spade run: stopped by SIGTERM; committed iterations are kept "
                                            f"(continue with `spade run --resume {run_dir}`)")
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["run", "--minutes", "-1"], "--minutes = -1.0"),
        (["eval", "--temperature", "-1"], "--temperature = -1.0"),
        (["variants", "seeds.jsonl", "--out", "/nonexistent-dir/out.jsonl"], "its directory does not exist"),
        (["run", "--config", "tinny"], "packaged configs: default, efficacy, selfplay, tiny"),
        (["run", "--config", "tiny", "--set", "sampling.temperature=9"], "error: --set: sampling.temperature = 9"),
    ],
)
def test_bad_arguments_are_refused_before_any_work(tmp_path, args, fragment):
    """Each of these used to start the work (a run, sampling, minutes of validation) and fail or mislead after."""
    proc = spade(*args, "--run-dir", str(tmp_path / "r")) if args[0] == "run" else spade(*args)
    assert proc.returncode == 2, proc.stderr
    assert fragment in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()


def test_version_prints_the_package_version():
    from spade import __version__

    done = spade("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"spade {__version__}"


def test_every_argument_of_every_command_has_help():
    import argparse

    from spade.cli import _parser

    missing = []
    parsers = [("spade", _parser())]
    while parsers:
        name, parser = parsers.pop()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                parsers += [(f"{name} {n}", p) for n, p in action.choices.items()]
            elif not action.help:
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


@pytest.mark.parametrize(("setting", "fragment"), [
    ("sampling.temperature=9", "sampling.temperature = 9"),  # validated like the YAML: out of range
    ("sampling.nope=1", "unknown key 'sampling.nope'"),
    ("temperature=0.5", "write section.key=value"),
    ("training.update_method=grpo", "must be a multiple of training.grpo_generations"),  # with batch_size 6
])
def test_set_overrides_are_validated_like_the_yaml(setting, fragment):
    from spade.cli import _config
    from spade.errors import ConfigError

    sets = [setting] + (["training.batch_size=6"] if "grpo" in setting else [])
    with pytest.raises(ConfigError, match=re.escape(fragment)):
        _config(None, sets=sets)


def test_set_overrides_reach_the_config_and_combine_with_a_file(tmp_path):
    from spade.cli import _config

    path = tmp_path / "c.yaml"
    path.write_text("sampling: {temperature: 0.2, sampling_n: 3}\n")
    cfg = _config(str(path), sets=["sampling.temperature=0.7", "generation.families=[sorting, digits]"])
    assert cfg.sampling.temperature == 0.7 and cfg.sampling.sampling_n == 3
    assert list(cfg.generation.families) == ["sorting", "digits"]
    done = spade("check", "--set", "run.seed=-1")
    assert done.returncode == 2 and "run.seed" in done.stderr
