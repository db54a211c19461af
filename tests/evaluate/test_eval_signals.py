"""`spade eval` ends promptly on SIGTERM and SIGINT: the sandbox pool drops the jobs it has not started, so an
interrupted evaluation stops within one candidate's time, with one line and exit 143 / 130."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from spade.evaluate.suites import load_suite

ROOT = Path(__file__).resolve().parents[2]


def _caught(pid: int) -> int:
    """The signal mask the process catches (SigCgt): bit n-1 is set once a handler for signal n is installed."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return int(line.split()[1], 16)
    return 0


def _wait_for_workers(proc: subprocess.Popen[str], sig: int, timeout: float = 120.0) -> None:
    """Until the process catches `sig` and has started child processes (its sandbox workers, forked by a spawner
    thread, so every thread's children count): on a loaded host a fixed sleep may end before the interpreter has
    installed its signal handlers."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and proc.poll() is None:
        try:
            children = [c for t in Path(f"/proc/{proc.pid}/task").iterdir() for c in (t / "children").read_text().split()]
            if children and _caught(proc.pid) >> (sig - 1) & 1:
                return
        except OSError:  # a thread ended between listing and reading
            pass
        time.sleep(0.2)
    pytest.fail(f"spade eval started no sandbox worker within {timeout:.0f} s (exit status {proc.poll()})")


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_eval_stops_within_seconds_of_a_signal(tmp_path, sig, code):
    samples = tmp_path / "samples.jsonl"
    with samples.open("w") as out:  # 120 slow candidates: about a minute of work on two workers
        for task in load_suite("builtin")[:15]:
            body = f"def {task.entry_point}(*args, **kwargs):\n    import time\n    time.sleep(0.9)\n"
            out.writelines(json.dumps({"task_id": task.task_id, "completion": body}) + "\n" for _ in range(8))
    config = tmp_path / "c.yaml"
    config.write_text("executor:\n  workers: 2\n")
    proc = subprocess.Popen([sys.executable, "-m", "spade", "eval", "--samples", str(samples), "--k", "1,8",
                             "--config", str(config)], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # a shell's background job starts with SIGINT ignored, and Python then keeps it so
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    _wait_for_workers(proc, sig)  # the pool is up and grading: the signal lands on the handled path
    time.sleep(2)
    assert proc.poll() is None
    proc.send_signal(sig)
    started = time.monotonic()
    try:
        _, err = proc.communicate(timeout=15)
    finally:
        proc.kill()
    assert time.monotonic() - started < 10
    assert proc.returncode == code
    assert err.strip().splitlines() == [f"spade eval: stopped by {signal.Signals(sig).name}; no report was written"]
