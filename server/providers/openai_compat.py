"""OpenAI-compatible chat completions as a ModelProvider, through the official SDK.

One provider serves OpenAI and every server that speaks its API: Ollama,
llama.cpp's server, LM Studio, vLLM. Streamed tool-call arguments arrive in
pieces keyed by index; they are put back together here, and the turn ends in
the same ModelEvents the Anthropic provider yields.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import openai

from agentls.contracts.errors import ConfigError
from agentls.contracts.messages import (
    INVALID_JSON_KEY,
    ContentBlock,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from agentls.contracts.model_io import (
    MessageDone,
    ModelError,
    ModelErrorKind,
    ModelEvent,
    ModelInput,
    StopReason,
    TextDelta,
    ToolSpec,
)
from agentls.contracts.usage import Usage
from agentls.contracts.window import ServerWindow
from agentls.providers.base import ProviderBase
from agentls.providers.errors import describe, error_field, one_line
from agentls.providers.warm import import_transport
from agentls.providers.windows import learn_window

# A local server ignores the key, but the SDK insists on one.
LOCAL_PLACEHOLDER_KEY = "not-needed"
_STOP_REASONS: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


def resolve_credentials(base_url: str | None) -> tuple[str, str | None]:
    """(api key, base url) from the setting and OPENAI_API_KEY / OPENAI_BASE_URL.

    A local endpoint needs no real key; api.openai.com does, and its absence is
    a ConfigError before any work.
    """
    url = base_url or os.environ.get("OPENAI_BASE_URL") or None
    key = os.environ.get("OPENAI_API_KEY", "").strip()
    if key:
        return key, url
    if url:
        return LOCAL_PLACEHOLDER_KEY, url
    raise ConfigError(
        "no OpenAI API key: set OPENAI_API_KEY, or point at a local server with "
        "OPENAI_BASE_URL (or the baseUrl setting), e.g. http://127.0.0.1:11434/v1 for Ollama"
    )


@dataclass
class _Call:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class OpenAIProvider(ProviderBase):
    def __init__(
        self,
        model_name: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = 3,
        timeout_seconds: float = 600.0,
        connect_timeout_seconds: float = 5.0,
        temperature: float | None = None,
        tool_choice: str = "auto",
    ) -> None:
        self._model_name = model_name
        self._temperature = temperature
        self._tool_choice = tool_choice
        self._api_key = api_key
        self._base_url = base_url
        self._max_retries = max_retries
        self._timeout = httpx2.Timeout(timeout_seconds, connect=connect_timeout_seconds)
        self._client: openai.AsyncOpenAI | None = None
        self.server_window: ServerWindow | None = None

    @property
    def model_id(self) -> str:
        return f"openai:{self._model_name}"

    @property
    def base_url(self) -> str | None:
        return self._base_url

    def learn_window(self, state_dir: Path | None) -> None:
        """Ask the server (or the state folder's memory of it) for the model's window."""
        self.server_window = learn_window(self._base_url, self._model_name, state_dir)

    @property
    def model_name(self) -> str:
        return self._model_name

    def warm_up(self) -> None:
        """Build the client and load what the first request would (blocking: a thread's)."""
        import_transport()
        with contextlib.suppress(ModelError):  # no key: the first request says so
            self._get_client().chat.completions  # noqa: B018 (the SDK loads it on first use)

    def _get_client(self) -> openai.AsyncOpenAI:
        if self._client is None:
            key, url = (self._api_key, self._base_url)
            if key is None:
                try:
                    key, url = resolve_credentials(self._base_url)
                except ConfigError as exc:
                    raise ModelError(str(exc), kind=ModelErrorKind.AUTH) from None
            self._client = openai.AsyncOpenAI(
                api_key=key, base_url=url, max_retries=self._max_retries, timeout=self._timeout
            )
        return self._client

    async def stream(self, request: ModelInput) -> AsyncIterator[ModelEvent]:
        client = self._get_client()
        kwargs: dict[str, Any] = {
            "model": self._model_name,
            "messages": to_chat_messages(request.system, request.messages),
            "max_tokens": request.max_output_tokens,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if self._temperature is not None:
            kwargs["temperature"] = self._temperature
        if request.tools:
            kwargs["tools"] = to_chat_tools(request.tools)
            if self._tool_choice != "auto":
                kwargs["tool_choice"] = chat_tool_choice(self._tool_choice)
        text: list[str] = []
        calls: dict[int, _Call] = {}
        finish: str | None = None
        usage: Usage | None = None
        try:
            stream = await client.chat.completions.create(**kwargs)
            async with stream:
                async for chunk in stream:
                    if chunk.usage is not None:
                        usage = _usage(chunk.usage)
                    for choice in chunk.choices:
                        finish = choice.finish_reason or finish
                        delta = choice.delta
                        if delta.content:
                            content = _checked(delta.content, str)
                            text.append(content)
                            yield TextDelta(0, content)
                        for piece in delta.tool_calls or ():
                            _tool_piece(calls, piece)  # the call reaches the loop whole
            if finish is None:
                raise ModelError(
                    "the model server ended the stream before finishing", kind=ModelErrorKind.STREAM
                )
            blocks = _blocks(text, calls)
        except ModelError:
            raise
        except (openai.OpenAIError, httpx2.HTTPError, ValueError, LookupError, TypeError,
                AttributeError) as exc:  # fmt: skip
            # The SDK does not check the shape of chunks: odd data surfaces as these.
            raise to_model_error(exc, self._model_name) from exc
        stop = _STOP_REASONS.get(finish, "other")
        if stop == "end_turn" and any(isinstance(b, ToolUseBlock) for b in blocks):
            stop = "tool_use"  # some servers say "stop" after tool calls
        if usage is None:  # the server reports none (llama.cpp streaming): estimate it
            usage = _estimated_usage(kwargs, blocks)
        yield MessageDone(Message("assistant", tuple(blocks)), stop, usage)


def _blocks(text: list[str], calls: dict[int, _Call]) -> list[ContentBlock]:
    """The finished blocks: the text first, then each call in the server's order."""
    blocks: list[ContentBlock] = []
    if text:
        blocks.append(TextBlock("".join(text)))
    blocks.extend(_finished_call(calls[index], index) for index in sorted(calls))
    return blocks


def _estimated_usage(request: dict[str, Any], blocks: list[ContentBlock]) -> Usage:
    """About four characters a token, so token budgets hold against any server."""
    sent = len(json.dumps(request["messages"])) + len(json.dumps(request.get("tools", [])))
    produced = sum(
        len(b.text) if isinstance(b, TextBlock) else len(json.dumps(b.input)) + len(b.name)
        for b in blocks
        if isinstance(b, TextBlock | ToolUseBlock)
    )
    return Usage(input_tokens=sent // 4 + 1, output_tokens=produced // 4 + 1)


def _checked(value: object, kind: type[str]) -> str:
    if not isinstance(value, kind):
        raise ValueError(f"expected {kind.__name__} in a chunk, got {value!r:.40}")
    return value


def _tool_piece(calls: dict[int, _Call], piece: Any) -> None:
    call = calls.setdefault(int(piece.index or 0), _Call())
    if piece.id:
        call.id = piece.id
    function = piece.function
    if function is not None and function.name:
        name = _checked(function.name, str)
        # OpenAI sends the name once; some servers (llama.cpp's) repeat it in
        # every chunk, and a few stream it in pieces before the arguments.
        if not call.name or (name != call.name and not call.arguments):
            call.name = name if not call.name else call.name + name
    if function is not None and function.arguments:
        call.arguments.append(_checked(function.arguments, str))


def _finished_call(call: _Call, index: int) -> ToolUseBlock:
    raw = "".join(call.arguments).strip()
    arguments: dict[str, Any]
    try:
        parsed = json.loads(raw) if raw else {}
        arguments = parsed if isinstance(parsed, dict) else {INVALID_JSON_KEY: raw}
    except json.JSONDecodeError:
        arguments = {INVALID_JSON_KEY: raw}
    return ToolUseBlock(call.id or f"call_{index}", call.name or "unnamed", arguments)


def _usage(raw: Any) -> Usage:
    details = getattr(raw, "prompt_tokens_details", None)
    cached = int(getattr(details, "cached_tokens", 0) or 0) if details is not None else 0
    prompt = int(raw.prompt_tokens or 0)
    return Usage(
        input_tokens=max(prompt - cached, 0),
        output_tokens=int(raw.completion_tokens or 0),
        cache_read_tokens=cached,
    )


def to_chat_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": t.input_schema,
            },
        }
        for t in tools
    ]


def chat_tool_choice(choice: str) -> str | dict[str, Any]:
    if choice in ("auto", "required", "none"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def to_chat_messages(system: str, messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Our messages in the chat-completions shape (thinking blocks have no place there)."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        if message.role == "assistant":
            out.append(_assistant(message))
            continue
        texts = []
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                out.append(
                    {"role": "tool", "tool_call_id": block.tool_use_id, "content": block.content}
                )
            elif isinstance(block, TextBlock) and block.text:
                texts.append(block.text)
        if texts:
            out.append({"role": "user", "content": "\n\n".join(texts)})
    return out


def _assistant(message: Message) -> dict[str, Any]:
    text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
    entry: dict[str, Any] = {"role": "assistant", "content": text or None}
    calls = [
        {
            "id": b.id,
            "type": "function",
            "function": {"name": b.name, "arguments": json.dumps(b.input)},
        }
        for b in message.content
        if isinstance(b, ToolUseBlock)
    ]
    if calls:
        entry["tool_calls"] = calls
    return entry


def to_model_error(exc: Exception, model_name: str) -> ModelError:
    """One line for a person, plus a kind the runtime can branch on."""
    if isinstance(exc, openai.APIStatusError):
        return _status_error(exc, model_name)
    if isinstance(exc, openai.APITimeoutError | httpx2.TimeoutException):
        return ModelError(
            "the model server timed out (no data in time)", kind=ModelErrorKind.TIMEOUT
        )
    if isinstance(exc, openai.APIConnectionError | httpx2.TransportError):
        return ModelError(
            f"could not reach the model server ({describe(exc)}); is it running, and is "
            "OPENAI_BASE_URL (or baseUrl) right?",
            kind=ModelErrorKind.CONNECTION,
        )
    return ModelError(
        f"malformed response from the model server ({describe(exc)})", kind=ModelErrorKind.STREAM
    )


def _status_error(exc: openai.APIStatusError, model_name: str) -> ModelError:
    code = exc.status_code
    detail = one_line(error_field(exc.body, "message") or exc.message or str(exc))
    detail += _context_figures(exc.body)

    def made(text: str, kind: ModelErrorKind) -> ModelError:
        return ModelError(f"{text} ({code}: {detail})", kind=kind, status=code)

    lowered = detail.lower()
    if code == 401:
        return made(
            "the model server rejected the API key; check OPENAI_API_KEY", ModelErrorKind.AUTH
        )
    if code == 403:
        return made("no permission for this model server call", ModelErrorKind.PERMISSION)
    if code == 404:
        return made(f"model {model_name!r} not found by the model server", ModelErrorKind.NOT_FOUND)
    # OpenAI says "context length", llama.cpp "exceeds the available context size".
    if code == 413 or any(s in lowered for s in ("context length", "too long", "context size")):
        return made("the conversation is too long for the model", ModelErrorKind.PROMPT_TOO_LONG)
    if code in (400, 422):
        return made("the model server rejected the request", ModelErrorKind.BAD_REQUEST)
    if code == 429:
        return made(
            "rate limited by the model server, even after retries", ModelErrorKind.RATE_LIMIT
        )
    if code in (503, 529):
        return made("the model server is overloaded; try again later", ModelErrorKind.OVERLOADED)
    return made("the model server returned an error", ModelErrorKind.API)


def _context_figures(body: object) -> str:
    """llama.cpp's too-long error gives the prompt's and the window's length beside its
    message: kept, so the loop's recovery can size the next request."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return ""
    figures = [
        f"{name} {error[name]}"
        for name in ("n_prompt_tokens", "n_ctx")
        if isinstance(error.get(name), int)
    ]
    return f" ({', '.join(figures)})" if figures else ""
