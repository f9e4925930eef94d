"""Noticing files changed outside the agent while a session is live (watchfiles).

The watcher only says which paths moved; whether a file the agent read has
really changed is decided by comparing its version with the one the agent
read, so the agent's own edits never count.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from pathlib import Path

from agentls.workspace.interface import ToolContext

log = logging.getLogger(__name__)
# The watcher wakes this often when nothing happens; its first wake-up (or first
# changes) says it is set up.
IDLE_WAKE_MS = 100


class OutsideChanges:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.moved: set[str] = set()  # workspace-relative paths seen changing
        self._told: dict[str, str] = {}  # path -> the version the model was told about
        # The watcher runs on a thread of its own: setting up the watches walks the
        # whole tree, which must not hold up the event loop.
        self._stop: threading.Event | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        # For checkpoints: paths seen changing since the last take_dirty, and whether
        # the watcher was already watching when that take happened.
        self._dirty: set[str] = set()
        self._armed = False
        self._trusted_since_take = False

    def start(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._watch, args=(self._stop,), name="agentls-watch", daemon=True
        )
        self._thread.start()

    def _watch(self, stop: threading.Event) -> None:
        try:
            from watchfiles import watch

            for changes in watch(
                self.root,
                stop_event=stop,
                debounce=50,
                step=25,
                rust_timeout=IDLE_WAKE_MS,
                yield_on_timeout=True,
                raise_interrupt=False,
            ):
                self._armed = True
                for _, path in changes:
                    with contextlib.suppress(ValueError, OSError):
                        rel = Path(path).resolve().relative_to(self.root).as_posix()
                        with self._lock:
                            self.moved.add(rel)
                            self._dirty.add(rel)
        except Exception as exc:  # observation never breaks a run
            log.warning("not watching %s for outside changes: %s", self.root, exc)
        finally:
            self._armed = False

    @property
    def armed(self) -> bool:
        """True once the watcher is set up (then nothing is missed while it lives)."""
        return self._armed and self._thread is not None and self._thread.is_alive()

    def pending(self) -> set[str]:
        """Paths seen changing since the last take_dirty (a copy)."""
        with self._lock:
            return set(self._dirty)

    def take_dirty(self) -> set[str] | None:
        """Paths seen changing since the last call, or None when the watcher may have
        missed some (it was not running all that time)."""
        known = self._trusted_since_take and self.armed
        self._trusted_since_take = self.armed
        with self._lock:
            dirty, self._dirty = self._dirty, set()
        return dirty if known else None

    async def notes(self, context: ToolContext, *, ran_commands: bool = False) -> list[str]:
        """One note per file the agent read that changed since, told once per change.

        After a command every file read is checked (a command may change
        anything, faster than the watcher reports); otherwise only the files
        the watcher saw move, and open buffers (the editor reports those).
        """
        with self._lock:
            moved, self.moved = self.moved, set()
        candidates = [
            path
            for path, version in context.reads.items()
            if ran_commands or path in moved or version.startswith("buffer:")
        ]
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
        if self._thread is not None:  # it sees the stop within a step
            await asyncio.to_thread(self._thread.join, 2)
