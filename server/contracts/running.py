"""The tool call running in this task, set by the tool runtime around each call.

A workspace that reviews edits itself reads it to know which tool makes an edit
(the permission rules name tools) and which call to show it on. Calls that write
run one at a time, each in the task of its call; concurrent read-only calls each
run in a task of their own, so none sees another's.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from agentls.contracts.tooling import ToolIntent

_RUNNING: ContextVar[ToolIntent | None] = ContextVar("agentls_running_call", default=None)


def running_call() -> ToolIntent | None:
    """The call the tool runtime is running in this task; None outside a tool call."""
    return _RUNNING.get()


@contextmanager
def calling(intent: ToolIntent) -> Iterator[None]:
    """``intent`` is the running call until the block ends."""
    token = _RUNNING.set(intent)
    try:
        yield
    finally:
        _RUNNING.reset(token)
