"""A local fake of the Anthropic Messages API, speaking the real SSE wire format.

In-process (pytest)::

    from tests.fakes.anthropic_server import FakeAnthropic, turn, status
    with FakeAnthropic([status(429), turn("hello")]) as fake:
        provider = AnthropicProvider("m", api_key="k", base_url=fake.base_url)
        ...
        assert len(fake.requests) == 2 and fake.requests[1].body["model"] == "m"

Each POST /v1/messages pops the next scripted reply and records the request
(parsed JSON body and lower-cased headers) in ``fake.requests``. With no reply
left it answers 500 "fake server: no scripted response left" (and tells the SDK
not to retry), so an unexpected call fails loudly.

Reply kinds (builders in tests.fakes.anthropic_replies, re-exported here):
``turn(text, thinking=, signature=, redacted_thinking=, tool_calls=[(id, name,
input)], stop_reason=, usage=, thinking_tokens=)``, ``status(code, message=, error_type=,
retry_after=)``, ``error_event_mid_stream(type=, message=, text=)``,
``stall(seconds, text=)``, ``malformed()``, ``raw([(event_name, data), ...])``.

Standalone (e.g. for ``agentls ask`` run as a subprocess)::

    python -m tests.fakes.anthropic_server --script S.json --port-file F [--record R.jsonl]

prints the base URL, writes the port to F once listening (point
ANTHROPIC_BASE_URL at ``http://127.0.0.1:PORT``), appends each request as one
JSON line ``{"path", "headers", "body"}`` to R, and runs until SIGTERM/SIGINT.
The script is a JSON list of replies (or ``{"replies": [...]}``), each an object
with ``kind`` plus the builder's keyword arguments, e.g.::

    [{"kind": "turn", "tool_calls": [["toolu_1", "read_file", {"path": "a.py"}]]},
     {"kind": "status", "code": 529},
     {"kind": "turn", "text": "Done.", "usage": {"input_tokens": 50, "output_tokens": 9}}]
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from tests.fakes.anthropic_replies import (
    ERROR_TYPES,
    Reply,
    error_body,
    error_event_mid_stream,
    malformed,
    plan,
    raw,
    stall,
    status,
    turn,
)
from tests.fakes.http_fake import (
    NO_REPLY_LEFT,
    FakeServer,
    RecordedRequest,
    Responder,
    load_replies,
    run_standalone,
)

__all__ = [
    "NO_REPLY_LEFT",
    "FakeAnthropic",
    "RecordedRequest",
    "Reply",
    "error_event_mid_stream",
    "load_script",
    "malformed",
    "raw",
    "stall",
    "status",
    "turn",
]


def load_script(path: str | os.PathLike[str]) -> list[Reply]:
    return load_replies(path, Reply.from_dict)


def _error_body(code: int, message: str) -> dict[str, Any]:
    return error_body(ERROR_TYPES.get(code, "api_error"), message)


class FakeAnthropic(FakeServer[Reply]):
    """Serves POST /v1/messages; ``base_url`` has no /v1 (the anthropic SDK adds it)."""

    def __init__(
        self,
        replies: Iterable[Reply] = (),
        *,
        port: int = 0,
        record_path: str | None = None,
        responder: Responder[Reply] | None = None,
        static: dict[tuple[str, str], dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(
            replies,
            route="/v1/messages",
            plan=plan,
            error_body=_error_body,
            port=port,
            record_path=record_path,
            responder=responder,
            static=static,
        )


def main(argv: list[str] | None = None) -> int:
    return run_standalone(FakeAnthropic, load_script, "Fake Anthropic Messages API", argv)


if __name__ == "__main__":
    raise SystemExit(main())
