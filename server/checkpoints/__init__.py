"""Checkpoints: the workspace before and after each turn that may change it."""
