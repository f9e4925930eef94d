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
        # The sessions of one workspace share one watcher thread (_FolderWatcher): setting
        # up the watches walks the whole tree, once per folder rather than per session.
        self._watcher: _FolderWatcher | None = None
        self._lock = threading.Lock()
        # For checkpoints: paths seen changing since the last take_dirty, and whether
        # the watcher was already watching when that take happened.
        self._dirty: set[str] = set()
        self._trusted_since_take = False

    def start(self) -> None:
        if self._watcher is not None and self._watcher.alive:
            return
        self._watcher = _subscribe(self)

    def _saw(self, paths: set[str]) -> None:
        with self._lock:
            self.moved |= paths
            self._dirty |= paths

    @property
    def armed(self) -> bool:
        """True once the watcher is set up (then nothing is missed while it lives)."""
        return self._watcher is not None and self._watcher.armed and self._watcher.alive

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
        reads = context.reads
        if not reads and not self.moved:
            return []  # nothing read: nothing to tell (what moves later is still heard)
        with self._lock:
            moved, self.moved = self.moved, set()
        if ran_commands:
            candidates = list(reads)
        else:  # what moved and what is open in the editor, not every file read
            candidates = [path for path in moved if path in reads]
            candidates += [path for path in reads.buffered if path not in moved]
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
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            _unsubscribe(self, watcher)

    async def close(self) -> None:
        watcher = self._watcher
        self.stop()
        if watcher is not None and watcher.stopping:  # it sees the stop within a step
            await asyncio.to_thread(watcher.join, 2)


class _FolderWatcher:
    """One watchfiles thread for a folder, telling every session listening to it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.listeners: set[OutsideChanges] = set()
        self.armed = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="agentls-watch", daemon=True)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and not self._stop.is_set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def _watch(self) -> None:
        try:
            from watchfiles import watch

            for changes in watch(
                self.root, stop_event=self._stop, debounce=50, step=25,
                rust_timeout=IDLE_WAKE_MS, yield_on_timeout=True, raise_interrupt=False,
            ):  # fmt: skip
                self.armed = True
                seen = set()
                for _, path in changes:
                    with contextlib.suppress(ValueError, OSError):
                        seen.add(Path(path).resolve().relative_to(self.root).as_posix())
                if seen:
                    with _watchers_lock:
                        listeners = list(self.listeners)
                    for listener in listeners:
                        listener._saw(seen)
        except Exception as exc:  # observation never breaks a run
            log.warning("not watching %s for outside changes: %s", self.root, exc)
        finally:
            self.armed = False


_watchers: dict[Path, _FolderWatcher] = {}
_watchers_lock = threading.Lock()


def _subscribe(listener: OutsideChanges) -> _FolderWatcher:
    with _watchers_lock:
        watcher = _watchers.get(listener.root)
        if watcher is None or not watcher.alive:
            watcher = _watchers[listener.root] = _FolderWatcher(listener.root)
            watcher.start()
        watcher.listeners.add(listener)
        return watcher


def _unsubscribe(listener: OutsideChanges, watcher: _FolderWatcher) -> None:
    with _watchers_lock:
        watcher.listeners.discard(listener)
        if watcher.listeners:
            return
        watcher.stop()  # the last session of this folder has gone
        if _watchers.get(watcher.root) is watcher:
            del _watchers[watcher.root]
