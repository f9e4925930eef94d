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
input)], stop_reason=, usage=)``, ``status(code, message=, error_type=,
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

import argparse
import collections
import json
import os
import select
import signal
import socket
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.fakes.anthropic_replies import (
    Plan,
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

__all__ = [
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

NO_REPLY_LEFT = "fake server: no scripted response left"


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: Any


def load_script(path: str | os.PathLike[str]) -> list[Reply]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    items = data["replies"] if isinstance(data, dict) else data
    return [Reply.from_dict(item) for item in items]


class FakeAnthropic:
    def __init__(
        self, replies: Iterable[Reply] = (), *, port: int = 0, record_path: str | None = None
    ) -> None:
        self._replies: collections.deque[Reply] = collections.deque(replies)
        self._lock = threading.Condition()
        self._closing = threading.Event()
        self._record_path = record_path
        self.requests: list[RecordedRequest] = []
        self.disconnects = 0  # clients that hung up while a reply was stalled
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.fake = self
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._replies)

    def add(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    def start(self) -> FakeAnthropic:
        # A short poll interval keeps shutdown (once per test) quick.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closing.set()  # ends any stall at once
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def wait_for_disconnect(self, count: int = 1, timeout: float = 5.0) -> bool:
        with self._lock:
            return self._lock.wait_for(lambda: self.disconnects >= count, timeout)

    def _take(self, request: RecordedRequest) -> Reply | None:
        with self._lock:
            self.requests.append(request)
            if self._record_path:
                with open(self._record_path, "a", encoding="utf-8") as log:
                    log.write(json.dumps(request.__dict__) + "\n")
            return self._replies.popleft() if self._replies else None

    def _note_disconnect(self) -> None:
        with self._lock:
            self.disconnects += 1
            self._lock.notify_all()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a stalled handler must not hold up shutdown
    fake: FakeAnthropic


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        headers = {k.lower(): v for k, v in self.headers.items()}
        fake = self.server.fake
        reply = fake._take(RecordedRequest(self.path, headers, body))
        try:
            if self.path.split("?")[0] != "/v1/messages":
                self._send_json(404, error_body("not_found_error", f"fake: no route {self.path}"))
            elif reply is None:
                self._send_json(
                    500, error_body("api_error", NO_REPLY_LEFT), {"x-should-retry": "false"}
                )
            else:
                self._send_plan(plan(reply, body, len(fake.requests)))
        except (BrokenPipeError, ConnectionResetError):
            fake._note_disconnect()
        except Exception as exc:  # a bug in a scripted reply: say so instead of hanging up
            message = f"fake server error: {type(exc).__name__}: {exc}"
            self._send_json(500, error_body("api_error", message), {"x-should-retry": "false"})

    def _send_json(
        self, code: int, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        for name, value in {"content-type": "application/json", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(data)))
        self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def _send_plan(self, reply_plan: Plan) -> None:
        if reply_plan.json_body is not None:
            self._send_json(reply_plan.status, reply_plan.json_body, reply_plan.headers)
            return
        self.send_response(reply_plan.status)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("connection", "close")
        self.end_headers()
        for event in reply_plan.events:
            # Each event in two HTTP chunks cut mid-line, so the SDK must reassemble.
            middle = len(event) // 2
            self._write_chunk(event[:middle])
            self._write_chunk(event[middle:])
        if reply_plan.stall_seconds:
            self._stall(reply_plan.stall_seconds)
            return  # no terminating chunk: the stream never ends properly
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _stall(self, seconds: float) -> None:
        """Send nothing until the client hangs up, the fake stops, or time runs out."""
        fake = self.server.fake
        waited = 0.0
        while waited < seconds and not fake._closing.is_set():
            readable, _, _ = select.select([self.connection], [], [], 0.05)
            waited += 0.05
            if readable and not self.connection.recv(1, socket.MSG_PEEK):
                fake._note_disconnect()
                return


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fake Anthropic Messages API for tests")
    parser.add_argument("--script", required=True, help="JSON list of scripted replies")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--port-file", help="write the port here once listening")
    parser.add_argument("--record", help="append each request as a JSON line here")
    args = parser.parse_args(argv)
    stop_requested = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop_requested.set())
    with FakeAnthropic(load_script(args.script), port=args.port, record_path=args.record) as fake:
        if args.port_file:
            # Written then renamed, so a poller never reads a half-written file.
            tmp = f"{args.port_file}.tmp"
            Path(tmp).write_text(str(fake.port), encoding="utf-8")
            os.replace(tmp, args.port_file)
        print(fake.base_url, flush=True)
        while not stop_requested.wait(0.2):
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
