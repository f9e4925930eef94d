"""agentls permissions."""
