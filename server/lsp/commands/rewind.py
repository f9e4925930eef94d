"""`agentls.asks`, `agentls.rewind`, `agentls.fork`: a session's asks, numbered as
`agentls show` prints them; a rewind to one of them (the asks from it on leave the
history, the files they changed go back); a new session branched before one of them.

One call each onto the `ConversationManager`; open documents go back through
workspace/applyEdit, as an undo's do.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from agentls.lsp.commands.arguments import parse
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

ASKS = "agentls.asks"
REWIND = "agentls.rewind"
FORK = "agentls.fork"


def register(server: AgentServer) -> None:
    @server.command(ASKS)
    async def asks(ls: AgentServer, *args: Any) -> list[dict[str, Any]]:
        from agentls.protocol.commands import AskEntry, AsksParams
        from agentls.session.labels import request_words

        params = parse(AsksParams, args, ASKS)
        with _refusals():
            runs = await ls.manager.asks(params.session_id)
        return [
            AskEntry(
                ask=run.number,
                run_id=run.run_id,
                prompt=request_words(run.prompt),
                outcome=run.outcome,
                rewound=run.rewound,
            ).wire()
            for run in runs
        ]

    @server.command(REWIND)
    async def rewind(ls: AgentServer, *args: Any) -> dict[str, Any]:
        from agentls.lsp.files.lsp_workspace import LspWorkspace
        from agentls.protocol.commands import RewindParams, RewindResult

        params = parse(RewindParams, args, REWIND)
        ask = params.ask if params.ask is not None else str(params.run_id)
        with _refusals():  # not while it runs, here or elsewhere
            result = await ls.manager.rewind(
                params.session_id, ask, conversation=params.conversation, files=params.files,
                dry_run=params.dry_run, target_for=lambda root: LspWorkspace(ls.editor, root),
            )  # fmt: skip
        summary = result.describe()
        if not result.dry_run:
            ls.tell(f"agentls: {summary}")
        return RewindResult(
            ask=result.ask,
            asks=result.asks,
            runs=result.runs,
            prompts=result.prompts,
            conversation=result.conversation,
            files=result.files,
            turns=result.turns,
            restored=result.restored,
            removed=result.removed,
            kept=result.kept,
            refused=result.refused,
            dry_run=result.dry_run,
            summary=summary,
        ).wire()

    @server.command(FORK)
    async def fork(ls: AgentServer, *args: Any) -> dict[str, Any]:
        from agentls.protocol.commands import Forked, ForkParams

        params = parse(ForkParams, args, FORK)
        with _refusals():
            forked = await ls.manager.fork(params.session_id, params.ask)
        where = "whole" if params.ask is None else f"before ask {params.ask}"
        ls.tell(f"agentls: forked session {params.session_id} ({where}) as {forked}")
        return Forked(session_id=forked, forked_from=params.session_id, ask=params.ask).wire()


@contextlib.contextmanager
def _refusals() -> Iterator[None]:
    """What the core refuses, as InvalidParams with its message."""
    from agentls.conversation.one_session import SessionBusy  # loaded by ls.manager
    from agentls.conversation.rewind import RewindRefused
    from agentls.session.lock import SessionHeld
    from agentls.session.store import SessionNotFound

    try:
        yield
    except (SessionNotFound, SessionBusy, SessionHeld, RewindRefused, ValueError) as exc:
        raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
