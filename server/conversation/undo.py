"""Undo checkpointed work of a session: the last ask (all its turns), or one turn.

Only the files those turns changed are put back, nothing else; a file changed
since stops the whole undo, which then changes nothing. A file a link now takes
out of the workspace is refused by name (nothing is read or written through the
link) and the rest is put back: the undo is done, but not whole.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentls.checkpoints.gitstore import GitError, GitStore
from agentls.checkpoints.undo import RestoreTarget, plan_undo_steps
from agentls.contracts.tooling import ToolError
from agentls.contracts.waiting import to_its_end
from agentls.conversation.checkpointing import checkpoint_events, finish_interrupted
from agentls.session import events as ev
from agentls.session.events import SessionEvent
from agentls.session.log import SessionLog
from agentls.session.reader import read_events
from agentls.session.reducer import reduce
from agentls.session.store import SessionNotFound, SessionStore

_PROMPT_WIDTH = 60
# Called with the (run, turn) of each checkpointed turn an undo takes back (turn None: the
# whole ask), before any file is put back: the processes those turns started are stopped.
BeforeRestore = Callable[[Sequence[tuple[str | None, int | None]]], Awaitable[None]]


class UndoRefused(Exception):
    """Nothing was changed; the message says why (no such turn, already undone...)."""


@dataclass
class UndoResult:
    number: int  # the (last) checkpointed turn undone
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # a link leads them out of the workspace
    turns: list[int] = field(default_factory=list)  # every turn undone, oldest first
    whole_ask: bool = False
    run_id: str | None = None  # the ask's run, when a whole ask was undone
    prompt: str = ""

    @property
    def done(self) -> bool:
        """The undo was carried out (its turns are undone), refused files aside."""
        return not self.conflicts

    @property
    def whole(self) -> bool:
        """Every file was put back."""
        return self.done and not self.refused

    def event(self) -> ev.Undo:
        return ev.Undo(
            turn=self.number,
            turns=self.turns or [self.number],
            ask=self.whole_ask,
            run_id=self.run_id,
            restored=self.restored,
            removed=self.removed,
            conflicts=self.conflicts,
            refused=self.refused,
            done=self.done,
        )

    def describe(self) -> str:
        what = self._what()
        if self.conflicts:
            return (
                f"undo of {what} stopped: changed since, so kept as they "
                f"are: {', '.join(self.conflicts)}. Nothing was undone."
            )
        parts = []
        if self.restored:
            parts.append(f"restored {', '.join(self.restored)}")
        if self.removed:
            parts.append(f"removed {', '.join(self.removed)}")
        if self.refused:
            parts.append(
                f"refused {', '.join(self.refused)}: a link now leads out of the workspace "
                "there, and nothing is written through it, so they are left as they are"
            )
        done = "undid" if not self.refused else "undid only part of"
        return f"{done} {what}: " + ("; ".join(parts) or "nothing had changed")

    def _what(self) -> str:
        if not self.whole_ask:
            return f"turn {self.number}"
        turns = self.turns or [self.number]
        label = f"turn {turns[0]}" if len(turns) == 1 else f"turns {_numbers(turns)}"
        asked = f" “{self.prompt}”" if self.prompt else ""
        return f"the ask{asked} ({label})"


async def undo_last_ask(
    state_dir: Path,
    log_path: Path,
    workspace_root: Path,
    target: RestoreTarget,
    log: SessionLog | None = None,
    before_restore: BeforeRestore | None = None,
) -> UndoResult:
    """Restore every file the last ask not undone changed, over all its turns."""
    return await _with_store(
        state_dir=state_dir,
        log_path=log_path,
        workspace_root=workspace_root,
        target=target,
        number=None,
        log=log,
        ask=True,
        before_restore=before_restore,
    )


async def undo_turn(
    state_dir: Path,
    log_path: Path,
    workspace_root: Path,
    target: RestoreTarget,
    number: int | None = None,
    log: SessionLog | None = None,
    before_restore: BeforeRestore | None = None,
) -> UndoResult:
    """Restore the files checkpoint ``number`` (default: the last not undone) changed."""
    return await _with_store(
        state_dir=state_dir,
        log_path=log_path,
        workspace_root=workspace_root,
        target=target,
        number=number,
        log=log,
        ask=False,
        before_restore=before_restore,
    )


async def undo(
    state_dir: Path,
    log_path: Path,
    workspace_root: Path,
    target: RestoreTarget,
    turn: int | None,
    log: SessionLog | None = None,
    *,
    before_restore: BeforeRestore | None = None,
) -> UndoResult:
    """Undo the last ask (``turn`` None) or checkpoint ``turn``, holding the session (the
    caller took its lock); ``before_restore`` first stops what those turns started."""
    if turn is None:
        return await undo_last_ask(state_dir, log_path, workspace_root, target, log, before_restore)
    return await undo_turn(state_dir, log_path, workspace_root, target, turn, log, before_restore)


async def undo_stored(
    store: SessionStore,
    session_id: str,
    turn: int | None,
    *,
    face: str,
    target_for: Callable[[Path], RestoreTarget],
) -> UndoResult:
    """Undo in a session no conversation of this process has open: its workspace read from
    its log, the files restored through ``target_for(root)``, its lock taken on a thread
    (SessionHeld while a run writes it elsewhere). SessionNotFound for no such log."""
    path = store.path_for(session_id)
    try:
        started = await asyncio.to_thread(read_events, path, kinds=("session_started",))
    except FileNotFoundError:
        raise SessionNotFound(session_id, store.sessions_dir) from None
    root = Path(reduce(started).workspace)
    target = target_for(root)
    claim = store.claim(session_id, face)
    try:
        await to_its_end(claim.acquire)
        return await undo(store.state_dir, path, root, target, turn)
    finally:
        claim.close()


async def _with_store(
    *,
    state_dir: Path,
    log_path: Path,
    workspace_root: Path,
    target: RestoreTarget,
    number: int | None,
    log: SessionLog | None,
    ask: bool,
    before_restore: BeforeRestore | None = None,
) -> UndoResult:
    store = GitStore(state_dir, workspace_root)
    writer = log if log is not None else SessionLog(log_path)
    try:
        await finish_interrupted(store, writer)
        chosen = _choose_ask(log_path) if ask else [_choose(log_path, number)]
        if before_restore is not None:
            await before_restore([(c.run, None if ask else c.turn) for c in chosen])
        return await _undo(store, log_path, target, chosen, writer, ask=ask)
    except GitError as exc:
        raise UndoRefused(f"the checkpoints of this workspace cannot be read: {exc}") from None
    finally:
        if log is None:
            writer.close()


async def _undo(
    store: GitStore,
    log_path: Path,
    target: RestoreTarget,
    checkpoints: list[ev.Checkpoint],
    log: SessionLog,
    *,
    ask: bool,
) -> UndoResult:
    steps = [(c.before, c.after) for c in checkpoints]
    plan = await plan_undo_steps(store, steps, target.current_bytes)
    numbers = [c.number for c in checkpoints]
    result = UndoResult(numbers[-1], conflicts=plan.conflicts, refused=plan.refused, turns=numbers)
    if ask:
        run = checkpoints[-1].run
        result.whole_ask, result.run_id = True, run
        result.prompt = _prompt_of(log_path, run)
    if plan.possible:
        try:
            await target.restore_files([(r.path, r.content) for r in plan.restores])
        except ToolError as exc:  # a link made since the plan: refused before any write
            raise UndoRefused(f"nothing was undone: {exc}") from None
        result.restored = [r.path for r in plan.restores if r.content is not None]
        result.removed = [r.path for r in plan.restores if r.content is None]
    log.append(result.event())  # the live session's writer when there is one
    return result


def undone_turns(events: Iterable[SessionEvent]) -> set[int]:
    """The checkpointed turns an undo or a rewind's files half undid."""
    undone: set[int] = set()
    for event in events:
        if isinstance(event, ev.Undo) and event.done:
            undone.update(event.turns or ([] if event.turn is None else [event.turn]))
        elif isinstance(event, ev.Rewound) and event.files:
            undone.update(event.turns)
    return undone


def _undoable(log_path: Path) -> tuple[dict[int, ev.Checkpoint], set[int]]:
    # Turns that changed nothing (a command that only read) are not worth an undo.
    checkpoints = {e.number: e for e in checkpoint_events(log_path) if e.changed}
    undone = undone_turns(read_events(log_path, kinds=(ev.UNDO, ev.REWOUND)))
    if not checkpoints:
        raise UndoRefused("this session changed no files, so there is nothing to undo")
    return checkpoints, undone


def _choose_ask(log_path: Path) -> list[ev.Checkpoint]:
    """The checkpoints of the newest ask with a turn not undone yet, oldest first."""
    checkpoints, undone = _undoable(log_path)
    left = [checkpoints[n] for n in sorted(checkpoints) if n not in undone]
    if not left:
        raise UndoRefused("every ask of this session that changed files is undone already")
    run = left[-1].run
    if run is None:  # a checkpoint without its ask: it stands alone
        return [left[-1]]
    return [c for c in left if c.run == run]


def _choose(log_path: Path, number: int | None) -> ev.Checkpoint:
    checkpoints, undone = _undoable(log_path)
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


def _prompt_of(log_path: Path, run_id: str | None) -> str:
    for event in read_events(log_path, kinds=(ev.RUN_STARTED,)):
        if isinstance(event, ev.RunStarted) and event.run == run_id:
            line = " ".join(event.prompt.split())
            cut = len(line) > _PROMPT_WIDTH
            return line[: _PROMPT_WIDTH - 1].rstrip() + "…" if cut else line
    return ""


def _numbers(numbers: list[int]) -> str:
    return ", ".join(str(n) for n in numbers[:-1]) + f" and {numbers[-1]}"
