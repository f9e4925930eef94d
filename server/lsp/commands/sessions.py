"""`agentls.sessions`: the sessions stored for the workspace folders, and which are running."""

from __future__ import annotations

import asyncio
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

SESSIONS = "agentls.sessions"


def register(server: AgentServer) -> None:
    @server.command(SESSIONS)
    async def sessions(ls: AgentServer, *args: Any) -> list[dict[str, Any]]:
        from agentls.lsp.run_events import shows_cost
        from agentls.protocol.commands import SessionInfo

        if args:
            raise JsonRpcInvalidParams(message=f"{SESSIONS} takes no arguments")
        listed = []
        # Every session file of the workspace is read: on a thread, the editor served.
        roots, store = await ls.roots_async(), ls.store
        stored = await asyncio.to_thread(lambda: [store.list(root) for root in roots])
        for infos in stored:
            for info in infos:
                conversation = ls.manager.get(info.id)
                listed.append(
                    SessionInfo(
                        session_id=info.id,
                        created_at=info.created_at,
                        workspace=info.workspace,
                        first_prompt=info.first_prompt,
                        outcome=info.outcome,
                        runs=info.runs,
                        # As the run's events say it: no price for a scripted model.
                        cost_usd=info.cost_usd if shows_cost(info.model) else None,
                        running=conversation is not None and conversation.running,
                        forked_from=info.forked_from,
                        forked_at_ask=info.forked_at,
                    ).wire()
                )
        return listed
