"""Projects session state into the next turn's ModelInput.

For now the projection is the whole history; trimming and compaction will
attach here. It never mutates state, and its token estimate is incremental
so a long session does not pay O(history) per turn for it.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentls.contracts.messages import Message, TextBlock, ThinkingBlock, ToolResultBlock
from agentls.contracts.model_io import ModelInput, ToolSpec

CHARS_PER_TOKEN = 4


def message_chars(message: Message) -> int:
    total = 0
    for block in message.content:
        if isinstance(block, TextBlock):
            total += len(block.text)
        elif isinstance(block, ToolResultBlock):
            total += len(block.content)
        elif isinstance(block, ThinkingBlock):
            total += len(block.thinking)
        else:
            total += 64 + len(str(block.input))
    return total


class ContextProjector:
    def __init__(self) -> None:
        self._counted = 0
        self._chars = 0

    def project(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        max_output_tokens: int,
    ) -> ModelInput:
        return ModelInput(system, messages, tools, max_output_tokens)

    def estimated_tokens(self, messages: Sequence[Message]) -> int:
        if len(messages) < self._counted:  # a new history: count from scratch
            self._counted = self._chars = 0
        for message in messages[self._counted :]:
            self._chars += message_chars(message)
        self._counted = len(messages)
        return self._chars // CHARS_PER_TOKEN
