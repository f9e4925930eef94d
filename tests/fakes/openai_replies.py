"""Scripted replies for the fake OpenAI chat-completions server, in the real wire format.

A ``Reply`` is a kind plus JSON-friendly options, built in Python (``chat(...)``,
``status(...)``...) or loaded from a JSON script (``{"kind": "chat", "text": "hi"}``).
``plan()`` renders one as the HTTP handler sends it: a JSON error body, or
``data: {chunk}`` SSE lines (``object: "chat.completion.chunk"``) closed by
``data: [DONE]``, or a stream that stalls or drops.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.http_fake import Plan, in_parts

# (error type, error code) per HTTP status, as the real API sends them.
ERRORS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}

ToolCall = tuple[str, str, dict[str, Any] | str]


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
            "chat": chat,
            "status": status,
            "dropped": dropped,
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


def chat(
    text: str | None = None,
    *,
    reasoning: str | None = None,
    tool_calls: Sequence[ToolCall] = (),
    finish_reason: str | None = None,
    usage: dict[str, Any] | None = None,
    split: bool = True,
    interleave: bool = True,
) -> Reply:
    """One streamed completion: text, then tool calls (id, name, arguments dict or raw str).

    ``reasoning`` streams first as ``reasoning_content`` deltas, as llama.cpp, vLLM and
    DeepSeek send a model's thinking.

    ``usage`` (prompt_tokens, completion_tokens, optional prompt_tokens_details...)
    comes in a last ``choices: []`` chunk, only if the request asked for it.
    ``split`` cuts text and arguments into many deltas; ``interleave`` mixes the
    argument deltas of several calls (by index) instead of sending them one after another.
    """
    return Reply(
        "chat",
        {
            "text": text,
            "reasoning": reasoning,
            "tool_calls": [list(call) for call in tool_calls],
            "finish_reason": finish_reason or ("tool_calls" if tool_calls else "stop"),
            "usage": usage,
            "split": split,
            "interleave": interleave,
        },
    )


def status(
    code: int,
    *,
    message: str | None = None,
    error_type: str | None = None,
    error_code: str | None = None,
    param: str | None = None,
    retry_after: float = 0.001,
) -> Reply:
    """An HTTP error with the API's JSON error body; retry-after-ms keeps SDK backoff tiny."""
    options = {"code": code, "message": message, "error_type": error_type}
    options |= {"error_code": error_code, "param": param, "retry_after": retry_after}
    return Reply("status", options)


def dropped(text: str = "partial answer", *, abrupt: bool = True) -> Reply:
    """Some text chunks, then no finish_reason and no [DONE].

    ``abrupt``: the connection closes mid-body (no last HTTP chunk); otherwise the
    body ends cleanly, as a proxy that swallows the tail would.
    """
    return Reply("dropped", {"text": text, "abrupt": abrupt})


def stall(seconds: float = 30.0, text: str | None = None) -> Reply:
    """Headers, the role chunk (and optional text), then silence: a read timeout."""
    return Reply("stall", {"seconds": seconds, "text": text})


def malformed() -> Reply:
    """A 200 stream whose second data line is not JSON."""
    return Reply("malformed")


def raw(chunks: Sequence[dict[str, Any] | str], *, done: bool = True) -> Reply:
    """These data lines; a dict gets the chunk envelope (id, object...) filled in, a str
    is sent verbatim. ``done`` appends ``data: [DONE]``."""
    return Reply("raw", {"chunks": list(chunks), "done": done})


def error_body(
    message: str, error_type: str = "server_error", code: str | None = None, param: Any = None
) -> dict[str, Any]:
    return {"error": {"message": message, "type": error_type, "param": param, "code": code}}


def error_for_status(code: int, message: str) -> dict[str, Any]:
    error_type, error_code = ERRORS.get(code, ("server_error", None))
    return error_body(message, error_type, error_code)


def plan(reply: Reply, request_body: Any, message_number: int) -> Plan:
    opts = reply.options
    if reply.kind == "status":
        code = int(opts["code"])
        error_type, error_code = ERRORS.get(code, ("server_error", None))
        error_type = opts.get("error_type") or error_type
        message = opts.get("message") or f"fake {error_type} ({code})"
        body = error_body(message, error_type, opts.get("error_code") or error_code, opts["param"])
        retry_ms = max(1, round(float(opts.get("retry_after", 0.001)) * 1000))
        headers = {"retry-after-ms": str(retry_ms), "x-request-id": "req_fake"}
        return Plan(code, headers, body)
    if not isinstance(request_body, dict) or request_body.get("stream") is not True:
        # This fake only streams; a non-streaming call is a bug worth a loud failure.
        return Plan(400, {}, error_body("fake: only stream=true is supported", "fake_error"))
    chunks = _Chunks(request_body, message_number)
    if reply.kind == "raw":
        events = [chunks.line(c) if isinstance(c, dict) else _data(c) for c in opts["chunks"]]
        return Plan(200, events=events + ([_data("[DONE]")] if opts["done"] else []))
    if reply.kind == "chat":
        return Plan(200, events=list(chunks.chat(opts)))
    start = [chunks.delta({"role": "assistant", "content": "", "refusal": None})]
    text = [chunks.delta({"content": piece}) for piece in in_parts(opts.get("text") or "", 3)]
    if reply.kind == "dropped":
        return Plan(200, events=start + text, drop=opts["abrupt"])
    if reply.kind == "stall":
        return Plan(200, events=start + text, stall_seconds=float(opts["seconds"]))
    garbage = b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choi\n\n'
    return Plan(200, events=[*start, garbage])


class _Chunks:
    """Renders chunks for one response; every chunk carries ``usage: null`` when usage
    was requested, as the real API does."""

    def __init__(self, request_body: dict[str, Any], message_number: int) -> None:
        self.include_usage = (request_body.get("stream_options") or {}).get("include_usage")
        self.envelope: dict[str, Any] = {
            "id": f"chatcmpl-fake{message_number}",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000 + message_number,
            "model": request_body.get("model", "gpt-fake"),
            "system_fingerprint": "fp_fake",
        }
        if self.include_usage:
            self.envelope["usage"] = None

    def line(self, chunk: dict[str, Any]) -> bytes:
        return _data(json.dumps({**self.envelope, **chunk}))

    def delta(self, delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return self.line({"choices": [choice]})

    def chat(self, opts: dict[str, Any]) -> Iterable[bytes]:
        text, split = opts.get("text"), opts["split"]
        yield self.delta({"role": "assistant", "content": "" if text else None, "refusal": None})
        for piece in in_parts(opts.get("reasoning") or "", 3 if split else 1):
            yield self.delta({"content": None, "reasoning_content": piece})
        for piece in in_parts(text or "", 3 if split else 1):
            yield self.delta({"content": piece})
        yield from self._tool_calls(opts["tool_calls"], split, opts["interleave"])
        yield self.delta({}, opts["finish_reason"])
        if self.include_usage and opts["usage"] is not None:
            usage = dict(opts["usage"])
            usage.setdefault("total_tokens", usage["prompt_tokens"] + usage["completion_tokens"])
            yield self.line({"choices": [], "usage": usage})
        yield _data("[DONE]")

    def _tool_calls(self, calls: list[list[Any]], split: bool, interleave: bool) -> Iterable[bytes]:
        streams: list[list[bytes]] = []
        for index, (call_id, name, arguments) in enumerate(calls):
            # A str is sent as-is, e.g. JSON cut short as by finish_reason "length".
            text = arguments if isinstance(arguments, str) else json.dumps(arguments)
            pieces = in_parts(text, max(3, len(text) // 5)) if split else [text]
            # The first call opens with empty arguments, later ones with a partial piece.
            opening = "" if index == 0 or not pieces else pieces.pop(0)
            function = {"name": name, "arguments": opening}
            first = {"index": index, "id": call_id, "type": "function", "function": function}
            rest = [{"index": index, "function": {"arguments": piece}} for piece in pieces]
            streams.append([self.delta({"tool_calls": [call]}) for call in [first, *rest]])
        if not interleave:
            for stream in streams:
                yield from stream
            return
        for step in range(max((len(s) for s in streams), default=0)):
            yield from (stream[step] for stream in streams if step < len(stream))


def _data(text: str) -> bytes:
    return f"data: {text}\n\n".encode()
