"""A session's background processes: ids, a limit, what each wrote since it was last
read, and who is told when one starts, exits or is stopped.

The table knows no launcher: a process is started by the `Launch` it is given, which
feeds the process's `OutputSink` (its output, then its exit) and hands back what stops
it (`Launched`). Ids are ``p1``, ``p2``, ... in the order the session starts them (a
session opened again goes on from the ids its log used: `skip_to`). At most ``limit``
run at once; more are refused with the reason, before anything starts. Output is kept
until it is read, at most ``kept_bytes`` of it: beyond that the oldest unread bytes are
dropped and counted, and the next read says how many.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from agentls.contracts.processes import (
    CallRef,
    ProcessAction,
    ProcessChange,
    ProcessInfo,
    ProcessRead,
    ProcessState,
    StoppedBy,
)
from agentls.contracts.waiting import within

log = logging.getLogger(__name__)

DEFAULT_LIMIT = 8
KEPT_BYTES = 256 * 1024  # unread output kept per process
FINISHED_KEPT = 16  # ended processes kept readable, the oldest forgotten first


class TooManyProcesses(Exception):
    """The session runs its limit of background processes already."""


class UnknownProcess(Exception):
    """No process of this session has that id."""


class OutputSink:
    """Where a launcher puts what its process writes, then its exit (on the event loop)."""

    def __init__(
        self, kept_bytes: int, changed: Callable[[], None], ended: Callable[[], None]
    ) -> None:
        self._kept = kept_bytes
        self._chunks = bytearray()
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._changed = changed
        self._on_end = ended
        self.dropped = 0  # unread bytes dropped since the last read
        self.exit_code: int | None = None
        self.ended = False

    def write(self, data: bytes) -> None:
        if not data:
            return
        self._chunks += data
        excess = len(self._chunks) - self._kept
        if excess > 0:
            del self._chunks[:excess]
            self.dropped += excess
            self._decoder.reset()  # the bytes it waited for are gone
        self._changed()

    def exited(self, code: int | None) -> None:
        """The process ended (``code``: its exit status, negative for a signal)."""
        if self.ended:
            return
        self.ended, self.exit_code = True, code
        self._changed()
        self._on_end()

    @property
    def unread(self) -> bool:
        return bool(self._chunks) or bool(self.dropped)

    def take(self) -> tuple[str, int]:
        """What was written since the last take, as text, and how many bytes of it were
        dropped; a character cut at the end is kept for the next take (or given as is
        once the process ended)."""
        data, self._chunks = bytes(self._chunks), bytearray()
        dropped, self.dropped = self.dropped, 0
        return self._decoder.decode(data, final=self.ended), dropped


class Launched(Protocol):
    """A started process as its launcher runs it."""

    def drain(self) -> None:
        """Take in what the process's output pipe holds now (through its sink)."""
        ...

    async def stop(self) -> None:
        """End it: TERM, then KILL after a grace; returns once its sink has its exit."""
        ...

    def kill(self) -> None:
        """End it at once, without an event loop."""
        ...


Launch = Callable[[OutputSink], Awaitable[Launched]]


class Tracked:
    """One process of the table."""

    def __init__(
        self,
        pid: str,
        command: str,
        origin: CallRef,
        sandbox: str,
        kept_bytes: int,
        ended: Callable[[Tracked], None],
    ) -> None:
        self.id = pid
        self.command = command
        self.origin = origin
        self.sandbox = sandbox
        self.started_at = time.time()
        self.launched: Launched | None = None
        self.stopped_by: StoppedBy | None = None
        self._news = asyncio.Event()
        self._gone = asyncio.Event()
        self.sink = OutputSink(kept_bytes, self._news.set, lambda: self._end(ended))

    def _end(self, ended: Callable[[Tracked], None]) -> None:
        self._gone.set()
        ended(self)

    async def ended_within(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for it to end; whether it has."""
        with contextlib.suppress(TimeoutError):
            await within(self._gone.wait(), seconds)
        return self.sink.ended

    @property
    def state(self) -> ProcessState:
        if not self.sink.ended:
            return "running"
        return "stopped" if self.stopped_by is not None else "exited"

    def info(self) -> ProcessInfo:
        return ProcessInfo(
            id=self.id, command=self.command, state=self.state, exit_code=self.sink.exit_code,
            started_at=self.started_at, origin=self.origin, sandbox=self.sandbox,
        )  # fmt: skip

    async def read(self, wait_seconds: float = 0.0) -> ProcessRead:
        """What it wrote since the last read; with nothing new and still running, waits
        up to ``wait_seconds`` for output or its end."""
        self._drain()
        if not self.sink.unread and not self.sink.ended and wait_seconds > 0:
            self._news.clear()
            with contextlib.suppress(TimeoutError):
                await within(self._news.wait(), wait_seconds)
            self._drain()
        self._news.clear()
        text, dropped = self.sink.take()
        return ProcessRead(self.info(), text, dropped)

    def _drain(self) -> None:
        if self.launched is not None and not self.sink.ended:
            try:
                self.launched.drain()
            except OSError as exc:  # the pipe is gone: its end is on its way
                log.debug("output of %s not drained: %s", self.id, exc)


class ProcessTable:
    def __init__(self, limit: int = DEFAULT_LIMIT, kept_bytes: int = KEPT_BYTES) -> None:
        self.limit = limit
        self.kept_bytes = kept_bytes
        self._tracked: dict[str, Tracked] = {}
        self._starting = 0
        self._number = 0
        self._listeners: list[Callable[[ProcessChange], None]] = []

    def watch(self, listener: Callable[[ProcessChange], None]) -> Callable[[], None]:
        """Tell ``listener`` each start, exit and stop; the returned function stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def skip_to(self, number: int) -> None:
        """Ids go on after ``p<number>`` (the session's log used them already)."""
        self._number = max(self._number, number)

    @property
    def last_number(self) -> int:
        return self._number

    def processes(self) -> list[ProcessInfo]:
        return [t.info() for t in self._tracked.values()]

    def running(self) -> list[ProcessInfo]:
        return [t.info() for t in self._tracked.values() if not t.sink.ended]

    def get(self, pid: str) -> Tracked:
        found = self._tracked.get(pid)
        if found is None:
            known = ", ".join(self._tracked) or "none"
            raise UnknownProcess(f"no background process {pid!r} in this session (its: {known})")
        return found

    async def start(self, command: str, origin: CallRef, sandbox: str, launch: Launch) -> Tracked:
        """Start a process through ``launch``; TooManyProcesses (nothing started) at the
        limit, and what ``launch`` raises when it cannot start."""
        running = sum(1 for t in self._tracked.values() if not t.sink.ended) + self._starting
        if running >= self.limit:
            raise TooManyProcesses(
                f"this session runs {running} background process(es), its limit "
                f"(setting maxBackgroundProcesses: {self.limit}); stop one with process_stop "
                "first"
            )
        self._number += 1
        tracked = Tracked(
            f"p{self._number}", command, origin, sandbox, self.kept_bytes, self._ended
        )
        self._starting += 1
        try:
            tracked.launched = await launch(tracked.sink)
        except BaseException:
            if self._number == int(tracked.id[1:]):  # no later id was taken: it is free again
                self._number -= 1
            raise
        finally:
            self._starting -= 1
        self._tracked[tracked.id] = tracked
        self._forget_finished()
        self._tell("started", tracked)
        if tracked.sink.ended:  # it ended before it was in the table
            self._ended(tracked)
        return tracked

    def _ended(self, tracked: Tracked) -> None:
        if self._tracked.get(tracked.id) is tracked:  # else told once it is in
            self._tell("stopped" if tracked.stopped_by is not None else "exited", tracked)

    async def read(self, pid: str, wait_seconds: float = 0.0) -> ProcessRead:
        return await self.get(pid).read(wait_seconds)

    async def stop(self, pid: str, by: StoppedBy) -> ProcessRead:
        """Stop a process (TERM, then KILL after a grace) and give what it wrote since
        the last read; one that had ended is read as it is."""
        tracked = self.get(pid)
        await self._stop(tracked, by)
        return await tracked.read()

    async def stop_all(
        self, by: StoppedBy, which: Callable[[ProcessInfo], bool] | None = None
    ) -> list[ProcessInfo]:
        """Stop every running process (or those ``which`` picks); what was stopped."""
        doomed = [
            t for t in self._tracked.values()
            if not t.sink.ended and (which is None or which(t.info()))
        ]  # fmt: skip
        await asyncio.gather(*(self._stop(t, by) for t in doomed), return_exceptions=True)
        return [t.info() for t in doomed]

    def kill_all(self) -> None:
        """End every running process at once (no event loop left)."""
        for tracked in self._tracked.values():
            if tracked.launched is not None and not tracked.sink.ended:
                tracked.stopped_by = tracked.stopped_by or "session end"
                try:
                    tracked.launched.kill()
                except OSError as exc:
                    log.info("background process %s not killed: %s", tracked.id, exc)

    async def _stop(self, tracked: Tracked, by: StoppedBy) -> None:
        if tracked.sink.ended or tracked.launched is None:
            return
        tracked.stopped_by = tracked.stopped_by or by
        await tracked.launched.stop()

    def _forget_finished(self) -> None:
        finished = [pid for pid, t in self._tracked.items() if t.sink.ended]
        for pid in finished[: max(len(finished) - FINISHED_KEPT, 0)]:
            del self._tracked[pid]

    def _tell(self, action: ProcessAction, tracked: Tracked) -> None:
        change = ProcessChange(
            action=action, process=tracked.info(),
            by=tracked.stopped_by if action == "stopped" else None,
        )  # fmt: skip
        for listener in list(self._listeners):
            try:
                listener(change)
            except Exception:  # telling never breaks the table
                log.exception("a listener of background processes failed")
