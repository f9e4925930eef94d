"""The `agentls.*` commands, one module per command."""
