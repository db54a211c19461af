"""bench/efficacy.py: an arm is charged the CPU of its live sandbox workers, not only of the children it reaped;
--reeval grades recorded arms again on changed suites."""

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.bench_scripts import bench_script

ROOT = Path(__file__).resolve().parents[1]


def _efficacy():
    return bench_script("efficacy")


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


def _recorded(tmp_path: Path, arms: dict) -> Path:
    source = tmp_path / "earlier"
    source.mkdir()
    (source / "efficacy.json").write_text(json.dumps({"minutes": 45.0, "fixed_difficulty": 0.3, "arms": arms}))
    return source


def _reeval(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "bench" / "efficacy.py"), "--reeval", *args],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)


@pytest.mark.slow  # grades with the real model in a subprocess: ~20 s
def test_reeval_grades_a_recorded_arm_again_on_the_named_suites_and_keeps_the_rest(tmp_path):
    old = {"pass@1": 0.5, "tasks": 9, "eval_s": 1.0, "per_task": {"stale": 0.5}}
    kept = {"pass@1": 0.25, "tasks": 4, "eval_s": 1.0, "per_task": {"humaneval/x": 0.25}}
    source = _recorded(tmp_path, {"none": {"rollouts": 0, "updates": 0, "iterations": 0, "sets": [],
                                           "eval": {"builtin": old, "humaneval": kept}}})
    done = _reeval(str(source), "--suites", "builtin", "--eval-limit", "2", "--threads", "1",
                   "--out", str(tmp_path / "again"))
    assert done.returncode == 0, done.stderr[-2000:]
    row = json.loads((tmp_path / "again" / "efficacy.json").read_text())["arms"]["none"]
    assert row["eval"]["builtin"]["tasks"] == 2 and "stale" not in row["eval"]["builtin"]["per_task"]
    assert row["eval"]["humaneval"] == kept and row["regraded"] == ["builtin"]


def test_reeval_names_the_arm_whose_checkpoints_are_missing(tmp_path):
    source = _recorded(tmp_path, {"coevolve+dpo": {"rollouts": 1, "updates": 1, "iterations": 1,
                                                   "sets": ["training.update_method=dpo"], "eval": {}}})
    done = _reeval(str(source), "--suites", "builtin", "--out", str(tmp_path / "again"))
    assert done.returncode != 0 and "'coevolve+dpo' has no checkpoints under" in done.stderr
    assert "Traceback" not in done.stderr
    assert _reeval(str(tmp_path / "nowhere"), "--out", str(tmp_path / "x")).stderr.strip().endswith(
        "give the --out directory of an efficacy run")


def test_reeval_finds_a_seed_labelled_arm_in_the_plain_arms_directory(tmp_path):
    """--label=-s1 names the arm 'fixed-s1'; its run directory is 'fixed', as the run wrote it."""
    row = {"rollouts": 1, "updates": 1, "iterations": 1, "sets": [], "eval": {}}
    source = _recorded(tmp_path, {"fixed-s1": dict(row)})
    (source / "fixed" / "checkpoints" / "ckpt-00000003").mkdir(parents=True)
    done = _reeval(str(source), "--only", "fixed-s1", "--checkpoint", "ckpt-00000002", "--out", str(tmp_path / "a"))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert done.stderr.strip().endswith("it holds ckpt-00000003")  # found fixed/, then the missing checkpoint


def test_reeval_of_one_checkpoint_names_one_arm_and_a_kept_checkpoint(tmp_path):
    row = {"rollouts": 1, "updates": 1, "iterations": 1, "sets": [], "eval": {}}
    source = _recorded(tmp_path, {"none": dict(row), "coevolve": dict(row)})
    (source / "coevolve" / "checkpoints" / "ckpt-00000003").mkdir(parents=True)
    both = _reeval(str(source), "--checkpoint", "ckpt-00000002", "--out", str(tmp_path / "a"))
    assert both.returncode != 0 and "name one trained arm with --only (of coevolve)" in both.stderr
    missing = _reeval(str(source), "--only", "coevolve", "--checkpoint", "ckpt-00000002", "--out",
                      str(tmp_path / "b"))
    assert missing.returncode != 0 and "Traceback" not in missing.stderr
    assert missing.stderr.strip().endswith("it holds ckpt-00000003")


def test_differences_on_the_held_out_suite_are_also_printed_for_its_plain_and_composed_parts(capsys):
    base = {"heldout/a-1": 0.0, "heldout/a-1~v9": 0.0, "heldout/b-2": 1.0, "heldout/b-2~v8": 0.0}
    trained = {"heldout/a-1": 1.0, "heldout/a-1~v9": 0.0, "heldout/b-2": 1.0, "heldout/b-2~v8": 0.0}
    arms = {name: {"eval": {"heldout": {"per_task": scores}}} for name, scores in (("none", base), ("fixed", trained))}
    _efficacy().print_differences({"arms": arms}, ["heldout"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("fixed - none on heldout: +0.250") and "4 tasks" in lines[0]
    assert lines[1].startswith("  heldout plain only: +0.500") and "2 tasks" in lines[1]
    assert lines[2].startswith("  heldout composed only: +0.000") and "2 tasks" in lines[2]


@pytest.mark.slow  # grades with the real model in a subprocess: ~20 s
def test_sampled_pass_at_1_is_reported_beside_greedy_for_the_chosen_arms_only(tmp_path):
    greedy = {"pass@1": 0.5, "tasks": 2, "eval_s": 1.0, "per_task": {"builtin/x": 0.5}}
    source = _recorded(tmp_path, {
        "none": {"rollouts": 0, "updates": 0, "iterations": 0, "sets": [], "eval": {"builtin": greedy}},
        "coevolve+t1kl": {"rollouts": 1, "updates": 1, "iterations": 1, "sets": [], "eval": {"builtin": greedy}}})
    done = _reeval(str(source), "--only", "none", "--suites", "builtin", "--eval-limit", "2", "--eval-samples", "2",
                   "--eval-temperature", "1", "--threads", "1", "--out", str(tmp_path / "again"))
    assert done.returncode == 0, done.stderr[-2000:]  # coevolve+t1kl has no checkpoints: not graded
    arms = json.loads((tmp_path / "again" / "efficacy.json").read_text())["arms"]
    assert list(arms) == ["none"] and arms["none"]["regraded"] == ["builtin@2xT1"]
    sampled = arms["none"]["eval"]["builtin@2xT1"]
    assert sampled["tasks"] == 2 and set(sampled["per_task"].values()) <= {0.0, 0.5, 1.0}
    assert arms["none"]["eval"]["builtin"] == greedy


def test_an_arm_graded_with_its_adapter_scaled_is_named_beside_the_arm_as_trained(tmp_path):
    eff = _efficacy()
    assert eff.variant_name("selfplay+ind-k3L-s2", "a0.5") == "selfplay+ind-k3L+a0.5-s2"
    assert eff.variant_name("coevolve", "a0.25") == "coevolve+a0.25"
    assert eff.variant_name("coevolve-s1", "avg3") == "coevolve+avg3-s1"
    assert eff.recipe_seeds(["coevolve+a0.5-s1", "coevolve-s1"], "coevolve+a0.5") == {1: "coevolve+a0.5-s1"}
    source = _recorded(tmp_path, {"none": {"rollouts": 0, "updates": 0, "iterations": 0, "sets": [], "eval": {}}})
    outside = _reeval(str(source), "--adapter-scale", "1.5", "--out", str(tmp_path / "x"))
    assert outside.returncode != 0 and "give a scale in 0..1" in outside.stderr and "Traceback" not in outside.stderr
    training = subprocess.run([sys.executable, str(ROOT / "bench" / "efficacy.py"), "--adapter-scale", "0.5"],
                              capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert training.returncode != 0 and "with --reeval DIR" in training.stderr
    both = _reeval(str(source), "--average-last", "2", "--adapter-scale", "0.5", "--out", str(tmp_path / "y"))
    assert both.returncode != 0 and "without --checkpoint or --adapter-scale" in both.stderr
    trained = tmp_path / "trained"
    (trained / "coevolve" / "checkpoints" / "ckpt-00000001").mkdir(parents=True)
    (trained / "efficacy.json").write_text(json.dumps({"minutes": 45.0, "arms": {"coevolve-s1": {"sets": [],
                                                                                                 "eval": {}}}}))
    too_many = _reeval(str(trained), "--average-last", "2", "--out", str(tmp_path / "z"))
    assert too_many.returncode != 0 and "keeps 1 checkpoints; give K <= 1" in too_many.stderr
    assert "Traceback" not in both.stderr + too_many.stderr


def test_eval_sampling_flags_and_unknown_arms_are_refused_with_the_fix(tmp_path):
    source = _recorded(tmp_path, {"none": {"rollouts": 0, "updates": 0, "iterations": 0, "sets": [], "eval": {}}})
    many_greedy = _reeval(str(source), "--eval-samples", "4", "--out", str(tmp_path / "x"))
    assert many_greedy.returncode != 0 and "a temperature above 0 with more than one sample" in many_greedy.stderr
    unknown = _reeval(str(source), "--only", "fixed", "--out", str(tmp_path / "x"))
    assert unknown.returncode != 0 and "has no arm 'fixed'; it has none" in unknown.stderr
    assert "Traceback" not in many_greedy.stderr + unknown.stderr


@pytest.mark.slow  # grades with the real model in a subprocess: ~20 s
def test_suites_graded_before_an_evaluation_stops_are_kept(tmp_path):
    """efficacy.json is written after each suite: here the second suite's file is broken, the run stops there, and
    the first suite's figures are on disk."""
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n")
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "efficacy.py"), "--arms", "none", "--suites",
                           f"builtin,{broken}", "--eval-limit", "2", "--threads", "1", "--out", str(out)],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode != 0
    row = json.loads((out / "efficacy.json").read_text())["arms"]["none"]
    assert list(row["eval"]) == ["builtin"] and row["eval"]["builtin"]["tasks"] == 2


def test_a_recipe_run_from_several_seeds_is_also_compared_on_its_per_task_means(capsys):
    """Arms 'coevolve', 'coevolve-s1' are one recipe: after each arm's own line, one line for the group, its tasks
    averaged over the seeds (a task one seed solves and the other does not counts a half)."""
    per_task = {"none": {"builtin/a": 0.0, "builtin/b": 0.0, "builtin/c": 1.0},
                "coevolve": {"builtin/a": 1.0, "builtin/b": 0.0, "builtin/c": 1.0},
                "coevolve-s1": {"builtin/a": 1.0, "builtin/b": 1.0, "builtin/c": 1.0},
                "fixed": {"builtin/a": 0.0, "builtin/b": 0.0, "builtin/c": 1.0}}
    arms = {name: {"eval": {"builtin": {"per_task": scores}}} for name, scores in per_task.items()}
    _efficacy().print_differences({"arms": arms}, ["builtin"])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" on ")[0] for line in lines] == [
        "coevolve - none", "coevolve-s1 - none", "fixed - none", "coevolve - fixed",
        "coevolve (2 seeds) - none (1)", "coevolve (2 seeds) - fixed (1)"]
    assert lines[4].startswith("coevolve (2 seeds) - none (1) on builtin: +0.500") and "3 tasks" in lines[4]


def _iterations_within(budget_s: float, costs: list[float], stop) -> tuple[int, float]:
    """Drive a stop rule as the loop does (asked before each iteration); (iterations run, CPU used)."""
    clock = stop.clock
    for i, _ in enumerate(costs):
        if stop():
            return i, clock() - stop.start
        clock.now += costs[i]
    return len(costs), clock() - stop.start


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_an_arm_stops_before_an_iteration_predicted_to_end_past_its_budget():
    efficacy = _efficacy()
    stop = efficacy.CpuBudget(45.0, clock=_Clock())
    ran, used = _iterations_within(45.0, [10.0] * 20, stop)
    assert (ran, used) == (4, 40.0)  # a fifth 10 s iteration would end at 50 s; asking "past 45 s?" ran it


def test_the_prediction_follows_the_last_iteration_and_the_first_always_runs():
    efficacy = _efficacy()
    stop = efficacy.CpuBudget(45.0, clock=_Clock())
    ran, used = _iterations_within(45.0, [60.0, 1.0], stop)
    assert (ran, used) == (1, 60.0)  # the first runs however long; nothing predicts it
    stop = efficacy.CpuBudget(45.0, clock=_Clock())
    ran, used = _iterations_within(45.0, [5.0, 5.0, 30.0, 5.0, 5.0], stop)
    assert (ran, used) == (3, 40.0)  # after the 30 s one, another 30 s is predicted: 40 + 30 > 45


def test_the_budget_logs_the_cpu_used_before_each_iteration(tmp_path):
    log = tmp_path / "cpu_budget.jsonl"
    stop = _efficacy().CpuBudget(45.0, clock=_Clock(), log=log)
    _iterations_within(45.0, [10.0, 20.0, 30.0], stop)
    assert [json.loads(line) for line in log.read_text().splitlines()] == [
        {"iteration": 0, "cpu_s": 0.0}, {"iteration": 1, "cpu_s": 10.0}, {"iteration": 2, "cpu_s": 30.0}]


def test_seeds_0_to_3_withhold_every_family_once_and_the_arms_config_records_its_quarter():
    import argparse

    from spade.config import load_config
    from spade.generate.registry import resolve_families

    efficacy = _efficacy()
    base = load_config(ROOT / "configs" / "efficacy.yaml")
    quarters = [efficacy.withheld_quarter(base, seed) for seed in range(4)]
    every = sorted(f.name for f in resolve_families(base.generation.families, base.generation.kinds))
    assert sorted(name for q in quarters for name in q) == every  # a partition: each family in one quarter
    assert all(len(every) // 4 <= len(q) <= len(every) // 4 + 1 for q in quarters)
    assert efficacy.withheld_quarter(base, 5) == quarters[1]
    args = argparse.Namespace(sets={}, threads=1, seed=2, suites="heldout-unseen,humaneval,builtin",
                              fixed_difficulty=None)
    cfg = efficacy.arm_config(ROOT / "configs" / "efficacy.yaml", "coevolve", args)
    assert cfg.generation.withhold_families == quarters[2]
    assert cfg.eval.contamination_suites == ["heldout-unseen", "humaneval", "builtin"]


def test_a_lever_arm_is_compared_with_its_plain_arm_of_the_same_seed():
    pairs = _efficacy().comparisons(["none", "coevolve", "coevolve-s1", "fixed", "coevolve+lora15-s0",
                                     "coevolve+kinds-s1", "coevolve+zone", "fixed+x-s2"])
    assert ("coevolve+lora15-s0", "coevolve") in pairs and ("coevolve+kinds-s1", "coevolve-s1") in pairs
    assert ("coevolve+zone", "coevolve") in pairs and ("coevolve", "fixed") in pairs
    assert not [p for p in pairs if p[0] == "fixed+x-s2" and p[1] != "none"]  # its plain arm was not run


def _part(tmp_path: Path, name: str, minutes: float, arms: dict[str, dict[str, float]]) -> Path:
    d = tmp_path / name
    d.mkdir()
    rows = {arm: {"eval": {"humaneval": {"per_task": scores}}} for arm, scores in arms.items()}
    (d / "efficacy.json").write_text(json.dumps({"minutes": minutes, "arms": rows}))
    return d


def test_the_budget_curve_compares_each_budget_with_the_base_and_the_one_before(tmp_path, capsys):
    none = {"he/1": 0.0, "he/2": 0.0, "he/3": 0.0, "he/4": 1.0}
    long = _part(tmp_path, "x135", 135, {"coevolve+x3": {"he/1": 1.0, "he/2": 1.0, "he/3": 0.0, "he/4": 1.0}})
    short = _part(tmp_path, "x45", 45, {"coevolve": {"he/1": 1.0, "he/2": 0.0, "he/3": 0.0, "he/4": 1.0}})
    base = _part(tmp_path, "base", 45, {"none": none})
    _efficacy().budget_curve([long, base, short], ["humaneval", "heldout"])  # any order; heldout: nobody graded
    lines = [line.split(":")[0] for line in capsys.readouterr().out.splitlines()]
    assert lines == ["coevolve at 45 min - none on humaneval", "coevolve+x3 at 135 min - none on humaneval",
                     "135 min - 45 min on humaneval"]
    two = _part(tmp_path, "two", 90, {"fixed": none, "coevolve": none})
    with pytest.raises(SystemExit, match="2 trained arms"):
        _efficacy().budget_curve([base, short, two], ["humaneval"])
    with pytest.raises(SystemExit, match="no directory holds the base"):
        _efficacy().budget_curve([long], ["humaneval"])
    with pytest.raises(SystemExit, match="does not exist; give the --out directory"):
        _efficacy().budget_curve([base, tmp_path / "nowhere"], ["humaneval"])


def test_checkpoints_of_one_budget_are_averaged_task_by_task(tmp_path, capsys):
    base = _part(tmp_path, "base", 45, {"none": {"he/1": 0.0, "he/2": 0.0, "he/3": 0.0, "he/4": 0.0}})
    first = _part(tmp_path, "c1", 45, {"selfplay": {"he/1": 1.0, "he/2": 0.0, "he/3": 0.0, "he/4": 0.0}})
    second = _part(tmp_path, "c2", 45, {"selfplay": {"he/1": 1.0, "he/2": 1.0, "he/3": 0.0, "he/4": 0.0}})
    third = _part(tmp_path, "c3", 45, {"selfplay": {"he/1": 0.0, "he/2": 1.0, "he/3": 0.0, "he/4": 1.0}})
    _efficacy().budget_curve([base, first, second, third], ["humaneval"])
    out = capsys.readouterr().out
    # (2/3 + 2/3 + 0 + 1/3) / 4 tasks: one checkpoint's swing moves the point a third as much
    assert "selfplay (mean of 3 checkpoints) at 45 min - none on humaneval: +0.417" in out
    other = _part(tmp_path, "other", 45, {"fixed": {"he/1": 1.0, "he/2": 1.0, "he/3": 1.0, "he/4": 1.0}})
    with pytest.raises(SystemExit, match="45 minutes holds arms fixed, selfplay"):
        _efficacy().budget_curve([base, first, other], ["humaneval"])


def test_two_recipes_are_compared_on_the_seeds_both_ran_with_their_pooled_rollouts_per_cpu_minute(capsys):
    """--compare NEW=OLD: seed 0 named with or without -s0; a seed only one recipe ran (s2) is left out."""
    def arm(scores: list[float], rollouts: int, cpu_s: float) -> dict:
        return {"rollouts": rollouts, "train_cpu_s": cpu_s, "train_pass_rate": 0.1 if rollouts == 100 else 0.05,
                "eval": {"humaneval": {"per_task": {f"he/{i}": s for i, s in enumerate(scores)}}}}

    arms = {"coevolve+a": arm([0, 0, 1, 1], 100, 600), "coevolve+a-s1": arm([0, 0, 1, 1], 100, 600),
            "coevolve+b-s0": arm([1, 1, 1, 1], 300, 600), "coevolve+b-s1": arm([1, 0, 1, 1], 300, 600),
            "coevolve+b-s2": arm([1, 1, 1, 1], 900, 60)}
    _efficacy().compare_recipes({"arms": arms}, "coevolve+b", "coevolve+a", ["humaneval", "builtin"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("coevolve+b - coevolve+a (seeds 0,1) on humaneval: +0.375") and "4 tasks" in lines[0]
    assert lines[1].endswith(": rollouts per CPU-minute 30.0 against 10.0 (3.00x)")
    assert lines[2].endswith(": passing rollouts per CPU-minute 1.5 against 1.0 (1.50x)") and len(lines) == 3
    with pytest.raises(SystemExit, match="no seed has both"):
        _efficacy().compare_recipes({"arms": arms}, "coevolve+b", "coevolve", ["humaneval"])


def test_an_arm_whose_row_lacks_its_withheld_families_reads_them_from_its_run_config(tmp_path):
    run = tmp_path / "selfplay"
    run.mkdir()
    assert _efficacy().run_withheld(run) is None
    (run / "config.yaml").write_text("generation:\n  withhold_families:\n  - sorting\n  - gcd_lcm\n")
    assert _efficacy().run_withheld(run) == ["sorting", "gcd_lcm"]


def test_an_arms_diet_counts_its_passing_rollouts_by_family_and_its_own_proposals(tmp_path, capsys):
    """The diet of an arm (what its passing rollouts answered) is read from its store; --merge reads it for rows
    written before arms recorded it, from the arm's run directory (out/<arm without label and seed>)."""
    from spade.records import Task, TestCase
    from spade.store import IterationTask, IterationWrite, ProposalRecord, RunStore
    from tests.train.test_buffer import A1, WRONG, _rollout

    bench = _efficacy()

    def task(tid, family):
        return Task(tid, "d", "def f(x):", "f", 0.3, test_cases=(TestCase((1,), 2),), family=family)

    run = tmp_path / "part" / "selfplay"
    with RunStore(run, create=True) as store:
        w = IterationWrite(0, proposals=[ProposalRecord("p0", 0, None, "m", "induction", "sp", True, "ok", 0.5,
                                                        None, 0.5, 0.5, "{}", "")])
        w.tasks.extend(IterationTask(task(t, f), "generated") for t, f in (("sp", "selfplay_induction"),
                                                                          ("a", "sorting"), ("b", "digits")))
        w.rollouts.extend([_rollout("sp", 0, 0, A1, True), _rollout("sp", 0, 1, A1, True),
                           _rollout("sp", 0, 2, WRONG, False), _rollout("a", 0, 0, A1, True),
                           _rollout("b", 0, 0, WRONG, False)])
        store.commit_iteration(w)
        diet = bench.training_diet(store)
    assert diet == {"passing": 3, "top_family": "selfplay_induction", "top_family_share": 0.667,
                    "proposals_share": 0.667}
    row = {"rollouts": 5, "updates": 0, "iterations": 1, "train_cpu_s": 60.0, "eval": {"humaneval": {
        "pass@1": 0.0, "per_task": {"h0": 0.0}}}}
    (tmp_path / "part" / "efficacy.json").write_text(json.dumps({"minutes": 1.0, "arms": {"selfplay+x-s1": row}}))
    bench.merge([tmp_path / "part"], tmp_path / "merged")
    merged = json.loads((tmp_path / "merged" / "efficacy.json").read_text())
    assert merged["arms"]["selfplay+x-s1"]["diet"] == diet
    assert "selfplay+x-s1 trained on 3 passing rollouts: 67% of them selfplay_induction" in capsys.readouterr().out
