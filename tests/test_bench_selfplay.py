"""bench/selfplay.py: the selfplay arm is the coevolve arm with self-play's keys; the proposer's first and last
thirds are compared from the run's proposals table with a bootstrap CI."""

import argparse
import re
import sys
from pathlib import Path

from spade.store import IterationWrite, ProposalRecord, RunStore
from tests.bench_scripts import bench_script

ROOT = Path(__file__).resolve().parents[1]


def _bench():
    return bench_script("selfplay")


def args(**kw):
    base = dict(sets={}, threads=1, seed=0, fixed_difficulty=None, suites="heldout-unseen,humaneval,heldout",
                selfplay_config=ROOT / "configs" / "selfplay.yaml")
    return argparse.Namespace(**{**base, **kw})


def test_the_selfplay_arm_is_coevolution_with_selfplay_keys():
    bench = _bench()
    cfg = bench.selfplay_config(ROOT / "configs" / "efficacy.yaml", args())
    plain = bench.arm_config(ROOT / "configs" / "efficacy.yaml", "coevolve", args())
    assert cfg.selfplay.enabled and not plain.selfplay.enabled
    assert cfg.generation.kinds.get("code_reasoning", 0) > 0
    assert cfg.evolution == plain.evolution and cfg.training == plain.training and cfg.eval.every == 0


def test_set_keys_reach_the_selfplay_arm_over_its_recipe():
    """--set selfplay.* applies to the self-play arm; the recipe file's selfplay section was copied over the arm's
    config whole, so a --set proposer share was silently the recipe's 0.5."""
    bench = _bench()
    sets = {"selfplay.proposer_share": 0.25, "selfplay.max_share": 0.25, "selfplay.overflow": False,
            "training.family_share": 0.5}
    cfg = bench.selfplay_config(ROOT / "configs" / "efficacy.yaml", args(sets=sets))
    assert (cfg.selfplay.proposer_share, cfg.selfplay.max_share, cfg.selfplay.overflow) == (0.25, 0.25, False)
    assert cfg.training.family_share == 0.5 and cfg.selfplay.enabled
    assert cfg.generation.kinds.get("code_reasoning", 0) > 0


def test_proposer_learning_compares_the_last_third_with_the_first(tmp_path):
    bench = _bench()
    with RunStore(tmp_path, create=True) as store:
        for i in range(6):
            valid = i >= 4  # invalid early, valid late; of the late ones only the first of each iteration is new
            repeat = ("ok", "duplicate_exact", "duplicate_example", "duplicate_near")
            store.commit_iteration(IterationWrite(i, proposals=[ProposalRecord(
                f"p{i}-{k}", i, None, "m", "deduction", f"t{i}" if valid and k == 0 else None, valid,
                repeat[k] if valid else "no_inputs", 0.0, None, 0.0,
                0.0 if valid else -0.5, "{}", "") for k in range(4)]))
    found = bench.proposer_learning(tmp_path)
    assert found["validity"]["first_third"] == 0.0 and found["validity"]["last_third"] == 1.0
    assert found["validity"]["ci95"] == [1.0, 1.0] and found["validity"]["n"] == [8, 8]
    # Copies are valid, not admitted: the admitted share rises by a quarter only.
    assert found["admitted"]["first_third"] == 0.0 and found["admitted"]["last_third"] == 0.25
    assert found["copies"]["first_third"] == 0.0 and found["copies"]["last_third"] == 0.25
    point, low, high = bench.bootstrap_diff([0.0, 1.0] * 10, [1.0] * 20)
    assert point == 0.5 and 0 < low <= point <= high <= 1.0


def _proposals(run_dir, iterations, per_iteration, valid_from):
    """A self-play arm's store: per_iteration proposals each iteration, valid (and admitted) from valid_from on."""
    with RunStore(run_dir, create=True) as store:
        for i in range(iterations):
            valid = i >= valid_from
            store.commit_iteration(IterationWrite(i, proposals=[ProposalRecord(
                f"p{i}-{k}", i, None, "m", "induction", f"t{i}-{k}" if valid else None, valid,
                "ok" if valid else "no_inputs", 0.0, None, 0.5 if valid else 0.0, 0.5 if valid else -0.5, "{}", "")
                for k in range(per_iteration)]))


def test_merge_pools_a_recipes_seeds_first_and_last_thirds(tmp_path):
    """Two seeds of one recipe pool their thirds (each by its own iterations); a recipe with one seed is left out."""
    import json

    bench = _bench()
    for d, name, iterations, per, valid_from in (("a", "selfplay", 3, 2, 2), ("b", "selfplay-s1", 6, 1, 4),
                                                 ("c", "selfplay+x", 3, 1, 0)):
        _proposals(tmp_path / d / re.split(r"[+-]", name)[0], iterations, per, valid_from)
        (tmp_path / d / "efficacy.json").write_text(json.dumps({"minutes": 45.0, "arms": {name: {}}}))
    pooled = bench.pooled_proposer_learning([tmp_path / d for d in "abc"], ["selfplay", "selfplay-s1", "selfplay+x"])
    assert list(pooled) == ["selfplay (2 seeds)"]
    row = pooled["selfplay (2 seeds)"]
    assert row["validity"]["n"] == [2 + 2, 2 + 2]  # seed 0: iteration 0 and 2; seed 1: iterations 0-1 and 4-5
    assert row["validity"]["first_third"] == 0.0 and row["validity"]["last_third"] == 1.0
    assert row["learnability"]["n"] == [0, 4] and row["learnability"]["last_third"] == 0.5


def test_bench_proposals_judges_a_runs_stored_proposals_again(tmp_path):
    """bench/proposals.py re-judges the proposals a run stored, in the real sandbox: a proposal refused then for a
    call f cannot take (the whole draft was refused as arity_mismatch) is valid now; one that is not a program
    stays refused; with --complete-inputs one without calls is valid too (the environment added its inputs)."""
    import subprocess

    from spade.kinds.code_reasoning.proposer_role import proposer_task
    from spade.selfplay.prompts import prompt_json

    prompt = prompt_json(proposer_task("proposer-0-0", 0.3, [], "deduction"))
    rows = [("xs):\n    return sum(xs) * 2\n\nprint(f([1, 2]))\nprint(f([3], 4))\nprint(f([5]))\n```", False,
             "arity_mismatch"),
            ("this is not code", False, "no_function"),
            ("s):\n    return s.upper() + s[::-1]\n```", False, "no_inputs")]
    with RunStore(tmp_path, create=True) as store:
        store.commit_iteration(IterationWrite(0, proposals=[ProposalRecord(
            f"p0-{k}", 0, None, "m", "deduction", None, valid, reason, 0.0, None, 0.0, -0.5, prompt, text)
            for k, (text, valid, reason) in enumerate(rows)]))
    for flags, valid_now in (([], "0.33 (1) | 0.33 (1)"), (["--complete-inputs"], "0.67 (2) | 0.67 (2)")):
        done = subprocess.run([sys.executable, str(ROOT / "bench" / "proposals.py"), str(tmp_path), *flags],
                              capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert done.returncode == 0, done.stderr[-2000:]
        lines = done.stdout.splitlines()
        assert f"all | 3 | 0.00 (0) | {valid_now}" in lines, done.stdout
        assert any(line.startswith("reasons now:") and "no_function 1" in line for line in lines)


def test_the_static_arm_trains_self_plays_kinds_on_one_set_drawn_before_training(tmp_path):
    """The static arm: self-play's kinds, one set of validated tasks drawn by the arm's own supply (withheld
    families out, screened) before training, self-play off; the set is written beside the arm's run directory."""
    bench = _bench()
    live = bench.selfplay_config(ROOT / "configs" / "efficacy.yaml", args(sets={"executor.workers": 2}))
    cfg = bench.efficacy.static_config(live, tmp_path / "static", 12)
    assert not cfg.selfplay.enabled and cfg.generation.kinds == live.generation.kinds
    assert cfg.training == live.training and cfg.generation.withhold_families == live.generation.withhold_families
    from spade.generate.registry import get_family
    from spade.taskio import load_tasks

    tasks = load_tasks(cfg.generation.fixed_tasks)
    assert len(tasks) == 12 and len({t.task_id for t in tasks}) == 12
    assert all(t.all_tests and t.reference_solution for t in tasks)  # validated: expected values from execution
    withheld = set(live.generation.withhold_families)
    for t in tasks:
        assert t.family not in withheld and (t.params.get("source") or "") not in withheld
        assert get_family(t.family).kind in live.generation.kinds
