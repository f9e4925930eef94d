"""Start-up, settings and document tracking."""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

from lsprotocol import types

from agentls.contracts.errors import ConfigError
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints


def register(server: AgentServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: AgentServer, params: types.InitializeParams) -> None:
        ls.init_options = params.initialization_options
        ls.editor.name = params.client_info.name if params.client_info else ""
        # Settings (initializationOptions first) are read once `initialized` comes, so
        # the answer waits for nothing but the server itself.

    @server.feature(types.INITIALIZED)
    async def initialized(ls: AgentServer, params: types.InitializedParams) -> None:
        try:
            async with ls.settings_update():
                await refresh_configuration(ls)
        finally:
            ls.settings_ready.set()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def changed(ls: AgentServer, params: types.DidChangeConfigurationParams) -> None:
        async with ls.settings_update():  # an ask sent after this change runs with it
            await refresh_configuration(ls, pushed=params.settings)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: AgentServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.editor.last_uri = params.text_document.uri
        await ls.editor.notify_documents_changed()

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: AgentServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.editor.last_uri = params.text_document.uri
        await ls.editor.notify_documents_changed()

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: AgentServer, params: types.DidCloseTextDocumentParams) -> None:
        await ls.editor.notify_documents_changed()

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: AgentServer, *args: Any) -> None:
        await ls.shutdown_runs()


async def refresh_configuration(server: AgentServer, pushed: Any = None) -> None:
    """Settings = defaults < initializationOptions < workspace/configuration (or pushed)."""
    await asyncio.to_thread(_load_core)  # once: imported on a thread, the editor still served
    from agentls.lsp.editor_settings import SECTION, settings_notes

    layers: list[Any] = [server.init_options]
    if server.editor.offers_configuration():
        answer = await server.editor.configuration(SECTION)
        if answer is not None:
            layers.append(answer)
    elif pushed is not None:
        layers.append(pushed)
    await _apply(server, *layers)
    # Whether commands will be sandboxed is probed by running bubblewrap: on a thread.
    notes = await asyncio.to_thread(settings_notes, server.settings, *layers)
    for note in notes:
        server.tell_once(f"agentls: {note}", types.MessageType.Warning)


def _load_core() -> None:
    """The core the first settings and the first ask need, loaded after `initialize`."""
    core = (
        "agentls.lsp.editor_settings",
        "agentls.lsp.files.lsp_workspace",
        "agentls.conversation.open_sessions",
    )
    protocol = ("agentls.lsp.run_events", "agentls.protocol.commands")  # models: built once, here
    for name in (*core, *protocol):
        importlib.import_module(name)


async def _apply(server: AgentServer, *layers: Any) -> None:
    from agentls.lsp.editor_settings import merge_settings

    try:
        settings = merge_settings(*layers)
    except ConfigError as exc:
        server.tell(
            f"agentls: {exc}. The previous settings stay in force.", types.MessageType.Error
        )
        return
    chosen = server.modes.after_settings(layers)
    if chosen is not None and chosen is not settings.permissions.mode:
        # agentls.setMode's choice outlives refreshes that keep the mode setting
        layers = (*layers, {"mode": chosen.value})
        settings = merge_settings(*layers)
    server.editor.face = settings.face
    await server.apply_settings_async(settings, list(layers))
