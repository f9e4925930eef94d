"""`agentls.memory`: list, add or forget what the agent remembers, for the editors; one
call onto the core's memory operation (conversation/memory_ops.py)."""

from __future__ import annotations

import asyncio
import datetime
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from agentls.lsp.commands.arguments import no_argument, parse
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

if TYPE_CHECKING:
    from agentls.conversation.memory_ops import MemoryRecord
    from agentls.protocol.commands import MemoryEntry

MEMORY = "agentls.memory"


def register(server: AgentServer) -> None:
    @server.command(MEMORY)
    async def memory(ls: AgentServer, *args: Any) -> dict[str, Any]:
        from agentls.conversation.memory_ops import (
            MemoryStoreError,
            UnknownMemory,
            describe,
            memory_action,
        )
        from agentls.protocol.commands import MemoryEntry, MemoryParams, MemoryResult

        params = MemoryParams() if no_argument(args) else parse(MemoryParams, args, MEMORY)
        root = await ls.root_for_async(params.uri)
        try:
            outcome = await asyncio.to_thread(
                memory_action, root, ls.store.state_dir, params.action,
                text=params.text, scope=params.scope, expires_days=params.expires_days,
                memory_id=params.id,
            )  # fmt: skip
        except (ValueError, UnknownMemory, MemoryStoreError) as exc:
            raise JsonRpcInvalidParams(message=f"{MEMORY}: {exc}") from None
        listing = outcome.listing
        now = listing.now
        entries = [_entry(MemoryEntry, r, describe(r, now), r.stale(now)) for r in listing.records]
        changed = outcome.changed.id if outcome.changed is not None else None
        return MemoryResult(
            memories=entries, changed=changed, warnings=list(listing.warnings)
        ).wire()


def _entry(model: type[MemoryEntry], r: MemoryRecord, line: str, stale: bool) -> MemoryEntry:
    def when(moment: datetime.datetime | None) -> str | None:
        return moment.isoformat() if moment is not None else None

    return model(
        id=r.id,
        content=r.content,
        scope=r.scope,
        source=r.source,
        confidence=r.confidence,
        created_at=r.created_at.isoformat(),
        last_verified_at=when(r.last_verified_at),
        expires_at=when(r.expires_at),
        stale=stale,
        line=line,
    )
