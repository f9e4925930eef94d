"""`agentls.showTranscript` {"sessionId"?}: a session's transcript, written and shown.

Without a session id (editors that cannot pass arguments) it is the session
asked last in this server, else the newest of the workspace folders.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from agentls.lsp.commands.arguments import no_argument, parse
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

SHOW_TRANSCRIPT = "agentls.showTranscript"


def register(server: AgentServer) -> None:
    @server.command(SHOW_TRANSCRIPT)
    async def show_transcript(ls: AgentServer, *args: Any) -> dict[str, Any]:
        from agentls.protocol.commands import TranscriptParams, TranscriptShown
        from agentls.session.store import SessionNotFound
        from agentls.session.transcript import write_transcript

        if no_argument(args):
            params = TranscriptParams()
        else:
            params = parse(TranscriptParams, args, SHOW_TRANSCRIPT)
        session_id = await latest_session(ls) if params.session_id is None else params.session_id
        try:
            await asyncio.to_thread(ls.store.stored_path, session_id)
        except (SessionNotFound, ValueError) as exc:
            raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
        uri = (await asyncio.to_thread(write_transcript, ls.store, session_id)).as_uri()
        shown = await ls.show_document(uri)
        return TranscriptShown(session_id=session_id, uri=uri, shown=shown).wire()


async def latest_session(server: AgentServer) -> str:
    """The session asked last in this server, else the newest of the workspace folders
    (their session files read on a thread)."""
    if server.last_session is not None:
        return server.last_session
    roots, store = await server.roots_async(), server.store
    stored = await asyncio.to_thread(lambda: [info for root in roots for info in store.list(root)])
    if not stored:
        raise JsonRpcInvalidParams(message="agentls: no session yet in this workspace")
    return max(stored, key=lambda info: info.created_at).id
