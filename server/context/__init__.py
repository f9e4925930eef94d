"""agentls context."""
