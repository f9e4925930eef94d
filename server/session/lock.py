"""One writer per session, across processes: a lock file beside the session's log.

The CLI, the language server and the ACP agent share one session store. Whoever
runs a session (or undoes in it) holds an exclusive ``flock`` on
``<id>.lock`` and writes its face and pid into it, so a second process can say
who has it. The OS drops the lock when the holder dies, even by kill -9, so a
crashed holder never blocks anyone. Reading a session needs no lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import TracebackType

# How faces are named in "running elsewhere" messages.
FACE_NAMES = {
    "cli": "`agentls ask`",
    "lsp": "the language server",
    "acp": "the ACP agent",
}


@dataclass(frozen=True, slots=True)
class Holder:
    face: str
    pid: int
    since: float

    def describe(self) -> str:
        when = datetime.fromtimestamp(self.since).strftime("%H:%M:%S")
        return f"{FACE_NAMES.get(self.face, self.face)}, pid {self.pid}, since {when}"


class SessionHeld(Exception):
    """Another writer holds the session; the message names it."""

    def __init__(self, session_id: str, holder: Holder | None) -> None:
        self.session_id = session_id
        self.holder = holder
        who = holder.describe() if holder is not None else "another agentls process"
        super().__init__(
            f"session {session_id} is running elsewhere ({who}); wait until that run ends "
            "or cancel it there, then try again"
        )


# The holder's record is written over this many bytes (padded with spaces, which JSON
# allows), so taking the lock is one pwrite and letting go another: no truncation.
RECORD_BYTES = 128


class SessionClaim:
    """The right to write one session's log; ``acquire`` or ``with``, then ``release``.

    The lock file stays open from the first ``acquire`` (or ``prepare``) to ``close``, so
    the runs of an open session take and drop the lock without reopening it.
    """

    def __init__(self, log_path: Path, face: str) -> None:
        self.path = log_path.with_suffix(".lock")
        self.session_id = log_path.stem
        self.face = face
        self._fd: int | None = None
        self._held = False
        self._sized = False  # the file is no longer than our record (else cut, holding the lock)

    @property
    def held(self) -> bool:
        return self._held

    def prepare(self) -> None:
        """Open (and make) the lock file now, so the first run does not."""
        self._file()

    def acquire_now(self) -> None:
        """Take the lock or raise SessionHeld at once, never sleeping (for an event loop): the
        holder is named if its record is written yet."""
        if not self.try_acquire():
            raise SessionHeld(self.session_id, read_holder(self.path))

    def acquire(self, wait_seconds: float = 0.0) -> None:
        """Take the lock, trying for up to ``wait_seconds``, and waiting a moment for the
        holder's name if it is held (blocking: `acquire_now` on an event loop); SessionHeld
        if someone keeps it."""
        deadline = time.monotonic() + wait_seconds
        while not self.try_acquire():
            if time.monotonic() >= deadline:
                raise SessionHeld(self.session_id, _holder_once_written(self.path))
            time.sleep(0.05)

    def try_acquire(self) -> bool:
        if self._held:
            return True
        fd = self._file()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        record = json.dumps({"face": self.face, "pid": os.getpid(), "since": time.time()})
        with contextlib.suppress(OSError):  # the name is for messages; the lock is what counts
            # Over what a crashed holder may have left; a reader in between finds no
            # valid record and looks again (_holder_once_written).
            os.pwrite(fd, record.encode().ljust(RECORD_BYTES), 0)
            if not self._sized:  # an older, longer record: cut once
                os.ftruncate(fd, max(RECORD_BYTES, len(record)))
                self._sized = True
        self._held = True
        return True

    def release(self) -> None:
        # The file stays: removing it would let a waiter lock a name no one else sees.
        if not self._held or self._fd is None:
            return
        self._held = False
        with contextlib.suppress(OSError):
            os.pwrite(self._fd, b" " * RECORD_BYTES, 0)  # blank: no holder named
        fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        """Let go of the lock and the file; safe to call twice."""
        self.release()
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def _file(self) -> int:
        if self._fd is None:
            try:
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            except FileNotFoundError:  # the sessions folder is made on first use only
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            # Our record covers a file this short whole: nothing left to cut.
            self._sized = os.fstat(self._fd).st_size <= RECORD_BYTES
        return self._fd

    def __enter__(self) -> SessionClaim:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _holder_once_written(lock_path: Path) -> Holder | None:
    # A holder writes its name just after taking the lock: give it a moment, so the
    # message can name it rather than "another agentls process".
    for _ in range(10):
        holder = read_holder(lock_path)
        if holder is not None:
            return holder
        time.sleep(0.02)
    return None


def read_holder(lock_path: Path) -> Holder | None:
    """Who holds the lock, as it wrote itself down (None: unknown or free)."""
    try:
        record = json.loads(lock_path.read_text(encoding="utf-8").strip() or "null")
        return Holder(str(record["face"]), int(record["pid"]), float(record["since"]))
    except (OSError, ValueError, TypeError, KeyError):
        return None
