"""Scripted replies for the fake OpenAI Responses server, in the real wire format.

``respond(text=, tool_calls=[(call_id, name, arguments)], usage=)`` builds one
response; ``plan()`` renders it as the SSE stream the API sends
(``event: response.created`` ... ``event: response.completed``), each tool call
a ``function_call`` output item, the text an assistant ``message`` item.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.http_fake import Plan, in_parts

ToolCall = tuple[str, str, dict[str, Any] | str]


@dataclass(frozen=True)
class Reply:
    kind: str
    options: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.options}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Reply:
        options = dict(data)
        kind = options.pop("kind", None)
        builders: dict[str, Callable[..., Reply]] = {"respond": respond, "status": status}
        if kind not in builders:
            raise ValueError(f"unknown reply kind {kind!r}; expected one of {sorted(builders)}")
        try:
            return builders[kind](**options)
        except TypeError as exc:
            raise ValueError(f"bad options for a {kind!r} reply: {exc}") from None


def respond(
    text: str | None = None,
    *,
    tool_calls: Sequence[ToolCall] = (),
    usage: dict[str, int] | None = None,
) -> Reply:
    """One streamed response: the text (if any) as a message, then each call."""
    return Reply(
        "respond",
        {
            "text": text,
            "tool_calls": [list(call) for call in tool_calls],
            "usage": usage or {"input_tokens": 10, "output_tokens": 5},
        },
    )


def status(code: int, *, message: str | None = None) -> Reply:
    return Reply("status", {"code": code, "message": message})


def error_for_status(code: int, message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "server_error", "param": None, "code": None}}


def plan(reply: Reply, request_body: Any, message_number: int) -> Plan:
    opts = reply.options
    if reply.kind == "status":
        code = int(opts["code"])
        return Plan(code, {}, error_for_status(code, opts.get("message") or f"fake ({code})"))
    model = request_body.get("model", "gpt-fake") if isinstance(request_body, dict) else "?"
    return Plan(200, events=list(_events(opts, model, message_number)))


def _events(opts: dict[str, Any], model: str, number: int) -> Iterable[bytes]:
    response: dict[str, Any] = {
        "id": f"resp_fake{number}",
        "object": "response",
        "created_at": 1_700_000_000 + number,
        "status": "in_progress",
        "model": model,
        "output": [],
    }
    sequence = iter(range(1_000_000))
    yield _event("response.created", {"response": response}, sequence)
    items: list[dict[str, Any]] = []
    if opts.get("text"):
        item_id = f"msg_fake{number}"
        message: dict[str, Any] = {
            "type": "message", "id": item_id, "role": "assistant", "status": "in_progress",
            "content": [],
        }  # fmt: skip
        yield _event("response.output_item.added", {"output_index": 0, "item": message}, sequence)
        for piece in in_parts(opts["text"], 3):
            delta = {"item_id": item_id, "output_index": 0, "content_index": 0, "delta": piece}
            yield _event("response.output_text.delta", delta, sequence)
        done = {
            **message,
            "status": "completed",
            "content": [{"type": "output_text", "text": opts["text"], "annotations": []}],
        }
        yield _event("response.output_item.done", {"output_index": 0, "item": done}, sequence)
        items.append(done)
    for call_id, name, arguments in opts.get("tool_calls", []):
        index = len(items)
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        call: dict[str, Any] = {
            "type": "function_call", "id": f"fc_fake{number}_{index}", "call_id": call_id,
            "name": name, "arguments": "", "status": "in_progress",
        }  # fmt: skip
        yield _event("response.output_item.added", {"output_index": index, "item": call}, sequence)
        for piece in in_parts(text, 3):
            delta = {"item_id": call["id"], "output_index": index, "delta": piece}
            yield _event("response.function_call_arguments.delta", delta, sequence)
        done = {**call, "arguments": text, "status": "completed"}
        yield _event("response.output_item.done", {"output_index": index, "item": done}, sequence)
        items.append(done)
    usage = opts.get("usage") or {}
    inputs, outputs = usage.get("input_tokens", 10), usage.get("output_tokens", 5)
    completed = {
        **response,
        "status": "completed",
        "output": items,
        "usage": {
            "input_tokens": inputs,
            "input_tokens_details": {"cached_tokens": usage.get("cached_tokens", 0)},
            "output_tokens": outputs,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": inputs + outputs,
        },
    }
    yield _event("response.completed", {"response": completed}, sequence)


def _event(name: str, data: dict[str, Any], sequence: Iterator[int]) -> bytes:
    payload = {"type": name, "sequence_number": next(sequence), **data}
    return f"event: {name}\ndata: {json.dumps(payload)}\n\n".encode()
