"""A held-out suite per task kind, for free from the kind's registered families: 'heldout-program' is built from
the program families, validated by the program kind, split into dev and test; `spade eval` grades it by name."""

from __future__ import annotations

import json
from typing import Any

from spade.evaluate import heldout
from spade.evaluate.suites import in_distribution, suite_names
from spade.generate.procedural import HELDOUT_SEED
from spade.records import PYTHON_FUNCTION


def test_each_kind_with_families_has_a_suite_and_the_python_suite_keeps_to_python_families():
    assert {"heldout-program", "heldout-program-dev"} <= set(suite_names())
    assert in_distribution("heldout-program") and in_distribution("heldout-program-dev")
    python = heldout.kind_families(PYTHON_FUNCTION)
    assert len(python) >= 20 and not any(f.startswith("program_") for f in python)
    assert sorted(heldout.kind_families("program")) == [f"program_{n}" for n in
                                                        ("commands", "grid", "numbers", "records", "words")]
    assert heldout.cache_path("program") != heldout.cache_path() and "heldout-program-" in heldout.cache_path("program").name


def test_a_kinds_suite_is_validated_by_its_kind_and_split(pool: Any):
    tasks = heldout.build(pool, draws=3, kind="program")
    assert len(tasks) >= 8
    assert {t.kind for t in tasks} == {"program"} and len({t.family for t in tasks}) == 5
    assert all(t.task_id.startswith("heldout/") and t.provenance["seed"] == HELDOUT_SEED for t in tasks)
    assert all(isinstance(c.expected, str) for t in tasks for c in t.all_tests)
    assert {t.provenance["split"] for t in tasks} <= set(heldout.SPLITS)


def test_spade_eval_grades_samples_on_the_program_suite_by_name(tmp_path, monkeypatch, capsys):
    from spade.cli import main
    from spade.evaluate.suites import load_suite

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(heldout, "KIND_DRAFTS_PER_FAMILY", 3)
    tasks = load_suite("heldout-program")
    assert tasks and heldout.cache_path("program").is_file()
    dev = load_suite("heldout-program-dev")  # from the same cache
    assert {t.provenance["split"] for t in tasks} == {"test"} and {t.provenance["split"] for t in dev} == {"dev"}
    samples = tmp_path / "samples.jsonl"
    lines = [{"task_id": t.task_id, "completion": f"```python\n{t.reference_solution}```"} for t in tasks[:2]]
    lines.append({"task_id": tasks[2].task_id, "completion": "print('no')"})
    samples.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main(["eval", "--suite", "heldout-program", "--samples", str(samples)]) == 0
    out = capsys.readouterr().out
    assert "heldout-program" in out and "0.667" in out
