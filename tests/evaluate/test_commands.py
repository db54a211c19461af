"""`spade eval`: pass@k tables from graded samples or from the real model, reports saved next to a run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spade.config import SamplingConfig, SpadeConfig
from spade.errors import ConfigError
from spade.evaluate.commands import check_ks, eval_command, resolve_checkpoint

CFG = SpadeConfig(sampling=SamplingConfig(threads=1, dtype="float32", max_new_tokens=96))
RIGHT = "def sum_evens(nums):\n    return sum(n for n in nums if n % 2 == 0)\n"
WRONG = "def sum_evens(nums):\n    return sum(nums)\n"


def _samples(path: Path, rows: list[tuple[str, str]]) -> Path:
    path.write_text("".join(json.dumps({"task_id": t, "completion": c}) + "\n" for t, c in rows))
    return path


def test_graded_samples_print_pass_at_k_overall_and_per_tag(tmp_path: Path, capsys) -> None:
    samples = _samples(tmp_path / "s.jsonl", [("builtin/sum_evens", RIGHT), ("builtin/sum_evens", WRONG)])
    assert eval_command("builtin", None, [1, 2], samples, None, None, CFG, run_dir=tmp_path / "run") == 0
    out = capsys.readouterr().out
    assert "pass@1" in out and "pass@2" in out
    assert "0.500" in out and "1.000" in out
    report = json.loads((tmp_path / "run" / "evals" / "builtin-samples-s.json").read_text())
    assert report["pass_at_k"] == {"1": 0.5, "2": 1.0}
    assert report["per_tag"]["math"] == {"1": 0.5, "2": 1.0}
    assert report["per_task"] == [{"task_id": "builtin/sum_evens", "n": 2, "c": 1}]


def test_an_eval_saved_into_a_run_directory_is_recorded_in_its_database(tmp_path: Path) -> None:
    from spade.store import RunStore

    run_dir = tmp_path / "run"
    RunStore(run_dir, create=True).close()
    samples = _samples(tmp_path / "s.jsonl", [("builtin/sum_evens", RIGHT), ("builtin/sum_evens", WRONG)])
    for _ in range(2):  # the same evaluation again replaces its row
        assert eval_command("builtin", None, [1, 2], samples, None, None, CFG, run_dir=run_dir) == 0
    with RunStore(run_dir) as store:
        rows = store.query("SELECT iteration, suite, json FROM evals")
    assert [(it, suite) for it, suite, _ in rows] == [(0, "builtin@samples-s")]
    assert json.loads(rows[0][2])["pass_at_k"] == {"1": 0.5, "2": 1.0}


def test_k_above_the_samples_per_task_is_a_config_error(tmp_path: Path) -> None:
    samples = _samples(tmp_path / "s.jsonl", [("builtin/sum_evens", RIGHT)] * 2)
    with pytest.raises(ConfigError, match="--k 8 exceeds the 2 completion"):
        eval_command("builtin", None, [1, 8], samples, None, None, CFG)


@pytest.mark.parametrize("ks, n, message", [
    ([1, 8], 4, "--k 8 exceeds --n 4"),
    ([0], None, "--k value 0 is invalid"),
    ([], None, "--k is empty"),
    ([1], 0, "--n 0 is invalid"),
])
def test_impossible_ks_are_refused_in_one_line(ks, n, message) -> None:
    with pytest.raises(ConfigError, match=message):
        check_ks(ks, n)


def test_samples_and_sampling_options_together_are_refused(tmp_path: Path) -> None:
    samples = _samples(tmp_path / "s.jsonl", [("builtin/sum_evens", RIGHT)])
    with pytest.raises(ConfigError, match="drop --checkpoint"):
        eval_command("builtin", tmp_path, [1], samples, 4, None, CFG)


def test_a_checkpoint_root_resolves_to_its_best_checkpoint(tmp_path: Path) -> None:
    from spade.train.checkpoint import mark_best

    for name in ("ckpt-00000001", "ckpt-00000002"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "state.json").write_text("{}")
    assert resolve_checkpoint(tmp_path) == tmp_path / "ckpt-00000002"  # latest when none is marked
    mark_best(tmp_path, "ckpt-00000001")
    assert resolve_checkpoint(tmp_path) == tmp_path / "ckpt-00000001"
    with pytest.raises(ConfigError, match="holds no checkpoint"):
        resolve_checkpoint(_empty(tmp_path))


def _empty(root: Path) -> Path:
    (root / "empty").mkdir()
    return root / "empty"


@pytest.mark.slow
def test_the_base_model_is_sampled_greedily_on_a_limited_suite(tmp_path: Path, capsys) -> None:
    assert eval_command("builtin", None, [1], None, None, None, CFG, limit=2, run_dir=tmp_path) == 0
    report = json.loads((tmp_path / "evals" / "builtin-base.json").read_text())
    assert report["n_tasks"] == 2 and report["samples"] == 1
    assert [t["task_id"] for t in report["per_task"]] == ["builtin/sum_evens", "builtin/reverse_words"]
    assert "builtin · base" in capsys.readouterr().out


def test_a_second_checkpoint_evaluated_into_a_run_prints_the_paired_ci_of_the_difference(tmp_path: Path,
                                                                                         capsys) -> None:
    ids = ["builtin/sum_evens", "builtin/is_even"]
    right_even = "def is_even(n):\n    return n % 2 == 0\n"
    wrong_even = "def is_even(n):\n    return True\n"
    old = _samples(tmp_path / "old.jsonl", [(ids[0], WRONG), (ids[1], wrong_even)])
    new = _samples(tmp_path / "new.jsonl", [(ids[0], RIGHT), (ids[1], right_even)])
    run_dir = tmp_path / "run"
    assert eval_command("builtin", None, [1], old, None, None, CFG, run_dir=run_dir) == 0
    assert "CI" not in capsys.readouterr().out  # nothing to compare with yet
    assert eval_command("builtin", None, [1], new, None, None, CFG, run_dir=run_dir) == 0
    out = capsys.readouterr().out
    assert "samples-new - samples-old on builtin: +1.000 (95% CI +1.000 to +1.000, 2 tasks)" in out


def test_the_held_out_suite_evaluated_for_a_run_leaves_out_the_runs_own_tasks(tmp_path: Path, capsys) -> None:
    from spade.evaluate.commands import drop_run_tasks
    from spade.evaluate.suites import load_suite
    from spade.store import IterationTask, IterationWrite, RunStore

    tasks = load_suite("builtin")[:6]  # stand-ins: any tasks behave alike; the held-out suite is built elsewhere
    run_dir = tmp_path / "run"
    with RunStore(run_dir, create=True) as store:
        w = IterationWrite(iteration=0)
        w.tasks.append(IterationTask(tasks[2], "generated"))
        store.commit_iteration(w)
    kept = drop_run_tasks("heldout", tasks, run_dir, 0.85)
    assert [t.task_id for t in kept] == [t.task_id for i, t in enumerate(tasks) if i != 2]
    assert "left out 1 of 6 tasks" in capsys.readouterr().out
    assert drop_run_tasks("builtin", tasks, run_dir, 0.85) == tasks  # a foreign suite is reserved, not filtered
