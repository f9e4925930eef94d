"""One child process's lifecycle: started on first need, restarted once, then given up on.

A `Child` is what its protocol knows how to do (launch the process with its
handshake, halt it, kill it); its `Lifecycle` decides when. One launch serves
every caller waiting for it, and a waiter's cancellation never stops it for the
others. A crash (the process ended though nobody stopped it) leaves the child
stopped, so the next need starts it again, once; after that, and after a launch
that failed, it stays failed until `reset`. Watchers are told each change.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

log = logging.getLogger(__name__)

State = Literal["stopped", "starting", "running", "failed"]
# What watchers are told; the detail is the failure, or when a crash happened.
Event = Literal["started", "start failed", "restarting", "given up", "stopped"]
Watcher = Callable[[Event, str], None]
MAX_RESTARTS = 1  # after a crash; the next crash gives the child up


class ChildFailed(Exception):
    """The child cannot run (its launch failed, or it crashed once too often): says why."""


class Child(Protocol):
    """A child process as its protocol runs it."""

    @property
    def alive(self) -> bool:
        """Its process is there (one that died may not have said so yet)."""
        ...

    async def launch(self) -> None:
        """Start the process and complete its handshake, each step bounded; what an
        earlier run left is cleared first. `ChildFailed` says why it cannot."""
        ...

    async def halt(self) -> None:
        """End the process (politely, then by force), bounded; harmless when none runs."""
        ...

    def kill(self) -> None:
        """End the process at once, without an event loop (the loop is gone)."""
        ...

    def gave_up(self, when: str) -> str:
        """The failure to report when it crashed ``when`` with no restart left."""
        ...


@dataclass(frozen=True, slots=True)
class ChildStatus:
    state: State
    failure: str | None
    restarts: int  # used since the last reset


class Lifecycle:
    def __init__(self, child: Child, *, max_restarts: int = MAX_RESTARTS) -> None:
        self.child = child
        self.state: State = "stopped"
        self.failure: str | None = None
        self.restarts = 0
        self.generation = 0  # one per launch: a report about an earlier run changes nothing
        self._allowed = max_restarts
        self._launching: asyncio.Task[None] | None = None
        self._watchers: list[Watcher] = []

    def watch(self, watcher: Watcher) -> None:
        self._watchers.append(watcher)

    def _tell(self, event: Event, detail: str = "") -> None:
        for watcher in list(self._watchers):
            try:
                watcher(event, detail)
            except Exception:  # telling never breaks the lifecycle
                log.exception("a watcher of a child process failed")

    @property
    def running(self) -> bool:
        return self.state == "running" and self.child.alive

    @property
    def failed(self) -> bool:
        """Given up on (read afresh where a call may just have changed the state)."""
        return self.state == "failed"

    def status(self) -> ChildStatus:
        state = self.state
        if state == "running" and not self.child.alive:
            state = "stopped"  # it died and has not said so yet
        return ChildStatus(state, self.failure, self.restarts)

    async def ensure(self) -> None:
        """Running: launched (or relaunched after a crash) if need be; `ChildFailed` when
        it cannot run. Cancelling the caller leaves a launch under way to the others."""
        if self.state == "running":
            if self.child.alive:
                return
            self.lost(self.generation, "while idle")  # it died without a word
        if self.failed:
            raise ChildFailed(self.failure or "it failed")
        launching = self._launching
        if launching is None:
            self.state = "starting"
            self.generation += 1
            launching = asyncio.get_running_loop().create_task(self._launch(self.generation))
            self._launching = launching
        await asyncio.wait([launching])  # never cancels the launch, never raises its error
        if self.failed:
            raise ChildFailed(self.failure or "it failed")
        if self.state != "running":
            raise ChildFailed("stopped while starting")

    async def _launch(self, generation: int) -> None:
        try:
            await self.child.launch()
        except asyncio.CancelledError:  # stopped while starting: `stop` halts it
            raise
        except Exception as exc:
            why = str(exc) if isinstance(exc, ChildFailed) else f"{type(exc).__name__}: {exc}"
            await self._halt()  # what the failed launch left
            if generation == self.generation:
                self.state, self.failure = "failed", why
                self._tell("start failed", why)
            return
        finally:
            if self._launching is asyncio.current_task():
                self._launching = None
        if generation == self.generation and self.state == "starting":
            self.state = "running"
            self._tell("started")

    def lost(self, generation: int, when: str) -> None:
        """The process of launch ``generation`` ended though nobody stopped it (``when``:
        "while idle", "while running X"). With a restart left the child is stopped, and
        the next need starts it again; else it is failed. A report about an earlier
        launch, or of a child not running, changes nothing; read `state` after."""
        if generation != self.generation or self.state != "running":
            return
        if self.restarts < self._allowed:
            self.restarts += 1
            self.state = "stopped"
            self._tell("restarting", when)
            return
        self.state, self.failure = "failed", self.child.gave_up(when)
        self._tell("given up", when)

    async def stop(self) -> None:
        """Halt it, bounded (a launch under way is cancelled first); the next need starts
        it again unless it failed."""
        launching, self._launching = self._launching, None
        if self.state != "failed":
            self.state = "stopped"
        if launching is not None:
            launching.cancel()
            await asyncio.wait([launching])
        await self._halt()
        self._tell("stopped")

    def kill(self) -> None:
        """End it at once, without an event loop (the end of a process)."""
        if self.state != "failed":
            self.state = "stopped"
        try:
            self.child.kill()
        except Exception:
            log.exception("a child process could not be killed")

    def reset(self) -> None:
        """Forget a failure and the restarts used: the next need starts it afresh."""
        if self.state == "failed":
            self.state, self.failure, self.restarts = "stopped", None, 0

    async def _halt(self) -> None:
        try:
            await self.child.halt()
        except Exception as exc:  # halting is bounded and best effort
            log.info("a child process did not halt cleanly: %r", exc)
