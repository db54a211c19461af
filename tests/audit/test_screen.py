"""The audit screener flags dangerous content in generated code by AST, one finding code per kind of danger."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade.audit import FINDINGS, audit_result, event_counts, finding_counts, parse_events, parse_screen, screen_code

HOSTILE = [
    ("shell", "import os\ndef f(x):\n    os.system('rm -rf ~')\n"),
    ("shell", "import subprocess as sp\ndef f(x):\n    return sp.check_output(['id'])\n"),
    ("shell", "from os import popen\ndef f(x):\n    return popen('ls').read()\n"),
    ("shell", "import pty\npty.spawn('/bin/sh')\n"),
    ("shell", "import os\nrun = os.system\nrun('id')\n"),
    ("shell", "import os\ndef f():\n    os.execv('/bin/sh', ['sh'])\n"),
    ("network", "import socket\ns = socket.socket()\n"),
    ("network", "from urllib.request import urlopen\ndef f(u):\n    return urlopen(u).read()\n"),
    ("network", "import requests\nrequests.get('http://example.com')\n"),
    ("network", "import http.client\n"),
    ("credentials", "def f():\n    return open('/root/.ssh/id_rsa').read()\n"),
    ("credentials", "def f():\n    return open('/etc/shadow').read()\n"),
    ("credentials", "import os\ndef f():\n    return os.path.expanduser('~/.aws/credentials')\n"),
    ("credentials", "import os\ndef f():\n    return os.environ['GITHUB_TOKEN']\n"),
    ("credentials", "import os\ndef f():\n    return os.getenv('OPENAI_API_KEY')\n"),
    ("credentials", "import os\ndef f():\n    return dict(os.environ)\n"),
    ("destructive_fs", "import shutil\nshutil.rmtree('/home')\n"),
    ("destructive_fs", "import os\nos.remove('/etc/hosts')\n"),
    ("destructive_fs", "def f(p):\n    import os\n    os.unlink(p)\n"),
    ("destructive_fs", "def f():\n    open('/usr/lib/python3/x.py', 'w').write('')\n"),
    ("destructive_fs", "from pathlib import Path\nPath('/etc/passwd').write_text('')\n"),
    ("dynamic_exec", "def f(s):\n    return eval(s)\n"),
    ("dynamic_exec", "exec(compile('1', 'x', 'eval'))\n"),
    ("dynamic_exec", "import importlib\nm = importlib.import_module('os')\n"),
    ("dynamic_exec", "import ctypes\n"),
]

CLEAN = [
    "def two_sum(nums, target):\n    seen = {}\n    for i, n in enumerate(nums):\n        if target - n in seen:\n"
    "            return [seen[target - n], i]\n        seen[n] = i\n    return []\n",
    "import math\nfrom collections import Counter\ndef f(xs):\n    return math.prod(Counter(xs).values())\n",
    "def f(s: str) -> str:\n    return s[::-1]  # os.system in a comment is harmless\n",
    "def f():\n    with open('/tmp/scratch.txt', 'w') as fh:\n        fh.write('ok')\n    return 1\n",
    "def f(path):\n    return open(path).read()\n",  # reading is not destructive
    "import re, itertools, functools, heapq, bisect\ndef f(x):\n    return re.sub('a', 'b', x)\n",
    "def evaluate(expr):\n    return sum(int(t) for t in expr.split('+'))\n",  # a name like eval is not eval
]


@pytest.mark.parametrize(("finding", "code"), HOSTILE)
def test_each_hostile_snippet_is_flagged_with_its_finding(finding: str, code: str) -> None:
    assert finding in screen_code(code)


@pytest.mark.parametrize("code", CLEAN)
def test_ordinary_solutions_are_not_flagged(code: str) -> None:
    assert screen_code(code) == ()


def test_obfuscated_imports_are_resolved_through_import_and_getattr() -> None:
    assert set(screen_code("getattr(__import__('os'), 'system')('id')")) == {"shell", "dynamic_exec"}


def test_unparsable_code_is_still_scanned_as_text() -> None:
    assert screen_code("def f(:\n    import subprocess\n    open('/root/.ssh/id_rsa')") == ("credentials", "shell")


def test_every_finding_code_is_documented() -> None:
    found = {code for _, snippet in HOSTILE for code in screen_code(snippet)}
    assert found == {c for c in FINDINGS if not c.startswith("sql_")}  # the SQL kind's own: tests/kinds/sql


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_screening_never_raises_and_returns_sorted_known_codes(text: str) -> None:
    codes = screen_code(text)
    assert list(codes) == sorted(set(codes))
    assert set(codes) <= set(FINDINGS)


def test_audit_results_carry_findings_after_the_status_and_parse_back() -> None:
    assert audit_result("passed", []) == "passed"
    result = audit_result("failed", ["shell", "network", "shell"])
    assert result == "failed|screen:network,shell"
    assert parse_screen(result) == ("network", "shell")
    assert parse_screen("accepted") == ()


def test_finding_counts_count_each_record_once_per_finding() -> None:
    results = ["passed|screen:shell,network", "failed|screen:shell", "passed", "timeout|screen:shell,shell"]
    assert finding_counts(results) == {"shell": 3, "network": 1}


def test_audit_results_keep_the_sandbox_events_beside_the_findings_and_parse_back() -> None:
    result = audit_result("passed", ["network"], ["socket", "file_access", "socket", "screen:network"])
    assert result == "passed|screen:network|events:file_access,socket"
    assert parse_screen(result) == ("network",) and parse_events(result) == ("file_access", "socket")
    assert audit_result("failed", [], ["stray_output"]) == "failed|events:stray_output"
    assert parse_events("failed|screen:shell") == () and audit_result("passed", [], []) == "passed"
    assert event_counts([result, "failed|events:socket", "passed"]) == {"socket": 2, "file_access": 1}
