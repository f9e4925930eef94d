"""Reading the client's messages: LSP framing that survives a broken client.

pygls's own reader takes only ``Content-Length: N\\r\\n`` spelled exactly, so
one frame headed otherwise (``content-length``, a length cut short) leaves the
stream out of step for good; it allocates whatever length it is told (a huge
one ends the server with MemoryError); and it passes every nested JSON object
through the message decoder, so an object inside params that looks like a
request gets answered. Here header names match in any case, lines may end in
``\\n``, a header found at the end of a garbage line brings the stream back
into step, frames over MAX_FRAME_BYTES are refused, a body is read in chunks
(memory grows with what arrives, not with what was announced), a line is
read 64 KiB at most at a time, and only the top-level object is a message.
Every request gets an answer: ParseError or InvalidRequest (with a null id
when no id can be read) when it cannot be handled at all. The pygls internals
used here are pinned and checked by tests/unit/lsp/test_pygls_contract.py;
docs/pygls-reader-patch.md proposes these fixes upstream.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import sys
import threading
from typing import TYPE_CHECKING, Any, Protocol

from pygls.exceptions import JsonRpcInvalidRequest, JsonRpcParseError
from pygls.io_ import StdinAsyncReader, StdoutWriter

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from agentls.lsp.server import AgentServer

log = logging.getLogger(__name__)

MAX_FRAME_BYTES = 128 * 1024 * 1024
_CHUNK = 1024 * 1024
_LINE_LIMIT = 64 * 1024
_CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*(\d{1,20})[ \t]*\r?\n\Z", re.IGNORECASE)


class Reader(Protocol):
    def readline(self) -> Awaitable[bytes]: ...

    def readexactly(self, n: int) -> Awaitable[bytes]: ...


async def read_messages(
    server: AgentServer, reader: Reader, stop: threading.Event | None = None
) -> None:
    """Hand each complete message to the server's protocol until the input ends."""
    length: int | None = None
    while stop is None or not stop.is_set():
        try:
            line = await reader.readline()
        except ValueError:  # a line over the stream's limit (TCP): dropped
            continue
        if not line:
            return
        if not line.strip():  # the blank line that ends the headers
            if length is None:
                continue  # no length was given: nothing to read, look for the next header
            body = await _read_body(reader, length)
            length = None
            if body is None:
                return  # the input ended inside a body
            _dispatch(server, body)
            continue
        match = _CONTENT_LENGTH.search(line)
        if match is None:
            continue  # another header (Content-Type), or garbage left by a broken frame
        announced = int(match.group(1))
        if announced > MAX_FRAME_BYTES:
            _error(server, None, JsonRpcInvalidRequest, f"frame of {announced} bytes refused")
            length = None
        else:
            length = announced


class _StdinReader(StdinAsyncReader):
    """Lines of at most _LINE_LIMIT bytes: a long line without a newline is read in pieces."""

    def readline(self) -> Awaitable[bytes]:
        line: Awaitable[bytes] = self.loop.run_in_executor(
            self.executor, self.stdin.readline, _LINE_LIMIT
        )
        return line


async def _read_body(reader: Reader, length: int) -> bytes | None:
    parts: list[bytes] = []
    left = length
    while left > 0:
        try:
            part = await reader.readexactly(min(left, _CHUNK))
        except asyncio.IncompleteReadError:
            return None
        if not part:
            return None
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _dispatch(server: AgentServer, body: bytes) -> None:
    protocol = server.protocol
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, or nested too deep
        _error(server, None, JsonRpcParseError, f"not JSON: {str(exc)[:200]}")
        return
    problem = envelope_problem(data)
    if problem is not None:
        answer_id, message = problem
        if answer_id is not _NO_ANSWER:
            _error(server, answer_id, JsonRpcInvalidRequest, message)
        else:
            log.warning("ignored a message: %s", message)
        return
    try:
        message = protocol.structure_message(data)
        protocol.handle_message(message)
    except Exception as exc:
        log.warning("could not handle a %s message: %s", data.get("method", "response"), exc)
        server.report_server_error(exc, type(exc))


_NO_ANSWER: Any = object()


def envelope_problem(data: Any) -> tuple[Any, str] | None:
    """What is wrong with a message's JSON-RPC envelope: (the id to answer, why), or None.

    The id is None when the request carries no usable id, and _NO_ANSWER for a
    broken notification or response, which nobody waits for.
    """
    if not isinstance(data, dict):
        return None, f"a message must be a JSON object, not {_kind(data)}"
    version_ok = data.get("jsonrpc") == "2.0"
    if "method" not in data:  # a response to one of our requests, or nothing at all
        if version_ok and "id" in data and ("result" in data or "error" in data):
            return None
        return _NO_ANSWER, "neither a request, a notification nor a response"
    method = data["method"]
    if "id" not in data:  # a notification: nobody waits for an answer
        if version_ok and isinstance(method, str):
            return None
        return _NO_ANSWER, f"a broken notification ({str(method)[:80]})"
    msg_id = data["id"]
    if not isinstance(msg_id, int | str) or isinstance(msg_id, bool):
        return None, f"a request id must be an integer or a string, not {_kind(msg_id)}"
    if not version_ok:
        return msg_id, 'a request must carry "jsonrpc": "2.0"'
    if not isinstance(method, str):
        return msg_id, f"a method name must be a string, not {_kind(method)}"
    return None


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _error(server: AgentServer, msg_id: Any, kind: type[Any], message: str) -> None:
    error = kind(message=message).to_response_error()
    if msg_id is not None:
        server.protocol._send_response(msg_id, error=error)
        return
    # pygls leaves a null id out; JSON-RPC wants it there.
    body = {"code": error.code, "message": error.message}
    server.protocol._send_data({"jsonrpc": "2.0", "id": None, "error": body})


def start_io(server: AgentServer) -> None:
    """pygls's stdio server, reading through ``read_messages``."""
    stop = threading.Event()
    server._stop_event = stop
    reader = _StdinReader(sys.stdin.buffer, server.thread_pool)
    server.protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    try:
        asyncio.run(_serve(server, reader, stop))
    except BrokenPipeError:
        log.error("the connection to the client is lost; shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.close_sessions()  # what the input's end did not stop, at once
        server.shutdown()  # type: ignore[no-untyped-call]


async def _serve(server: AgentServer, reader: Reader, stop: threading.Event) -> None:
    """Messages until the input ends; then the editor is gone: runs and background
    processes are stopped as at a shutdown."""
    await read_messages(server, reader, stop)
    await server.shutdown_runs()


def start_tcp(server: AgentServer, host: str, port: int) -> None:
    """One TCP connection (as pygls serves it), reading through ``read_messages``."""
    stop = threading.Event()
    server._stop_event = stop

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server.protocol.set_writer(writer)
        await _serve(server, reader, stop)
        server.shutdown()  # type: ignore[no-untyped-call]

    async def serve() -> None:
        tcp = await asyncio.start_server(connection, host, port)
        server._server = tcp
        bound = ", ".join(f"{a[0]}:{a[1]}" for a in (s.getsockname() for s in tcp.sockets))
        log.info("listening on %s (one connection)", bound)  # bound: a client may connect now
        async with tcp:
            await tcp.serve_forever()

    try:
        with contextlib.suppress(asyncio.CancelledError):
            asyncio.run(serve())
    finally:
        server.close_sessions()  # what the connection's end did not stop, at once
