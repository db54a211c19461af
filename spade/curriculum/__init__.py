"""Curriculum: the co-evolution controller and the replay choice."""

from spade.curriculum.controller import Controller
from spade.curriculum.replay import choose_replay

__all__ = ["Controller", "choose_replay"]
