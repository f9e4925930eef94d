"""What a provider receives (ModelInput) and the events it streams back."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any, Literal

from agentls.contracts.messages import Message
from agentls.contracts.usage import Usage
from agentls.contracts.values import value

StopReason = Literal[
    "end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "pause_turn", "other"
]


@value
class ToolSpec:
    """A tool as the model sees it: a definition, never the code."""

    name: str
    description: str
    input_schema: dict[str, Any]


@value
class ModelInput:
    system: str
    messages: Sequence[Message]
    tools: Sequence[ToolSpec]
    max_output_tokens: int = 8192
    # The first ``stable_prefix`` messages stay the same until the context layer next
    # elides or compacts: where a provider's prompt cache is worth a breakpoint.
    stable_prefix: int = 1


# --- the ModelEvent stream -------------------------------------------------
# A provider yields these in order; the last one is always MessageDone.


@value
class TextDelta:
    index: int
    text: str


@value
class ThinkingDelta:
    index: int
    text: str


@value
class MessageDone:
    message: Message
    stop_reason: StopReason
    usage: Usage


# Only what the loop reads: text and thinking as they stream, then the whole message
# (its tool calls complete) in MessageDone.
ModelEvent = TextDelta | ThinkingDelta | MessageDone


class ModelErrorKind(StrEnum):
    """Why a model call failed, for code to act on (the loop compacts on PROMPT_TOO_LONG)."""

    API = "api"  # any other error the API returned
    AUTH = "auth"
    PERMISSION = "permission"
    NOT_FOUND = "not_found"
    BAD_REQUEST = "bad_request"
    PROMPT_TOO_LONG = "prompt_too_long"
    RATE_LIMIT = "rate_limit"
    OVERLOADED = "overloaded"
    TIMEOUT = "timeout"
    CONNECTION = "connection"
    STREAM = "stream"  # a malformed or cut-off response
    PROVIDER = "provider"  # the provider's code raised something else
    SCRIPT = "script"  # a scripted model's script does not hold
    REPLAY = "replay"  # a replayed recording has no more output


class ModelError(Exception):
    """The model call failed after the provider's own retries.

    ``kind`` is a machine-readable tag; the message is meant for a person.
    """

    def __init__(
        self, message: str, *, kind: ModelErrorKind = ModelErrorKind.API, status: int | None = None
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
