"""A command started in the background: its own process group, its output taken in as it
comes, its exit seen through a pidfd, stopped (TERM, a grace, KILL) like any command.

Its output is read whenever the pipe is readable and, before every read the model
makes, whatever the pipe holds then: a read sees all the process wrote before it. When
the shell exits, what is left of its group goes with it, as for any command.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from agentls.contracts.waiting import within
from agentls.supervision.processes import OutputSink
from agentls.workspace import process

_READ_BYTES = 65536
# How long a stop waits for the shell to be reaped after its group was killed.
_REAPED_SECONDS = 5.0


class BackgroundCommand:
    def __init__(self, proc: subprocess.Popen[bytes], sink: OutputSink, launchers: int) -> None:
        self._proc = proc
        self._sink = sink
        self._launchers = launchers
        self._loop = asyncio.get_running_loop()
        assert proc.stdout is not None
        self._fd: int | None = proc.stdout.fileno()
        os.set_blocking(self._fd, False)
        self._loop.add_reader(self._fd, self.drain)
        self._pipe_closed = asyncio.Event()
        self._exited = asyncio.Event()
        self._done = asyncio.Event()  # the sink has its exit
        self._unwatch = process.watch_exit(self._loop, proc, self._exited.set)
        self._ending = self._loop.create_task(self._end())

    @property
    def pgid(self) -> int:
        return self._proc.pid

    def drain(self) -> None:
        fd = self._fd
        while fd is not None:
            try:
                data = os.read(fd, _READ_BYTES)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                self._close_pipe()
                return
            self._sink.write(data)

    def _close_pipe(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            self._loop.remove_reader(fd)
            assert self._proc.stdout is not None
            self._proc.stdout.close()
        self._pipe_closed.set()

    async def _end(self) -> None:
        """Once the shell exits: what is left of its group goes too, then the exit is told
        (an event loop that ends first tells nothing: its session kills what is left)."""
        try:
            await self._exited.wait()
            await process.wait_briefly(self._pipe_closed)
            await process.kill_process_group(self.pgid, self._launchers)
            await process.wait_briefly(self._pipe_closed)
        finally:
            self.drain()
            self._close_pipe()
            self._unwatch()
        self._sink.exited(self._proc.returncode)
        self._done.set()

    async def stop(self) -> None:
        if self._done.is_set():
            return
        await process.kill_process_group(self.pgid, self._launchers)
        with contextlib.suppress(TimeoutError):
            await within(self._done.wait(), _REAPED_SECONDS)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pgid, signal.SIGKILL)


async def start_background(
    command: str,
    cwd: Path,
    sink: OutputSink,
    prefix: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    *,
    launchers: int = 0,
) -> BackgroundCommand:
    """``command`` started with bash behind ``prefix`` (a sandbox, ``launchers`` deep),
    feeding ``sink``; stopped through what it returns."""
    proc = await process.start_in_group(
        process.shell_argv(command, cwd, prefix), cwd, process.command_env(env)
    )
    return BackgroundCommand(proc, sink, launchers)
