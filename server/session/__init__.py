"""agentls session."""
