"""Child processes with a lifecycle, whatever protocol they speak.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

Child processes with a lifecycle, whatever protocol they speak: language servers
(`intelligence`), MCP servers (`mcp`), a session's sandbox and its background commands
(`workspace`).

`lifecycle.py`: `Lifecycle` over a `Child` (what its protocol does: `launch` with the
handshake, `halt`, `kill`, the give-up wording): started on first need by one launch
every waiter shares (a waiter's cancellation never stops it), a crash leaves it stopped
to start again once, a second crash or a failed launch leaves it failed until `reset`;
its `status()` and each change told to watchers.

`registry.py`: `Registry`, children by scope and name, made on first need, replaced when
their configuration changes or no longer wanted (`keep`), a scope's users counted and
the last to leave retiring its children, retired children stopped in the background
(killed when no loop is left), status of all, one change listener.

`processes.py`: `ProcessTable`, a session's background processes over the `Launch`
each is started by: ids `p1`, `p2`, ... (going on from those the log used), at most
`limit` running (more refused before anything starts), output kept until read (at most
256 KiB; what was dropped counted and said), a character cut between two writes kept
whole, every start, exit and stop told to its listeners; stopped one by one, all (or
those picked), or killed at once without a loop.

Imports only the contracts.
"""

from agentls.supervision.lifecycle import (
    Child,
    ChildFailed,
    ChildStatus,
    Event,
    Lifecycle,
    State,
)
from agentls.supervision.processes import ProcessTable
from agentls.supervision.registry import Registry, Supervised

__all__ = [
    "Child",
    "ChildFailed",
    "ChildStatus",
    "Event",
    "Lifecycle",
    "ProcessTable",
    "Registry",
    "State",
    "Supervised",
]
