"""stdout and stderr for `agentls ask`, written by a thread so the run never waits on them.

A write to a pipe nobody reads (or a terminal paused with Ctrl-S) blocks until
someone reads. Done on the event loop, it froze the run: the loop could not
even see a SIGTERM, and only SIGKILL ended the process. Here a write only
queues its bytes; one thread writes them to the descriptors, stdout and stderr
in the order they were written, so a row on stderr never overtakes the answer
it follows. What waits beyond ``LIMIT`` is dropped, and a note on stderr says
how much, once the reader catches up.
"""

from __future__ import annotations

import io
import os
import select
import sys
import threading
from collections import deque
from typing import Protocol, TextIO, cast

LIMIT = 8 << 20  # bytes waiting to be written, beyond which output is dropped
STDOUT, STDERR = 1, 2


class Writable(Protocol):
    """Where the terminal printer and approver write: a text stream."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


class Output:
    """The one writer thread for the process's stdout and stderr."""

    def __init__(self, limit: int = LIMIT, notes: int = STDERR) -> None:
        self.limit = limit
        self.notes = notes  # where the note of dropped output goes
        self._queue: deque[tuple[int, bytes]] = deque()
        self._waiting = 0  # bytes queued or being written
        self._dropped = 0
        self._broken: set[int] = set()  # descriptors whose reader is gone
        self._changed = threading.Condition()
        threading.Thread(target=self._write_queued, name="agentls-output", daemon=True).start()

    def put(self, fd: int, data: bytes) -> None:
        if not data:
            return
        with self._changed:
            if fd in self._broken:
                return
            if self._waiting + len(data) > self.limit:
                self._dropped += len(data)
                return
            self._queue.append((fd, data))
            self._waiting += len(data)
            self._changed.notify_all()

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until everything queued is written (at most ``timeout`` seconds)."""
        with self._changed:
            return self._changed.wait_for(lambda: self._waiting == 0, timeout)

    def _write_queued(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._queue))
                fd, data = self._next_run()
            try:
                _write_all(fd, data)
            except OSError:  # the reader went away: nothing more goes there
                with self._changed:
                    self._broken.add(fd)
            with self._changed:
                self._waiting -= len(data)
                if self._dropped and not self._queue and self.notes not in self._broken:
                    note = (
                        f"\nagentls: {self._dropped} bytes of output were dropped: "
                        "nothing was reading them\n"
                    ).encode()
                    self._dropped = 0
                    self._queue.append((self.notes, note))
                    self._waiting += len(note)
                self._changed.notify_all()

    def _next_run(self) -> tuple[int, bytes]:
        """The first queued write and those right after it to the same descriptor."""
        fd, data = self._queue.popleft()
        parts = [data]
        while self._queue and self._queue[0][0] == fd:
            parts.append(self._queue.popleft()[1])
        return fd, b"".join(parts)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:  # a descriptor someone made non-blocking: wait until it takes more
            select.select([], [fd], [])
            continue
        view = view[written:]


class OutputStream(io.TextIOBase):
    """A text stream on one descriptor whose writes queue on ``Output`` and return at once."""

    def __init__(self, output: Output, fd: int, like: TextIO) -> None:
        self._output = output
        self._fd = fd
        self._encoding = getattr(like, "encoding", None) or "utf-8"
        self._errors = getattr(like, "errors", None) or "backslashreplace"

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._output.put(self._fd, text.encode(self._encoding, self._errors))
        return len(text)

    def flush(self) -> None:
        """Nothing to do: the thread writes what is queued as soon as it can."""

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)


def queue_std_streams() -> Output:
    """sys.stdout and sys.stderr through one ``Output``, for the rest of the process.

    They are not put back: the process ends after its run, and a message written
    as it ends must not block it either. The caller drains the output
    (``Output.drain``) before it exits."""
    sys.stdout.flush()
    sys.stderr.flush()
    output = Output()
    sys.stdout = cast(TextIO, OutputStream(output, STDOUT, sys.stdout))
    sys.stderr = cast(TextIO, OutputStream(output, STDERR, sys.stderr))
    return output
