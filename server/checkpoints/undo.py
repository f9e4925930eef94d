"""Undoing one checkpointed turn: restore what it changed, and nothing else.

A file is restored only if it still holds exactly what the turn left; a file
the person (or a later turn) changed since is a conflict, and then nothing is
restored at all, so an undo never half-happens.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from agentls.checkpoints.gitstore import GitStore

# What a path holds now: its bytes, or None when it does not exist.
CurrentReader = Callable[[str], Awaitable[bytes | None]]


@dataclass(frozen=True, slots=True)
class Restore:
    path: str
    content: bytes | None  # None: the turn created the file, so it goes


@dataclass
class UndoPlan:
    restores: list[Restore] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)

    @property
    def possible(self) -> bool:
        return not self.conflicts


async def plan_undo(store: GitStore, before: str, after: str, current: CurrentReader) -> UndoPlan:
    plan = UndoPlan()
    for change in await store.changes(before, after):
        left = await store.read(after, change.path)
        if await current(change.path) != left:
            plan.conflicts.append(change.path)
            continue
        plan.restores.append(Restore(change.path, await store.read(before, change.path)))
    return plan


class RestoreTarget(Protocol):
    """A workspace that can put files back (the disk, or the editor's buffers)."""

    async def current_bytes(self, path: str) -> bytes | None: ...

    async def restore_files(self, files: list[tuple[str, bytes | None]]) -> None: ...
