from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from spade.dedup import DedupIndex
from spade.dedup.normalize import canonical_code, normalize_description
from spade.generate import draft_task, family_names
from spade.records import Task

REF = '''def count_vowels(text: str) -> int:
    """Count them."""
    total = 0  # running count
    for ch in text:
        if ch in "aeiou":
            total += 1
    return total
'''
RENAMED = '''def vowel_count(s: str) -> int:
    n = 0
    for c in s:
        if c in "aeiou":
            n += 1
    return n
'''


def task(task_id="a", description="Return the number of vowels in text.", reference=REF):
    return Task(task_id=task_id, description=description, signature="def count_vowels(text: str) -> int:",
                entry_point="count_vowels", difficulty=0.0, reference_solution=reference)


def test_renaming_variables_and_dropping_comments_gives_the_same_canonical_code():
    assert canonical_code(REF) == canonical_code(RENAMED)
    assert canonical_code(REF) != canonical_code(REF.replace("+= 1", "+= 2"))


def test_descriptions_are_compared_without_case_spacing_or_punctuation():
    assert normalize_description("Return  the NUMBER of vowels!") == normalize_description("return the number of vowels")


def test_a_renamed_reference_with_the_same_description_is_an_exact_duplicate():
    index = DedupIndex.from_tasks([task()])
    verdict = index.check(task("b", reference=RENAMED))
    assert (verdict.duplicate, verdict.kind, verdict.of) == (True, "exact", "a")


def test_a_slightly_reworded_task_is_a_near_duplicate():
    index = DedupIndex.from_tasks([task(description="Return the number of vowels that appear in the given string text, "
                                                    "counting a e i o and u only.")])
    verdict = index.check(task("b", description="Return the number of vowels that appear in the given string s, "
                                                "counting a e i o and u only.", reference=RENAMED))
    assert (verdict.duplicate, verdict.kind, verdict.of) == (True, "near", "a")


def test_a_task_from_another_family_is_not_a_duplicate():
    index = DedupIndex.from_tasks([draft_task("palindrome", 0.0, 0, 0, 3, 5)])
    assert not index.check(draft_task("matrix_basic", 0.0, 0, 0, 3, 5)).duplicate


def test_the_threshold_decides_near_duplicates():
    a = task(description="Return the number of vowels in text.")
    b = task("b", description="Give back how many vowels the string text holds.", reference=RENAMED)
    assert DedupIndex.from_tasks([a], threshold=0.3).check(b).duplicate
    assert not DedupIndex.from_tasks([a], threshold=0.99).check(b).duplicate


def test_an_evaluation_set_blocks_its_own_problems():
    evaluation = [draft_task(name, 0.0, 99, 0, 3, 5) for name in family_names()]
    index = DedupIndex.from_tasks(evaluation)
    assert all(index.check(replace(t, task_id="train-" + t.task_id)).duplicate for t in evaluation)


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(family_names()), difficulty=st.floats(0, 1), seed=st.integers(0, 1000), index=st.integers(0, 1000))
def test_adding_a_task_twice_makes_the_second_an_exact_duplicate(name, difficulty, seed, index):
    draft = draft_task(name, difficulty, seed, index, 3, 5)
    dedup = DedupIndex()
    dedup.add(draft)
    verdict = dedup.check(replace(draft, task_id="again"))
    assert (verdict.duplicate, verdict.kind, verdict.of) == (True, "exact", draft.task_id)
    dedup.add(draft)
    assert len(dedup) == 1
