import json

import pytest

from spade.config import SpadeConfig
from spade.evaluate.suites import load_suite
from spade.generate.commands import variants_command
from spade.generate.variants import seed_variant
from spade.taskio import load_tasks


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
