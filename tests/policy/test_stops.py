"""Stop rules: when a sampled answer is complete, per kind. A row whose answer is done must stop there (a math
answer line is not followed by 250 tokens of commentary) and never before (a block still open goes on)."""

import pytest

from spade.generate.procedural import draft_task
from spade.generate.registry import family_names, get_family
from spade.kinds import KINDS
from spade.policy.decode import Decoder
from spade.policy.static_decode import StaticDecoder
from spade.policy.stops import RULES, TriggerTokens, closed_after_code, closed_fence, line_ended, stop_rule
from spade.records import Task


def test_each_rule_ends_a_complete_answer_and_not_an_unfinished_one():
    assert line_ended(" 42\n") and line_ended("x = 3\nThe answer") and not line_ended(" 42")
    assert not line_ended("\n\n  ")  # a blank start is not an answer line yet
    assert closed_fence("SELECT 1;\n```") and not closed_fence("SELECT 1;\n``")
    assert closed_after_code("def f():\n    return 1\n```") and not closed_after_code("```\ndef f():")
    with pytest.raises(ValueError, match="not one of"):
        stop_rule("paragraph")


def _prompt_of_each_family():
    for name in family_names():
        family = get_family(name)
        d = draft_task(name, 0.0, 3, 0, 2, 2)
        task = Task(d.task_id, d.description, d.signature, d.entry_point, d.difficulty, d.tags,
                    reference_solution=d.reference_solution, family=d.family, params=d.params, kind=d.kind)
        yield family.kind, KINDS.get(family.kind).prompt(task, 0)


def test_every_kind_names_a_rule_that_fits_its_prefill():
    seen = {}
    for kind, prompt in _prompt_of_each_family():
        assert prompt.stop in RULES, kind
        seen[kind] = prompt.stop
        if prompt.stop in ("fence", "code"):
            assert prompt.prefill.startswith("```"), kind  # the closing fence closes the block the prefill opened
        else:
            assert "```" not in prompt.prefill and not prompt.prefill.endswith("\n"), kind
    assert seen["math"] == "line" and seen["python_function"] == "code" and seen["program"] == "fence"


def test_newline_trigger_ids_are_found_by_decoding_in_a_byte_level_vocabulary(policy):
    ids = TriggerTokens(policy.tokenizer).ids("\n")
    newline = policy.tokenizer("a\nb", add_special_tokens=False)["input_ids"]
    assert any(i in ids for i in newline)
    assert all("\n" in policy.tokenizer.decode([i]) for i in list(ids)[:200])
    assert len(ids) > 10  # '\n', '\n\n', ' \n', indentation runs...


@pytest.mark.parametrize("engine", [StaticDecoder, Decoder])
def test_a_line_rule_row_stops_at_its_first_line_and_a_code_row_in_the_same_batch_goes_on(policy, easy_tasks,
                                                                                      engine):
    math_text = policy.prompt_text(easy_tasks[0], 0).rsplit("```python\n", 1)[0] + "Answer: "
    code_text = policy.prompt_text(easy_tasks[1], 0)
    texts = [math_text, code_text]
    free = engine(policy.model, policy.tokenizer, lambda t: False).generate(
        texts, max_new_tokens=40, temperature=0.0, top_p=1.0, seed=0)
    got = engine(policy.model, policy.tokenizer).generate(
        texts, max_new_tokens=40, temperature=0.0, top_p=1.0, seed=0, stops=[RULES["line"], RULES["code"]])
    for (free_text, free_n), (text, n) in zip(free, got):
        assert free_text.startswith(text) and n <= free_n
    assert line_ended(free[0][0])  # left alone, greedy writes past its answer line...
    body = got[0][0].lstrip()
    assert got[0][1] < free[0][1] and "\n" in body and "\n" not in body.rstrip()  # ...the rule ends it right there
    assert got[1] == engine(policy.model, policy.tokenizer).generate(
        [code_text], max_new_tokens=40, temperature=0.0, top_p=1.0, seed=0)[0]  # the other row is unchanged
