"""Scripted replies for the fake Anthropic server, rendered in the real wire format.

A ``Reply`` is a kind plus JSON-friendly options, so the same value can be built
in Python (``turn(...)``, ``status(...)``...) or loaded from a JSON script
(``{"kind": "turn", "text": "hi"}``). ``plan()`` turns one into what the HTTP
handler sends: a JSON error body, or a list of SSE events (optionally followed
by a stall).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.http_fake import Plan, in_parts

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


@dataclass(frozen=True)
class Reply:
    kind: str
    options: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.options}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Reply:
        """Through the builder, so a script gets the same defaults and checks as Python."""
        options = dict(data)
        kind = options.pop("kind", None)
        builders: dict[str, Callable[..., Reply]] = {
            "turn": turn,
            "status": status,
            "error_event_mid_stream": error_event_mid_stream,
            "stall": stall,
            "malformed": malformed,
            "raw": raw,
        }
        if kind not in builders:
            raise ValueError(f"unknown reply kind {kind!r}; expected one of {sorted(builders)}")
        try:
            return builders[kind](**options)
        except TypeError as exc:
            raise ValueError(f"bad options for a {kind!r} reply: {exc}") from None


def turn(
    text: str | None = None,
    *,
    thinking: str | None = None,
    signature: str = "sig-fake-0123456789",
    redacted_thinking: str | None = None,
    tool_calls: Sequence[tuple[str, str, dict[str, Any] | str]] = (),
    stop_reason: str | None = None,
    usage: dict[str, int] | None = None,
    thinking_tokens: int | None = None,
) -> Reply:
    """One assistant message; blocks in order: thinking, redacted, text, tool calls.

    A thinking block streams as the API streams one: its text in ``thinking_delta``s
    (none for ``thinking=""``, as with ``display: "omitted"``), then its whole signature
    in one ``signature_delta``. ``thinking_tokens`` goes in the final ``message_delta``'s
    ``usage.output_tokens_details``, the only place the API reports it."""
    return Reply(
        "turn",
        {
            "text": text,
            "thinking": thinking,
            "signature": signature,
            "redacted_thinking": redacted_thinking,
            "tool_calls": [list(call) for call in tool_calls],
            "stop_reason": stop_reason or ("tool_use" if tool_calls else "end_turn"),
            "usage": usage or {"input_tokens": 10, "output_tokens": 5},
            "thinking_tokens": thinking_tokens,
        },
    )


def status(
    code: int,
    *,
    message: str | None = None,
    error_type: str | None = None,
    retry_after: float = 0.001,
) -> Reply:
    """An HTTP error with the API's JSON error body; retry-after keeps SDK backoff tiny."""
    return Reply(
        "status",
        {"code": code, "message": message, "error_type": error_type, "retry_after": retry_after},
    )


def error_event_mid_stream(
    type: str = "overloaded_error", message: str = "Overloaded", text: str = "partial answer"
) -> Reply:
    """A 200 stream that starts a message, sends some text, then ``event: error``."""
    return Reply("error_event_mid_stream", {"type": type, "message": message, "text": text})


def stall(seconds: float = 30.0, text: str | None = None) -> Reply:
    """Headers and message_start (and optional text), then silence: a read timeout."""
    return Reply("stall", {"seconds": seconds, "text": text})


def malformed() -> Reply:
    """A 200 stream whose second event carries data that is not JSON."""
    return Reply("malformed")


def raw(events: Sequence[tuple[str, Any]]) -> Reply:
    """Exactly these SSE events, as (event name, data); a str data is sent verbatim."""
    return Reply("raw", {"events": [list(event) for event in events]})


def error_body(error_type: str, message: str) -> dict[str, Any]:
    return {
        "type": "error",
        "error": {"type": error_type, "message": message},
        "request_id": "req_fake",
    }


def plan(reply: Reply, request_body: Any, message_number: int) -> Plan:
    opts = reply.options
    model = request_body.get("model", "claude-fake") if isinstance(request_body, dict) else "?"
    if reply.kind == "status":
        code = int(opts["code"])
        error_type = opts.get("error_type") or ERROR_TYPES.get(code, "api_error")
        message = opts.get("message") or f"fake {error_type}"
        retry_ms = max(1, round(float(opts.get("retry_after", 0.001)) * 1000))
        return Plan(code, {"retry-after-ms": str(retry_ms)}, error_body(error_type, message))
    if reply.kind == "raw":
        return Plan(200, events=[_event(name, data) for name, data in opts["events"]])
    start = _message_start(f"msg_fake_{message_number}", model, opts.get("usage") or {})
    if reply.kind == "turn":
        return Plan(200, events=[start, _event("ping", {"type": "ping"}), *_turn_events(opts)])
    text_events = list(_text_block(0, opts["text"])) if opts.get("text") else []
    if reply.kind == "error_event_mid_stream":
        error = _event("error", error_body(opts["type"], opts["message"]))
        return Plan(200, events=[start, *text_events, error])
    if reply.kind == "stall":
        return Plan(200, events=[start, *text_events], stall_seconds=float(opts["seconds"]))
    garbage = b'event: content_block_start\ndata: {"type": "content_block_start", "ind\n\n'
    return Plan(200, events=[start, garbage])


def _event(name: str, data: dict[str, Any] | str) -> bytes:
    text = data if isinstance(data, str) else json.dumps(data)
    return f"event: {name}\ndata: {text}\n\n".encode()


def _message_start(message_id: str, model: str, usage: dict[str, int]) -> bytes:
    start_usage = {
        "input_tokens": usage.get("input_tokens", 10),
        "output_tokens": 1,
        "cache_creation_input_tokens": usage.get("cache_creation_input_tokens", 0),
        "cache_read_input_tokens": usage.get("cache_read_input_tokens", 0),
    }
    message: dict[str, Any] = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    return _event("message_start", {"type": "message_start", "message": message})


def _turn_events(opts: dict[str, Any]) -> Iterable[bytes]:
    index = 0
    if opts.get("thinking") is not None:
        yield _start(index, {"type": "thinking", "thinking": "", "signature": ""})
        for piece in in_parts(opts["thinking"], 3):
            yield _delta(index, {"type": "thinking_delta", "thinking": piece})
        yield _delta(index, {"type": "signature_delta", "signature": opts["signature"]})
        yield _stop(index)
        index += 1
    if opts.get("redacted_thinking") is not None:
        yield _start(index, {"type": "redacted_thinking", "data": opts["redacted_thinking"]})
        yield _stop(index)
        index += 1
    if opts.get("text"):
        yield from _text_block(index, opts["text"], close=True)
        index += 1
    for tool_id, name, tool_input in opts.get("tool_calls", []):
        yield _start(index, {"type": "tool_use", "id": tool_id, "name": name, "input": {}})
        # A str input is sent as-is, e.g. JSON cut short as by max_tokens.
        raw_input = tool_input if isinstance(tool_input, str) else json.dumps(tool_input)
        # The real API opens with an empty partial_json; pieces then break mid-token.
        for piece in ["", *in_parts(raw_input, max(3, len(raw_input) // 5))]:
            yield _delta(index, {"type": "input_json_delta", "partial_json": piece})
        yield _stop(index)
        index += 1
    usage: dict[str, Any] = {"output_tokens": 5, **(opts.get("usage") or {})}
    if opts.get("thinking_tokens") is not None:
        usage["output_tokens_details"] = {"thinking_tokens": opts["thinking_tokens"]}
    yield _event(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": opts["stop_reason"], "stop_sequence": None},
            "usage": usage,
        },
    )
    yield _event("message_stop", {"type": "message_stop"})


def _text_block(index: int, text: str, close: bool = False) -> Iterable[bytes]:
    yield _start(index, {"type": "text", "text": ""})
    for piece in in_parts(text, 3):
        yield _delta(index, {"type": "text_delta", "text": piece})
    if close:
        yield _stop(index)


def _start(index: int, block: dict[str, Any]) -> bytes:
    return _event(
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": block},
    )


def _delta(index: int, delta: dict[str, Any]) -> bytes:
    return _event(
        "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
    )


def _stop(index: int) -> bytes:
    return _event("content_block_stop", {"type": "content_block_stop", "index": index})
