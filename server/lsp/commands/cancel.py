"""`agentls.cancel` {"sessionId"?}: end a session's run, or (no argument) every run."""

from __future__ import annotations

from typing import Any

from agentls.lsp.commands.arguments import no_argument, parse
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

CANCEL = "agentls.cancel"


def register(server: AgentServer) -> None:
    @server.command(CANCEL)
    def cancel(ls: AgentServer, *args: Any) -> dict[str, Any]:
        from agentls.protocol.commands import CancelParams, CancelResult

        params = CancelParams() if no_argument(args) else parse(CancelParams, args, CANCEL)
        if params.session_id is None:  # editors that cannot pass arguments: every run
            ended = [h.session_id for h in list(ls.runs.values()) if h.cancel()]
            return CancelResult(session_id=None, cancelled=bool(ended), session_ids=ended).wire()
        conversation = ls.manager.get(params.session_id)
        cancelled = conversation is not None and conversation.cancel()
        return CancelResult(session_id=params.session_id, cancelled=cancelled).wire()
