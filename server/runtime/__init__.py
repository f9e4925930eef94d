"""agentls runtime."""
