"""Reward: execution results -> training signal (`compute_reward`)."""

from spade.reward.terms import compute_reward, learnability

__all__ = ["compute_reward", "learnability"]
