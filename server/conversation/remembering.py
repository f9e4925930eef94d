"""Keeping what the model proposed with `remember`, once the gate had a yes: its source
is worked out from this session's log, never taken from the model's word. A proposal
resting on a command that succeeded in this session is a verified observation; anything
else is the agent's summary, confidence low."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from agentls.memory.records import Scope
from agentls.memory.store import MemoryStore, MemoryStoreError
from agentls.session import events as ev
from agentls.session.reader import read_events


class SessionMemory:
    """The memory store as a session's `remember` calls reach it (ToolContext.memory)."""

    def __init__(self, state_dir: Path, root: Path, session_id: str, log_path: Path) -> None:
        self.store = MemoryStore(state_dir, root)
        self.session_id = session_id
        self.log_path = log_path

    async def keep(self, content: str, scope: str, evidence: Sequence[str]) -> str:
        return await asyncio.to_thread(self._keep, content, scope, tuple(evidence))

    def _keep(self, content: str, scope: str, evidence: tuple[str, ...]) -> str:
        chosen: Scope = "user" if scope == "user" else "project"
        events = self._succeeded(evidence)
        verified = bool(events)
        try:
            record = self.store.add(
                content,
                scope=chosen,
                source="verified_observation" if verified else "agent_summary",
                confidence="medium" if verified else "low",
                session=self.session_id,
                evidence=evidence,
                events=events,
                verified=verified,
            )
        except (ValueError, MemoryStoreError) as exc:
            return f"not kept: {exc}"
        return f"kept as {record.id} ({record.source}, confidence {record.confidence})"

    def _succeeded(self, evidence: tuple[str, ...]) -> tuple[int, ...]:
        """The seqs of this session's observations of commands named in ``evidence`` that
        ended with exit code 0."""
        if not evidence:
            return ()
        wanted = set(evidence)
        return tuple(
            event.seq
            for event in read_events(self.log_path, {ev.OBSERVATION})
            if isinstance(event, ev.ObservationEvent)
            and event.call_id in wanted
            and event.name == "run_command"
            and event.ok
            and event.meta.get("exitCode") == 0
        )
