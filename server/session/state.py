"""The session as folded from its event log: what resume and listing need."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentls.contracts.messages import Message, ToolResultBlock, ToolUseBlock
from agentls.contracts.usage import Usage


@dataclass(slots=True)
class RunRecord:
    run_id: str
    prompt: str
    started_ts: float
    result: dict[str, Any] | None = None  # RunResult.to_dict, or a run_closed note
    turns: int = 0
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = 0.0  # None once any call's price is unknown
    mode: str | None = None  # the permission mode the run started in

    @property
    def finished(self) -> bool:
        return self.result is not None

    @property
    def outcome(self) -> str:
        """The terminal reason, or "unfinished" for a run that never ended."""
        if self.result is None:
            return "unfinished"
        return str(self.result.get("terminalReason", "unknown"))


@dataclass(frozen=True, slots=True)
class ContextSummary:
    """The last compaction summary: written by a model, kept apart from the history."""

    seq: int
    text: str
    pinned: str
    up_to: int  # it stands for messages[:up_to]


@dataclass(slots=True)
class SessionState:
    session_id: str = ""
    workspace: str = ""
    model: str = ""
    created_at: str = ""
    messages: list[Message] = field(default_factory=list)
    runs: list[RunRecord] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = 0.0  # None once any call's price is unknown
    mode: str | None = None  # the last mode_changed: the session's own mode
    session_allow: list[str] = field(default_factory=list)  # "always" rules, in order
    session_deny: list[str] = field(default_factory=list)
    notices: set[str] = field(default_factory=set)  # topics the person was told once
    last_process: int = 0  # the highest background process id started (p<N>)
    last_seq: int = 0
    context_summary: ContextSummary | None = None  # never part of ``messages``

    @property
    def open_run(self) -> RunRecord | None:
        """The last run that has no result: it crashed or is still going."""
        for run in reversed(self.runs):
            if run.result is None:
                return run
        return None

    def dangling_tool_uses(self) -> list[ToolUseBlock]:
        """Tool calls of the last assistant message that never got a tool_result."""
        for index in range(len(self.messages) - 1, -1, -1):
            if self.messages[index].role == "assistant":
                answered = {
                    block.tool_use_id
                    for later in self.messages[index + 1 :]
                    for block in later.content
                    if isinstance(block, ToolResultBlock)
                }
                return [u for u in self.messages[index].tool_uses if u.id not in answered]
        return []
