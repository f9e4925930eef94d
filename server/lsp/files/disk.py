"""The files under a root as the language server touches them: on a worker thread.

`LocalWorkspace` reads and writes files in its coroutines directly, which a
command-line run can afford; in the language server the event loop answers
the editor, and a slow disk (a network mount, a big file) must not hold it.
Listing, search and commands already wait off the loop and are left as they are.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from agentls.contracts.waiting import to_its_end
from agentls.workspace.interface import FileSnapshot, WriteOutcome
from agentls.workspace.lines import FileLines, LineWindow
from agentls.workspace.local import LocalWorkspace

P = ParamSpec("P")
T = TypeVar("T")
_worker = threading.local()  # set while a call runs on a worker: calls within it stay there


class OffLoopDisk(LocalWorkspace):
    async def read(self, path: str) -> FileSnapshot:
        return await _off_loop(super().read, path)

    async def read_lines(self, path: str, window: LineWindow) -> FileLines:
        return await _off_loop(super().read_lines, path, window)

    async def version(self, path: str) -> str | None:
        return await _off_loop(super().version, path)

    async def write(
        self, path: str, new_text: str, *, expected_version: str | None, create: bool
    ) -> WriteOutcome:
        write = super().write
        return await _off_loop(
            write, path, new_text, expected_version=expected_version, create=create
        )

    async def current_bytes(self, path: str) -> bytes | None:
        return await _off_loop(super().current_bytes, path)

    async def restore_files(self, files: list[tuple[str, bytes | None]]) -> None:
        await _off_loop(super().restore_files, files)


async def _off_loop(call: Callable[P, Awaitable[T]], *args: P.args, **kwargs: P.kwargs) -> T:
    if getattr(_worker, "active", False):
        return await call(*args, **kwargs)

    def run() -> T:  # the coroutine is made and run on the worker, in a loop of its own
        _worker.active = True
        try:
            return asyncio.run(_awaited(call(*args, **kwargs)))
        finally:
            _worker.active = False

    return await to_its_end(run)  # a cancelled run ends once its file call has


async def _awaited(awaitable: Awaitable[T]) -> T:
    return await awaitable
