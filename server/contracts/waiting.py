"""Waiting without losing a cancellation, or what a worker thread did.

Python 3.11's ``asyncio.wait_for`` returns the result when its task is cancelled in
the same moment as the awaited thing finishes, and the cancellation is gone: a run
the person cancelled just as the editor answered a request would go on to its end.
``asyncio.timeout`` keeps it (3.12 rebuilt ``wait_for`` on it), so every bounded wait
in agentls is ``within``. ``to_its_end`` waits for a worker thread even when the
caller is cancelled, so what the thread did (a lock taken, a file written) is done
before the caller's own clean-up runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


async def within(awaitable: Awaitable[T], seconds: float | None) -> T:
    """``await awaitable``; TimeoutError once ``seconds`` have passed (None: no limit)."""
    async with asyncio.timeout(seconds):
        return await awaitable


async def to_its_end(call: Callable[[], T]) -> T:
    """``call()`` on a worker thread. A cancelled caller waits for it to end, then is
    cancelled (what ``call`` raised meanwhile is dropped)."""
    work = asyncio.ensure_future(asyncio.to_thread(call))
    try:
        return await asyncio.shield(work)
    except asyncio.CancelledError:
        work.add_done_callback(_retrieve)
        await asyncio.wait([work])
        raise


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # retrieved: the caller was cancelled and will not look
