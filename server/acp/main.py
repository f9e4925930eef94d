"""`agentls acp`: an ACP agent on stdio until the client closes it."""

from __future__ import annotations

import asyncio
import logging
from typing import cast

from acp.agent.connection import AgentSideConnection
from acp.interfaces import Agent

from agentls.acp.agent import AgentlsAgent
from agentls.acp.transport import LineTransport, protocol_stdout, stdin_reader
from agentls.conversation.open_sessions import ConversationManager
from agentls.session.store import SessionStore, default_state_dir

log = logging.getLogger(__name__)


def run_acp(model: str | None) -> int:
    out_fd = protocol_stdout()  # before anything can print
    asyncio.run(_serve(model, out_fd))
    return 0


async def _serve(model: str | None, out_fd: int) -> None:
    manager = ConversationManager(
        SessionStore(default_state_dir()), face="acp", notify=lambda note: log.warning("%s", note)
    )
    agent = AgentlsAgent(manager, model)
    transport = LineTransport(await stdin_reader(), out_fd)
    transport.on_eof = agent.cancel_all  # the client is gone: runs end, answers go out
    # `session/fork` is still unstable in the SDK: routed only with the unstable protocol
    # on. The other unstable methods (resume, close, NES, providers) this agent does not
    # offer: the router answers those MethodNotFound.
    connection = AgentSideConnection(
        cast(Agent, agent), transport, listening=False, use_unstable_protocol=True
    )
    try:
        await connection.listen()
    finally:
        await agent.shutdown()
        await connection.close()
