"""Types shared by every part of agentls. This package does no IO."""
