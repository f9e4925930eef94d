"""agentls providers."""
