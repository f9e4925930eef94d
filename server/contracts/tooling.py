"""Tool calls, their outcomes and the tool-definition shape tools are written to."""

from __future__ import annotations

from dataclasses import field
from enum import StrEnum
from typing import Any

from agentls.contracts.plans import Plan
from agentls.contracts.values import value


class Risk(StrEnum):
    READ = "read"
    WRITE = "write"
    EXECUTE = "execute"
    # A tool another program provides (an MCP server): asked by default, hidden in plan mode.
    EXTERNAL = "external"
    # A proposal to the memory store: changes no file, shown in plan mode too, and kept
    # only when a person (or --yes) says yes, whatever the mode.
    MEMORY = "memory"
    # A plan put to the person (plan mode's way out): shown only in plan mode; the
    # person's answer, never the call, may change the mode.
    PLAN = "plan"

    @property
    def changes_no_file(self) -> bool:
        """Calls of this risk never change a file (a memory or a plan proposal neither)."""
        return self in (Risk.READ, Risk.MEMORY, Risk.PLAN)


class ErrorCode(StrEnum):
    NOT_FOUND = "not_found"
    INVALID_INPUT = "invalid_input"
    PERMISSION_DENIED = "permission_denied"
    TIMEOUT = "timeout"
    EXECUTION_FAILED = "execution_failed"
    CONFLICT = "conflict"
    CANCELLED = "cancelled"


@value
class ToolIntent:
    """The model asked for this call; nothing has been decided yet."""

    call_id: str
    name: str
    input: dict[str, Any]


@value
class Observation:
    """What came of one tool call; goes back to the model as a tool_result."""

    call_id: str
    name: str
    content: str
    error: ErrorCode | None = None
    retryable: bool = False
    # Facts for the log and the faces (bytes cut, exit code, paths touched...).
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None


class ToolError(Exception):
    """Raised by a tool for an outcome the model should hear about."""

    def __init__(self, code: ErrorCode, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.retryable = retryable


@value
class ToolOutput:
    """A tool's successful result: text for the model plus facts for the log."""

    text: str
    meta: dict[str, Any] = field(default_factory=dict)
    # The checklist a call set (update_plan): the runtime logs it and tells the faces.
    plan: Plan | None = None
