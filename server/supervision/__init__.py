"""Child processes with a lifecycle, whatever protocol they speak.

`lifecycle.py`: one child's lifecycle (`Lifecycle`) over what its protocol knows
how to do (`Child`: launch with the handshake, halt, kill): started on first
need, restarted once after a crash, then given up on, its status told.
`registry.py`: children by scope and name (`Registry`), shared by the users of a
scope, retired when their configuration changes or the last user leaves.
Language servers (`intelligence`) and MCP servers (`mcp`) are its users.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

Child processes with a lifecycle, whatever protocol they speak (language servers, MCP
servers; background commands next).

`lifecycle.py`: `Lifecycle` over a `Child` (what its protocol does: `launch` with the
handshake, `halt`, `kill`, the give-up wording): started on first need by one launch
every waiter shares (a waiter's cancellation never stops it), a crash leaves it stopped
to start again once, a second crash or a failed launch leaves it failed until `reset`;
its `status()` and each change told to watchers.

`registry.py`: `Registry`, children by scope and name, made on first need, replaced when
their configuration changes or no longer wanted (`keep`), a scope's users counted and
the last to leave retiring its children, retired children stopped in the background
(killed when no loop is left), status of all, one change listener. Imports only the
contracts.
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
