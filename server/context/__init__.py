"""Projecting session state into the next ModelInput."""
