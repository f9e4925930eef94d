"""A run's callbacks as ACP session updates: text, thoughts, tool calls, usage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    Cost,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
)

from agentls.acp.toolcalls import kind_of, locations, text_content
from agentls.acp.updates import UpdateStream
from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.contracts.observer import HookNotice
from agentls.contracts.outcomes import RunResult
from agentls.contracts.tooling import Observation, ToolIntent
from agentls.contracts.usage import Usage


class AcpObserver:
    """A call is ``pending`` from its start until the gate lets it through (a question
    answered yes), then ``in_progress``; an edit's review is the workspace's, which says
    when it runs (`AcpWorkspace`)."""

    def __init__(
        self,
        *,
        updates: UpdateStream,
        root: Path,
        window: int,
        cost_before: float | None,
        calls: dict[str, ToolIntent] | None = None,
    ) -> None:
        self.updates = updates
        self.root = root
        self.window = window
        self.cost_before = cost_before  # the session's earlier runs; None once unknown
        self.cost_usd: float | None = 0.0  # this run's, as last reported
        self._last_total = Usage()
        self._kinds: dict[str, str] = {}
        self.calls = calls if calls is not None else {}  # the open calls, for the approver

    def text_delta(self, turn: int, text: str) -> None:
        self.updates.push(
            AgentMessageChunk(session_update="agent_message_chunk", content=_text(text))
        )

    def thinking_delta(self, turn: int, text: str) -> None:
        self.updates.push(
            AgentThoughtChunk(session_update="agent_thought_chunk", content=_text(text))
        )

    def tool_started(self, turn: int, intent: ToolIntent, summary: str) -> None:
        kind = kind_of(intent.name)
        self._kinds[intent.call_id] = kind
        self.calls[intent.call_id] = intent
        self.updates.push(
            ToolCallStart(
                session_update="tool_call",
                tool_call_id=intent.call_id,
                title=summary,
                kind=kind,
                status="pending",  # the gate has not let it through yet
                raw_input=intent.input,
                locations=locations(self.root, intent.input),
            )
        )

    def tool_running(self, turn: int, intent: ToolIntent) -> None:
        if self._kinds.get(intent.call_id) == "edit":
            return  # it runs once the workspace's review (if any) lets it
        self.updates.push(
            ToolCallProgress(
                session_update="tool_call_update", tool_call_id=intent.call_id, status="in_progress"
            )
        )

    def tool_finished(self, turn: int, observation: Observation, summary: str) -> None:
        self.calls.pop(observation.call_id, None)
        edit = self._kinds.pop(observation.call_id, None) == "edit"
        # An edit keeps its diff; its outcome is shown only when it did not land.
        shown: list[Any] | None = (
            None if edit and observation.ok else [text_content(observation.content)]
        )
        self.updates.push(
            ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=observation.call_id,
                status="completed" if observation.ok else "failed",
                content=shown,
                raw_output={"content": observation.content, "error": observation.error},
            )
        )

    def approval_asked(self, turn: int, request: ApprovalRequest) -> None:
        pass  # the approver asks the client itself

    def approval_answered(
        self, turn: int, request: ApprovalRequest, answer: ApprovalAnswer
    ) -> None:
        pass

    def usage(self, turn: int, total: Usage, cost_usd: float | None) -> None:
        last = _minus(total, self._last_total)  # this turn's call: what the context holds now
        self._last_total = total
        self.cost_usd = cost_usd
        session_cost = (
            None if cost_usd is None or self.cost_before is None else self.cost_before + cost_usd
        )
        self.updates.push(
            UsageUpdate(
                session_update="usage_update",
                used=last.total_tokens,
                size=self.window,
                cost=None if session_cost is None else Cost(amount=session_cost, currency="USD"),
            )
        )

    def hook_notice(self, turn: int, notice: HookNotice) -> None:
        """ACP has no notice of its own: a line of the agent's message, as other notices."""
        said = f"\n\nagentls: {notice.event} hook `{notice.command}`: {notice.text}\n\n"
        self.updates.push(
            AgentMessageChunk(session_update="agent_message_chunk", content=_text(said))
        )

    def run_finished(self, result: RunResult) -> None:
        self.cost_usd = result.cost_usd


def _text(text: str) -> TextContentBlock:
    return TextContentBlock(type="text", text=text)


def _minus(a: Usage, b: Usage) -> Usage:
    return Usage(
        a.input_tokens - b.input_tokens,
        a.output_tokens - b.output_tokens,
        a.cache_read_tokens - b.cache_read_tokens,
        a.cache_write_tokens - b.cache_write_tokens,
    )
