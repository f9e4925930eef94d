"""Conversation messages and their content blocks.

Immutable value classes (`values.value`): they are built and read on every turn, so they stay
cheap; the session log converts them to and from dicts.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal

from agentls.contracts.values import value

Role = Literal["user", "assistant"]


@value
class TextBlock:
    text: str


@value
class ThinkingBlock:
    """Kept verbatim (signature included) so it can be sent back unchanged."""

    thinking: str
    signature: str = ""
    redacted_data: str | None = None


@value
class ImageBlock:
    """An image the person gave. The log keeps it by hash (``sha256`` names the file in the
    session's folder); ``data`` (base64) is filled where the session's images are read, and
    takes no part in comparing blocks."""

    media_type: str  # image/png, image/jpeg, image/gif or image/webp
    sha256: str
    size: int  # bytes
    width: int
    height: int
    data: str = field(default="", compare=False, repr=False)


@value
class ToolUseBlock:
    id: str
    name: str
    input: dict[str, Any]


# A tool_use whose input is not a JSON object (a response cut off mid-call) keeps the
# raw text under this key; the runtime answers such a call invalid_input.
INVALID_JSON_KEY = "__invalid_json__"


@value
class ToolResultBlock:
    tool_use_id: str
    content: str
    is_error: bool = False


ContentBlock = TextBlock | ThinkingBlock | ImageBlock | ToolUseBlock | ToolResultBlock


@value
class Message:
    role: Role
    content: tuple[ContentBlock, ...] = field(default_factory=tuple)

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def images(self) -> tuple[ImageBlock, ...]:
        return tuple(b for b in self.content if isinstance(b, ImageBlock))

    @property
    def tool_uses(self) -> tuple[ToolUseBlock, ...]:
        return tuple(b for b in self.content if isinstance(b, ToolUseBlock))


def user_text(text: str) -> Message:
    return Message("user", (TextBlock(text),))


def user_prompt(text: str, images: tuple[ImageBlock, ...] = ()) -> Message:
    """The person's prompt: the images first, as the model APIs advise, then the words."""
    return Message("user", (*images, TextBlock(text)))


def block_to_dict(block: ContentBlock) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ThinkingBlock):
        if block.redacted_data is not None:
            return {"type": "redacted_thinking", "data": block.redacted_data}
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    if isinstance(block, ToolUseBlock):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if isinstance(block, ImageBlock):
        source = {"type": "base64", "media_type": block.media_type, "data": block.data}
        return {"type": "image", "source": source}
    return {
        "type": "tool_result",
        "tool_use_id": block.tool_use_id,
        "content": block.content,
        "is_error": block.is_error,
    }


def message_to_dict(message: Message) -> dict[str, Any]:
    return {"role": message.role, "content": [block_to_dict(b) for b in message.content]}
