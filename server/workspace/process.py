"""Running one shell command in its own process group, with bounded output and no orphans.

The command runs in a new session (so its process group id is its pid). When
it times out, when the caller is cancelled, or when the shell exits while
children it put in the background are still running, the whole group gets
SIGTERM, then SIGKILL after a short grace. A command started through launchers (a
sandbox's `bwrap`, `nsenter`: ``launchers`` deep) gets its SIGTERM below them, so the
command itself has the grace to end (a launcher killed first would take it down at once).

Nothing here blocks the event loop for long: the process is started on a
worker thread (fork and exec from a large server take milliseconds), its exit
is noticed through a pidfd (no waiting thread per command), and looking for
what is left of its group reads /proc on a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from agentls.contracts.waiting import within
from agentls.workspace.control import helper_path
from agentls.workspace.interface import CommandResult

KILL_GRACE_SECONDS = 2.0
# After the shell exits, how long background children may keep the pipe open
# before they are killed with the rest of the group.
DRAIN_SECONDS = 0.5
_POLL_SECONDS = 0.02

# Tools that would wait for a person or a pager must not: nobody is at this terminal.
# And git takes a folder for a repository only where it has a .git (or is told so): a
# folder the model wrote that looks like a bare repository would bring its own config,
# with programs to run (safe.bareRepository is read from the command line's config).
_QUIET_ENV = {
    "PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0", "TERM": "dumb",
    # ... nor run a file-system monitor a repository's config names (git status would).
    "GIT_CONFIG_PARAMETERS": "'safe.bareRepository'='explicit' 'core.fsmonitor'='false'",
}  # fmt: skip
_SPAWNER = ThreadPoolExecutor(max_workers=2, thread_name_prefix="agentls-spawn")


async def run_shell(
    command: str,
    cwd: Path,
    timeout_seconds: float,
    output_limit: int,
    prefix: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    *,
    launchers: int = 0,
) -> CommandResult:
    """``prefix`` (a sandbox launcher, ``launchers`` processes deep) runs the shell inside
    it when given; ``env`` is the command's whole environment (default: this process's)."""
    capture = OutputCapture(output_limit)
    loop = asyncio.get_running_loop()
    proc = await start_in_group(shell_argv(command, cwd, prefix), cwd, command_env(env))
    pgid = proc.pid
    exited = asyncio.Event()
    unwatch = watch_exit(loop, proc, exited.set)
    # A read pipe rather than Process: on 3.11 Process.wait() also waits for the
    # pipe to close, which a background child can hold open for ever.
    output = _Output(capture)
    assert proc.stdout is not None
    try:
        transport, _ = await loop.connect_read_pipe(lambda: output, proc.stdout)
    except BaseException:
        await kill_process_group(pgid, launchers)
        unwatch()
        raise
    timed_out = False
    try:
        try:
            await within(exited.wait(), timeout_seconds)
        except TimeoutError:
            timed_out = True
        else:
            await wait_briefly(output.closed)
        await kill_process_group(pgid, launchers)
        # Collect what the group wrote last, and let the shell be reaped.
        await wait_briefly(output.closed)
        await wait_briefly(exited)
    except BaseException:
        # Cancelled (or failed): nothing the command started may outlive it.
        await kill_process_group(pgid, launchers)
        raise
    finally:
        transport.close()
        unwatch()
    return CommandResult(
        exit_code=None if timed_out else proc.returncode,
        output=capture.text(),
        timed_out=timed_out,
        truncated_bytes=capture.dropped,
    )


@dataclass(frozen=True, slots=True)
class ProcessResult:
    """A program given input: its exit, and its output and errors apart, each bounded."""

    exit_code: int | None  # None when killed (timeout or cancel)
    stdout: str
    stderr: str
    timed_out: bool


async def run_with_input(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    data: bytes,
    timeout_seconds: float,
    output_limit: int,
) -> ProcessResult:
    """Run ``argv`` in its own process group with ``data`` on its stdin (a program that
    does not read it is no error) and its stdout and stderr kept apart; killed with its
    group at the timeout or when the caller is cancelled."""
    loop = asyncio.get_running_loop()
    proc = await start_in_group(list(argv), cwd, {**env, **_QUIET_ENV}, with_input=True)
    pgid = proc.pid
    exited = asyncio.Event()
    unwatch = watch_exit(loop, proc, exited.set)
    out, err = _Output(OutputCapture(output_limit)), _Output(OutputCapture(output_limit))
    transports: list[asyncio.BaseTransport] = []
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    timed_out = False
    try:
        writer, _ = await loop.connect_write_pipe(asyncio.Protocol, proc.stdin)
        transports.append(writer)
        reading_out, _ = await loop.connect_read_pipe(lambda: out, proc.stdout)
        transports.append(reading_out)
        reading_err, _ = await loop.connect_read_pipe(lambda: err, proc.stderr)
        transports.append(reading_err)
        writer.write(data)  # buffered by the transport: a full pipe never blocks the loop
        writer.close()
        try:
            await within(exited.wait(), timeout_seconds)
        except TimeoutError:
            timed_out = True
        else:
            await wait_briefly(out.closed)
            await wait_briefly(err.closed)
        await kill_process_group(pgid)
        await wait_briefly(exited)
    except BaseException:
        await kill_process_group(pgid)
        raise
    finally:
        for transport in transports:
            transport.close()
        unwatch()
    return ProcessResult(
        None if timed_out else proc.returncode, out.capture.text(), err.capture.text(), timed_out
    )


def shell_argv(command: str, cwd: Path, prefix: Sequence[str] = ()) -> list[str]:
    """The argv that runs ``command`` with bash -c (never a bash the workspace put on PATH),
    behind ``prefix``."""
    return [*prefix, shell_of(helper_path(cwd)), "-c", command]


def command_env(env: Mapping[str, str] | None) -> dict[str, str]:
    """A command's environment (default: this process's) with nobody at the terminal."""
    return {**(os.environ if env is None else env), **_QUIET_ENV}


@lru_cache(maxsize=8)
def shell_of(path: str) -> str:
    """bash as found along ``path``, else /bin/sh."""
    import shutil

    found: str | None = shutil.which("bash", path=path)
    return found or "/bin/sh"


async def start_in_group(
    args: list[str], cwd: Path, env: Mapping[str, str], *, with_input: bool = False
) -> subprocess.Popen[bytes]:
    """The command in a new session, started on a worker thread; a caller cancelled
    meanwhile kills what it started before it goes. Output and errors share one pipe,
    unless ``with_input``: then stdin, stdout and stderr are three pipes."""

    def popen() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            args, cwd=cwd, env=env,
            stdin=subprocess.PIPE if with_input else subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if with_input else subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    loop = asyncio.get_running_loop()
    starting = loop.run_in_executor(_SPAWNER, popen)
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        proc: subprocess.Popen[bytes] = await starting
        _signal_group(proc.pid, signal.SIGKILL)
        _reap_later(proc)
        raise


def watch_exit(
    loop: asyncio.AbstractEventLoop, proc: subprocess.Popen[bytes], on_exit: Callable[[], None]
) -> Callable[[], None]:
    """Call ``on_exit`` (on the loop) once ``proc`` has exited and been reaped; the
    returned function stops watching (whatever is still running is reaped later)."""
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # not Linux 5.3+: a thread waits instead

        def wait() -> None:
            proc.wait()
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(on_exit)

        threading.Thread(target=wait, daemon=True).start()
        return lambda: None
    watching = True

    def readable() -> None:
        if proc.poll() is not None:
            stop()
            on_exit()

    def stop() -> None:
        nonlocal watching
        if watching:
            watching = False
            loop.remove_reader(pidfd)
            os.close(pidfd)
            if proc.returncode is None:
                _reap_later(proc)

    loop.add_reader(pidfd, readable)
    return stop


def _reap_later(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        threading.Thread(target=proc.wait, daemon=True).start()


class _Output(asyncio.Protocol):
    def __init__(self, capture: OutputCapture) -> None:
        self.capture = capture
        self.closed = asyncio.Event()

    def data_received(self, data: bytes) -> None:
        self.capture.add(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set()


async def wait_briefly(event: asyncio.Event) -> None:
    with contextlib.suppress(TimeoutError):
        await within(event.wait(), DRAIN_SECONDS)


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


async def kill_process_group(pgid: int, launchers: int = 0) -> None:
    """SIGTERM the group (below its ``launchers``), wait a little for it to go, then
    SIGKILL whatever is left."""
    if not await _group_alive_off_loop(pgid):
        return
    if launchers:
        await asyncio.to_thread(_signal_below, pgid, launchers, signal.SIGTERM)
    else:
        _signal_group(pgid, signal.SIGTERM)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + KILL_GRACE_SECONDS
    try:
        while await _group_alive_off_loop(pgid) and loop.time() < deadline:
            await asyncio.sleep(_POLL_SECONDS)
    finally:
        # Also when cancelled during the grace: never leave the group running.
        if group_alive(pgid):
            _signal_group(pgid, signal.SIGKILL)


async def _group_alive_off_loop(pgid: int) -> bool:
    if not _has_members(pgid):
        return False  # the common case, with no /proc scan
    return await asyncio.to_thread(group_alive, pgid)


def _has_members(pgid: int) -> bool:
    """Whether the group has any process at all (zombies included)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _signal_below(pgid: int, launchers: int, sig: signal.Signals) -> None:
    """``sig`` to each process of the group at least ``launchers`` below its leader (or
    whose parent left the group): the command, never the launchers it runs in."""
    parents = {
        pid: ppid
        for pid, (group, alive, ppid) in ((p, _stat(p)) for p in _proc_pids())
        if group == pgid and alive
    } if sys.platform.startswith("linux") else {}  # fmt: skip

    def depth(pid: int) -> int:
        steps = 0
        while pid != pgid:
            parent = parents.get(pid)
            if parent is None:
                return launchers  # reparented: not one of the launchers
            pid, steps = parent, steps + 1
        return steps

    for pid in parents:
        if depth(pid) >= launchers:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)


def group_alive(pgid: int) -> bool:
    """Whether any process of the group still runs (zombies waiting to be reaped do not count)."""
    if not _has_members(pgid):
        return False
    if sys.platform.startswith("linux"):
        return any(_stat(pid)[:2] == (pgid, True) for pid in _proc_pids())
    return True


def _proc_pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _stat(pid: int) -> tuple[int, bool, int]:
    """A process's group, whether it runs (not a zombie), and its parent; (0, False, 0)
    for one that is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        # After the command name: state, ppid, pgrp, ...
        return int(fields[2]), fields[0] not in (b"Z", b"X"), int(fields[1])
    except (OSError, IndexError, ValueError):
        return 0, False, 0
