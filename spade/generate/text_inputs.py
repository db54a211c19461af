"""Knobs and input draws shared by the string families: a size from the difficulty, one word or one sentence."""

from __future__ import annotations

import random
from typing import Any

from spade.generate.draws import sentence, word
from spade.generate.menu import span

TEXT_PARAMS = ("s", "text", "word", "string")


def text_size(difficulty: float, rng: random.Random) -> dict[str, Any]:
    return {"size": span(difficulty, 4, 10)}


def one_word(knobs: dict[str, Any], rng: random.Random) -> list[Any]:
    return [word(rng, 1, knobs["size"] + 4)]


def one_sentence(knobs: dict[str, Any], rng: random.Random) -> list[Any]:
    return [sentence(rng, knobs["size"], 1)]
