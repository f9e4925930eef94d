"""Undo one checkpointed turn of a session: the files it changed, nothing else."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentls.checkpoints.gitstore import GitError, GitStore
from agentls.checkpoints.undo import RestoreTarget, plan_undo
from agentls.conversation.checkpointing import checkpoint_events, finish_interrupted
from agentls.session.log import SessionLog
from agentls.session.reader import read_events

UNDO = "undo"


class UndoRefused(Exception):
    """Nothing was changed; the message says why (no such turn, already undone...)."""


@dataclass
class UndoResult:
    number: int
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return not self.conflicts

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.number, "restored": self.restored, "removed": self.removed,
                "conflicts": self.conflicts, "done": self.done}  # fmt: skip

    def describe(self) -> str:
        if self.conflicts:
            return (
                f"undo of turn {self.number} stopped: changed since the turn, so kept as they "
                f"are: {', '.join(self.conflicts)}. Nothing was undone."
            )
        parts = []
        if self.restored:
            parts.append(f"restored {', '.join(self.restored)}")
        if self.removed:
            parts.append(f"removed {', '.join(self.removed)}")
        return f"undid turn {self.number}: " + ("; ".join(parts) or "nothing had changed")


async def undo_turn(
    state_dir: Path,
    log_path: Path,
    workspace_root: Path,
    target: RestoreTarget,
    number: int | None = None,
    log: SessionLog | None = None,
) -> UndoResult:
    """Restore the files checkpoint ``number`` (default: the last not undone) changed."""
    store = GitStore(state_dir, workspace_root)
    writer = log if log is not None else SessionLog(log_path)
    try:
        await finish_interrupted(store, writer)
        return await _undo(store, log_path, target, number, writer)
    except GitError as exc:
        raise UndoRefused(f"the checkpoints of this workspace cannot be read: {exc}") from None
    finally:
        if log is None:
            writer.close()


async def _undo(
    store: GitStore, log_path: Path, target: RestoreTarget, number: int | None, log: SessionLog
) -> UndoResult:
    checkpoint = _choose(log_path, number)
    plan = await plan_undo(store, checkpoint["before"], checkpoint["after"], target.current_bytes)
    result = UndoResult(int(checkpoint["number"]), conflicts=plan.conflicts)
    if plan.possible:
        await target.restore_files([(r.path, r.content) for r in plan.restores])
        result.restored = [r.path for r in plan.restores if r.content is not None]
        result.removed = [r.path for r in plan.restores if r.content is None]
    log.append(UNDO, **result.to_dict())  # the live session's writer when there is one
    return result


def _choose(log_path: Path, number: int | None) -> dict[str, Any]:
    # Turns that changed nothing (a command that only read) are not worth an undo.
    checkpoints = {int(e["number"]): e for e in checkpoint_events(log_path) if e.get("changed")}
    undone = {
        int(e["turn"]) for e in read_events(log_path, kinds=(UNDO,))
        if e.get("kind") == UNDO and e.get("done")
    }  # fmt: skip
    if not checkpoints:
        raise UndoRefused("this session changed no files, so there is nothing to undo")
    if number is None:
        left = [n for n in checkpoints if n not in undone]
        if not left:
            raise UndoRefused("every turn of this session that changed files is undone already")
        number = max(left)
    if number not in checkpoints:
        known = ", ".join(str(n) for n in sorted(checkpoints))
        raise UndoRefused(f"no turn {number} with changes in this session (turns: {known})")
    if number in undone:
        raise UndoRefused(f"turn {number} is undone already")
    return checkpoints[number]
