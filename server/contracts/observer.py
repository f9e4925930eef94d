"""Callbacks through which a face (terminal, editor) watches a run as it happens.

Observers are told; they decide nothing. A failing observer never breaks a
run: the loop and the runtime catch what an observer raises.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.contracts.outcomes import RunResult
from agentls.contracts.tooling import Observation, ToolIntent
from agentls.contracts.usage import Usage
from agentls.contracts.values import value


@value
class HookNotice:
    """What a settings hook gave the person to read: why it failed or was cut off (an
    error, which never stops the run by itself), or a message it asked to show."""

    event: str  # "PreToolUse", "Stop", ...
    command: str  # as the settings wrote it (masked)
    text: str
    error: bool = True


class RunObserver(Protocol):
    def text_delta(self, turn: int, text: str) -> None: ...

    def thinking_delta(self, turn: int, text: str) -> None: ...

    def tool_started(self, turn: int, intent: ToolIntent, summary: str) -> None: ...

    def tool_running(self, turn: int, intent: ToolIntent) -> None:
        """The gate let the call through (a person's yes included): it runs now."""
        ...

    def tool_finished(self, turn: int, observation: Observation, summary: str) -> None: ...

    def approval_asked(self, turn: int, request: ApprovalRequest) -> None: ...

    def approval_answered(
        self, turn: int, request: ApprovalRequest, answer: ApprovalAnswer
    ) -> None: ...

    def usage(self, turn: int, total: Usage, cost_usd: float | None) -> None: ...

    def hook_notice(self, turn: int, notice: HookNotice) -> None:
        """A settings hook has something for the person (each face shows it)."""
        ...

    def run_finished(self, result: RunResult) -> None: ...


class NullObserver:
    """Watches nothing; subclass and override what you need."""

    def text_delta(self, turn: int, text: str) -> None:
        pass

    def thinking_delta(self, turn: int, text: str) -> None:
        pass

    def tool_started(self, turn: int, intent: ToolIntent, summary: str) -> None:
        pass

    def tool_running(self, turn: int, intent: ToolIntent) -> None:
        pass

    def tool_finished(self, turn: int, observation: Observation, summary: str) -> None:
        pass

    def approval_asked(self, turn: int, request: ApprovalRequest) -> None:
        pass

    def approval_answered(
        self, turn: int, request: ApprovalRequest, answer: ApprovalAnswer
    ) -> None:
        pass

    def usage(self, turn: int, total: Usage, cost_usd: float | None) -> None:
        pass

    def hook_notice(self, turn: int, notice: HookNotice) -> None:
        pass

    def run_finished(self, result: RunResult) -> None:
        pass


def notify(callback: Callable[..., None], *args: Any) -> None:
    """Call an observer; what it raises is logged, never passed on to the run."""
    try:
        callback(*args)
    except Exception:
        logging.getLogger("agentls.observer").exception("observer %r failed", callback)
