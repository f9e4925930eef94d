"""Time limits for tool calls, on one timer.

`asyncio.timeout` arms a timer handle per call and cancels it when the call
ends; the cancelled handle stays in the event loop's heap until it is swept.
A run makes a call every turn and nearly every call ends in microseconds, so
here a call is an entry in a dict and one timer wakes at the earliest
deadline: a call that outlives its limit is cancelled from there, as
`asyncio.timeout` would cancel it.
"""

from __future__ import annotations

import asyncio
import math


class Deadline:
    """One call's limit; ``end()`` when the call is over, in every case."""

    __slots__ = ("_calls", "_cancelling", "_task", "fired")

    def __init__(self, calls: CallDeadlines, task: asyncio.Task[object], cancelling: int) -> None:
        self._calls = calls
        self._task = task
        self._cancelling = cancelling  # how often the task was being cancelled before
        self.fired = False

    def end(self) -> bool:
        """True if the limit cancelled the call and nothing else did: the call timed out
        (its cancellation is taken back). If the run was cancelled too, False."""
        self._calls.forget(self._task)
        if not self.fired:
            return False
        return self._task.uncancel() <= self._cancelling


class CallDeadlines:
    def __init__(self) -> None:
        self._due: dict[asyncio.Task[object], tuple[float, Deadline]] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = math.inf

    def start(self, seconds: float | None) -> Deadline | None:
        """The current task's call may take ``seconds`` (None: no limit)."""
        task = asyncio.current_task()
        if seconds is None or task is None:
            return None
        loop = task.get_loop()
        due = loop.time() + seconds
        deadline = Deadline(self, task, task.cancelling())
        self._due[task] = (due, deadline)
        if due < self._timer_at:
            self._wake_at(loop, due)
        return deadline

    def forget(self, task: asyncio.Task[object]) -> None:
        self._due.pop(task, None)

    def _wake_at(self, loop: asyncio.AbstractEventLoop, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = loop.call_at(when, self._expire, loop)
        self._timer_at = when

    def _expire(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer, self._timer_at = None, math.inf
        now = loop.time()
        for task, (due, deadline) in list(self._due.items()):
            if due <= now and not deadline.fired:
                deadline.fired = True
                task.cancel()
        waiting = [due for due, deadline in self._due.values() if not deadline.fired]
        if waiting:
            self._wake_at(loop, min(waiting))
