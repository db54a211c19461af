"""The program kind's easiest level, for small policies: at difficulty 0 every family asks one step on one line of
input (no count line) with a line that reads it prefilled (params.starter); the prompt shows worked examples on
problems of their own as earlier exchanges and says not to print prompts; the judge still fails a program whose
prompt text lands in stdout."""

from __future__ import annotations

import pytest

from spade.config import GenerationConfig, RewardConfig
from spade.generate.procedural import draft_task
from spade.generate.registry import family_names
from spade.kinds import kind_of, validate_drafts
from spade.kinds.program.examples import WORKED_EXAMPLES, examples_for
from spade.kinds.program.prompt import ASSISTANT_PREFILL, NO_PROMPTS, PROMPT_VARIANTS, build_prompt
from spade.pycode import parse_untrusted
from spade.records import Completion, Task, TestCase
from spade.rollout import Grader

PROGRAM_FAMILIES = [f for f in family_names() if f.startswith("program_")]


def _tasks(pool, difficulty: float, count: int = 3) -> list[Task]:
    drafts = [draft_task(f, difficulty, 5, i, 3, 5) for f in PROGRAM_FAMILIES for i in range(count)]
    outcomes = validate_drafts(drafts, pool, GenerationConfig())
    assert [o.reasons for o in outcomes if not o.accepted] == []
    return [o.task for o in outcomes]


def test_level_zero_tasks_of_every_family_validate_read_one_line_and_prefill_a_reading_line(pool):
    tasks = _tasks(pool, 0.0)
    assert {t.family for t in tasks} == set(PROGRAM_FAMILIES)
    for task in tasks:
        assert all(c.args[0].count("\n") == 1 for c in task.all_tests), task.task_id
        assert "one line" in task.description
        assert task.params.get("mutant_kill_ratio", 1.0) >= GenerationConfig().mutant_kill_ratio
        starter = task.params["starter"]
        assert "input()" in starter and starter.endswith("\n") and parse_untrusted(starter)
        assert build_prompt(task, 0).prefill == ASSISTANT_PREFILL + starter


def test_harder_levels_read_several_lines_and_prefill_nothing_but_the_fence():
    for family in PROGRAM_FAMILIES:
        drafts = [draft_task(family, d, 5, i, 3, 5) for d in (0.5, 1.0) for i in range(3)]
        assert all(any(stdin.count("\n") > 1 for (stdin,) in d.all_inputs) for d in drafts), family
        assert all("one line" not in d.description and not d.params.get("starter") for d in drafts), family


def test_a_completion_continues_the_starter_and_the_grader_runs_both_together(pool):
    task = next(t for t in _tasks(pool, 0.0, 4) if t.family == "program_numbers" and "sum" in t.description)
    assert kind_of(task).extract(task, "print(sum(nums))\n```") == task.params["starter"] + "print(sum(nums))\n"
    texts = ["print(sum(nums))\n```", "print(max(nums))\n```", "print('The sum is', sum(nums))\n```"]
    rollouts = Grader(pool, RewardConfig()).grade([task] * 3, [Completion(t) for t in texts], ids=["0", "1", "2"])
    assert [r.passed for r in rollouts] == [True, False, False]  # a label in stdout is a wrong answer


def test_the_prompt_shows_two_worked_examples_as_earlier_exchanges_and_the_rule_against_prompts():
    task = draft_task("program_numbers", 0.0, 5, 0, 3, 5)
    as_task = Task(task.task_id, task.description, task.signature, "", 0.0, tags=task.tags, params=dict(task.params),
                   test_cases=(TestCase(("1 2\n",), "3\n"),), kind="program")
    firsts = set()
    for variant in range(PROMPT_VARIANTS):
        messages = build_prompt(as_task, variant).messages
        assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
        shown = examples_for(variant)
        firsts.add(shown[0])
        for k, ex in enumerate(shown):
            assert ex.statement in messages[1 + 2 * k]["content"] and ex.stdin in messages[1 + 2 * k]["content"]
            assert messages[2 + 2 * k]["content"] == f"{ASSISTANT_PREFILL}{ex.program}```"
        assert task.description in messages[-1]["content"]
        assert not any(ex.statement in messages[-1]["content"] for ex in WORKED_EXAMPLES)
        assert all(NO_PROMPTS in m["content"] for m in messages if m["role"] == "user")
    assert len(firsts) == PROMPT_VARIANTS  # the variants lead with different examples


def test_each_worked_example_solves_its_own_sample_and_none_of_the_easy_tasks(pool):
    own = [Task(f"example{k}", ex.statement, "program: stdin -> stdout", "", 0.0, kind="program",
                test_cases=(TestCase((ex.stdin,), ex.stdout),)) for k, ex in enumerate(WORKED_EXAMPLES)]
    results = kind_of(own[0]).execute(pool, [(t, ex.program) for t, ex in zip(own, WORKED_EXAMPLES)])
    assert all(r.passed for r in results)
    tasks = _tasks(pool, 0.0, 2) + _tasks(pool, 0.25, 2)
    assert not any(ex.statement in t.description for t in tasks for ex in WORKED_EXAMPLES)
    results = kind_of(tasks[0]).execute(pool, [(t, ex.program) for t in tasks for ex in WORKED_EXAMPLES])
    assert not any(r.passed for r in results)


@pytest.mark.parametrize(("family", "right", "prompted"), [
    ("program_numbers", "print(sum(int(x) for x in input().split()))\n",
     "print(sum(int(x) for x in input('Enter the numbers: ').split()))\n"),
    ("program_commands", "op, x, y = input().split()\nprint(int(x) + int(y) if op == 'add' else int(x) - int(y))\n",
     "op, x, y = input('Command: ').split()\nprint(int(x) + int(y) if op == 'add' else int(x) - int(y))\n"),
])
def test_a_one_step_program_passes_level_zero_and_the_same_with_a_prompt_string_fails(pool, family, right, prompted):
    tasks = _tasks(pool, 0.0, 4)
    task = next(t for t in tasks if t.family == family and ("sum" in t.description or family == "program_commands"))
    assert [r.passed for r in kind_of(task).execute(pool, [(task, right), (task, prompted)])] == [True, False]


def test_level_zero_commands_give_one_fixed_command_per_task_and_either_command_comes_from_0_05(pool):
    # With 'add' or 'sub' mixed at difficulty 0 the public samples often showed one command only, and the 135M
    # model answered print(x + y), which the other command's hidden tests failed.
    tasks = [t for t in _tasks(pool, 0.0, 6) if t.family == "program_commands"]
    for task in tasks:
        ops = {c.args[0].split()[0] for c in task.all_tests}
        assert len(ops) == 1 and f"'{ops.pop()} X Y'" in task.description and " or " not in task.description
    assert {t.params["machine"] for t in tasks} == {"add", "sub"}
    mixed = [draft_task("program_commands", d, 5, i, 3, 5) for d in (0.05, 0.25) for i in range(12)]
    calc = [d for d in mixed if d.params["machine"] == "calc"]
    assert calc and any(len({stdin.split()[0] for (stdin,) in d.all_inputs}) == 2 for d in calc)
    assert {d.params["machine"] for d in mixed if d.difficulty == 0.25} <= {"calc", "counter"}


def test_a_bare_expression_passes_a_level_zero_command_task_and_a_sentence_around_it_fails(pool):
    task = next(t for t in _tasks(pool, 0.0, 6) if t.family == "program_commands" and t.params["machine"] == "sub")
    texts = ["print(x - y)\n```", "print(x + y)\n```", "print(f'X - Y = {x - y}')\n```"]
    rollouts = Grader(pool, RewardConfig()).grade([task] * 3, [Completion(t) for t in texts], ids=["0", "1", "2"])
    assert [r.passed for r in rollouts] == [True, False, False]
