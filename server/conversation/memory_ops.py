"""The person's memory operations, one for every face (`agentls memory`, the editor's
`agentls.memory`, ACP's `/memory`): list, add and forget, on the store under the state
folder for the person and one workspace."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agentls.memory.records import MemoryRecord, Scope
from agentls.memory.store import MemoryStore, MemoryStoreError, now_utc

__all__ = [
    "MemoryListing",
    "MemoryOutcome",
    "MemoryRecord",
    "MemoryStoreError",
    "UnknownMemory",
    "add_memory",
    "forget_memory",
    "list_memories",
    "memory_action",
]

Action = Literal["list", "add", "forget"]


@dataclass(frozen=True, slots=True)
class MemoryListing:
    records: tuple[MemoryRecord, ...]
    warnings: tuple[str, ...]  # a scope's store that did not load
    now: datetime.datetime

    def to_json(self) -> list[dict[str, Any]]:
        return [r.model_dump(mode="json", by_alias=True, exclude_none=True) for r in self.records]

    def lines(self) -> list[str]:
        """One line per memory, for a person to read."""
        if not self.records:
            return ["no memories"]
        return [describe(record, self.now) for record in self.records]


def describe(record: MemoryRecord, now: datetime.datetime) -> str:
    age = max(0, (now - record.created_at).days)
    facts = [record.scope, record.source, record.confidence, f"{age}d old"]
    if record.expires_at is not None:
        facts.append(f"expires {record.expires_at.date().isoformat()}")
    if record.stale(now):
        facts.append("possibly stale")
    return f"{record.id}  [{', '.join(facts)}]  {record.content}"


def list_memories(root: Path, state_dir: Path) -> MemoryListing:
    """The memories that apply to ``root``: the person's, then the project's, unexpired."""
    now = now_utc()
    loaded = MemoryStore(state_dir, root).load(now)
    return MemoryListing(loaded.records, loaded.warnings, now)


def add_memory(
    root: Path,
    state_dir: Path,
    text: str,
    *,
    scope: Scope = "project",
    expires_days: float | None = None,
) -> MemoryRecord:
    """A rule the person states: kept as `explicit_user_rule`, confidence high. ValueError
    for bad input, MemoryStoreError when the scope's store is there but does not load."""
    return MemoryStore(state_dir, root).add(
        text,
        scope=scope,
        source="explicit_user_rule",
        confidence="high",
        expires_days=expires_days,
        verified=True,
    )


def forget_memory(root: Path, state_dir: Path, memory_id: str) -> MemoryRecord | None:
    """Drop one memory; None when no store of the person or of ``root`` holds it."""
    return MemoryStore(state_dir, root).forget(memory_id)


class UnknownMemory(LookupError):
    """`forget` of an id no store holds."""


@dataclass(frozen=True, slots=True)
class MemoryOutcome:
    listing: MemoryListing  # what applies after the action
    changed: MemoryRecord | None  # the memory added or forgotten


def memory_action(
    root: Path,
    state_dir: Path,
    action: Action,
    *,
    text: str | None = None,
    scope: Scope = "project",
    expires_days: float | None = None,
    memory_id: str | None = None,
) -> MemoryOutcome:
    """One face's memory command as one call (blocking: the store is files). ValueError for
    bad input, UnknownMemory, MemoryStoreError; nothing is changed by any of them."""
    changed: MemoryRecord | None = None
    if action == "add":
        changed = add_memory(root, state_dir, text or "", scope=scope, expires_days=expires_days)
    elif action == "forget":
        if not memory_id:
            raise ValueError("forget needs the memory's id")
        changed = forget_memory(root, state_dir, memory_id)
        if changed is None:
            raise UnknownMemory(f"no memory {memory_id} for you or for {root}")
    return MemoryOutcome(list_memories(root, state_dir), changed)
