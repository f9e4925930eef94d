"""Newline-delimited JSON-RPC over the process's stdio, for the ACP SDK.

The SDK's own stdio transport logs a line that is not JSON and drops it, and a
JSON value that is not an object stops its receive loop. Here every such line
is answered with a JSON-RPC error and the agent keeps serving. Only this
transport writes to the protocol's stdout; fd 1 itself is pointed at stderr,
so a stray print or a child process cannot corrupt the stream.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

MAX_LINE_BYTES = 64 * 1024 * 1024  # a prompt with embedded files may be large
# After stdin ends, how long the requests already read may take to be answered.
DRAIN_SECONDS = 10.0
PARSE_ERROR, INVALID_REQUEST = -32700, -32600


def protocol_stdout() -> int:
    """A private duplicate of stdout for ACP frames; fd 1 becomes a copy of stderr."""
    sys.stdout.flush()
    fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr  # print() from anywhere lands in the log
    return fd


class LineTransport:
    """The SDK's ``Transport``: JSON-RPC messages in, messages out, one per line."""

    def __init__(self, reader: asyncio.StreamReader, out_fd: int) -> None:
        self._reader = reader
        self._out = os.fdopen(out_fd, "wb", buffering=0)
        self._lock = asyncio.Lock()
        self._closed = False
        self._unanswered: set[Any] = set()  # ids of requests read and not answered yet
        self._answered = asyncio.Condition()
        self.on_eof: Callable[[], object] = lambda: None  # e.g. cancel the runs

    async def _drain(self) -> None:
        """Stdin ended: every request already read still gets its answer (bounded)."""
        self.on_eof()
        try:
            async with asyncio.timeout(DRAIN_SECONDS), self._answered:
                await self._answered.wait_for(lambda: not self._unanswered)
        except TimeoutError:
            log.warning("%d request(s) unanswered at exit", len(self._unanswered))

    async def send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
        async with self._lock:  # one frame at a time, whole
            if self._closed:
                raise ConnectionError("the ACP connection is closed")
            await asyncio.to_thread(self._write, data.encode("utf-8"))
        if "method" not in message and message.get("id") in self._unanswered:
            async with self._answered:
                self._unanswered.discard(message.get("id"))
                self._answered.notify_all()

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = self._out.write(view)
            view = view[written or 0 :]

    async def receive(self) -> dict[str, Any] | None:
        while True:
            line = await self._read_line()
            if line is None:
                await self._drain()
                return None
            if not line.strip():
                continue
            message = await self._check(line)
            if message is not None:
                return message

    async def _read_line(self) -> bytes | None:
        try:
            return await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            return exc.partial or None
        except asyncio.LimitOverrunError:
            await self._skip_long_line()
            await self._error(None, INVALID_REQUEST, f"message longer than {MAX_LINE_BYTES} bytes")
            return b""

    async def _skip_long_line(self) -> None:
        while True:
            try:
                await self._reader.readuntil(b"\n")
                return
            except asyncio.LimitOverrunError as exc:
                await self._reader.readexactly(exc.consumed)
            except asyncio.IncompleteReadError:
                return

    async def _check(self, line: bytes) -> dict[str, Any] | None:
        """The message, or None once an error was answered for it."""
        try:
            message = json.loads(line)
        except (ValueError, UnicodeDecodeError) as exc:
            await self._error(None, PARSE_ERROR, f"not valid JSON: {exc}")
            return None
        if not isinstance(message, dict):
            await self._error(None, INVALID_REQUEST, "a JSON-RPC message must be an object")
            return None
        method, request_id = message.get("method"), message.get("id")
        if isinstance(request_id, bool) or not isinstance(request_id, str | int | float | None):
            await self._error(None, INVALID_REQUEST, "an id must be a string or a number")
            return None
        if "method" not in message and "id" not in message:
            await self._error(None, INVALID_REQUEST, "neither a request nor a response")
            return None
        if "method" in message and not isinstance(method, str):
            await self._error(request_id, INVALID_REQUEST, "the method must be a string")
            return None
        if "params" in message and not isinstance(message["params"], dict | list | None):
            await self._error(request_id, INVALID_REQUEST, "params must be an object or array")
            return None
        if "method" in message and "id" in message:
            self._unanswered.add(request_id)
        return message

    async def _error(self, request_id: Any, code: int, text: str) -> None:
        log.warning("answered a malformed message: %s", text)
        await self.send(
            {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}}
        )

    async def close(self) -> None:
        async with self._lock:
            if not self._closed:
                self._closed = True
                self._out.close()


async def stdin_reader() -> asyncio.StreamReader:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE_BYTES)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    return reader
