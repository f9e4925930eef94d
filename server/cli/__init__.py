"""agentls cli."""
