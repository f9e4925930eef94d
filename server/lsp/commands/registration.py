"""Every `agentls.*` command registered on the server, one module each."""

from __future__ import annotations

from types import ModuleType

from agentls.lsp.commands import (
    answer,
    ask,
    cancel,
    doctor,
    mcp,
    memory,
    processes,
    prompt_commands,
    rewind,
    sessions,
    set_mode,
    show_diff,
    show_transcript,
    steer,
    undo,
)
from agentls.lsp.server import AgentServer

MODULES: tuple[ModuleType, ...] = (
    ask,
    cancel,
    steer,
    sessions,
    show_transcript,
    set_mode,
    answer,
    show_diff,
    undo,
    rewind,
    mcp,
    doctor,
    memory,
    prompt_commands,
    processes,
)


def register_commands(server: AgentServer) -> None:
    for module in MODULES:
        module.register(server)
