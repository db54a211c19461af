"""Reward: execution results -> training signal (`compute_reward`), a sum of registered terms."""

from spade.reward.base import Outcome, RewardTerm, register_term
from spade.reward.compute import compute_reward, learnability

__all__ = ["Outcome", "RewardTerm", "compute_reward", "learnability", "register_term"]
