"""Each failure pattern (docs/method.md#failure-patterns) is diagnosed on a real run database built to show it; a
healthy run triggers none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spade.doctor import diagnose, doctor_command
from spade.errors import StoreError
from spade.store import RunStore
from spade.store.views import load_view
from tests.doctor.rundb import Shape, build_run


def codes(tmp_path: Path, shape: Shape) -> set[str]:
    with RunStore(build_run(tmp_path / "run", shape)) as store:
        return {d.code for d in diagnose(load_view(store)).diagnoses}


def test_a_healthy_run_triggers_no_diagnosis(tmp_path: Path) -> None:
    assert codes(tmp_path, Shape()) == set()


SICK = {
    "all_tasks_fail": Shape(pass_rate=lambda i: 0.5 if i < 4 else 0.0),
    "difficulty_flat": Shape(difficulty=lambda i, f: 0.2, pass_rate=lambda i: 0.1),
    "difficulty_oscillating": Shape(difficulty=lambda i, f: 0.4 if i % 2 else 0.45),
    "duplicate_tasks": Shape(rejections=lambda i: ["duplicate_near", "duplicate_exact"]),
    "many_timeouts": Shape(pass_rate=lambda i: 0.25, timeout_share=lambda i: 0.5),
    "reward_hacking": Shape(pass_rate=lambda i: 0.3 + 0.06 * i, eval_pass=lambda i: max(0.0, 0.5 - 0.04 * (i + 1))),
    "diversity_collapse": Shape(distinct=lambda i: 4 if i < 3 else 1),
    "generator_parse_failures": Shape(parse_failure=lambda i: 0.3),
    "reference_failures": Shape(rejections=lambda i: ["reference_raises", "reference_timeout"]),
}


@pytest.mark.parametrize("code", sorted(SICK))
def test_each_failure_pattern_is_diagnosed_on_a_run_that_shows_it(tmp_path: Path, code: str) -> None:
    found = codes(tmp_path, SICK[code])
    assert code in found


@pytest.mark.parametrize("code", sorted(SICK))
def test_each_sick_run_shows_only_its_own_pattern_or_its_direct_consequences(tmp_path: Path, code: str) -> None:
    # A run where every task fails also has a flat difficulty curve; otherwise the patterns are independent.
    consequences = {"all_tasks_fail": {"difficulty_flat"}}
    assert codes(tmp_path, SICK[code]) - {code} <= consequences.get(code, set())


def test_duplicates_that_slipped_past_dedup_are_reported(tmp_path: Path) -> None:
    assert "duplicate_tasks" in codes(tmp_path, Shape(duplicate_descriptions=True))


def test_a_diagnosis_carries_evidence_from_the_run_and_a_fix_naming_config_keys(tmp_path: Path) -> None:
    with RunStore(build_run(tmp_path / "run", SICK["many_timeouts"])) as store:
        (d,) = diagnose(load_view(store)).diagnoses
    assert "50%" in d.evidence
    assert "executor.timeout" in d.fix
    assert d.section == "docs/method.md#failure-patterns"


def test_a_short_run_is_not_judged_rather_than_declared_healthy(tmp_path: Path) -> None:
    with RunStore(build_run(tmp_path / "run", Shape(iterations=1))) as store:
        checkup = diagnose(load_view(store))
    assert checkup.diagnoses == ()
    assert any(note.startswith("difficulty flat") for note in checkup.not_judged)


def test_doctor_command_prints_json_and_exits_1_on_a_sick_run(tmp_path: Path, capsys) -> None:
    run = build_run(tmp_path / "run", SICK["reference_failures"])
    assert doctor_command(str(run), as_json=True) == 1
    out = json.loads(capsys.readouterr().out)
    assert [d["code"] for d in out["diagnoses"]] == ["reference_failures"]
    assert out["iterations"] == 9


def test_doctor_command_exits_0_on_a_healthy_run(tmp_path: Path, capsys) -> None:
    assert doctor_command(str(build_run(tmp_path / "run", Shape())), as_json=False) == 0
    assert "no failure pattern" in " ".join(capsys.readouterr().out.split())  # rich wraps lines


def test_doctor_on_a_directory_without_a_run_raises_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="not a SPADE run directory"):
        doctor_command(str(tmp_path), as_json=False)


def test_collapse_is_read_from_self_plays_near_duplicate_rate_and_names_the_loops_responses(tmp_path: Path) -> None:
    run_dir = build_run(tmp_path / "run", Shape())
    with RunStore(run_dir) as store:
        store.conn.executemany("INSERT INTO metrics(iteration, name, value) VALUES (?,?,?)",
                               [(i, "selfplay/completion_near_duplicate_rate", 0.1 if i < 3 else 0.95) for i in range(9)]
                               + [(i, "selfplay/collapse", 1.0) for i in (4, 7)])
        store.conn.commit()
        (d,) = diagnose(load_view(store)).diagnoses
    assert d.code == "diversity_collapse"
    assert "near-duplicate sample pairs rose from 10% to 95%" in d.evidence and "responded 2 times" in d.evidence


def _with_proposals(run_dir: Path, reasons: list[str]) -> None:
    from spade.store import ProposalRecord

    with RunStore(run_dir) as store:
        store._write_proposals([ProposalRecord(f"p{k}", k % 9, None, "m", "induction", None, r == "ok", r, 0.0, None,
                                               0.0, 0.0 if r == "ok" else -0.5, "{}", "x):") for k, r in
                                enumerate(reasons)])
        store.conn.commit()


@pytest.mark.parametrize(("reasons", "sick"), [
    (["ok"] * 17 + ["duplicate_near"] * 2 + ["syntax_error"], False),  # 5% out of format, all in format valid
    (["ok"] * 12 + ["no_inputs"] * 6, True),  # 33% out of format: over the 10% line
    (["ok"] * 10 + ["nondeterministic", "screened", "constant_output"] * 2, True),  # 62% valid: under 80%
])
def test_self_plays_proposer_is_held_to_the_generator_health_lines(tmp_path: Path, reasons, sick) -> None:
    run_dir = build_run(tmp_path / "run", Shape())
    _with_proposals(run_dir, reasons * 3)
    with RunStore(run_dir) as store:
        checkup = diagnose(load_view(store))
    assert ("proposer_health" in {d.code for d in checkup.diagnoses}) is sick
    assert not any(n.startswith("proposer health") for n in checkup.not_judged)


def test_a_run_without_proposals_leaves_the_proposer_not_judged(tmp_path: Path) -> None:
    with RunStore(build_run(tmp_path / "run", Shape())) as store:
        checkup = diagnose(load_view(store))
    assert any(n.startswith("proposer health: needs 10") for n in checkup.not_judged)
