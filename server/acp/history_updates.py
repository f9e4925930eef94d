"""session/load: an earlier session's history, replayed as updates from its log alone
(the model's checklist as a `plan` update where each `update_plan` call ran)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    ImageContentBlock,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    UserMessageChunk,
)

from agentls.acp.observer import plan_update
from agentls.acp.toolcalls import kind_of, locations, text_content
from agentls.contracts.messages import (
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from agentls.contracts.plans import PLAN_TOOL, Plan
from agentls.session import events as ev
from agentls.session.reader import read_events


def history_updates(
    messages: Sequence[Message], root: Path, titles: Mapping[str, str]
) -> Iterator[Any]:
    """``titles``: the one-line summaries the log recorded for each call, by call id."""
    plans: dict[str, Plan] = {}
    for message in messages:
        for block in message.content:
            if isinstance(block, ToolUseBlock) and block.name == PLAN_TOOL:
                plan = Plan.from_input(block.input)
                if plan is not None:
                    plans[block.id] = plan
            yield from _block(message.role, block, root, titles)
            if isinstance(block, ToolResultBlock) and block.tool_use_id in plans:
                ran = plans.pop(block.tool_use_id)
                if not block.is_error:
                    yield plan_update(ran)


def call_titles(log_path: Path) -> dict[str, str]:
    titles = {}
    for event in read_events(log_path, kinds=(ev.TOOL_INTENT,)):
        if isinstance(event, ev.ToolIntent) and event.summary is not None:
            titles[event.call_id] = event.summary
    return titles


def _block(role: str, block: Any, root: Path, titles: Mapping[str, str]) -> Iterator[Any]:
    if isinstance(block, TextBlock) and block.text:
        content = TextContentBlock(type="text", text=block.text)
        if role == "user":
            yield UserMessageChunk(session_update="user_message_chunk", content=content)
        else:
            yield AgentMessageChunk(session_update="agent_message_chunk", content=content)
    elif isinstance(block, ImageBlock) and block.data and role == "user":
        image = ImageContentBlock(type="image", data=block.data, mime_type=block.media_type)
        yield UserMessageChunk(session_update="user_message_chunk", content=image)
    elif isinstance(block, ThinkingBlock) and block.thinking:
        content = TextContentBlock(type="text", text=block.thinking)
        yield AgentThoughtChunk(session_update="agent_thought_chunk", content=content)
    elif isinstance(block, ToolUseBlock):
        title = titles.get(block.id) or _title(block)
        yield ToolCallStart(
            session_update="tool_call",
            tool_call_id=block.id,
            title=title,
            kind=kind_of(block.name),
            status="pending",
            raw_input=block.input,
            locations=locations(root, block.input),
        )
    elif isinstance(block, ToolResultBlock):
        yield ToolCallProgress(
            session_update="tool_call_update",
            tool_call_id=block.tool_use_id,
            status="failed" if block.is_error else "completed",
            content=[text_content(block.content)],
        )


def _title(block: ToolUseBlock) -> str:
    for key in ("command", "path", "pattern"):
        value = block.input.get(key)
        if isinstance(value, str) and value:
            return f"{block.name} {value}"
    return block.name
