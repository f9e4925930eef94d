"""Waiting with a time limit without losing a cancellation.

Python 3.11's ``asyncio.wait_for`` returns the result when its task is cancelled in
the same moment as the awaited thing finishes, and the cancellation is gone: a run
the person cancelled just as the editor answered a request would go on to its end.
``asyncio.timeout`` keeps it (3.12 rebuilt ``wait_for`` on it), so every bounded wait
in agentls is ``within``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def within(awaitable: Awaitable[T], seconds: float | None) -> T:
    """``await awaitable``; TimeoutError once ``seconds`` have passed (None: no limit)."""
    async with asyncio.timeout(seconds):
        return await awaitable
