"""Undoing checkpointed turns (one, or all of an ask): restore what they changed, and nothing else.

A file is restored only if it still holds exactly what the turn left; a file
the person (or a later turn) changed since is a conflict, and then nothing is
restored at all, so an undo never half-happens. A path that leads out of the
workspace now (it, or a folder above it, is a link to outside: a command
replaced a folder with one) is refused: never read or written through the link,
named, and the rest is restored.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from agentls.checkpoints.gitstore import GitStore
from agentls.contracts.tooling import ToolError

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
    refused: list[str] = field(default_factory=list)  # lead out of the workspace now

    @property
    def possible(self) -> bool:
        return not self.conflicts


async def plan_undo_steps(
    store: GitStore, steps: Sequence[tuple[str, str]], current: CurrentReader
) -> UndoPlan:
    """Undo several turns at once (``steps`` oldest first, each its before and after).

    Each file goes back to what it held before the first of these turns that
    changed it. Walking from the newest turn back, a file must hold what the
    newest turn that changed it left, and each earlier turn must have left what
    the next one found; anything else is a change made in between: a conflict.
    """
    plan = UndoPlan()
    restore: dict[str, bytes | None] = {}
    for before, after in reversed(steps):
        for change in await store.changes(before, after):
            path = change.path
            if path in plan.conflicts or path in plan.refused:
                continue
            if path in restore:
                found = restore[path]
            else:
                try:
                    found = await current(path)
                except ToolError:  # not in the workspace now: a link leads out of it
                    plan.refused.append(path)
                    continue
            left = await store.read(after, path)
            if found != left:
                plan.conflicts.append(path)
                continue
            restore[path] = await store.read(before, path)
    plan.restores = [Restore(p, c) for p, c in sorted(restore.items()) if p not in plan.conflicts]
    plan.refused.sort()
    return plan


@runtime_checkable
class RestoreTarget(Protocol):
    """A workspace that can put files back (the disk, or the editor's buffers).

    Both raise ToolError for a path that is not in the workspace (one a link leads out
    of): ``current_bytes`` for it, ``restore_files`` before it writes anything."""

    async def current_bytes(self, path: str) -> bytes | None: ...

    async def restore_files(self, files: list[tuple[str, bytes | None]]) -> None: ...
