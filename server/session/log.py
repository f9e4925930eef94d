"""Append-only JSONL writer for one session's event log.

Lines are written whole, in ``seq`` order, so a kill -9 leaves at most a torn
last line. ``append`` writes at once (with any staged lines before it, in one
``os.write``); ``stage`` keeps a line to go with the next append, and at the
latest until the event loop runs anything else, that is, until the run waits
for something. The loop stages what is followed at once by an event that
precedes an effect (a model request, a tool's decision), so a turn is two
writes, not seven, and nothing that comes before an effect or a wait is ever
still in memory when it starts. Durability (fsync) is requested at turn
boundaries and done off the caller's thread. Observability never breaks a run:
IO errors are counted and reported once, never raised.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
from pathlib import Path

from pydantic_core import PydanticSerializationError

from agentls.session.durability import FSYNC
from agentls.session.events import SCHEMA_VERSION, SERIALIZERS, Event, EventT, to_json_line

logger = logging.getLogger(__name__)

# One shared encoder: json.dumps with non-default options builds a new one per call.
_encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=str)

# How far back to look for the last event when reopening a large log.
_TAIL_CHUNK = 64 * 1024


class SessionLog:
    """Writes events to ``path``; ``seq`` continues from an existing file."""

    def __init__(self, path: Path, *, next_seq: int | None = None) -> None:
        self.path = path
        self.errors = 0
        self.last_error = ""
        self._fd: int | None = None
        self._lock = threading.Lock()
        self.sync_requested = False  # the process's fsync worker will sync this log
        self._closed = False
        self._seq = 1 if next_seq is None else next_seq
        self._size: int | None = None  # the file's length after our last write, if known
        self._staged: list[bytes] = []  # encoded lines waiting for the next write
        # The event loop that will write staged lines when it next runs a callback.
        self._flush_loop: asyncio.AbstractEventLoop | None = None
        try:
            self._fd = _open_for_append(path)
            if next_seq is None:
                self._seq = _last_seq(path) + 1
            self._terminate_torn_line()
        except OSError as exc:
            self._record_error("open", exc)

    @property
    def next_seq(self) -> int:
        return self._seq

    @property
    def closed(self) -> bool:
        return self._closed

    def fileno(self) -> int | None:
        return self._fd

    def append(self, event: EventT) -> EventT:
        """Stamps ``event`` with its version, seq and time, writes it (after any staged
        lines, in the same write), and returns it."""
        with self._lock:
            data = self._stamp_and_encode(event)
            if data is not None:
                self._write_after_staged(data)
            return event

    def stage(self, event: EventT) -> EventT:
        """As `append`, but the line is written with the next append or `flush`, or
        when this thread's event loop next runs a callback, whichever comes first.
        Outside an event loop it is written at once."""
        with self._lock:
            data = self._stamp_and_encode(event)
            if data is None:
                return event
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no loop to flush it: a thread, a plain call
                self._write_after_staged(data)
                return event
            self._staged.append(data)
            if self._flush_loop is not loop:
                self._flush_loop = loop
                loop.call_soon(self._flush_from_loop)
            return event

    def flush(self) -> None:
        """Write the staged lines now."""
        with self._lock:
            self._flush_staged()

    def _flush_from_loop(self) -> None:
        self._flush_loop = None
        self.flush()

    def _flush_staged(self) -> None:
        if self._staged:
            self._write_after_staged(b"")

    def _write_after_staged(self, data: bytes) -> None:
        """``data`` after the staged lines, in one write."""
        if self._staged:
            self._staged.append(data)
            data = b"".join(self._staged)
            self._staged.clear()
        self._write(data)

    def _stamp_and_encode(self, event: Event) -> bytes | None:
        """Stamps ``event``; its line, or None when the log cannot be written."""
        event.v = SCHEMA_VERSION
        event.seq = self._seq
        event.ts = time.time()
        self._seq += 1
        if self._fd is None:
            self._record_error("append", OSError("log is closed or failed to open"))
            return None
        try:
            return to_json_line(event)
        except (PydanticSerializationError, ValueError):
            return self._encode_slowly(event)

    def _write(self, data: bytes) -> None:
        if self._fd is None:
            self._record_error("append", OSError("log is closed or failed to open"))
            return
        try:
            written = os.write(self._fd, data)
            if written != len(data):  # rare: the usual case is this one call
                _write_all(self._fd, memoryview(data)[written:])
            if self._size is not None:
                self._size += len(data)
        except OSError as exc:
            self._size = None
            self._record_error("append", exc)

    def _encode_slowly(self, event: Event) -> bytes:
        """What the fast path refuses: lone surrogates, circular data."""
        try:
            line = _encoder.encode(SERIALIZERS[type(event)].to_python(event, fallback=str))
        except (TypeError, ValueError, PydanticSerializationError) as exc:
            self._record_error("encode", exc)
            fallback = {
                "v": event.v, "seq": event.seq, "ts": event.ts, "kind": event.kind,
                "run": event.run, "turn": event.turn, "unserialisable": repr(event)[:2000],
            }  # fmt: skip
            line = _encoder.encode(fallback)
        # backslashreplace turns a lone surrogate into a valid JSON \uXXXX escape.
        return (line + "\n").encode("utf-8", "backslashreplace")

    def turn_boundary(self) -> None:
        """Ask for an fsync without waiting; boundaries within the group-commit
        window (durability.GROUP_COMMIT_SECONDS) share one. Lines staged now are
        written before the next effect and synced with the next boundary."""
        if self._fd is None or self.sync_requested:
            return  # already asked for: the worker will cover this turn too
        FSYNC.request(self)

    def moved(self) -> bool:
        """Whether the file changed since our last write (another process wrote to it): one
        fstat, so it may be asked on an event loop before `resync` is called off it."""
        with self._lock:
            return self._moved()

    def _moved(self) -> bool:
        self._flush_staged()  # ours first: they count as our last write
        return self._fd is not None and os.fstat(self._fd).st_size != self._size

    def resync(self) -> None:
        """Continue after what another process appended (call it holding the session's lock)."""
        with self._lock:
            if not self._moved():
                return  # no one else wrote since our last event: nothing to read
            self._terminate_torn_line()
            self._seq = _last_seq(self.path) + 1

    def sync(self) -> None:
        """fsync now and wait for it (end of a run); errors are counted, not raised."""
        with self._lock:
            self._flush_staged()
            if self._fd is not None:
                self._fsync(self._fd)

    def close(self) -> None:
        """Final synchronous fsync, then close; safe to call twice."""
        self._closed = True
        FSYNC.forget(self)  # after it, the worker never touches this descriptor
        with self._lock:
            self._flush_staged()
            fd, self._fd = self._fd, None
        if fd is None:
            return
        self._fsync(fd)
        try:
            os.close(fd)
        except OSError as exc:
            self._record_error("close", exc)

    def __enter__(self) -> SessionLog:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def sync_from_worker(self) -> None:
        # No append lock here, so appends never wait for the disk; the fd
        # stays open because close() waits for the worker to let go of it.
        fd = self._fd
        if fd is not None:
            self._fsync(fd)

    def _fsync(self, fd: int) -> None:
        try:
            os.fsync(fd)
        except OSError as exc:
            self._record_error("fsync", exc)

    def _terminate_torn_line(self) -> None:
        # A kill -9 can leave a partial last line; end it so our next event starts clean.
        assert self._fd is not None
        size = self._size = os.fstat(self._fd).st_size
        if size == 0:
            return
        with open(self.path, "rb") as f:
            f.seek(size - 1)
            if f.read(1) != b"\n":
                _write_all(self._fd, b"\n")
                self._size = size + 1

    def _record_error(self, action: str, exc: BaseException) -> None:
        self.errors += 1
        self.last_error = f"{action}: {exc}"
        if self.errors == 1:
            logger.warning(
                "session log %s: %s (further log errors are counted, not shown)",
                self.path,
                self.last_error,
            )


def _open_for_append(path: Path) -> int:
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
    try:
        return os.open(path, flags, 0o600)
    except FileNotFoundError:  # its folder first (rare: the store makes session folders)
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, flags, 0o600)


def _write_all(fd: int, data: bytes | memoryview) -> None:
    written = os.write(fd, data)
    if written == len(data):
        return  # the usual case, without the view
    view = memoryview(data)[written:]
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _last_seq(path: Path) -> int:
    """The seq of the last complete event in ``path`` (0 if none), reading from the end."""
    with open(path, "rb") as f:
        end = f.seek(0, os.SEEK_END)
        chunk = _TAIL_CHUNK
        while True:
            start = max(0, end - chunk)
            f.seek(start)
            lines = f.read(end - start).split(b"\n")
            if start > 0:
                lines = lines[1:]  # the first piece may be the tail of an earlier line
            for line in reversed(lines):
                seq = _seq_of(line)
                if seq is not None:
                    return seq
            if start == 0:
                return 0
            chunk *= 4


def _seq_of(line: bytes) -> int | None:
    if not line.strip():
        return None
    try:
        event = json.loads(line)
    except ValueError:
        return None
    seq = event.get("seq") if isinstance(event, dict) else None
    return seq if isinstance(seq, int) else None
