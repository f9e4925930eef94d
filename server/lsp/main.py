"""`agentls serve`: the language server over stdio or TCP."""

from __future__ import annotations

from agentls.lsp import code_actions, lifecycle
from agentls.lsp.commands import answer, ask, doctor, mcp, undo
from agentls.lsp.files import disk_sync
from agentls.lsp.server import AgentServer
from agentls.lsp.wire import framing, log_forwarding


def build_server() -> AgentServer:
    server = AgentServer()
    lifecycle.register(server)
    ask.register(server)
    answer.register(server)
    undo.register(server)
    mcp.register(server)
    doctor.register(server)
    code_actions.register(server)
    disk_sync.register(server)
    return server


def serve(tcp: str | None = None) -> int:
    server = build_server()
    log_forwarding.configure(server)
    if tcp is None:
        framing.start_io(server)
        return 0
    host, _, port = tcp.rpartition(":")
    # One TCP connection, and the server ends when it closes.
    framing.start_tcp(server, host or "127.0.0.1", int(port))
    return 0
