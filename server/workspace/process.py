"""Running one shell command in its own process group, with bounded output and no orphans.

The command runs in a new session (so its process group id is its pid). When
it times out, when the caller is cancelled, or when the shell exits while
children it put in the background are still running, the whole group gets
SIGTERM, then SIGKILL after a short grace.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from agentls.workspace.interface import CommandResult

KILL_GRACE_SECONDS = 2.0
# After the shell exits, how long background children may keep the pipe open
# before they are killed with the rest of the group.
DRAIN_SECONDS = 0.5
_POLL_SECONDS = 0.02

# Tools that would wait for a person or a pager must not: nobody is at this terminal.
_QUIET_ENV = {"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0", "TERM": "dumb"}


async def run_shell(
    command: str,
    cwd: Path,
    timeout_seconds: float,
    output_limit: int,
    prefix: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> CommandResult:
    """``prefix`` (a sandbox launcher) runs the shell inside it when given; ``env`` is the
    command's whole environment (default: this process's)."""
    capture = OutputCapture(output_limit)
    loop = asyncio.get_running_loop()
    shell = shutil.which("bash") or "/bin/sh"
    # A protocol rather than Process: on 3.11 Process.wait() also waits for the
    # pipe to close, which a background child can hold open for ever.
    transport, watcher = await loop.subprocess_exec(
        lambda: _Watcher(capture),
        *prefix,
        shell,
        "-c",
        command,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env={**(os.environ if env is None else env), **_QUIET_ENV},
    )
    pgid = transport.get_pid()
    timed_out = False
    try:
        try:
            await asyncio.wait_for(watcher.exited.wait(), timeout_seconds)
        except TimeoutError:
            timed_out = True
        else:
            await _wait_briefly(watcher.output_closed)
        await kill_process_group(pgid)
        # Collect what the group wrote last, and let the shell be reaped.
        await _wait_briefly(watcher.output_closed)
        await _wait_briefly(watcher.exited)
    except BaseException:
        # Cancelled (or failed): nothing the command started may outlive it.
        await kill_process_group(pgid)
        raise
    finally:
        transport.close()
    return CommandResult(
        exit_code=None if timed_out else transport.get_returncode(),
        output=capture.text(),
        timed_out=timed_out,
        truncated_bytes=capture.dropped,
    )


class _Watcher(asyncio.SubprocessProtocol):
    def __init__(self, capture: OutputCapture) -> None:
        self.capture = capture
        self.exited = asyncio.Event()
        self.output_closed = asyncio.Event()

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        self.capture.add(data.encode() if isinstance(data, str) else data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self.output_closed.set()

    def process_exited(self) -> None:
        self.exited.set()


async def _wait_briefly(event: asyncio.Event) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), DRAIN_SECONDS)


class OutputCapture:
    """Keeps the first and the last part of a stream, counting what falls between."""

    def __init__(self, limit: int) -> None:
        self._head_limit = max(limit // 2, 0)
        self._tail_limit = max(limit - self._head_limit, 0)
        self._head = bytearray()
        self._tail = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self._head_limit - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        self._tail += chunk
        excess = len(self._tail) - self._tail_limit
        if excess > 0:
            del self._tail[:excess]
            self.dropped += excess

    def text(self) -> str:
        head = self._head.decode("utf-8", errors="replace")
        tail = self._tail.decode("utf-8", errors="replace")
        if not self.dropped:
            return head + tail
        return f"{head}\n[... {self.dropped:,} bytes of output cut ...]\n{tail}"


async def kill_process_group(pgid: int) -> None:
    """SIGTERM the group, wait a little for it to go, then SIGKILL whatever is left."""
    if not group_alive(pgid):
        return
    _signal_group(pgid, signal.SIGTERM)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + KILL_GRACE_SECONDS
    try:
        while group_alive(pgid) and loop.time() < deadline:
            await asyncio.sleep(_POLL_SECONDS)
    finally:
        # Also when cancelled during the grace: never leave the group running.
        if group_alive(pgid):
            _signal_group(pgid, signal.SIGKILL)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def group_alive(pgid: int) -> bool:
    """Whether any process of the group still runs (zombies waiting to be reaped do not count)."""
    if sys.platform.startswith("linux"):
        return any(_pgrp_and_state(pid) == (pgid, True) for pid in _proc_pids())
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _proc_pids() -> list[str]:
    try:
        return [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _pgrp_and_state(pid: str) -> tuple[int, bool] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    # After the command name: state, ppid, pgrp, ...
    return int(fields[2]), fields[0] not in (b"Z", b"X")
