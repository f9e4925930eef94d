"""A session's background processes as every face sees them: what runs, and what changed.

A background process is a command `run_command` started with ``background: true``;
it runs until it exits, the model or a person stops it, or its session ends. No IO.
"""

from __future__ import annotations

from typing import Literal

from agentls.contracts.values import value

# running: not exited yet; exited: ended by itself; stopped: ended by a stop.
ProcessState = Literal["running", "exited", "stopped"]
ProcessAction = Literal["started", "exited", "stopped"]
# Who stopped it: the model (process_stop), a person (agentls.processes), the end of its
# session (a face closing it, shutdown, the editor gone), or an undo of the ask.
StoppedBy = Literal["model", "person", "session end", "undo", "rewind"]


@value
class CallRef:
    """The tool call that started a process: its run, turn and call id."""

    run_id: str | None = None
    turn: int | None = None
    call_id: str = ""


@value
class ProcessInfo:
    id: str  # p1, p2, ... in the order its session started them
    command: str  # the line as the gate and any person saw it
    state: ProcessState
    exit_code: int | None  # once it has ended; negative: killed by that signal
    started_at: float  # UNIX seconds
    origin: CallRef
    # Where it runs: "session" (the session's shared sandbox), "own" (a sandbox of its
    # own), "none" (no sandbox: the sandbox is off or missing).
    sandbox: str = "session"


@value
class ProcessChange:
    """A process started, exited by itself, or was stopped (and by whom)."""

    action: ProcessAction
    process: ProcessInfo
    by: StoppedBy | None = None


@value
class ProcessRead:
    """One read of a process: its state now, what it wrote since the last read, and how
    many bytes of that were dropped (more than is kept came between two reads)."""

    process: ProcessInfo
    output: str
    dropped: int = 0
