"""`agentls serve`: the language server over stdio or TCP."""

from __future__ import annotations

from agentls.lsp import (
    answers,
    code_actions,
    commands,
    disk_sync,
    doctor_command,
    framing,
    lifecycle,
    log_forwarding,
    mcp_command,
    memory_command,
    undo_command,
)
from agentls.lsp.server import AgentServer


def build_server() -> AgentServer:
    server = AgentServer()
    lifecycle.register(server)
    commands.register(server)
    answers.register(server)
    undo_command.register(server)
    mcp_command.register(server)
    doctor_command.register(server)
    memory_command.register(server)
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
