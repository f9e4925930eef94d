"""Old bulky tool results, elided to a stub that says how to get them again.

Only the tool_result's content changes: the block and its tool_use_id stay, so
no tool_use is ever left without its result.
"""

from __future__ import annotations

from collections.abc import Mapping

import orjson

from agentls.context.policy import BULKY_TOOL_RESULT_CHARS
from agentls.contracts.messages import ContentBlock, Message, ToolResultBlock, ToolUseBlock

_ARGS_CHARS = 200
_PREVIEW_CHARS = 120


def is_bulky(block: ContentBlock) -> bool:
    return isinstance(block, ToolResultBlock) and len(block.content) > BULKY_TOOL_RESULT_CHARS


def elide_message(message: Message, uses: Mapping[str, ToolUseBlock]) -> Message:
    """The message with each bulky tool result replaced by a stub."""
    blocks = tuple(
        ToolResultBlock(b.tool_use_id, stub(b, uses.get(b.tool_use_id)), b.is_error)
        if isinstance(b, ToolResultBlock) and is_bulky(b)
        else b
        for b in message.content
    )
    return Message(message.role, blocks)


def stub(result: ToolResultBlock, use: ToolUseBlock | None) -> str:
    if use is None:
        call = "this tool call"
    else:
        args = orjson.dumps(use.input).decode()
        if len(args) > _ARGS_CHARS:
            args = args[: _ARGS_CHARS - 1] + "…"
        call = f"{use.name} {args}"
    outcome = "an error of " if result.is_error else ""
    first_line = _first_line(result.content)
    return (
        f"[Elided to save context: {call} returned {outcome}{len(result.content):,} characters"
        f", beginning {first_line!r}. Call the tool again if you need them.]"
    )


def _first_line(text: str) -> str:
    # Only the head is looked at: the content may be tens of kilobytes.
    head = text[: _PREVIEW_CHARS * 4].lstrip()
    line = head.split("\n", 1)[0].strip()
    return line if len(line) <= _PREVIEW_CHARS else line[: _PREVIEW_CHARS - 1] + "…"
