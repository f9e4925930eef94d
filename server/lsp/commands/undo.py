"""`agentls.undo` {"sessionId", "turn"?}: Undo last ask (every turn of it), or one turn.

Open documents go back through workspace/applyEdit, so the editor's own undo
and its buffers stay right; closed files are put back on disk. A plain
client's restored buffer reaches the disk through the person's save, awaited
after this command has answered (disk_sync.after_undo).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from agentls.contracts.waiting import to_its_end
from agentls.lsp.commands.arguments import parse
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

if TYPE_CHECKING:
    from agentls.conversation.open_sessions import Conversation

UNDO = "agentls.undo"


def register(server: AgentServer) -> None:
    @server.command(UNDO)
    async def undo(ls: AgentServer, *args: Any) -> dict[str, Any]:
        from agentls.protocol.commands import UndoParams
        from agentls.session.lock import SessionHeld

        params = parse(UndoParams, args, UNDO)
        try:
            path = ls.store.path_for(params.session_id)
        except ValueError as exc:
            raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
        if not await asyncio.to_thread(path.exists):
            raise JsonRpcInvalidParams(message=f"agentls: no session {params.session_id}")
        conversation = ls.manager.get(params.session_id)
        from agentls.conversation.open_sessions import SessionBusy  # loaded by ls.manager

        try:  # one writer per session: not while it runs here or in another process
            if conversation is not None:
                async with conversation.claimed():
                    return await _undo(ls, path, conversation, params.turn)
            return await _undo_unopened(ls, path, params.turn)
        except (SessionBusy, SessionHeld) as exc:
            raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None


async def _undo_unopened(ls: AgentServer, path: Path, turn: int | None) -> dict[str, Any]:
    """A session this server has not opened: its lock file made and taken on a thread."""
    claim = ls.store.claim(path.stem, "lsp")
    try:
        await to_its_end(claim.acquire)
        return await _undo(ls, path, None, turn)
    finally:
        claim.close()


async def _undo(
    ls: AgentServer, path: Path, conversation: Conversation | None, turn: int | None
) -> dict[str, Any]:
    from agentls.conversation.undo import UndoRefused, undo_last_ask, undo_turn
    from agentls.lsp.files.lsp_workspace import LspWorkspace
    from agentls.protocol.commands import UndoResult
    from agentls.session.reader import read_events
    from agentls.session.reducer import reduce

    if conversation is not None and isinstance(conversation.workspace, LspWorkspace):
        workspace = conversation.workspace
    else:
        started = await asyncio.to_thread(read_events, path, kinds=("session_started",))
        root = Path(reduce(started).workspace)
        workspace = LspWorkspace(ls.editor, root)
    log = conversation.log if conversation is not None else None
    state_dir = ls.store.state_dir
    try:
        if turn is None:
            result = await undo_last_ask(state_dir, path, workspace.root, workspace, log)
        else:
            result = await undo_turn(state_dir, path, workspace.root, workspace, turn, log)
    except UndoRefused as exc:
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
