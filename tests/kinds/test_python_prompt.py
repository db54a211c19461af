"""Prompts show the description, signature and public tests, never the hidden tests; hashes are stable."""

from spade.policy.prompts import (
    ASSISTANT_PREFILL,
    PROMPT_VARIANTS,
    build_prompt,
    variant_for,
)
from spade.records import Task, TestCase

TASK = Task(
    task_id="t", description="Return the sum of two integers.", signature="def add(a: int, b: int) -> int:",
    entry_point="add", difficulty=0.1,
    test_cases=(TestCase((1, 2), 3), TestCase((True, "x"), None)),
    hidden_test_cases=(TestCase((40, 2), 424242),),
)


def _text(prompt):
    return "\n".join(m["content"] for m in prompt.messages)


def test_every_variant_shows_description_signature_and_public_examples():
    for v in range(PROMPT_VARIANTS):
        text = _text(build_prompt(TASK, v))
        assert "sum of two integers" in text
        assert "def add(a: int, b: int) -> int:" in text
        assert "add(1, 2) == 3" in text
        assert "add(True, 'x') == None" in text


def test_hidden_tests_never_reach_the_prompt():
    for v in range(PROMPT_VARIANTS):
        text = _text(build_prompt(TASK, v))
        assert "424242" not in text and "40, 2" not in text


def test_variants_differ_and_rotate_by_candidate_index():
    hashes = {build_prompt(TASK, v).hash for v in range(PROMPT_VARIANTS)}
    assert len(hashes) == PROMPT_VARIANTS
    assert [variant_for(i) for i in range(PROMPT_VARIANTS + 1)] == [*range(PROMPT_VARIANTS), 0]


def test_prompt_hash_is_stable_and_tracks_the_content():
    assert build_prompt(TASK, 1).hash == build_prompt(TASK, 1).hash
    other = Task(**{**{f: getattr(TASK, f) for f in TASK.__slots__}, "description": "Return the product."})
    assert build_prompt(other, 1).hash != build_prompt(TASK, 1).hash
    assert len(build_prompt(TASK, 0).hash) == 16


def test_prompt_prefills_only_the_opening_fence():
    assert build_prompt(TASK).prefill == ASSISTANT_PREFILL == "```python\n"
