"""A local fake of the OpenAI chat-completions API (streaming only), in the real wire format.

In-process (pytest)::

    from tests.fakes.openai_server import FakeOpenAI, chat, status
    with FakeOpenAI([status(429), chat("hello", usage={...})]) as fake:
        provider = OpenAIProvider("gpt-x", api_key="k", base_url=fake.base_url)
        ...
        assert len(fake.requests) == 2 and fake.requests[1].body["model"] == "gpt-x"

``base_url`` is ``http://127.0.0.1:PORT/v1``: the openai SDK expects the /v1 in
it and posts to ``{base_url}/chat/completions``. Each POST pops the next
scripted reply and records the request (parsed JSON body, lower-cased headers)
in ``fake.requests``. With no reply left it answers 500 "fake server: no
scripted response left" with ``x-should-retry: false`` (the SDK then does not
retry), so an unexpected call fails loudly. A request without ``stream: true``
gets a 400: this fake only streams.

Reply kinds (builders in tests.fakes.openai_replies, re-exported here):
``chat(text, reasoning=, tool_calls=[(id, name, arguments)], finish_reason=, usage=,
split=, interleave=)``, ``status(code, message=, error_type=, error_code=, param=,
retry_after=)``, ``dropped(text, abrupt=)``, ``stall(seconds, text=)``,
``malformed()``, ``raw([chunk dict or str, ...], done=)``. Usage is sent only
when the request asked for ``stream_options.include_usage``.

Standalone::

    python -m tests.fakes.openai_server --script S.json --port-file F [--record R.jsonl]

prints the base URL (with /v1), writes the port to F once listening, appends each
request as one JSON line ``{"path", "headers", "body"}`` to R, and runs until
SIGTERM/SIGINT. The script is a JSON list of replies (or ``{"replies": [...]}``),
each an object with ``kind`` plus the builder's keyword arguments, e.g.::

    [{"kind": "chat", "tool_calls": [["call_1", "read_file", {"path": "a.py"}]]},
     {"kind": "status", "code": 429},
     {"kind": "chat", "text": "Done.", "usage": {"prompt_tokens": 50, "completion_tokens": 9}}]
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from tests.fakes.http_fake import (
    NO_REPLY_LEFT,
    FakeServer,
    RecordedRequest,
    Responder,
    load_replies,
    run_standalone,
)
from tests.fakes.openai_replies import (
    Reply,
    chat,
    dropped,
    error_for_status,
    malformed,
    plan,
    raw,
    stall,
    status,
)

__all__ = [
    "NO_REPLY_LEFT",
    "FakeOpenAI",
    "RecordedRequest",
    "Reply",
    "chat",
    "dropped",
    "load_script",
    "malformed",
    "raw",
    "stall",
    "status",
]


def load_script(path: str | os.PathLike[str]) -> list[Reply]:
    return load_replies(path, Reply.from_dict)


class FakeOpenAI(FakeServer[Reply]):
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
            route="/v1/chat/completions",
            plan=plan,
            error_body=error_for_status,
            port=port,
            record_path=record_path,
            responder=responder,
            static=static,
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def main(argv: list[str] | None = None) -> int:
    return run_standalone(FakeOpenAI, load_script, "Fake OpenAI chat-completions API", argv)


if __name__ == "__main__":
    raise SystemExit(main())
