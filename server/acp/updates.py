"""Session updates in the order they happened, sent by one task per session.

A run's observer is called synchronously from the loop; ACP notifications are
async. Updates are queued and sent one by one, and a request to the client
(a permission question, a file write) or the prompt's answer first waits for
what is queued, so the client sees a tool call's diff before it is asked about it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from acp.interfaces import Client

log = logging.getLogger(__name__)


class UpdateStream:
    def __init__(self, client: Client, session_id: str) -> None:
        self.client = client
        self.session_id = session_id
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    def push(self, update: Any) -> None:
        self._queue.put_nowait(update)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._pump())

    async def flush(self) -> None:
        """Wait until everything pushed so far was sent (or failed to send)."""
        await self._queue.join()

    async def _pump(self) -> None:
        while True:
            update = await self._queue.get()
            try:
                await self.client.session_update(self.session_id, update)
            except Exception as exc:  # a closed connection: nothing left to tell
                log.debug("session/update not sent: %s", exc)
            finally:
                self._queue.task_done()

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
