"""Noticing files changed outside the agent while a session is live (watchfiles).

The watcher only says which paths moved; whether a file the agent read has
really changed is decided by comparing its version with the one the agent
read, so the agent's own edits never count.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from agentls.workspace.interface import ToolContext

log = logging.getLogger(__name__)


class OutsideChanges:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.moved: set[str] = set()  # workspace-relative paths seen changing
        self._told: dict[str, str] = {}  # path -> the version the model was told about
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        # For checkpoints: paths seen changing since the last take_dirty, and whether
        # the watcher was already watching when that take happened.
        self._dirty: set[str] = set()
        self._watching: AsyncGenerator[Any, None] | None = None
        self._armed = False
        self._trusted_since_take = False

    def start(self) -> None:
        if self._task is not None and not self._task.done():
            return
        self._stop = asyncio.Event()
        self._task = asyncio.create_task(self._watch(self._stop))

    async def _watch(self, stop: asyncio.Event) -> None:
        try:
            from watchfiles import awatch

            self._watching = awatch(self.root, stop_event=stop, debounce=50, step=25)
            async for changes in self._watching:
                for _, path in changes:
                    with contextlib.suppress(ValueError):
                        rel = Path(path).resolve().relative_to(self.root).as_posix()
                        self.moved.add(rel)
                        self._dirty.add(rel)
        except Exception as exc:  # observation never breaks a run
            log.warning("not watching %s for outside changes: %s", self.root, exc)
        finally:
            self._armed = False
            self._watching = None

    @property
    def armed(self) -> bool:
        """True once the watcher is set up and waiting for events (then nothing is missed
        while it lives): its generator has reached its first wait."""
        watching = self._watching
        if not self._armed and getattr(watching, "ag_await", None) is not None:
            self._armed = True
        return self._armed and self._task is not None and not self._task.done()

    def take_dirty(self) -> set[str] | None:
        """Paths seen changing since the last call, or None when the watcher may have
        missed some (it was not running all that time)."""
        known = self._trusted_since_take and self.armed
        self._trusted_since_take = self.armed
        dirty, self._dirty = self._dirty, set()
        return dirty if known else None

    async def notes(self, context: ToolContext, *, ran_commands: bool = False) -> list[str]:
        """One note per file the agent read that changed since, told once per change.

        After a command every file read is checked (a command may change
        anything, faster than the watcher reports); otherwise only the files
        the watcher saw move, and open buffers (the editor reports those).
        """
        candidates = [
            path
            for path, version in context.reads.items()
            if ran_commands or path in self.moved or version.startswith("buffer:")
        ]
        self.moved.clear()
        changed = []
        for path in candidates:
            seen = context.reads.get(path)
            now = await context.workspace.version(path)
            if now != seen and self._told.get(path) != now:
                self._told[path] = now or "gone"
                changed.append(path if now is not None else f"{path} (deleted)")
        if not changed:
            return []
        return [
            "Note from agentls: these files changed since you last read them (by a command, "
            f"the person or another program): {', '.join(sorted(changed))}. Read them again "
            "before relying on them."
        ]

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    async def close(self) -> None:
        self.stop()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._task, 2)
