"""bench/efficacy.py charges an arm the CPU of its live sandbox workers, not only of the children it reaped."""

import importlib.util
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _efficacy():
    spec = importlib.util.spec_from_file_location("bench_efficacy", ROOT / "bench" / "efficacy.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_live_grandchild_busy_for_a_second_is_charged():
    efficacy = _efficacy()
    busy = "import time\nend = time.process_time() + 1.0\nwhile time.process_time() < end: pass\ntime.sleep(30)\n"
    # a shell that starts the busy Python and waits: the busy process is a grandchild, alive while we look
    parent = subprocess.Popen(["/bin/sh", "-c", f"{sys.executable} -c '{busy}'; true"], start_new_session=True)
    try:
        before = efficacy.live_descendants_cpu(parent.pid)
        deadline = time.monotonic() + 60
        while efficacy.live_descendants_cpu(parent.pid) < 0.9 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert before < 0.9 <= efficacy.live_descendants_cpu(parent.pid) < 5
        me, reaped = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        own = me.ru_utime + me.ru_stime + reaped.ru_utime + reaped.ru_stime
        assert efficacy.cpu_seconds() - own >= 0.9  # the budget charges the live grandchild beyond rusage
    finally:
        os.killpg(parent.pid, signal.SIGKILL)
        parent.wait()
