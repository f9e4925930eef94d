"""agentls conversation."""
