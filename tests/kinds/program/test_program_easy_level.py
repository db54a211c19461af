"""The program kind's easiest level, for small policies: at difficulty 0 every family asks one step on one line of
input (no count line), the prompt shows a worked example on a problem of its own as an earlier exchange and says not to print prompts, and
the judge still fails a program whose prompt text lands in stdout."""

from __future__ import annotations

import pytest

from spade.config import GenerationConfig, RewardConfig
from spade.generate.procedural import draft_task
from spade.generate.registry import family_names
from spade.kinds import kind_of, validate_drafts
from spade.kinds.program.examples import WORKED_EXAMPLE
from spade.kinds.program.prompt import NO_PROMPTS, build_prompt
from spade.records import Completion, Task, TestCase
from spade.rollout import Grader

PROGRAM_FAMILIES = [f for f in family_names() if f.startswith("program_")]


def _tasks(pool, difficulty: float, count: int = 3) -> list[Task]:
    drafts = [draft_task(f, difficulty, 5, i, 3, 5) for f in PROGRAM_FAMILIES for i in range(count)]
    outcomes = validate_drafts(drafts, pool, GenerationConfig())
    assert [o.reasons for o in outcomes if not o.accepted] == []
    return [o.task for o in outcomes]


def _stdin(case: TestCase) -> str:
    return case.args[0]


def test_level_zero_tasks_of_every_family_validate_and_read_a_single_line(pool):
    tasks = _tasks(pool, 0.0)
    assert {t.family for t in tasks} == set(PROGRAM_FAMILIES)
    for task in tasks:
        assert all(_stdin(c).count("\n") == 1 for c in task.all_tests), task.task_id
        assert "one line" in task.description
        assert task.params.get("mutant_kill_ratio", 1.0) >= GenerationConfig().mutant_kill_ratio


def test_the_hardest_level_reads_several_lines_in_every_family():
    for family in PROGRAM_FAMILIES:
        drafts = [draft_task(family, 1.0, 5, i, 3, 5) for i in range(3)]
        assert all(any(stdin.count("\n") > 1 for (stdin,) in d.all_inputs) for d in drafts), family
        assert all("one line" not in d.description for d in drafts), family


def test_the_prompt_shows_the_worked_example_and_the_rule_against_printing_prompts():
    task = draft_task("program_numbers", 0.0, 5, 0, 3, 5)
    as_task = Task(task.task_id, task.description, task.signature, "", 0.0, tags=task.tags,
                   test_cases=(TestCase(("1 2\n",), "3\n"),), kind="program")
    for variant in range(3):
        messages = build_prompt(as_task, variant).messages
        assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]  # the example, then the task
        assert WORKED_EXAMPLE.statement in messages[1]["content"] and WORKED_EXAMPLE.stdin in messages[1]["content"]
        assert messages[2]["content"] == f"```python\n{WORKED_EXAMPLE.program}```"
        assert task.description in messages[3]["content"] and WORKED_EXAMPLE.statement not in messages[3]["content"]
        assert NO_PROMPTS in messages[1]["content"] and NO_PROMPTS in messages[3]["content"]


def test_the_worked_example_solves_its_own_sample_and_none_of_the_easy_tasks(pool):
    ex = WORKED_EXAMPLE
    own = Task("example", ex.statement, "program: stdin -> stdout", "", 0.0, test_cases=(TestCase((ex.stdin,), ex.stdout),),
               kind="program")
    assert kind_of(own).execute(pool, [(own, ex.program)])[0].passed
    tasks = _tasks(pool, 0.0, 2) + _tasks(pool, 0.25, 2)
    assert not any(ex.statement in t.description for t in tasks)
    results = kind_of(tasks[0]).execute(pool, [(t, ex.program) for t in tasks])
    assert not any(r.passed for r in results)


@pytest.mark.parametrize(("family", "right", "prompted"), [
    ("program_numbers", "print(sum(int(x) for x in input().split()))\n",
     "print(sum(int(x) for x in input('Enter the numbers: ').split()))\n"),
    ("program_commands", "op, x, y = input().split()\nprint(int(x) + int(y) if op == 'add' else int(x) - int(y))\n",
     "op, x, y = input('Command: ').split()\nprint(int(x) + int(y) if op == 'add' else int(x) - int(y))\n"),
])
def test_a_one_step_answer_passes_level_zero_and_the_same_with_a_prompt_string_fails(pool, family, right, prompted):
    drafts = [draft_task(family, 0.0, 5, i, 3, 5) for i in range(4)]
    outcomes = validate_drafts(drafts, pool, GenerationConfig())
    task = next(o.task for o in outcomes if "sum" in o.task.description or family == "program_commands")
    rollouts = Grader(pool, RewardConfig()).grade([task, task], [Completion(right + "```"), Completion(prompted + "```")],
                                                  ids=["right", "prompted"])
    assert [r.passed for r in rollouts] == [True, False]
