"""agentls loop."""
