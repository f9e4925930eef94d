"""`agentls.undo` {"sessionId", "turn"?}: Undo last ask (every turn of it), or one turn.

Open documents go back through workspace/applyEdit, so the editor's own undo
and its buffers stay right; closed files are put back on disk. A plain
client's restored buffer reaches the disk through the person's save, awaited
after this command has answered (disk_sync.after_undo).
"""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from agentls.lsp.commands.arguments import parse
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

UNDO = "agentls.undo"


def register(server: AgentServer) -> None:
    @server.command(UNDO)
    async def undo(ls: AgentServer, *args: Any) -> dict[str, Any]:
        from agentls.protocol.commands import UndoParams

        params = parse(UndoParams, args, UNDO)
        return await undo_session(ls, params.session_id, params.turn)


async def undo_session(ls: AgentServer, session_id: str, turn: int | None) -> dict[str, Any]:
    """The undo, open here or not (then its lock is taken on a thread), as the answer."""
    from agentls.conversation.one_session import SessionBusy  # loaded by ls.manager
    from agentls.conversation.undo import UndoRefused
    from agentls.lsp.files.lsp_workspace import LspWorkspace
    from agentls.protocol.commands import UndoResult
    from agentls.session.lock import SessionHeld
    from agentls.session.store import SessionNotFound

    try:  # one writer per session: not while it runs here or in another process
        result = await ls.manager.undo(
            session_id, turn, target_for=lambda root: LspWorkspace(ls.editor, root)
        )
    except (SessionNotFound, SessionBusy, SessionHeld, UndoRefused, ValueError) as exc:
        raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
    ls.tell(f"agentls: {result.describe()}")
    return UndoResult(
        turn=result.number,
        turns=result.turns or [result.number],
        ask=result.whole_ask,
        run_id=result.run_id,
        restored=result.restored,
        removed=result.removed,
        conflicts=result.conflicts,
        refused=result.refused,
        done=result.done,
    ).wire()
