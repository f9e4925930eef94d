"""Shared pieces for the context-layer tests: a bulky tool, recording models, checks."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agentls.context.elision import elide_message
from agentls.context.summary import head_message
from agentls.contracts.messages import (
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    message_to_dict,
)
from agentls.contracts.model_io import (
    MessageDone,
    ModelError,
    ModelErrorKind,
    ModelEvent,
    ModelInput,
    TextDelta,
)
from agentls.contracts.tooling import Risk, ToolOutput
from agentls.contracts.usage import Usage
from agentls.conversation.one_session import Conversation
from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.settings import load_settings
from agentls.providers.base import ModelProvider, ProviderBase
from agentls.session import events as ev
from agentls.session.events import SessionEvent
from agentls.session.store import SessionStore
from agentls.workspace.interface import ToolContext, ToolDefinition
from agentls.workspace.local import LocalWorkspace


class DumpInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    n: int = Field(description="which page to dump")


def dump_text(n: int, size: int) -> str:
    line = f"page {n:04d}: deterministic filler text for a bulky tool output\n"
    return (line * (size // len(line) + 1))[:size]


def dump_tool(size: int) -> ToolDefinition[Any]:
    """A read tool whose output is ``size`` characters: the bulk a long session piles up."""

    async def run(args: DumpInput, ctx: ToolContext) -> ToolOutput:
        return ToolOutput(dump_text(args.n, size))

    return ToolDefinition(
        "dump", "Dump a page.", DumpInput, Risk.READ, run, "none",
        lambda a: str(a.n), lambda a: f"dump {a.n}",
    )  # fmt: skip


def snapshot(request: ModelInput) -> ModelInput:
    """The projector's message list grows in place: keep what this call saw."""
    return ModelInput(
        request.system, tuple(request.messages), tuple(request.tools), request.max_output_tokens
    )


def true_tokens(request: ModelInput) -> int:
    """The fake model's own count: denser than the projector's estimate, as real ones are."""
    chars = len(request.system) + sum(
        len(json.dumps([t.name, t.description, t.input_schema])) for t in request.tools
    )
    chars += sum(len(json.dumps(message_to_dict(m))) for m in request.messages)
    return int(chars / 3.5)


class LongSessionModel(ProviderBase):
    """Calls ``dump`` on every turn up to ``turns``, then answers; summarises when asked.

    It refuses a prompt over its window as the real APIs do, and reports the input
    tokens by its own count, so the projector's calibration is exercised.
    """

    def __init__(self, turns: int, window: int) -> None:
        self.turns = turns
        self.window = window
        self.inputs: list[ModelInput] = []
        self.summaries = 0
        self._answered = 0

    @property
    def model_id(self) -> str:
        return "scripted:long"

    @property
    def model_name(self) -> str:
        return "long"

    async def stream(self, request: ModelInput) -> AsyncIterator[ModelEvent]:
        seen = snapshot(request)
        self.inputs.append(seen)
        tokens = true_tokens(seen)
        if tokens > self.window:
            raise ModelError(f"prompt is too long: {tokens} tokens > {self.window} maximum",
                             kind=ModelErrorKind.PROMPT_TOO_LONG)  # fmt: skip
        usage = Usage(input_tokens=tokens, output_tokens=20)
        if not request.tools:
            self.summaries += 1
            text = f"Summary {self.summaries}: pages were dumped one by one; nothing failed."
            yield TextDelta(0, text)
            yield MessageDone(Message("assistant", (TextBlock(text),)), "end_turn", usage)
            return
        self._answered += 1
        if self._answered > self.turns:
            yield MessageDone(Message("assistant", (TextBlock("All pages dumped."),)), "end_turn",
                              usage)  # fmt: skip
            return
        use = ToolUseBlock(f"call_{self._answered}", "dump", {"n": self._answered})
        yield MessageDone(Message("assistant", (use,)), "tool_use", usage)


class Recording(ProviderBase):
    """Wraps a provider and keeps a snapshot of every ModelInput it was given."""

    def __init__(self, inner: ModelProvider) -> None:
        self.inner = inner
        self.inputs: list[ModelInput] = []

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    def seen(self, request: ModelInput) -> None:
        """What is kept of each request as it starts (a subclass may keep something else)."""
        self.inputs.append(snapshot(request))

    async def stream(self, request: ModelInput) -> AsyncIterator[ModelEvent]:
        self.seen(request)
        async for event in self.inner.stream(request):
            yield event


def open_conversation(
    tmp_path: Path,
    provider: ModelProvider,
    settings: dict[str, Any],
    *,
    tools: Sequence[ToolDefinition[Any]] | None = None,
    session_id: str | None = None,
) -> tuple[Conversation, ConversationManager]:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    kwargs: dict[str, Any] = {"provider_factory": lambda s: provider}
    if tools is not None:
        kwargs["tools"] = tools
    manager = ConversationManager(SessionStore(tmp_path / "state"), **kwargs)
    conv = manager.open(LocalWorkspace(workspace), load_settings(settings), session_id)
    return conv, manager


def assert_pairs_intact(messages: Sequence[Message]) -> None:
    """Each tool_use is answered in the next message, each tool_result answers the one before."""
    for index, message in enumerate(messages):
        if message.role == "assistant" and message.tool_uses:
            answered = {
                b.tool_use_id
                for b in (messages[index + 1].content if index + 1 < len(messages) else ())
                if isinstance(b, ToolResultBlock)
            }
            missing = {u.id for u in message.tool_uses} - answered
            assert not missing, f"message {index}: tool_use without its result: {missing}"
        results = [b.tool_use_id for b in message.content if isinstance(b, ToolResultBlock)]
        if results:
            before = messages[index - 1] if index > 0 else None
            asked = {u.id for u in before.tool_uses} if before is not None else set()
            orphans = set(results) - asked
            assert not orphans, f"message {index}: tool_result without its tool_use: {orphans}"


def replay_projections(events: Sequence[SessionEvent]) -> list[list[Message]]:
    """Each model_request's messages, rebuilt from the log alone (facts + projection events)."""
    facts: list[Message] = []
    uses: dict[str, ToolUseBlock] = {}
    summaries: dict[int, ev.ContextSummary] = {}
    shape = ev.ContextProjected(from_message=0, elided_before=0, bulky_chars=0, elided=0,
                                estimated_tokens=0, compact_at=0, window=0)  # fmt: skip
    out: list[list[Message]] = []
    for event in events:
        if isinstance(event, ev.UserMessage | ev.ModelOutput | ev.ToolResults):
            facts.append(event.message)
            uses.update((u.id, u) for u in event.message.tool_uses)
        elif isinstance(event, ev.ContextSummary):
            summaries[event.seq] = event
        elif isinstance(event, ev.ContextProjected):
            shape = event
        elif isinstance(event, ev.ModelRequest):
            start, frontier = shape.from_message, shape.elided_before
            # Results before elidedFrom stay as they are.
            kept = start if shape.elided_from is None else shape.elided_from
            view = [
                elide_message(m, uses) if kept <= i < frontier else m
                for i, m in enumerate(facts)
                if i >= start
            ]
            if shape.summary_seq is not None:
                summary = summaries[shape.summary_seq]
                view.insert(0, head_message(summary.text, summary.pinned, start))
            out.append(view)
    return out


def without_breakpoints(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """API messages without their cache_control marks, which move as the history grows."""
    return [{**m, "content": [_unmarked(b) for b in m["content"]]} for m in messages]


def _unmarked(block: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in block.items() if k != "cache_control"}
