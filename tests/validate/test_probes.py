"""Probe inputs made by editing a task's own inputs: new, deterministic, bounded, of the inputs' own shapes."""

from __future__ import annotations

from spade.validate.probes import argument_probes, stdin_probes

INPUTS = [([[1, 2], [2, 1]],), ([[5]],)]


def test_argument_probes_are_new_distinct_deterministic_and_keep_each_arguments_type():
    probes = argument_probes(INPUTS, 24, "t")
    assert probes == argument_probes(INPUTS, 24, "t") and len(probes) == len(set(map(repr, probes)))
    assert not {repr(p) for p in probes} & {repr(a) for a in INPUTS}
    assert all(len(p) == 1 and isinstance(p[0], list) for p in probes)
    assert ([[1, 2], [3, 1]],) in probes or ([[2, 2], [2, 1]],) in probes  # a symmetric matrix made asymmetric


def test_arguments_of_several_tests_are_crossed_and_stdin_integers_nudged():
    crossed = argument_probes([(1, "a"), (2, "b")], 50, "t")
    assert (1, "b") in crossed and (2, "a") in crossed
    assert set(stdin_probes([("3\n1 2 3\n",)], 50, "t")) >= {("4\n1 2 3\n",), ("3\n1 2 2\n",)}
    assert stdin_probes([("no numbers here",)], 10, "t") == []
    assert len(argument_probes([([0] * 10_000,)] * 200, 24, "big")) <= 24
