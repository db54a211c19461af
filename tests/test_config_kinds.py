"""generation.kinds, the mix of task kinds: validated when the config loads (known kinds, weights >= 0 with one
> 0, kinds with families), and `--set generation.kinds.KIND=W` sets one weight, keeping the rest of the mix."""

from __future__ import annotations

import pytest

from spade.cli import _config
from spade.config import SpadeConfig, load_config
from spade.errors import ConfigError


def test_the_default_mix_is_python_functions_and_code_reasoning():
    assert SpadeConfig().generation.kinds == {"python_function": 1.0, "code_reasoning": 1.0}


def test_set_adds_one_kind_to_the_mix_and_a_map_value_replaces_it(tmp_path):
    assert _config(None, sets=["generation.kinds.program=1"]).generation.kinds == {
        "python_function": 1.0, "code_reasoning": 1.0, "program": 1.0}
    assert _config(None, sets=["generation.kinds={program: 2}", "selfplay.enabled=false"]).generation.kinds == {
        "program": 2.0}
    only = _config(None, sets=["generation.kinds.python_function=0", "generation.kinds.program=1"])
    assert only.generation.kinds == {"python_function": 0.0, "code_reasoning": 1.0, "program": 1.0}
    path = tmp_path / "mix.yaml"
    path.write_text("generation: {kinds: {program: 1}}\nselfplay: {enabled: false}\n")
    assert _config(str(path), sets=["generation.kinds.sql=2"]).generation.kinds == {"program": 1.0, "sql": 2.0}


def test_self_play_with_a_mix_that_leaves_out_its_kind_is_refused_in_one_line():
    """Self-play proposes code_reasoning tasks: with it on, generation.kinds={python_function: 1} cannot mean
    'Python functions only', so it is refused and the message names the fix; with self-play off it is just that."""
    with pytest.raises(ConfigError, match=r"selfplay.enabled: .*selfplay.enabled=false") as caught:
        _config(None, sets=["generation.kinds={python_function: 1}"])
    assert "\n" not in str(caught.value)
    off = _config(None, sets=["generation.kinds={python_function: 1}", "selfplay.enabled=false"])
    assert off.generation.kinds == {"python_function": 1.0}


@pytest.mark.parametrize(("mix", "message"), [
    ({"nope": 1.0}, "unknown task kind 'nope'; known kinds: .*program.*python_function"),
    ({"program": -1.0}, "kind 'program' has weight -1.0; weights are finite numbers >= 0"),
    ({"python_function": 0.0}, "give at least one kind a weight > 0"),
    ({}, "give at least one kind a weight > 0"),
    ({"program": float("inf")}, "weight inf"),
])
def test_a_bad_mix_is_refused_in_one_line_naming_the_key(mix, message):
    with pytest.raises(ConfigError, match=message) as err:
        load_config(None, {"generation.kinds": mix})
    assert str(err.value).startswith("override: generation.kinds") and "\n" not in str(err.value)


def test_a_weighted_kind_without_families_is_refused(monkeypatch):
    from spade.kinds import KINDS

    monkeypatch.setitem(KINDS._items, "familyless", object())
    with pytest.raises(ConfigError, match="kind 'familyless' has no registered families"):
        load_config(None, {"generation.kinds": {"familyless": 1.0}})
    assert load_config(None, {"generation.kinds": {"familyless": 0.0, "program": 1.0},
                              "selfplay.enabled": False}).generation.kinds
