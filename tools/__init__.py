"""The built-in agent tools, written only against the Workspace interface."""
