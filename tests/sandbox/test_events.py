"""Observed interference (docs/method.md#interference): what a candidate tried beyond computing its answer reaches
RawRun.events.

The child's audit hook (installed before candidate code, never removable) reports file_access, socket and
process_spawn; the watcher adds stray_output. A clean candidate, imports included, reports nothing.
"""

from __future__ import annotations

import pytest

from spade.records import ExecStatus
from spade.sandbox import Job
from tests.sandbox.conftest import CFG, CORRECT, secret_task

CASES = {
    "stray_output": "def f():\n    print('debugging')\n    return 1\n",
    "stray_output_on_stderr": "import sys\ndef f():\n    sys.stderr.write('x')\n    return 1\n",
    "file_access": "def f():\n    return len(open('/etc/passwd').read()) > 0\n",
    "file_access_via_dotdot": "import sys\ndef f():\n    return len(open(sys.prefix + '/../../etc/hostname', 'rb').read())\n",
    "file_access_via_symlink_in_tmp": (
        "import os\ndef f():\n    os.symlink('/etc/passwd', '/tmp/p')\n    return len(open('/tmp/p').read()) > 0\n"),
    "file_access_of_proc": "def f():\n    return len(open('/proc/self/maps').read()) > 0\n",
    "socket": "import socket\ndef f():\n    try:\n        socket.socket()\n    except OSError:\n        return 1\n",
    "socket_disguised": (
        "import importlib\ndef f():\n    mod = importlib.import_module('_so' + 'cket')\n"
        "    try:\n        getattr(mod, 'so' + 'cket')()\n    except OSError:\n        return 1\n"),
    "socket_via_dunder_import": (
        "def f():\n    s = __import__('so' + 'cket')\n"
        "    try:\n        s.create_connection(('127.0.0.1', 9))\n    except OSError:\n        return 1\n"),
    "process_spawn_system": "import os\ndef f():\n    return os.system('true')\n",
    "process_spawn_popen": (
        "import subprocess\ndef f():\n    try:\n        subprocess.Popen(['true'])\n    except OSError:\n        return 1\n"),
    "process_spawn_fork": "import os\ndef f():\n    try:\n        os.fork()\n    except OSError:\n        return 1\n",
    "process_spawn_exec": "import os\ndef f():\n    try:\n        os.execv('/bin/true', ['true'])\n    except OSError:\n        return 1\n",
    "process_spawn_posix_spawn": (
        "import os\ndef f():\n    try:\n        os.posix_spawn('/bin/true', ['true'], {})\n    except OSError:\n        return 1\n"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_interference_is_reported_as_an_event(pool, name):
    raw = pool.run(Job(CASES[name], "f", ((),), (2.0,), CFG.memory_bytes))
    expected = next(e for e in ("stray_output", "file_access", "socket", "process_spawn") if name.startswith(e))
    assert expected in raw.events, (name, raw)
    assert pool.score(secret_task(), CORRECT).score == 1.0


def test_a_clean_candidate_that_imports_and_uses_tmp_reports_no_event(pool):
    code = ("import fractions, hashlib, decimal, statistics, json, os\n"
            "def solve(n):\n"
            "    with open('/tmp/scratch', 'w') as f:\n"
            "        json.dump([n], f)\n"
            "    os.unlink('/tmp/scratch')\n"
            "    return 'SECRET-%d' % (n * 7919 % 100003)\n")
    result = pool.score(secret_task(), code)
    assert result.status is ExecStatus.PASSED and result.events == ()


def test_repeated_interference_is_reported_once(pool):
    code = "def f():\n    for _ in range(1000):\n        open('/etc/hostname').close()\n        print('x')\n    return 1\n"
    raw = pool.run(Job(code, "f", ((),), (2.0,), CFG.memory_bytes))
    assert raw.events.count("file_access") == 1 and raw.events.count("stray_output") == 1
    assert raw.values == [1]
