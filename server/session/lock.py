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


class SessionClaim:
    """The right to write one session's log; ``acquire`` or ``with``, then ``release``."""

    def __init__(self, log_path: Path, face: str) -> None:
        self.path = log_path.with_suffix(".lock")
        self.session_id = log_path.stem
        self.face = face
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self, wait_seconds: float = 0.0) -> None:
        """Take the lock, trying for up to ``wait_seconds`` (a blocking wait: keep it 0 on an
        event loop); SessionHeld if someone keeps it."""
        deadline = time.monotonic() + wait_seconds
        while not self.try_acquire():
            if time.monotonic() >= deadline:
                raise SessionHeld(self.session_id, _holder_once_written(self.path))
            time.sleep(0.05)

    def try_acquire(self) -> bool:
        if self._fd is not None:
            return True
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except FileNotFoundError:  # the sessions folder is made on first use only
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        except BaseException:
            os.close(fd)
            raise
        record = json.dumps({"face": self.face, "pid": os.getpid(), "since": time.time()})
        with contextlib.suppress(OSError):  # the name is for messages; the lock is what counts
            data = record.encode()
            # Write, then cut what a crashed holder may have left beyond it; a reader in
            # between finds no valid record and looks again (_holder_once_written).
            os.pwrite(fd, data, 0)
            os.ftruncate(fd, len(data))
        self._fd = fd
        return True

    def release(self) -> None:
        # The file stays: removing it would let a waiter lock a name no one else sees.
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        os.close(fd)  # closing drops the flock

    def __enter__(self) -> SessionClaim:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()


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
        record = json.loads(lock_path.read_text(encoding="utf-8") or "null")
        return Holder(str(record["face"]), int(record["pid"]), float(record["since"]))
    except (OSError, ValueError, TypeError, KeyError):
        return None
