"""The sandbox's covered / not covered header stays true: every threat class of docs/method.md#threat-model, each
with tests that exist."""

from __future__ import annotations

import re
from pathlib import Path

import spade.sandbox
from tests.sandbox.test_hostile import HOSTILE

CLASSES = ("forged verdicts", "subverted comparison", "peeking", "exhaustion", "escape and side effects",
           "measurement tampering", "reward hacking", "residue across jobs", "memory outside the limits",
           "host-side exhaustion")
HERE = Path(__file__).parent


def test_the_header_names_every_threat_class_with_tests_that_exist():
    doc = spade.sandbox.__doc__
    covered = doc.split("Covered, by the threat-model classes", 1)[1].split("Not covered:", 1)[0]
    for name in CLASSES:
        assert f"\n- {name}:" in covered, name
    # "file.py::test" names a file; a bare "::test" continues the last file named.
    current, named = None, 0
    for file, test in re.findall(r"(test_\w+\.py)?::(test_\w+)", covered):
        current = file or current
        assert f"def {test}(" in (HERE / current).read_text(), f"{current}::{test}"
        named += 1
    assert named >= len(CLASSES)
    for group in re.findall(r"never_passes\[([^\]]*)\]", covered):
        for case in re.split(r",\s*", group):
            assert any(re.fullmatch(case.replace("*", ".*"), name) for name in HOSTILE), case
