"""The session as folded from its event log: what resume and listing need."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentls.contracts.messages import Message, ToolResultBlock, ToolUseBlock
from agentls.contracts.plans import Plan
from agentls.contracts.usage import Usage
from agentls.session.records import ForkOrigin


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
    # The ask's number: its place among the session's run_started events, from 1 (taken
    # back or not, so a number never changes); `agentls show` prints it.
    number: int = 0
    first_message: int = 0  # where its messages begin in the history
    seq: int = 0  # its run_started event
    rewound: bool = False  # a rewind took it back: its messages left the history
    last_mode: str | None = None  # the mode it was in last (a plan approved switches it)

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
    plan: Plan | None = None  # the model's latest checklist (update_plan)
    # The plan agreed in plan mode: one the person approved, or a plan-mode run's answer.
    agreed_plan: str | None = None
    forked_from: ForkOrigin | None = None

    def ask(self, number: int) -> RunRecord:
        """Ask ``number`` (1-based); ValueError naming the asks there are."""
        if 1 <= number <= len(self.runs):
            return self.runs[number - 1]
        if not self.runs:
            raise ValueError(f"no ask {number}: this session has no asks yet")
        last = len(self.runs)
        asks = "ask 1" if last == 1 else f"asks 1–{last}"
        raise ValueError(f"no ask {number} in this session ({asks})")

    def ask_of_run(self, run_id: str) -> RunRecord:
        """The ask run ``run_id`` answered; ValueError when no ask of the session is it."""
        for run in self.runs:
            if run.run_id == run_id:
                return run
        raise ValueError(f"no ask of this session ran as {run_id}")

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
