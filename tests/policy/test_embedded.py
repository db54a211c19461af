"""Sampling from the real embedded model: shape, determinism per seed, greedy, and throughput counters."""

import pytest

from spade.errors import ModelError
from spade.policy.prompts import PROMPT_VARIANTS, build_prompt


def test_sampling_returns_n_completions_per_task_with_their_prompt(policy, easy_tasks):
    progress = []
    out = policy.sample(easy_tasks, 3, seed=1, on_progress=lambda done, total: progress.append((done, total)))
    assert [len(c) for c in out] == [3, 3]
    for task, completions in zip(easy_tasks, out):
        for i, c in enumerate(completions):
            assert c.prompt_variant == i % PROMPT_VARIANTS
            assert c.prompt_hash == build_prompt(task, c.prompt_variant).hash
            assert 0 < c.new_tokens <= policy.sampling.max_new_tokens
    assert progress[-1] == (6, 6)
    assert policy.last_tokens_per_s > 0 and policy.total_new_tokens >= sum(c.new_tokens for cs in out for c in cs)


def test_same_seed_repeats_exactly_and_another_seed_differs(policy, easy_tasks):
    first = policy.sample(easy_tasks, 3, temperature=1.0, seed=7)
    again = policy.sample(easy_tasks, 3, temperature=1.0, seed=7)
    other = policy.sample(easy_tasks, 3, temperature=1.0, seed=8)
    assert first == again
    assert [c.text for cs in first for c in cs] != [c.text for cs in other for c in cs]


def test_greedy_is_deterministic_and_identical_across_samples_of_a_variant(policy, easy_tasks):
    one = policy.sample(easy_tasks[:1], 4, temperature=0, seed=1)
    two = policy.sample(easy_tasks[:1], 4, temperature=0, seed=2)
    assert one == two
    assert one[0][0].text == one[0][3].text  # candidates 0 and 3 share variant 0


def test_greedy_answer_to_an_easy_task_is_extractable_code(policy, easy_tasks):
    from spade.kinds.python_function.extract import extract_code

    completion = policy.sample(easy_tasks[:1], 1, temperature=0)[0][0]
    assert "def add" in extract_code(completion.text, "add")


def test_zero_samples_is_refused(policy, easy_tasks):
    with pytest.raises(ModelError, match="n = 0"):
        policy.sample(easy_tasks, 0)


def test_a_fixed_thread_count_is_set_again_before_sampling(policy, easy_tasks):
    import torch

    torch.set_num_threads(2)  # as another model in this process might
    policy.sample(easy_tasks[:1], 1, temperature=0.0)
    assert torch.get_num_threads() == policy.sampling.threads == policy.threads_in_use


def test_threads_zero_samples_on_the_measured_count(policy, easy_tasks):
    import torch

    from spade.config import SamplingConfig
    from spade.policy.embedded import EmbeddedPolicy
    from spade.policy.threads import ThreadFit

    auto = EmbeddedPolicy(SamplingConfig(dtype="float32", max_new_tokens=8, threads=0), policy.training)
    auto._model, auto._tokenizer = policy.model, policy.tokenizer  # the loaded weights: no second load
    try:
        auto._thread_fit = ThreadFit(measure=lambda cpus: 0.0)  # no core reads as idle
        auto.sample(easy_tasks[:1], 1, temperature=0.0)
        assert auto.threads_in_use == torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(policy.sampling.threads)
