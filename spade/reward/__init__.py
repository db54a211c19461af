"""Reward: execution results -> training signal (`compute_reward`)."""

from spade.reward.terms import compute_reward

__all__ = ["compute_reward"]
