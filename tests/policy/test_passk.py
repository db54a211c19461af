"""pass@k: the product form equals brute-force enumeration of all k-subsets."""

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade.policy.passk import mean_pass_at_k, pass_at_k


@st.composite
def counts(draw):
    n = draw(st.integers(1, 9))
    return n, draw(st.integers(0, n)), draw(st.integers(1, n))


@given(counts())
def test_pass_at_k_equals_the_fraction_of_k_subsets_with_a_pass(nck):
    n, c, k = nck
    samples = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(samples, k))
    brute = sum(any(s) for s in subsets) / len(subsets)
    assert pass_at_k(n, c, k) == pytest.approx(brute, abs=1e-12)


def test_pass_at_1_is_the_pass_fraction():
    assert pass_at_k(8, 3, 1) == pytest.approx(3 / 8)


def test_large_counts_stay_finite_and_match_the_closed_form():
    n, c, k = 10_000, 17, 100
    exact = 1 - math.comb(n - c, k) / math.comb(n, k)
    assert pass_at_k(n, c, k) == pytest.approx(exact, rel=1e-9)


def test_mean_over_tasks_averages_each_task():
    assert mean_pass_at_k([(4, 0), (4, 4)], 2) == pytest.approx(0.5)


@pytest.mark.parametrize("n,c,k", [(4, 5, 1), (4, 2, 0), (4, 2, 5), (3, -1, 1)])
def test_impossible_counts_raise(n, c, k):
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)
