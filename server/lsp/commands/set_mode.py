"""`agentls.setMode` {"mode", "sessionId"?}: an open session's mode, or the mode of new ones.

Without a session the choice outlives settings refreshes until the `mode`
setting itself changes (`chosen_mode.py`).
"""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from agentls.lsp.commands.arguments import parse
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints
from agentls.permissions.modes import parse_mode

SET_MODE = "agentls.setMode"


def register(server: AgentServer) -> None:
    @server.command(SET_MODE)
    async def set_mode(ls: AgentServer, *args: Any) -> dict[str, Any]:
        from agentls.protocol.commands import ModeSet, SetModeParams

        params = parse(SetModeParams, args, SET_MODE)
        try:
            mode = parse_mode(params.mode)
        except ValueError as exc:
            raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
        if params.session_id is None:
            from agentls.conversation.settings import load_settings

            async with ls.settings_update():  # after a refresh under way, and it outlives them
                ls.modes.choose(mode)
                layers = [*ls.editor_layers, {"mode": mode.value}]
                await ls.apply_settings_async(
                    load_settings({"mode": mode.value}, base=ls.settings), layers
                )
        else:
            from agentls.session.store import SessionNotFound

            try:
                ls.manager.opened(params.session_id).set_mode(mode)
            except (SessionNotFound, ValueError) as exc:  # or a mode managed settings forbid
                raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
        return ModeSet(mode=mode, session_id=params.session_id).wire()
