"""`agentls.processes` {"sessionId"?, "stop"?}: the open sessions' background processes,
one of them stopped first when asked."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from agentls.contracts.tooling import ToolError
from agentls.lsp.commands.arguments import no_argument, parse
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

if TYPE_CHECKING:
    from agentls.contracts.processes import ProcessInfo
    from agentls.conversation.one_session import Conversation
    from agentls.protocol.commands import ProcessEntry

PROCESSES = "agentls.processes"


def register(server: AgentServer) -> None:
    @server.command(PROCESSES)
    async def processes(ls: AgentServer, *args: Any) -> dict[str, Any]:
        from agentls.protocol.commands import ProcessEntry, ProcessesParams, ProcessesResult

        no_args = no_argument(args)
        params = ProcessesParams() if no_args else parse(ProcessesParams, args, PROCESSES)
        sessions = _sessions(ls, params.session_id)
        stopped = None
        if params.stop is not None:
            owner = _owner(sessions, params.stop)
            try:
                await owner.stop_process(params.stop)
            except ToolError as exc:
                raise JsonRpcInvalidParams(message=f"{PROCESSES}: {exc}") from None
            stopped = params.stop
        entries = [
            _entry(ProcessEntry, c.session_id, p)
            for c in sessions
            for p in sorted(c.background_processes(), key=lambda p: p.state != "running")
        ]
        return ProcessesResult(processes=entries, stopped=stopped).wire()


def _sessions(ls: AgentServer, session_id: str | None) -> list[Conversation]:
    if session_id is None:
        return ls.manager.open_conversations()
    conversation = ls.manager.get(session_id)
    if conversation is None:
        raise JsonRpcInvalidParams(message=f"{PROCESSES}: no open session {session_id}")
    return [conversation]


def _owner(sessions: list[Conversation], pid: str) -> Conversation:
    """The one session that runs ``pid`` (several: the sessionId must say which)."""
    running = [
        c for c in sessions
        if any(p.id == pid and p.state == "running" for p in c.background_processes())
    ]  # fmt: skip
    if len(running) == 1:
        return running[0]
    if len(sessions) == 1:
        return sessions[0]  # it tells what it does not have
    if not running:
        raise JsonRpcInvalidParams(message=f"{PROCESSES}: no open session runs {pid}")
    raise JsonRpcInvalidParams(
        message=f"{PROCESSES}: several sessions run a {pid}; pass the sessionId"
    )


def _entry(model: type[ProcessEntry], session_id: str, p: ProcessInfo) -> ProcessEntry:
    started = datetime.datetime.fromtimestamp(p.started_at, datetime.UTC).isoformat()
    return model(
        session_id=session_id, id=p.id, command=p.command, state=p.state,
        exit_code=p.exit_code, started_at=started, run_id=p.origin.run_id, sandbox=p.sandbox,
    )  # fmt: skip
