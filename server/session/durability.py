"""One fsync thread per process for every session log (group commit).

A session used to start its own thread, which cost more than a fast run's
turns; one daemon thread serves every log. A log's lines reach the disk within
the window of the turn boundary that asked: boundaries of one log closer
together share one fsync, and a log's fsync never runs after `forget` returned
for it, so its descriptor may be closed then.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol

# Turn boundaries closer together than this share one fsync.
GROUP_COMMIT_SECONDS = 0.05


class Durable(Protocol):
    # Set by the worker while a request waits, so asking twice costs no lock.
    sync_requested: bool

    @property
    def closed(self) -> bool: ...

    def sync_from_worker(self) -> None: ...


class FsyncWorker:
    def __init__(self, window: float = GROUP_COMMIT_SECONDS) -> None:
        self.window = window
        self._cond = threading.Condition(threading.Lock())
        self._due: dict[Durable, float] = {}  # waiting requests, by earliest start
        self._last: dict[Durable, float] = {}  # when each log's last fsync started
        self._busy: Durable | None = None
        self._thread: threading.Thread | None = None

    def request(self, log: Durable) -> None:
        """fsync ``log`` soon, on the worker; never waits for the disk."""
        with self._cond:
            if log.closed or log in self._due:
                return
            now = time.monotonic()
            # A log's first fsync waits a window too: a short run then takes none
            # while it runs (each wakes the worker, which takes the interpreter's lock
            # from the run), and a long one takes one per window, as before.
            due = max(now, self._last.get(log, now) + self.window)
            earliest = min(self._due.values(), default=None)
            self._due[log] = due
            log.sync_requested = True
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="agentls-fsync", daemon=True)
                self._thread.start()
            if earliest is None or due < earliest:  # else the worker wakes in time anyway
                self._cond.notify()

    def forget(self, log: Durable) -> None:
        """Drop ``log``'s request and wait out its fsync in progress (``log.closed`` is set)."""
        with self._cond:
            self._due.pop(log, None)
            self._last.pop(log, None)
            log.sync_requested = False
            while self._busy is log:
                self._cond.wait()

    def _run(self) -> None:
        while True:
            with self._cond:
                log = self._next()
                del self._due[log]
                log.sync_requested = False
                self._last[log] = time.monotonic()
                self._busy = log
            try:
                log.sync_from_worker()
            finally:
                with self._cond:
                    self._busy = None
                    self._cond.notify_all()

    def _next(self) -> Durable:
        """The log whose fsync is due first, once it is due (holding the lock)."""
        while True:
            if not self._due:
                self._cond.wait()
                continue
            log = min(self._due, key=self._due.__getitem__)
            left = self._due[log] - time.monotonic()
            if left <= 0:
                return log
            self._cond.wait(left)


FSYNC = FsyncWorker()
