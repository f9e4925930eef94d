"""The parts of pygls that are not its public API and that agentls relies on.

`server/lsp/wire/framing.py` reads the client's messages itself and `server/lsp/server.py`
overrides protocol internals, so an upgrade of pygls that renames one of them, changes
its arguments or what it does would break the language server quietly. pyproject pins
pygls to one minor version; these tests say what to check again before moving the pin.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import inspect
import io
import json
import re
import threading
import tomllib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
)
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCProtocol, LanguageServerProtocol
from pygls.protocol.json_rpc import RPCRequest
from pygls.server import JsonRPCServer

from agentls.lsp.server import AgentServer
from agentls.lsp.wire import framing
from agentls.lsp.wire.agent_protocol import AgentProtocol

ROOT = Path(__file__).resolve().parents[3]
# JSON-RPC error codes, as the specification numbers them
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602


class Capture:
    """A writer that keeps what the server sends, as decoded messages."""

    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data

    def close(self) -> None:
        pass

    def messages(self) -> list[dict[str, Any]]:
        found = []
        rest = self.data
        while rest:
            head, _, rest = rest.partition(b"\r\n\r\n")
            length = int(re.search(rb"Content-Length: (\d+)", head).group(1))  # type: ignore[union-attr]
            found.append(json.loads(rest[:length]))
            rest = rest[length:]
        return found


def connected() -> tuple[AgentServer, Capture]:
    server = AgentServer()
    capture = Capture()
    server.protocol.set_writer(capture)
    return server, capture


def receive(server: AgentServer, message: dict[str, Any]) -> None:
    """What wire/framing.py does with a body once its envelope is sound."""
    protocol = server.protocol
    protocol.handle_message(protocol.structure_message(message))


def parameters(function: Callable[..., Any]) -> list[str]:
    return list(inspect.signature(function).parameters)


# --- the pin ----------------------------------------------------------------------------


def test_pyproject_pins_the_installed_minor_version() -> None:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (pin,) = [d for d in dependencies if re.match(r"pygls\b", d)]
    match = re.fullmatch(r"pygls>=(\d+)\.(\d+)(?:\.\d+)?,<(\d+)\.(\d+)", pin.replace(" ", ""))
    assert match, f"pygls must be pinned to one minor version (e.g. pygls>=2.1,<2.2), not {pin}"
    major, minor, upper_major, upper_minor = map(int, match.groups())
    assert (upper_major, upper_minor) == (major, minor + 1), pin
    installed = importlib.metadata.version("pygls")
    assert installed.split(".")[:2] == [str(major), str(minor)], (installed, pin)


# --- names and signatures ---------------------------------------------------------------


def test_the_overridden_protocol_methods_take_what_pygls_passes() -> None:
    # AgentProtocol overrides these; pygls calls them with these arguments.
    for name in ("_handle_cancel_notification", "structure_message", "handle_message"):
        base = getattr(LanguageServerProtocol, name)
        ours = getattr(AgentProtocol, name)
        assert parameters(base) == parameters(ours), name
    assert parameters(JsonRPCServer.report_server_error) == parameters(
        AgentServer.report_server_error
    )
    assert parameters(JsonRPCServer._report_server_error) == ["self", "error", "source"]


def test_the_private_methods_called_still_take_those_arguments() -> None:
    # framing._error and AgentProtocol._answer_error send answers through these.
    inspect.signature(JsonRPCProtocol._send_response).bind(object(), 1, error=None)
    inspect.signature(JsonRPCProtocol._send_data).bind(object(), {})
    inspect.signature(JsonRPCProtocol.set_writer).bind(object(), object())
    # start_io builds the reader pygls would, with the server's thread pool.
    inspect.signature(StdinAsyncReader).bind(io.BytesIO(), None)
    inspect.signature(StdoutWriter).bind(io.BytesIO())
    inspect.signature(LanguageServer).bind("agentls", "0", protocol_cls=AgentProtocol)
    for kind in (JsonRpcInvalidRequest, JsonRpcParseError, JsonRpcInvalidParams):
        error = kind(message="why").to_response_error()
        assert error.message == "why"
    codes = [k().to_response_error().code for k in (JsonRpcParseError, JsonRpcInvalidRequest)]
    assert codes == [PARSE_ERROR, INVALID_REQUEST]


def test_the_private_attributes_exist_with_their_types() -> None:
    server = AgentServer()
    protocol = server.protocol
    # JsonRPCServer: start_io / start_tcp set these, shutdown() reads them.
    assert server._stop_event is None
    assert server._server is None
    assert isinstance(server.thread_pool, ThreadPoolExecutor)
    # JsonRPCProtocol: the server, and whether `shutdown` came.
    assert protocol._server is server
    assert protocol._shutdown is False
    # the converter: tests/e2e/lsp/editor.py registers a structure hook on the client's
    assert callable(protocol._converter.register_structure_hook)


def test_the_stdin_reader_keeps_its_stream_executor_and_loop() -> None:
    # framing._StdinReader overrides readline with these three attributes.
    stdin = io.BytesIO(b"Content-Length: 2\r\n\r\n{}")
    executor = ThreadPoolExecutor(1)

    async def read() -> tuple[bytes, bytes]:
        reader = framing._StdinReader(stdin, executor)
        assert (reader.stdin, reader.executor) == (stdin, executor)
        assert reader.loop is asyncio.get_running_loop()
        return await reader.readline(), await reader.readexactly(5)

    try:
        assert asyncio.run(read()) == (b"Content-Length: 2\r\n", b"\r\n{}")
    finally:
        executor.shutdown()


# --- behaviours ---------------------------------------------------------------------------


def test_send_response_and_send_data_write_framed_json() -> None:
    server, capture = connected()
    error = JsonRpcInvalidRequest(message="no").to_response_error()
    server.protocol._send_response(7, error=error)
    server.protocol._send_data({"jsonrpc": "2.0", "id": None, "error": {"code": 1, "message": "x"}})
    first, second = capture.messages()
    assert first == {"jsonrpc": "2.0", "id": 7, "error": {"code": -32600, "message": "no"}}
    assert second["id"] is None


def test_structure_message_builds_the_whole_message_from_the_top_level_object() -> None:
    # wire/framing.py decodes JSON once and structures the top-level object only (no object_hook).
    server, _ = connected()
    message = server.protocol.structure_message(
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {"uri": "file:///a.py", "languageId": "python", "version": 1,
                                 "text": "x"},
            },
        }
    )  # fmt: skip
    assert isinstance(message, types.DidOpenTextDocumentNotification)
    assert message.params.text_document.uri == "file:///a.py"
    request = server.protocol.structure_message(
        {"jsonrpc": "2.0", "id": 3, "method": "shutdown", "params": None}
    )
    assert isinstance(request, RPCRequest)


def test_params_that_do_not_fit_raise_a_json_rpc_exception_with_the_cause() -> None:
    # AgentProtocol.structure_message turns this into an InvalidParams answer.
    protocol = LanguageServer("t", "0").protocol
    bad = {"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {"x": 1}}
    with pytest.raises(JsonRpcException) as raised:
        protocol.structure_message(bad)
    assert raised.value.__cause__ is not None


def test_a_notification_sent_with_an_id_is_structured_without_one() -> None:
    # AgentProtocol answers such a message InvalidRequest because it has no `id` then.
    protocol = LanguageServer("t", "0").protocol
    message = protocol.structure_message(
        {"jsonrpc": "2.0", "id": 4, "method": "initialized", "params": {}}
    )
    assert not hasattr(message, "id")


def test_bad_params_and_misused_notifications_are_answered() -> None:
    server, capture = connected()
    receive(server, {"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {}})
    receive(server, {"jsonrpc": "2.0", "id": 2, "method": "initialized", "params": {}})
    answers = {m["id"]: m["error"]["code"] for m in capture.messages()}
    assert answers == {1: INVALID_PARAMS, 2: INVALID_REQUEST}


def test_requests_after_shutdown_are_answered_and_shutdown_sets_the_flag() -> None:
    server, capture = connected()
    receive(server, {"jsonrpc": "2.0", "id": 1, "method": "shutdown"})
    assert server.protocol._shutdown is True
    receive(server, {"jsonrpc": "2.0", "id": 2, "method": "workspace/symbol",
                     "params": {"query": ""}})  # fmt: skip
    first, second = capture.messages()
    assert first == {"jsonrpc": "2.0", "id": 1, "result": None}
    assert (second["id"], second["error"]["code"]) == (2, INVALID_REQUEST)


async def test_a_command_sees_its_request_id_and_cancel_reaches_the_override() -> None:
    server, capture = connected()
    seen: list[Any] = []
    release = asyncio.Event()

    class Handle:
        cancelled = False

        def cancel(self) -> None:
            self.cancelled = True
            release.set()

    handle = Handle()

    @server.command("test.wait")
    async def wait(ls: AgentServer, *args: Any) -> str:
        seen.append(ls.protocol.current_request_id())
        ls.waited_runs[ls.protocol.current_request_id()] = handle  # as agentls.ask does
        await release.wait()
        return "done"

    receive(server, {"jsonrpc": "2.0", "id": 42, "method": "workspace/executeCommand",
                     "params": {"command": "test.wait", "arguments": []}})  # fmt: skip
    await asyncio.sleep(0.01)
    assert seen == [42]
    receive(server, {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 42}})
    assert handle.cancelled
    assert server.waited_runs == {}
    for _ in range(100):
        if capture.data:
            break
        await asyncio.sleep(0.01)
    assert [m["id"] for m in capture.messages()] == [42]


def test_a_failing_handler_reaches_report_server_error(caplog: pytest.LogCaptureFixture) -> None:
    server, capture = connected()

    @server.command("test.fail")
    def fail(ls: AgentServer, *args: Any) -> None:
        raise RuntimeError("broken")

    receive(server, {"jsonrpc": "2.0", "id": 5, "method": "workspace/executeCommand",
                     "params": {"command": "test.fail", "arguments": []}})  # fmt: skip
    assert [m["id"] for m in capture.messages()] == [5]
    assert "server error (FeatureRequestError)" in caplog.text


def test_shutdown_sets_the_stop_event_and_closes_the_tcp_server() -> None:
    # framing.start_io / start_tcp set these two as pygls's own start methods do.
    server = AgentServer()

    class Closable:
        closed = False

        def close(self) -> None:
            self.closed = True

    server._stop_event = threading.Event()
    tcp = Closable()
    server._server = tcp  # type: ignore[assignment]
    server.shutdown()  # type: ignore[no-untyped-call]
    assert server._stop_event.is_set()
    assert tcp.closed
