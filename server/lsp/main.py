"""`agentls serve`: the language server over stdio or TCP."""

from __future__ import annotations

from agentls.lsp import code_actions, lifecycle
from agentls.lsp.commands.registration import register_commands
from agentls.lsp.files import disk_sync
from agentls.lsp.server import AgentServer
from agentls.lsp.wire import framing, log_forwarding


def build_server() -> AgentServer:
    server = AgentServer()
    lifecycle.register(server)
    register_commands(server)
    code_actions.register(server)
    disk_sync.register(server, server.editor)
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
