import ast
import json

import pytest

from spade.commands.variants import variants_command
from spade.config import ExecutorConfig, GenerationConfig, SpadeConfig
from spade.evaluate.suites import load_suite
from spade.generate.compose import TRANSFORMS, fitting
from spade.generate.registry import get_family
from spade.generate.variants import seed_variant
from spade.sandbox import Job, OutcomeKind, SandboxPool
from spade.taskio import load_tasks
from spade.validate.dynamic import validate_drafts
from spade.validate.effect import require_effect
from spade.validate.types import parse_annotation


@pytest.fixture(scope="module")
def seeds():
    return load_suite("builtin")[:4]


def test_variants_are_deterministic_renamed_and_keep_the_seed_link(seeds):
    a, b = seed_variant(seeds[0], 1, 0), seed_variant(seeds[0], 1, 0)
    assert a == b
    assert a.entry_point != seeds[0].entry_point and f"def {a.entry_point}(" in a.reference_solution
    assert a.signature.startswith(f"def {a.entry_point}(")
    assert a.provenance["seed_task"] == seeds[0].task_id
    assert seed_variant(seeds[0], 1, 1) != a


def test_variants_validate_by_execution_and_get_fresh_inputs(tmp_path, seeds):
    src = tmp_path / "seeds.jsonl"
    src.write_text("".join(json.dumps({
        "task_id": t.task_id, "description": t.description, "signature": t.signature,
        "reference_solution": t.reference_solution, "difficulty": t.difficulty,
        "test_cases": [{"input": list(c.args), "expected": c.expected} for c in t.test_cases],
        "hidden_test_cases": [{"input": list(c.args), "expected": c.expected} for c in t.hidden_test_cases],
    }) + "\n" for t in seeds))
    out = tmp_path / "variants.jsonl"
    assert variants_command(str(src), 2, str(out), SpadeConfig()) == 0
    variants = load_tasks(out)
    assert variants
    seed_inputs = {json.dumps([list(c.args) for c in t.all_tests]) for t in seeds}
    for v in variants:
        assert json.dumps([list(c.args) for c in v.all_tests]) not in seed_inputs
        assert v.hidden_test_cases and "variant" in v.tags


def test_variant_inputs_keep_the_seed_arity(seeds):
    for seed_task in seeds:
        v = seed_variant(seed_task, 3, 0)
        arity = len(seed_task.test_cases[0].args)
        assert all(len(args) == arity for args in v.public_inputs + v.hidden_inputs)


# --- composition with another family's step (spade.generate.compose) ---


@pytest.fixture(scope="module")
def builtin():
    return {t.task_id: t for t in load_suite("builtin")}


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(ExecutorConfig(workers=2)) as p:
        yield p


def _composed_with(task, key):
    """The first composed variant of `task` (seed 0) whose step is `key`."""
    for index in range(1, 40):
        draft = seed_variant(task, 0, index, compose=True)
        if draft.params["transform"]["key"] == key:
            return draft
    raise AssertionError(f"no index composes {key} into {task.task_id}")


def _seed_outputs(pool, task, inputs):
    run = pool.submit(Job(code=task.reference_solution, entry_point=task.entry_point, inputs=tuple(inputs),
                          time_limits=(2.0,) * len(inputs), memory_bytes=pool.cfg.memory_bytes,
                          total_timeout=2.0 * len(inputs) + 1)).result()
    assert all(o.kind is OutcomeKind.VALUE for o in run.outcomes)
    return [o.value for o in run.outcomes]


def test_every_transform_comes_from_a_registered_family_and_has_a_unique_key():
    assert len({t.key for t in TRANSFORMS}) == len(TRANSFORMS)
    for t in TRANSFORMS:
        assert get_family(t.family).name == t.family
        assert t.where in ("output", "input") and (t.bite is None or t.where == "input")


def test_only_transforms_that_fit_the_seed_types_are_offered():
    assert {c.transform.key for c in fitting("def f(s: str) -> str:")} == {
        "reverse_str", "upper", "char_counts", "lower_arg", "reverse_arg"}
    int_keys = {c.transform.key for c in fitting("def f(xs: list[int], k: int) -> int:")}
    assert {"mod_7", "to_binary", "sort_arg"} <= int_keys
    assert not int_keys & {"upper", "sort_desc", "lower_arg"}
    assert "dedupe_arg" not in int_keys  # it shortens xs, which k may index
    assert fitting("def f(n: int) -> bool:") == [] and fitting("def f(xs: list[int]) -> int | None:")[0].arg == 0


def test_composed_variants_of_every_builtin_seed_pick_a_fitting_step_or_stay_plain(builtin):
    for task in builtin.values():
        fn = ast.parse(task.signature.rstrip(":") + ":\n    pass\n").body[0]
        for index in (1, 2):
            draft = seed_variant(task, 5, index, compose=True)
            step = draft.params.get("transform")
            if step is None:
                assert fitting(task.signature) == [] and "composed" not in draft.tags
                continue
            t = next(t for t in TRANSFORMS if t.key == step["key"])
            ann = fn.returns if t.where == "output" else fn.args.args[step["arg"]].annotation
            assert t.fits(parse_annotation(ann)), (task.task_id, t.key)


def test_composed_variants_are_deterministic_and_differ_by_index(builtin):
    seed_task = builtin["builtin/sum_evens"]
    a = seed_variant(seed_task, 1, 1, compose=True)
    assert a == seed_variant(seed_task, 1, 1, compose=True)
    assert a.params["transform"] != seed_variant(seed_task, 1, 2, compose=True).params["transform"]
    assert seed_variant(seed_task, 1, 1) == seed_variant(seed_task, 1, 1, compose=False)
    assert "transform" not in seed_variant(seed_task, 1, 1).params


def test_a_composed_variant_wraps_the_seed_names_the_step_and_records_its_family(builtin):
    seed_task = builtin["builtin/sum_evens"]
    v = _composed_with(seed_task, "to_binary")
    assert v.signature.endswith("-> str:") and v.signature.startswith(f"def {v.entry_point}(")
    assert v.description.startswith(seed_task.description.split(" ")[0])
    assert "base 2" in v.description and v.description != seed_task.description
    assert "def _seed_sum_evens(" in v.reference_solution and "_seed_sum_evens(" in v.reference_solution.split(
        f"def {v.entry_point}(")[1]
    assert "composed" in v.tags and v.difficulty > seed_task.difficulty
    assert v.provenance["transform"] == {"key": "to_binary", "family": "digits", "where": "output", "arg": None}


def test_an_output_step_validates_in_the_sandbox_and_changes_every_answer(builtin, pool):
    seed_task = builtin["builtin/sum_evens"]
    draft = _composed_with(seed_task, "to_binary")
    [outcome] = validate_drafts([draft], pool, GenerationConfig())
    assert outcome.accepted, outcome.details
    tests = outcome.task.all_tests
    seed_values = _seed_outputs(pool, seed_task, [c.args for c in tests])
    for case, seed_value in zip(tests, seed_values):
        assert isinstance(case.expected, str) and int(case.expected, 2) == seed_value


def test_an_input_step_gets_inputs_it_changes_and_validates(builtin, pool):
    seed_task = builtin["builtin/sum_evens"]
    draft = _composed_with(seed_task, "dedupe_arg")
    assert any(len(set(args[0])) < len(args[0]) for args in draft.all_inputs)
    assert "repeated values are first removed from" in draft.description
    [outcome] = validate_drafts([draft], pool, GenerationConfig())
    assert outcome.accepted, outcome.details
    [outcome] = require_effect([outcome], builtin, pool, GenerationConfig())
    assert outcome.accepted
    seed_values = _seed_outputs(pool, seed_task, [c.args for c in outcome.task.all_tests])
    assert any(c.expected != s for c, s in zip(outcome.task.all_tests, seed_values))


def test_a_step_that_leaves_every_answer_unchanged_is_rejected_with_its_reason(builtin, pool):
    seed_task = builtin["builtin/count_vowels"]  # counts vowels of either case, so lower-casing first is a no-op
    draft = _composed_with(seed_task, "lower_arg")
    [outcome] = validate_drafts([draft], pool, GenerationConfig())
    assert outcome.accepted, outcome.details
    [outcome] = require_effect([outcome], builtin, pool, GenerationConfig())
    assert not outcome.accepted and outcome.reasons == ("transform_no_effect",)
    assert "lower_arg" in outcome.details[0]


def test_the_command_reports_composed_rejections_by_step(tmp_path, builtin, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")
    src = tmp_path / "seeds.jsonl"
    t = builtin["builtin/count_vowels"]
    src.write_text(json.dumps({
        "task_id": t.task_id, "description": t.description, "signature": t.signature,
        "reference_solution": t.reference_solution, "difficulty": t.difficulty,
        "test_cases": [{"input": list(c.args), "expected": c.expected} for c in t.all_tests]}) + "\n")
    out = tmp_path / "variants.jsonl"
    assert variants_command(str(src), 6, str(out), SpadeConfig()) == 0
    printed = capsys.readouterr().out
    assert "of 5 composed" in printed and "transform_no_effect (lower_arg)" in printed
    composed = [v for v in load_tasks(out) if "composed" in v.tags]
    assert composed and all(v.provenance["transform"]["key"] != "lower_arg" for v in composed)
