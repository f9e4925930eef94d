"""Child processes with a lifecycle, whatever protocol they speak.

`lifecycle.py`: one child's lifecycle (`Lifecycle`) over what its protocol knows
how to do (`Child`: launch with the handshake, halt, kill): started on first
need, restarted once after a crash, then given up on, its status told.
`registry.py`: children by scope and name (`Registry`), shared by the users of a
scope, retired when their configuration changes or the last user leaves.
Language servers (`intelligence`) and MCP servers (`mcp`) are its users.
"""

from agentls.supervision.lifecycle import (
    Child,
    ChildFailed,
    ChildStatus,
    Event,
    Lifecycle,
    State,
)
from agentls.supervision.registry import Registry, Supervised

__all__ = [
    "Child",
    "ChildFailed",
    "ChildStatus",
    "Event",
    "Lifecycle",
    "Registry",
    "State",
    "Supervised",
]
