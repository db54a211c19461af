"""`spade check`: each checklist line (docs/method.md#pre-flight-checklist) is ✓ on the defaults and flips to ✗
when the config key it names is turned off.

The host facts come from the real sandbox (check_isolation and a candidate scored twice), probed once per module.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from spade.check import HostFacts, check_command, checklist, host_facts
from spade.config import SpadeConfig, config_from_dict

EXPECTED = {
    "deterministic executor", "edge-case coverage", "reference validation", "JSON completeness", "deduplication",
    "difficulty bounds", "network off", "memory / CPU limits", "isolation level", "interpretable reward",
    "hidden tests", "hard-coding guard", "controller dead zone", "checkpoints", "rollback", "concurrent sandbox",
    "logging and monitoring", "independent eval set", "security audit",
}


@pytest.fixture(scope="module")
def facts() -> HostFacts:
    return host_facts(SpadeConfig())


def cfg(**sections: dict) -> SpadeConfig:
    return config_from_dict(sections)


def test_the_checklist_covers_every_line_of_its_six_stages(facts: HostFacts) -> None:
    assert {it.name for it in checklist(SpadeConfig(), facts)} == EXPECTED


def test_the_sandbox_gives_the_same_verdict_twice_for_the_same_candidate(facts: HostFacts) -> None:
    assert facts.deterministic, facts.determinism_detail
    assert facts.eval_tasks > 0


def test_the_default_config_passes_every_check_on_a_host_with_every_layer(facts: HostFacts) -> None:
    if facts.isolation.missing:
        pytest.skip(f"this host lacks isolation layers {facts.isolation.missing}")
    failing = [it.name for it in checklist(SpadeConfig(), facts) if not it.ok]
    assert failing == []


@pytest.mark.parametrize(("sections", "item", "key"), [
    ({"evolution": {"patience": 1}}, "controller dead zone", "evolution.patience"),
    ({"generation": {"dedup_threshold": 1.0}}, "deduplication", "generation.dedup_threshold"),
    ({"generation": {"max_mutants": 0}}, "edge-case coverage", "generation.max_mutants"),
    ({"executor": {"workers": 1}}, "concurrent sandbox", "executor.workers"),
    ({"eval": {"every": 0}}, "rollback", "eval.every"),
    ({"eval": {"every": 0}}, "independent eval set", "eval.every"),
    ({"generation": {"min_hidden_share": 0.2}}, "hard-coding guard", "generation.min_hidden_share"),
    ({"evolution": {"difficulty_low": 0.0}}, "difficulty bounds", "evolution.difficulty_low"),
    ({"training": {"keep_checkpoints": 0}}, "checkpoints", "training.keep_checkpoints"),
    ({"executor": {"mode": "subprocess"}}, "deterministic executor", "executor.mode"),
    ({"reward": {"terms": ["format", "interference"]}}, "interpretable reward", "reward.terms"),
    ({"reward": {"interference_penalty": 0.0}}, "security audit", "reward.interference_penalty"),
])
def test_turning_a_safeguard_off_fails_its_line_and_names_the_key(facts: HostFacts, sections: dict, item: str,
                                                                  key: str) -> None:
    by_name = {it.name: it for it in checklist(cfg(**sections), facts)}
    assert not by_name[item].ok
    assert key in by_name[item].key
    others = {n for n, it in by_name.items() if not it.ok} - {item}
    # eval.every = 0 turns off both evaluation lines at once; every other key changes only its own line.
    assert others <= ({"rollback", "independent eval set"} if key == "eval.every" else set())


@pytest.mark.parametrize(("fact", "item"), [
    ("validation", "reference validation"), ("task_schema", "JSON completeness"), ("store", "logging and monitoring"),
])
def test_a_line_probed_on_this_host_passes_as_measured_and_fails_when_its_probe_does(facts: HostFacts, fact: str,
                                                                                      item: str) -> None:
    assert getattr(facts, fact)[0], getattr(facts, fact)[1]  # measured here: the real sandbox, taskio, the store
    broken = replace(facts, **{fact: (False, "the probe failed")})
    by_name = {it.name: it for it in checklist(SpadeConfig(), broken)}
    assert not by_name[item].ok and "the probe failed" in by_name[item].detail
    assert {n for n, it in by_name.items() if not it.ok} - {item} <= {"isolation level", "network off",
                                                                       "memory / CPU limits"}


@pytest.mark.filterwarnings("ignore::spade.sandbox.UnsafeSandboxWarning")
def test_isolation_none_fails_the_sandbox_lines_as_probed_on_this_host() -> None:
    config = cfg(executor={"isolation": "none"})
    by_name = {it.name: it for it in checklist(config, host_facts(config))}
    assert not by_name["isolation level"].ok
    assert not by_name["network off"].ok
    assert by_name["isolation level"].key == "executor.isolation"


def test_check_command_exits_1_when_a_line_fails_and_says_which(facts: HostFacts, capsys) -> None:
    assert check_command(cfg(evolution={"patience": 1})) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "1 of 19 checks fail: controller dead zone" in out


def test_check_command_exits_0_when_every_line_passes(facts: HostFacts, capsys) -> None:
    if facts.isolation.missing:
        pytest.skip(f"this host lacks isolation layers {facts.isolation.missing}")
    assert check_command(SpadeConfig()) == 0
    assert "all 19 checks pass" in capsys.readouterr().out


def test_one_sandbox_worker_per_usable_core_and_the_line_names_a_cgroup_limit(facts: HostFacts, monkeypatch) -> None:
    from pathlib import Path

    import spade.check.items as items
    import spade.cpus as cpus
    from spade.cpus import CpuLimit

    limit = CpuLimit(1.0, Path("/sys/fs/cgroup"))
    monkeypatch.setattr(cpus, "cpu_limit", lambda: limit)  # a container limited to one CPU
    monkeypatch.setattr(items, "cpu_limit", lambda: limit)
    line = {it.name: it for it in checklist(SpadeConfig(), facts)}["concurrent sandbox"]
    assert SpadeConfig().executor.worker_count == 1
    assert not line.ok and "cgroup CPU limit 1" in line.detail and line.detail.startswith("1 warm sandbox workers")
