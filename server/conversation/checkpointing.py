"""Checkpoints around each turn that may change the workspace, and undoing one.

Before a turn's first write or command (any turn while a background process runs), the
workspace (with the editor's unsaved buffers) is recorded in a private git store; after
the turn, again.
A `checkpoint` event in the session log names both snapshots and the files
the turn changed, by edits and by commands alike. Failures are logged and
switch checkpoints off for the session; they never break a run.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path

from agentls.checkpoints.gitstore import GitError, GitStore
from agentls.contracts.tooling import Risk, ToolIntent
from agentls.conversation.outside_changes import OutsideChanges
from agentls.conversation.settings import CheckpointSettings
from agentls.runtime.registry import ToolRegistry
from agentls.session import events as ev
from agentls.session.log import SessionLog
from agentls.session.reader import read_events
from agentls.session.records import ChangedFile
from agentls.workspace.interface import ToolContext, Workspace

log = logging.getLogger(__name__)
PRUNE_EVERY = 20  # checkpoints between two prunes of the store


class Checkpointer:
    def __init__(
        self,
        *,
        session_id: str,
        store: GitStore,
        session_log: SessionLog,
        workspace: Workspace,
        registry: ToolRegistry,
        context: ToolContext,
        settings: CheckpointSettings,
        resumed: bool = True,
    ) -> None:
        self.session_id = session_id
        self.store = store
        self.log = session_log
        self.workspace = workspace
        self.registry = registry
        self.context = context
        self.settings = settings
        self.outside = OutsideChanges(workspace.root)
        self._before: str | None = None
        self._ran_commands = False
        # Numbered on from the log's checkpoints, read by `recover` (on a thread) before
        # the first run of a resumed session and after another process wrote to it.
        self._number = 0
        self._recovered = not resumed
        # The last snapshot and the buffers in it; what the watcher saw since decides
        # whether the next snapshot looks anywhere.
        self._last: str | None = None
        self._last_overlays: dict[str, str | None] = {}
        self._touched: set[str] | None = None  # paths this turn's writes name (None: any)
        self._reads: dict[str, str] = {}

    def catch_up(self) -> None:
        """Another process added to the session: its checkpoints are read before the next run."""
        self._recovered = False
        self._last = None  # that process may have changed files

    async def before_act(self, run_id: str, turn: int, intents: Sequence[ToolIntent]) -> None:
        self._before = None
        may_change, self._ran_commands = self._effects(intents)
        if not may_change or not self.settings.enabled:
            return  # a turn of reads changes no file: no snapshot
        self.outside.start()  # from the first turn that may change files: snapshots use it
        self._number += 1
        # After a command (or with a background process running) anything may change.
        self._touched = None if self._ran_commands else self._written_paths(intents)
        self._reads = dict(self.context.reads)
        self._before = await self._snapshot(f"{self._number}/before", turn=set())
        if self._before is not None:  # so a crash mid-turn can still be undone
            self.log.append(ev.CheckpointStarted(
                run=run_id, turn=turn, number=self._number, before=self._before,
            ))  # fmt: skip

    async def after_act(self, run_id: str, turn: int) -> list[str]:
        if self.context.reads:  # watched once the model has read something (not before:
            self.outside.start()  # a watcher thread per session costs every short run)
        before, self._before = self._before, None
        if before is not None:
            touched = None if self._touched is None else self._touched | self._reread()
            after = await self._snapshot(f"{self._number}/after", turn=touched)
            if after is not None:
                await record(
                    store=self.store,
                    session_log=self.log,
                    run_id=run_id,
                    turn=turn,
                    number=self._number,
                    before=before,
                    after=after,
                )
                await self._prune()
        return await self.outside.notes(self.context, ran_commands=self._ran_commands)

    async def recover(self) -> None:
        """Before a run: the log's checkpoints read once (not again while only this process
        writes them), and a turn a crash interrupted closed with the files as it left them."""
        if self._recovered:
            return
        try:
            events = await _checkpoint_events_async(self.log.path)
        except OSError as exc:
            log.warning("the session's checkpoints could not be read: %s", exc)
            return
        self._number = max(self._number, _highest(events))
        self._recovered = True
        try:
            await close_interrupted(self.store, self.log, events)
        except (GitError, OSError) as exc:
            log.warning("an interrupted checkpoint could not be closed: %s", exc)

    async def _prune(self) -> None:
        if self._number % PRUNE_EVERY:
            return
        try:
            await self.store.prune(self.settings.keep * 2, self.settings.max_age_days)
        except (GitError, OSError) as exc:
            log.warning("old checkpoints not pruned: %s", exc)

    def _effects(self, intents: Sequence[ToolIntent]) -> tuple[bool, bool]:
        """Whether a call may change files (anything but a read: an unknown tool too), and
        whether one runs something that may change any file (not a read or our write). A
        background process may change any file at any time: while one runs, every turn
        is looked at as a command's is."""
        if intents and any(p.state == "running" for p in self.workspace.processes.snapshot()):
            return True, True
        may_change = False
        for intent in intents:
            tool = self.registry.get(intent.name)
            risk = None if tool is None else tool.risk
            if risk is None or not risk.changes_no_file:  # a memory or a plan changes none
                if risk is not Risk.WRITE:
                    return True, True
                may_change = True
        return may_change, False

    async def _snapshot(self, name: str, turn: set[str] | None) -> str | None:
        """A snapshot that looks only where something may have changed: the paths the
        turn wrote (``turn``; None after a command: anywhere) and those the watcher saw
        move since the last one. "Before" a turn, nothing moved means the last one holds."""
        overlays = await self._overlays()
        dirty = self.outside.take_dirty()
        try:
            if dirty:  # the watcher reports a turn's own writes after its snapshot
                # (asking about the paths the turn will write too: one look for both)
                dirty -= await self.store.unchanged(dirty | (self._touched or set()))
        except (GitError, OSError):
            dirty = None
        if (
            not turn
            and turn is not None
            and dirty == set()
            and self._last is not None
            and overlays == self._last_overlays
        ):
            return self._last
        changed = None if dirty is None or turn is None else dirty | turn
        try:
            commit = await self.store.snapshot(
                f"{self.session_id}/{name}", overlays, changed=changed
            )
        except (GitError, OSError) as exc:
            log.warning("checkpoints are off for this session: %s", exc)
            self.settings = CheckpointSettings(enabled=False)
            return None
        self._last, self._last_overlays = commit, overlays
        return commit

    def _written_paths(self, intents: Sequence[ToolIntent]) -> set[str] | None:
        """The files this turn's writes name, or None when a call may touch others (a
        command, an external tool, a write that is not one of ours or names no path)."""
        paths: set[str] = set()
        for intent in intents:
            tool = self.registry.get(intent.name)
            if tool is not None and tool.risk.changes_no_file:
                continue
            if (
                tool is None
                or tool.risk is not Risk.WRITE
                or tool.subject_kind != "path"
                or not tool.run.__module__.startswith("agentls.tools.")
            ):
                return None
            try:
                rel = self.workspace.relative(tool.subject(tool.input_model(**intent.input)))
                real = (self.workspace.root / rel).resolve().relative_to(self.workspace.root)
            except Exception:  # invalid input: the call will fail; look everywhere anyway
                return None
            paths |= {rel, real.as_posix()}
        return paths

    def _reread(self) -> set[str]:
        """Paths whose recorded version moved during the turn (what the tools wrote)."""
        now = self.context.reads
        return {p for p, v in now.items() if self._reads.get(p) != v}

    async def _overlays(self) -> dict[str, str | None]:
        return dict(await self.workspace.unsaved_buffers())

    async def close(self) -> None:
        await self.outside.close()
        await self.store.aclose()


async def record(
    store: GitStore,
    session_log: SessionLog,
    run_id: str | None,
    turn: int | None,
    number: int,
    before: str,
    after: str,
    *,
    interrupted: bool = False,
) -> None:
    """The checkpoint event: both snapshots and the files the turn changed."""
    changes = await store.changes(before, after)
    session_log.append(ev.Checkpoint(
        run=run_id, turn=turn, number=number, before=before, after=after,
        changed=[ChangedFile(path=c.path, status=c.status) for c in changes],
        interrupted=interrupted,
    ))  # fmt: skip


async def finish_interrupted(store: GitStore, session_log: SessionLog) -> None:
    """Close checkpoints whose turn never reached its end (the process died)."""
    await close_interrupted(store, session_log, await _checkpoint_events_async(session_log.path))


async def _checkpoint_events_async(path: Path) -> Sequence[ev.Event]:
    """The log's checkpoint events, read on a thread: a long session's log is long."""
    return await asyncio.to_thread(read_events, path, kinds=(ev.CHECKPOINT, ev.CHECKPOINT_STARTED))


async def close_interrupted(
    store: GitStore, session_log: SessionLog, events: Sequence[ev.Event]
) -> None:
    """Close the checkpoints among ``events`` whose turn never reached its end."""
    done = {e.number for e in events if isinstance(e, ev.Checkpoint)}
    for started in events:
        if not isinstance(started, ev.CheckpointStarted) or started.number in done:
            continue
        number = started.number
        session_id = session_log.path.stem
        after = await store.snapshot(f"{session_id}/{number}/after")
        await record(
            store=store,
            session_log=session_log,
            run_id=started.run,
            turn=started.turn,
            number=number,
            before=started.before,
            after=after,
            interrupted=True,
        )


def _highest(events: Sequence[ev.Event]) -> int:
    numbers = [e.number for e in events if isinstance(e, ev.Checkpoint | ev.CheckpointStarted)]
    return max(numbers, default=0)


def checkpoint_events(path: Path) -> list[ev.Checkpoint]:
    return [e for e in read_events(path, kinds=(ev.CHECKPOINT,)) if isinstance(e, ev.Checkpoint)]
