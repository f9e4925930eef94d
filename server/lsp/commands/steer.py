"""`agentls.steer` {"sessionId", "prompt"}: the person's words for a session's running run,
given to the model at its next turn boundary (a `steered` event says when)."""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from agentls.lsp.commands.arguments import parse
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

STEER = "agentls.steer"


def register(server: AgentServer) -> None:
    @server.command(STEER)
    def steer(ls: AgentServer, *args: Any) -> dict[str, Any]:
        from agentls.protocol.commands import SteerParams, SteerResult

        params = parse(SteerParams, args, STEER)
        conversation = ls.manager.get(params.session_id)
        if conversation is None:
            raise JsonRpcInvalidParams(message=f"agentls: session {params.session_id} is not open")
        queued = conversation.steer(params.prompt)
        return SteerResult(
            session_id=params.session_id,
            run_id=None if queued is None else queued.run_id,
            queued=queued is not None,
        ).wire()
