"""The HTTP machinery shared by the fake model APIs (Anthropic, OpenAI chat completions
and Responses).

A ``FakeServer`` serves one POST route on 127.0.0.1. Each request is recorded
(parsed JSON body, lower-cased headers) and pops the next scripted reply, which
the API-specific ``plan(reply, request_body, message_number)`` turns into a
``Plan``: a JSON body, or SSE events sent as a chunked stream (each event cut
mid-line over two HTTP chunks), optionally followed by a stall or a dropped
connection. With no reply left it answers 500 ``NO_REPLY_LEFT`` with
``x-should-retry: false``, so an unexpected call fails loudly and at once.

A ``responder`` instead chooses each reply from the request body (an agent whose
side requests cannot be scripted in order), and ``static`` answers other routes
(``("GET", "/props")``...) with fixed JSON, as model servers describe themselves.
Requests to the model route are recorded in ``requests`` (their arrival times,
``time.perf_counter``, in ``arrivals``); any other request in ``side_requests``,
and it never takes a scripted reply.
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
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

NO_REPLY_LEFT = "fake server: no scripted response left"
NO_RETRY = {"x-should-retry": "false"}  # both SDKs obey it before their own retry rules

R = TypeVar("R")
PlanFn = Callable[[Any, Any, int], "Plan"]
Responder = Callable[[Any], R]
ErrorBodyFn = Callable[[int, str], dict[str, Any]]


@dataclass
class Plan:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    json_body: dict[str, Any] | None = None
    events: list[bytes] = field(default_factory=list)
    stall_seconds: float = 0.0
    drop: bool = False  # end without the last HTTP chunk: the connection just closes


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: Any


class FakeServer(Generic[R]):
    def __init__(
        self,
        replies: Iterable[R] = (),
        *,
        route: str,
        plan: PlanFn,
        error_body: ErrorBodyFn,
        port: int = 0,
        record_path: str | None = None,
        responder: Responder[R] | None = None,
        static: dict[tuple[str, str], dict[str, Any]] | None = None,
    ) -> None:
        self.route = route
        self.responder = responder
        self.static = dict(static or {})
        self._plan = plan
        self._error_body = error_body
        self._replies: collections.deque[R] = collections.deque(replies)
        self._lock = threading.Condition()
        self._closing = threading.Event()
        self._record_path = record_path
        self.requests: list[RecordedRequest] = []
        self.arrivals: list[float] = []
        self.side_requests: list[RecordedRequest] = []
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

    def add(self, *replies: R) -> None:
        with self._lock:
            self._replies.extend(replies)

    def start(self) -> Self:
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

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def wait_for_disconnect(self, count: int = 1, timeout: float = 5.0) -> bool:
        with self._lock:
            return self._lock.wait_for(lambda: self.disconnects >= count, timeout)

    def _take(self, request: RecordedRequest) -> tuple[R | None, int]:
        with self._lock:
            self.requests.append(request)
            self.arrivals.append(time.perf_counter())
            if self._record_path:
                with open(self._record_path, "a", encoding="utf-8") as log:
                    log.write(json.dumps(request.__dict__) + "\n")
            if self.responder is not None:
                return self.responder(request.body), len(self.requests)
            return (self._replies.popleft() if self._replies else None), len(self.requests)

    def _note_disconnect(self) -> None:
        with self._lock:
            self.disconnects += 1
            self._lock.notify_all()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a stalled handler must not hold up shutdown
    fake: FakeServer[Any]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def do_GET(self) -> None:
        fake = self.server.fake
        answer = fake.static.get(("GET", self.path.split("?")[0]))
        with fake._lock:
            fake.side_requests.append(RecordedRequest(self.path, self._lower_headers(), None))
        if answer is None:
            self._send_json(404, fake._error_body(404, f"fake: no route GET {self.path}"))
        else:
            self._send_json(200, answer)

    def _lower_headers(self) -> dict[str, str]:
        return {k.lower(): v for k, v in self.headers.items()}

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        headers = self._lower_headers()
        fake = self.server.fake
        if self.path.split("?")[0] != fake.route:
            answer = fake.static.get(("POST", self.path.split("?")[0]))
            with fake._lock:
                fake.side_requests.append(RecordedRequest(self.path, headers, body))
            if answer is None:
                self._send_json(404, fake._error_body(404, f"fake: no route {self.path}"))
            else:
                self._send_json(200, answer)
            return
        reply, number = fake._take(RecordedRequest(self.path, headers, body))
        try:
            if reply is None:
                self._send_json(500, fake._error_body(500, NO_REPLY_LEFT), NO_RETRY)
            else:
                self._send_plan(fake._plan(reply, body, number))
        except (BrokenPipeError, ConnectionResetError):
            fake._note_disconnect()
        except Exception as exc:  # a bug in a scripted reply: say so instead of hanging up
            message = f"fake server error: {type(exc).__name__}: {exc}"
            self._send_json(500, fake._error_body(500, message), NO_RETRY)

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
        for name, value in reply_plan.headers.items():
            self.send_header(name, value)
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
        if reply_plan.drop:
            return  # the connection closes mid-body (connection: close)
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


def in_parts(text: str, parts: int) -> list[str]:
    """Text cut into about ``parts`` pieces, ignoring word and token boundaries (a stream's
    deltas)."""
    step = max(1, -(-len(text) // parts))
    return [text[i : i + step] for i in range(0, len(text), step)]


def load_replies(path: str | os.PathLike[str], parse: Callable[[dict[str, Any]], R]) -> list[R]:
    """A JSON list of replies, or ``{"replies": [...]}``, each parsed by ``parse``."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    items = data["replies"] if isinstance(data, dict) else data
    return [parse(item) for item in items]


def run_standalone(
    make: Callable[..., FakeServer[Any]],
    load_script: Callable[[str], list[Any]],
    description: str,
    argv: list[str] | None = None,
) -> int:
    """Serve a script until SIGTERM/SIGINT; print the base URL once listening."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--script", required=True, help="JSON list of scripted replies")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--port-file", help="write the port here once listening")
    parser.add_argument("--record", help="append each request as a JSON line here")
    args = parser.parse_args(argv)
    stop_requested = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop_requested.set())
    with make(load_script(args.script), port=args.port, record_path=args.record) as fake:
        if args.port_file:
            # Written then renamed, so a poller never reads a half-written file.
            tmp = f"{args.port_file}.tmp"
            Path(tmp).write_text(str(fake.port), encoding="utf-8")
            os.replace(tmp, args.port_file)
        print(fake.base_url, flush=True)
        while not stop_requested.wait(0.2):
            pass
    return 0
