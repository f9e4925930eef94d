"""The Agent Client Protocol face (`agentls acp`): the only code that imports `acp`."""
