"""A raw JSON-RPC client over a subprocess's stdio: bytes in, parsed messages out.

Unlike pytest-lsp it sends anything (broken JSON, odd framing, wrong types) and
collects every message the server writes, so a test can ask "was request N
answered?" with a deadline. A reader thread parses the server's output; a
second one drains its stderr (kept, for the failure message).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SERVE = [sys.executable, "-m", "agentls", "serve"]


def frame(body: bytes, *, headers: bytes | None = None) -> bytes:
    """One LSP frame; ``headers`` replaces the usual Content-Length header block."""
    if headers is None:
        headers = b"Content-Length: %d\r\n\r\n" % len(body)
    return headers + body


def encode(message: Any) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode()


class RawServer:
    """``agentls serve`` as a subprocess, spoken to in raw bytes."""

    def __init__(
        self, env: dict[str, str], cwd: Path | None = None, *, keep_messages: bool = True
    ) -> None:
        self.keep_messages = keep_messages
        self.proc = subprocess.Popen(
            SERVE,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **env},
            cwd=cwd,
        )
        self.messages: list[dict[str, Any]] = []  # everything the server sent, in order
        self.responses: dict[Any, dict[str, Any]] = {}  # the last answer, by id
        self.null_id_errors = 0  # errors answering what had no readable id
        self.server_requests = 0  # server -> client requests (each answered null)
        self.stderr = bytearray()
        self._cond = threading.Condition()
        self._closed = False
        self._write_lock = threading.Lock()
        self._to_answer: queue.Queue[Any] = queue.Queue()
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._answer_server_requests, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    # --- output ---------------------------------------------------------------

    def _read_stdout(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            while True:
                length = -1
                while True:
                    line = out.readline()
                    if not line:
                        return
                    if line in (b"\r\n", b"\n"):
                        break
                    name, _, value = line.decode("latin-1").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                if length < 0:
                    raise AssertionError("the server sent a frame without Content-Length")
                message = json.loads(out.read(length))
                if "method" in message and "id" in message:
                    # What a plain editor does with a prompt, a progress token, a
                    # configuration request: answers it, here with null.
                    # (From another thread: this one must keep reading, or a server
                    # blocked writing to us could stop reading what we write.)
                    self.server_requests += 1
                    self._to_answer.put(message["id"])
                with self._cond:
                    if self.keep_messages:
                        self.messages.append(message)
                    if "method" not in message:
                        if "id" not in message:
                            raise AssertionError(f"a response without an id: {message}")
                        if message["id"] is None:
                            self.null_id_errors += 1
                        else:
                            self.responses[key(message["id"])] = message
                    self._cond.notify_all()
        finally:
            with self._cond:
                self._closed = True
                self._cond.notify_all()

    def _answer_server_requests(self) -> None:
        while True:
            msg_id = self._to_answer.get()
            try:
                self.send({"jsonrpc": "2.0", "id": msg_id, "result": None})
            except (OSError, ValueError):
                return  # the server is gone

    def _read_stderr(self) -> None:
        err = self.proc.stderr
        assert err is not None
        for chunk in iter(lambda: err.read1(65536), b""):
            self.stderr += chunk
            if len(self.stderr) > 2_000_000:  # keep the tail: a fuzz run logs a lot
                del self.stderr[:1_000_000]

    # --- input ----------------------------------------------------------------

    def send_bytes(self, *pieces: bytes) -> None:
        """Write the pieces one by one, flushing each; nothing else is written between
        them (the thread answering the server's requests waits)."""
        stdin = self.proc.stdin
        assert stdin is not None
        with self._write_lock:
            for piece in pieces:
                stdin.write(piece)
                stdin.flush()

    def send(self, message: Any) -> None:
        self.send_bytes(frame(encode(message)))

    def request(self, msg_id: Any, method: str, params: Any = None, timeout: float = 10) -> Any:
        message = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.wait_response(msg_id, timeout)

    def notify(self, method: str, params: Any = None) -> None:
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    # --- waiting --------------------------------------------------------------

    def wait_for(self, predicate: Callable[[], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    if predicate():
                        return
                    state = "closed its output" if self._closed else "did not answer in time"
                    raise AssertionError(f"{what}: the server {state}\n{self.stderr_tail()}")
                self._cond.wait(min(left, 0.5))

    def wait_response(self, msg_id: Any, timeout: float = 10) -> dict[str, Any]:
        wanted = key(msg_id)
        self.wait_for(lambda: wanted in self.responses, timeout, f"no answer to id {msg_id!r}")
        with self._cond:
            return self.responses[wanted]

    def forget(self, msg_id: Any) -> None:
        """Drop an earlier answer to ``msg_id``, before sending that id again."""
        with self._cond:
            self.responses.pop(key(msg_id), None)

    def stderr_tail(self, chars: int = 4000) -> str:
        return bytes(self.stderr[-chars:]).decode("utf-8", "replace")

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self, timeout: float = 10) -> int:
        """shutdown + exit; the exit status (the process is killed if it hangs)."""
        try:
            if self.alive:
                self.request("shutdown-final", "shutdown", timeout=timeout)
                self.notify("exit")
            return self.proc.wait(timeout=timeout)
        finally:
            self.kill()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass


def key(msg_id: Any) -> Any:
    """Ids compare by JSON value and type: 1 and "1" are different ids."""
    return (type(msg_id).__name__, json.dumps(msg_id))
