import random

import pytest

from spade.errors import ConfigError
from spade.generate import register
from spade.generate.family import Family, Variant
from spade.generate.menu import MenuFamily, Op
from spade.generate.registry import get_family, resolve_families


class _Echo(Family):
    name = "list_aggregate"
    tags = ("test",)

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        raise NotImplementedError

    def random_input(self, knobs, rng):
        return [1]

    def edge_inputs(self, knobs):
        return []


def test_registering_a_duplicate_name_raises():
    get_family("list_aggregate")
    with pytest.raises(ValueError, match="already registered"):
        register(_Echo())


def test_an_unknown_family_raises_config_error_listing_the_known_ones():
    with pytest.raises(ConfigError, match="unknown family 'nope'.*list_aggregate"):
        get_family("nope")


def test_an_empty_family_list_means_every_family():
    assert len(resolve_families([])) >= 20


def test_a_menu_refuses_parameter_names_that_clash_with_its_body():
    op = Op("x", 0.0, ("f",), (("total",),), "def $name($a0: int) -> int:", ("Return $a0.",),
            "    total = 1\n    return $a0 + total", lambda k, r: [1])
    with pytest.raises(ValueError, match="clashes"):
        MenuFamily("clash", ("t",), (op,))
