"""The Anthropic Messages API as a ModelProvider, streamed through the official SDK.

Raw stream events (``create(stream=True)``) are turned into ModelEvents one by
one; blocks are rebuilt here so thinking signatures and tool input survive
verbatim. Every SDK or httpx2 failure leaves as a one-line ModelError.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard, TypeVar, cast

import anthropic
import httpx2
from anthropic import types as api

from agentls.contracts.errors import ConfigError
from agentls.contracts.messages import (
    INVALID_JSON_KEY,
    ContentBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    message_to_dict,
)
from agentls.contracts.model_io import (
    MessageDone,
    ModelError,
    ModelErrorKind,
    ModelEvent,
    ModelInput,
    StopReason,
    TextDelta,
    ThinkingDelta,
)
from agentls.contracts.usage import Usage
from agentls.providers.base import ProviderBase
from agentls.providers.errors import describe, error_field, one_line
from agentls.providers.warm import import_transport

CREDENTIAL_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
KNOWN_STOP_REASONS: frozenset[str] = frozenset(
    {"end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "pause_turn"}
)
T = TypeVar("T")


def require_api_key() -> str:
    """The Anthropic credential from the environment, or a ConfigError saying how to set it."""
    for var in CREDENTIAL_VARS:
        value = os.environ.get(var, "").strip()
        if value:
            return value
    raise ConfigError(
        "no Anthropic API key: set ANTHROPIC_API_KEY (e.g. `export ANTHROPIC_API_KEY=sk-ant-...`),"
        " or try the scripted demo model with `--model scripted:FILE`"
    )


class AnthropicProvider(ProviderBase):
    def __init__(
        self,
        model_name: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = 4,
        timeout_seconds: float = 600.0,
        connect_timeout_seconds: float = 5.0,
        max_output_tokens: int | None = None,
        prompt_caching: bool = True,
        tool_choice: str = "auto",
    ) -> None:
        """``max_output_tokens`` overrides ModelInput.max_output_tokens when set."""
        self._model_name = model_name
        self._prompt_caching = prompt_caching
        self._tool_choice = tool_choice
        self._api_key = api_key
        self._base_url = base_url  # None: the SDK reads ANTHROPIC_BASE_URL
        self._max_retries = max_retries
        self._max_output_tokens = max_output_tokens
        self._timeout = httpx2.Timeout(timeout_seconds, connect=connect_timeout_seconds)
        self._client: anthropic.AsyncAnthropic | None = None

    @property
    def model_id(self) -> str:
        return f"anthropic:{self._model_name}"

    @property
    def model_name(self) -> str:
        return self._model_name

    def warm_up(self) -> None:
        """Build the client and load what the first request would (blocking: a thread's)."""
        import_transport()
        with contextlib.suppress(ModelError):  # no key: the first request says so
            self._get_client()

    def _get_client(self) -> anthropic.AsyncAnthropic:
        if self._client is None:
            if self._api_key is None:
                try:  # without a key the SDK only fails at request time, with a TypeError
                    require_api_key()
                except ConfigError as exc:
                    raise ModelError(str(exc), kind=ModelErrorKind.AUTH) from None
            self._client = anthropic.AsyncAnthropic(
                api_key=self._api_key,
                base_url=self._base_url,
                max_retries=self._max_retries,
                timeout=self._timeout,
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def stream(self, request: ModelInput) -> AsyncIterator[ModelEvent]:
        client = self._get_client()
        kwargs: dict[str, Any] = {
            "model": self._model_name,
            "max_tokens": self._max_output_tokens or request.max_output_tokens,
            "messages": to_api_messages(
                request.messages, cache=self._prompt_caching, stable=request.stable_prefix
            ),
        }
        if request.system:
            system: dict[str, Any] = {"type": "text", "text": request.system}
            if self._prompt_caching:  # tools come first in the prefix: this caches both
                system["cache_control"] = {"type": "ephemeral"}
            kwargs["system"] = [system]
        if request.tools:
            kwargs["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.input_schema}
                for t in request.tools
            ]
            if self._tool_choice != "auto":
                kwargs["tool_choice"] = api_tool_choice(self._tool_choice)
        assembler = _Assembler()
        try:
            events = await client.messages.create(stream=True, **kwargs)
            async with events:  # closes the response on cancellation or early exit too
                async for event in events:
                    try:
                        model_events = assembler.feed(event)
                    except (AttributeError, TypeError, ValueError) as exc:
                        raise ModelError(
                            f"unexpected event from the Anthropic API ({describe(exc)})",
                            kind=ModelErrorKind.STREAM,
                        ) from None
                    for model_event in model_events:
                        yield model_event
        except ModelError:
            raise
        except Exception as exc:  # CancelledError is a BaseException and passes untouched
            raise to_model_error(exc, self._model_name) from None
        yield assembler.done()


def to_api_messages(
    messages: Sequence[Message], *, cache: bool = False, stable: int = 1
) -> list[api.MessageParam]:
    result: list[dict[str, Any]] = []
    for message in messages:
        data = message_to_dict(message)
        # The API rejects empty text blocks, which an interrupted turn can leave behind.
        data["content"] = [b for b in data["content"] if b.get("type") != "text" or b["text"]]
        result.append(data)
    if cache:
        mark_cache_breakpoints(result, stable)
    return cast(list[api.MessageParam], result)


def mark_cache_breakpoints(messages: Sequence[dict[str, Any]], stable: int = 1) -> None:
    """Prompt-cache breakpoints where the prefix stays the same from one call to the next.

    Three (the API allows four; the system prompt has one): the last message, so the
    next call reads this one's prefix back; the last user message before the latest
    assistant turn, where the previous call ended, so it still hits when a turn adds
    more blocks than the API looks back over; and the end of the ``stable`` messages
    (the first prompt or compaction summary, then what precedes the elided results'
    frontier), which the context layer's next step leaves as it is: that step then
    reads them from the cache.
    """
    last = len(messages) - 1
    previous = last - 1
    while previous >= 0 and messages[previous]["role"] != "assistant":
        previous -= 1
    previous -= 1  # the message before the latest assistant turn
    for index in sorted({last, previous, max(0, stable - 1)}, reverse=True):
        if 0 <= index <= last:
            _mark_last_block(messages[index])


def _mark_last_block(message: dict[str, Any]) -> None:
    for block in reversed(message["content"]):
        # Thinking blocks cannot carry a breakpoint; a later block caches them anyway.
        if block.get("type") not in ("thinking", "redacted_thinking"):
            block["cache_control"] = {"type": "ephemeral"}
            return


@dataclass
class _OpenBlock:
    kind: str  # "text" | "thinking" | "redacted_thinking" | "tool_use"
    parts: list[str] = field(default_factory=list)
    signature: str = ""
    redacted_data: str = ""
    tool_id: str = ""
    tool_name: str = ""

    def finish(self) -> ContentBlock:
        text = "".join(self.parts)
        if self.kind == "text":
            return TextBlock(text)
        if self.kind == "thinking":
            return ThinkingBlock(text, self.signature)
        if self.kind == "redacted_thinking":
            return ThinkingBlock("", "", self.redacted_data)
        return ToolUseBlock(self.tool_id, self.tool_name, parse_tool_input(text))


def parse_tool_input(raw: str) -> dict[str, Any]:
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    # Cut-off or non-object input is passed on so the runtime reports invalid input.
    return value if isinstance(value, dict) else {INVALID_JSON_KEY: raw}


class _Assembler:
    """Raw stream events in, ModelEvents out; remembers what MessageDone needs."""

    def __init__(self) -> None:
        self.open: dict[int, _OpenBlock] = {}
        self.finished: dict[int, ContentBlock] = {}
        self.usage = Usage()
        self.stop_reason: StopReason = "other"
        self.stopped = False

    def feed(self, event: api.RawMessageStreamEvent) -> list[ModelEvent]:
        """Unknown event and block types are skipped: the API adds them over time."""
        if _is(event, api.RawMessageStartEvent, "message_start"):
            self._take_usage(event.message.usage)
        elif _is(event, api.RawContentBlockStartEvent, "content_block_start"):
            return self._start(_checked(event.index, int), event.content_block)
        elif _is(event, api.RawContentBlockDeltaEvent, "content_block_delta"):
            return self._delta(_checked(event.index, int), event.delta)
        elif _is(event, api.RawContentBlockStopEvent, "content_block_stop"):
            block = self.open.pop(event.index, None)
            if block is not None:
                self.finished[event.index] = block.finish()
        elif _is(event, api.RawMessageDeltaEvent, "message_delta"):
            reason = event.delta.stop_reason
            self.stop_reason = cast(StopReason, reason if reason in KNOWN_STOP_REASONS else "other")
            self._take_usage(event.usage)
        elif _is(event, api.RawMessageStopEvent, "message_stop"):
            self.stopped = True
        return []

    def _start(self, index: int, block: object) -> list[ModelEvent]:
        if _is(block, api.TextBlock, "text"):
            text = _checked(block.text, str)
            self.open[index] = _OpenBlock("text", [text])
            return [TextDelta(index, text)] if text else []
        if _is(block, api.ThinkingBlock, "thinking"):
            thinking = _checked(block.thinking, str)
            signature = _checked(block.signature or "", str)
            self.open[index] = _OpenBlock("thinking", [thinking], signature=signature)
            return [ThinkingDelta(index, thinking)] if thinking else []
        if _is(block, api.RedactedThinkingBlock, "redacted_thinking"):
            data = _checked(block.data, str)
            self.open[index] = _OpenBlock("redacted_thinking", redacted_data=data)
        elif _is(block, api.ToolUseBlock, "tool_use"):
            tool_id, name = _checked(block.id, str), _checked(block.name, str)
            self.open[index] = _OpenBlock("tool_use", tool_id=tool_id, tool_name=name)
        return []  # the tool call reaches the loop whole, in MessageDone

    def _delta(self, index: int, delta: object) -> list[ModelEvent]:
        block = self.open.get(index)
        if block is None:
            return []
        if _is(delta, api.TextDelta, "text_delta"):
            text = _checked(delta.text, str)
            block.parts.append(text)
            return [TextDelta(index, text)]
        if _is(delta, api.ThinkingDelta, "thinking_delta"):
            thinking = _checked(delta.thinking, str)
            block.parts.append(thinking)
            return [ThinkingDelta(index, thinking)]
        if _is(delta, api.SignatureDelta, "signature_delta"):
            block.signature += _checked(delta.signature, str)
        elif _is(delta, api.InputJSONDelta, "input_json_delta"):
            block.parts.append(_checked(delta.partial_json, str))
        return []

    def _take_usage(self, usage: api.Usage | api.MessageDeltaUsage) -> None:
        # message_delta carries the final (cumulative) counts; fields it omits stay as they were.
        current = self.usage
        self.usage = Usage(
            _or(usage.input_tokens, current.input_tokens),
            _or(usage.output_tokens, current.output_tokens),
            _or(usage.cache_read_input_tokens, current.cache_read_tokens),
            _or(usage.cache_creation_input_tokens, current.cache_write_tokens),
        )

    def done(self) -> MessageDone:
        if not self.stopped:
            raise ModelError(
                "the Anthropic API response ended before message_stop", kind=ModelErrorKind.STREAM
            )
        blocks = tuple(self.finished[i] for i in sorted(self.finished))
        return MessageDone(Message("assistant", blocks), self.stop_reason, self.usage)


def _or(value: int | None, fallback: int) -> int:
    return fallback if value is None else _checked(value, int)


def _is(value: object, cls: type[T], tag: str) -> TypeGuard[T]:
    # The SDK builds events leniently: an unknown `type` can come back as the
    # first member of the union, so the tag is checked as well as the class.
    return isinstance(value, cls) and getattr(value, "type", None) == tag


def _checked(value: object, kind: type[T]) -> T:
    """The SDK does not validate field types; odd data becomes a stream error here."""
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ValueError(f"expected {kind.__name__} in a stream event, got {value!r:.40}")
    return value


def api_tool_choice(choice: str) -> dict[str, str]:
    """The setting's words in the Messages API's terms ("required" is "any" there)."""
    if choice == "required":
        return {"type": "any"}
    if choice in ("auto", "none"):
        return {"type": choice}
    return {"type": "tool", "name": choice}


def to_model_error(exc: Exception, model_name: str) -> ModelError:
    """One line for a person, plus a kind the runtime can branch on."""
    if isinstance(exc, anthropic.APIStatusError):
        return _status_error(exc, model_name)
    if isinstance(exc, anthropic.APITimeoutError | httpx2.TimeoutException):
        return ModelError(
            "the Anthropic API timed out (no data in time)", kind=ModelErrorKind.TIMEOUT
        )
    if isinstance(exc, anthropic.APIConnectionError | httpx2.TransportError):
        return ModelError(
            f"could not reach the Anthropic API ({describe(exc)}); check the network",
            kind=ModelErrorKind.CONNECTION,
        )
    if isinstance(exc, anthropic.APIResponseValidationError | ValueError | LookupError):
        return ModelError(
            f"malformed response from the Anthropic API ({describe(exc)})",
            kind=ModelErrorKind.STREAM,
        )
    return ModelError(f"Anthropic API call failed ({describe(exc)})", kind=ModelErrorKind.API)


def _status_error(exc: anthropic.APIStatusError, model_name: str) -> ModelError:
    code = exc.status_code
    error_type = error_field(exc.body, "type")
    detail = one_line(exc.api_message or error_type or str(exc))
    if code == 200:  # an `event: error` inside an otherwise good stream; never retried
        overloaded = error_type == "overloaded_error"
        kind = ModelErrorKind.OVERLOADED if overloaded else ModelErrorKind.STREAM
        return ModelError(
            f"the Anthropic API failed mid-response: {detail}", kind=kind, status=code
        )

    def made(text: str, kind: ModelErrorKind) -> ModelError:
        return ModelError(f"{text} ({code}: {detail})", kind=kind, status=code)

    if code == 401:
        return made(
            "the Anthropic API rejected the API key; check ANTHROPIC_API_KEY", ModelErrorKind.AUTH
        )
    if code == 403:
        return made("no permission for this Anthropic API call", ModelErrorKind.PERMISSION)
    if code == 404:
        return made(
            f"model {model_name!r} not found by the Anthropic API", ModelErrorKind.NOT_FOUND
        )
    if code == 413 or "prompt is too long" in detail.lower():
        return made("the conversation is too long for the model", ModelErrorKind.PROMPT_TOO_LONG)
    if code == 400:
        return made("the Anthropic API rejected the request", ModelErrorKind.BAD_REQUEST)
    if code == 429:
        return made(
            "rate limited by the Anthropic API, even after retries", ModelErrorKind.RATE_LIMIT
        )
    if code == 529 or error_type == "overloaded_error":
        return made("the Anthropic API is overloaded; try again later", ModelErrorKind.OVERLOADED)
    if code == 408:
        return made("the Anthropic API timed out", ModelErrorKind.TIMEOUT)
    return made("the Anthropic API returned an error", ModelErrorKind.API)
