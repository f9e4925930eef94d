"""A child process that is only its bookkeeping: launches, halts and kills counted, a launch
held or failed on demand, a crash made by hand."""

from __future__ import annotations

import asyncio

from agentls.supervision import ChildFailed, Event, Lifecycle


class FakeChild:
    def __init__(self, name: str = "fake") -> None:
        self.name = name
        self.launches = 0
        self.halts = 0
        self.kills = 0
        self.running = False  # its "process"
        self.hold: asyncio.Event | None = None  # a launch waits for this when set
        self.launched = asyncio.Event()  # set when a launch begins
        self.failure: str | None = None  # a launch fails with this when set
        self.lifecycle = Lifecycle(self)
        self.told: list[tuple[Event, str]] = []
        self.lifecycle.watch(lambda event, detail: self.told.append((event, detail)))

    @property
    def alive(self) -> bool:
        return self.running

    async def launch(self) -> None:
        self.launches += 1
        self.launched.set()
        if self.hold is not None:
            await self.hold.wait()
        if self.failure is not None:
            raise ChildFailed(self.failure)
        self.running = True

    async def halt(self) -> None:
        self.halts += 1
        self.running = False

    def kill(self) -> None:
        self.kills += 1
        self.running = False

    def gave_up(self, when: str) -> str:
        return f"{self.name} crashed again {when}"

    def crash(self, *, said: bool = True) -> None:
        """The process dies; ``said``: it reported its end (as a protocol's reader does)."""
        self.running = False
        if said:
            self.lifecycle.lost(self.lifecycle.generation, "while idle")

    @property
    def events(self) -> list[Event]:
        return [event for event, _ in self.told]
