"""SPADE as an environment for outside trainers (TRL, verl, OpenRLHF): grading, and the reward functions."""
