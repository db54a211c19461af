"""Withheld means withheld on every path that derives a task from another family: a run with
generation.withhold_families set never shows, asks for or trains on a withheld family's program — not as a
code-reasoning task's program, not as a repair task's base, not as a proposal, not as a proposer prompt's worked
example. Checked from the store by behaviour: each stored task's program is run on the withheld families' held-out
inputs and must not give their expected values (spade.dedup.behaviour, the screen's own machinery)."""

from __future__ import annotations

from dataclasses import replace

from spade.config import load_config
from spade.dedup.behaviour import BehaviourIndex
from spade.env import Environment
from spade.evaluate.suites import load_suite
from spade.generate.procedural import draft_task
from spade.generate.registry import family_for_run, resolve_families
from spade.kinds.code_reasoning.families import SOURCES
from spade.kinds.code_reasoning.proposer_role import BUILTIN_EXAMPLES
from spade.records import PYTHON_FUNCTION, Task, TestCase
from spade.selfplay.proposal import parse_proposal

WITHHELD = ["digits", "palindrome", "run_length", "list_aggregate"]
DIGIT_SUM = ('def f(n):\n    """Return the sum of the digits of n."""\n    return sum(int(c) for c in str(n))\n\n'
             "print(f(123))\nprint(f(9045))\nprint(f(7))\nprint(f(5550))\n")


def _as_function(task: Task) -> Task:
    """A task's program as the Python function the behaviour index runs (code reasoning and repair hold one)."""
    return replace(task, kind=PYTHON_FUNCTION)


def _behaves_as_withheld(tasks: list[Task], pool) -> list[tuple[str, str]]:
    index = BehaviourIndex({"heldout-unseen": load_suite("heldout-unseen", WITHHELD)})
    assert len(index) > 20  # the check has something to compare against
    found = [t for t in tasks if t.reference_solution]
    return [(m.task_id, m.eval_id) for m in index.screen([_as_function(t) for t in found], pool)]


def test_derived_families_draw_no_withheld_source():
    derived = [f for f in resolve_families([], {"code_reasoning": 1, "repair": 1}, WITHHELD)]
    assert {f.name for f in derived} >= {"cr_deduction", "cr_abduction", "cr_induction", "repair_operator"}
    for family in derived:
        for index in range(60):
            d = draft_task(family_for_run(family.name, WITHHELD), 0.5, 0, index, 3, 5)
            assert (d.params.get("source") or d.params.get("base_family")) not in WITHHELD, (family.name, d.params)


def test_withholding_every_source_leaves_the_derived_families_out():
    assert not [f for f in resolve_families([], {"code_reasoning": 1}, list(SOURCES))]


def test_a_run_withholding_families_stores_nothing_that_behaves_as_one(tmp_path):
    cfg = load_config(None, {"executor.workers": 2, "generation.tasks_per_iteration": 12,
                             "generation.kinds": {"code_reasoning": 1.0, "repair": 1.0, "python_function": 1.0},
                             "generation.withhold_families": WITHHELD, "evolution.replay_ratio": 0.0})
    with Environment.open(tmp_path / "run", cfg) as env:
        for _ in range(3):
            env.draw()
        # The policy proposing a withheld family's program is refused by behaviour (heldout-unseen is screened).
        prompts = env.propose(1, mode="deduction")
        verdict = env.submit_proposals(prompts, [f"```python\n{DIGIT_SUM}```"])[0]
        assert (verdict.valid, verdict.reason) == (False, "contaminated_behaviour"), verdict
        # The worked examples a proposer prompt can show: stored proposals, else the built-in ones.
        examples = [str(e) for p in env.propose(8) for e in p.task.params["examples"]] + list(BUILTIN_EXAMPLES)
        stored = list(env._store().tasks())
        pool = env._pool
        assert len(stored) >= 24 and {t.kind for t in stored} >= {"code_reasoning", "repair"}
        for t in stored:
            assert (t.params.get("source") or t.params.get("base_family")) not in WITHHELD, (t.task_id, t.params)
        assert _behaves_as_withheld(stored, pool) == []
        shown = []
        for k, text in enumerate(examples):
            parsed = parse_proposal(text, prefilled=False)
            if not isinstance(parsed, str):
                calls = tuple(TestCase(tuple(args), None) for args in parsed.inputs)
                shown.append(Task(f"example-{k}", "", parsed.signature, "f", 0.0, (), calls,
                                  reference_solution=parsed.program))
        assert _behaves_as_withheld(shown, pool) == []
