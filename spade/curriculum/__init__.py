"""Curriculum: the co-evolution controller and the replay choice."""

from spade.curriculum.controller import Controller
from spade.curriculum.replay import choose_replay

EXTERNAL = "external"  # the controller's family for tasks without a procedural family (LLM-proposed, files)

__all__ = ["EXTERNAL", "Controller", "choose_replay"]
