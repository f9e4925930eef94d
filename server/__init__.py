"""agentls: a coding agent that lives inside a language server."""

__version__ = "0.1.0"
